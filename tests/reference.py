"""Where the published reference codec (``rogerwilco`` 0.3.0, unpacked) is.

The tests that compare with the reference read its files from this one place:
the unpacked wheel's ``rogerwilco/`` folder (``tests/conformance.jsonl``,
``profiles/``, ``scripts/rogerwilco.py``). ``RW1_REFERENCE_DIR`` names it
(``.ci/run`` sets it); unset, the wheel is downloaded once (``pip download``,
hash pinned) into the user's cache folder, so a ``pytest`` run by hand needs
nothing set. It is never vendored and never installed: its import name is this
package's. A failed download is an error naming the cause, never a skip.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

REFERENCE_VERSION = "0.3.0"
REFERENCE_SHA256 = "11b26bc59b604d7fd2de47d835c6443126d0afe868b00d0255ec7f3c3da96f15"
_NEEDED = ("tests/conformance.jsonl", "profiles/pay.json", "profiles/core.json", "scripts/rogerwilco.py")


class ReferenceUnavailable(RuntimeError):
    """The reference codec could not be found or downloaded."""


def _package(folder: Path) -> Path:
    """The package folder of an unpacked reference wheel, checked for what the tests read."""
    package = folder / "rogerwilco" if (folder / "rogerwilco").is_dir() else folder
    for needed in _NEEDED:
        if not (package / needed).is_file():
            raise ReferenceUnavailable(f"the reference codec at {package} has no {needed}: RW1_REFERENCE_DIR names "
                                       f"the folder rogerwilco {REFERENCE_VERSION}'s wheel unpacks to")
    return package


def download(into: Path) -> Path:
    """pip download the pinned wheel (hash checked) into ``into`` and unpack it; the unpacked folder."""
    unpacked = into / "unpacked"
    if (unpacked / "rogerwilco" / "tests" / "conformance.jsonl").is_file():
        return unpacked
    into.mkdir(parents=True, exist_ok=True)
    requirement = into / "requirements.txt"
    requirement.write_text(f"rogerwilco=={REFERENCE_VERSION} --hash=sha256:{REFERENCE_SHA256}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
                           "-r", str(requirement), "-d", str(into)], capture_output=True, text=True)
    wheel = into / f"rogerwilco-{REFERENCE_VERSION}-py3-none-any.whl"
    if done.returncode != 0 or not wheel.is_file():
        raise ReferenceUnavailable(f"could not download the reference codec rogerwilco=={REFERENCE_VERSION} "
                                   f"(pip exit {done.returncode}): {done.stderr.strip()[-500:]}; set "
                                   "RW1_REFERENCE_DIR to an unpacked copy of its wheel to run without the network")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    return unpacked


@functools.lru_cache(maxsize=None)
def reference_dir() -> Path:
    """The unpacked reference package's folder: ``RW1_REFERENCE_DIR``, else a download into the cache folder."""
    named = os.environ.get("RW1_REFERENCE_DIR")
    if named:
        return _package(Path(named))
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / f"rogerwilco-reference-{REFERENCE_VERSION}"
    return _package(download(cache))


def reference_cases() -> list[dict[str, Any]]:
    """The published conformance cases, in order."""
    text = (reference_dir() / "tests" / "conformance.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
