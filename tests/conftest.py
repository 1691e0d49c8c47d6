"""Test configuration: property tests are reproducible in CI.

Under ``CI`` (set by the CI runner) hypothesis draws the same examples on
every run, so a landing never depends on luck; locally it explores afresh
each run, and the example database remembers any failure it finds.

``reference_dir`` is the published reference codec, unpacked: the folder
``RW1_REFERENCE_DIR`` names (``.ci/run`` sets it), or, when it is unset, a
copy this fixture downloads (``pip download``, hash pinned) into pytest's
cache, so a ``pytest`` run by hand needs nothing set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# --------------------------------------------------------------------------
# The published reference codec, rogerwilco 0.3.0: its suite and its profiles
# are what this package is measured against. It is downloaded, never vendored
# and never installed (its import name is this package's). CI downloads it once
# (.ci/run) and names the unpacked folder in RW1_REFERENCE_DIR; a run by hand
# without it downloads into pytest's cache. A failed download fails the tests
# that need it: they are never skipped.

REFERENCE_VERSION = "0.3.0"
REFERENCE_SHA256 = "11b26bc59b604d7fd2de47d835c6443126d0afe868b00d0255ec7f3c3da96f15"


def _unpacked_reference(folder: Path) -> Path:
    """The package folder of an unpacked reference wheel, checked for what the tests read."""
    package = folder / "rogerwilco" if (folder / "rogerwilco").is_dir() else folder
    for needed in ("tests/conformance.jsonl", "profiles/pay.json", "profiles/core.json"):
        if not (package / needed).is_file():
            pytest.fail(f"the reference codec at {package} has no {needed}: RW1_REFERENCE_DIR names the folder "
                        f"rogerwilco {REFERENCE_VERSION}'s wheel unpacks to", pytrace=False)
    return package


def _download_reference(into: Path) -> Path:
    """pip download the pinned wheel (hash checked) and unpack it."""
    import subprocess
    import sys
    import zipfile

    into.mkdir(parents=True, exist_ok=True)
    requirement = into / "requirements.txt"
    requirement.write_text(f"rogerwilco=={REFERENCE_VERSION} --hash=sha256:{REFERENCE_SHA256}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
                           "-r", str(requirement), "-d", str(into)], capture_output=True, text=True)
    wheel = into / f"rogerwilco-{REFERENCE_VERSION}-py3-none-any.whl"
    if done.returncode != 0 or not wheel.is_file():
        pytest.fail(f"could not download the reference codec rogerwilco=={REFERENCE_VERSION} "
                    f"(pip exit {done.returncode}): {done.stderr.strip()[-500:]}; set RW1_REFERENCE_DIR to an "
                    "unpacked copy of its wheel to run without the network", pytrace=False)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(into / "unpacked")
    return into / "unpacked"


@pytest.fixture(scope="session")
def reference_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked reference codec: its ``profiles/`` and ``tests/conformance.jsonl``."""
    named = os.environ.get("RW1_REFERENCE_DIR")
    if named:
        return _unpacked_reference(Path(named))
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    folder = (cache.mkdir(f"rogerwilco-{REFERENCE_VERSION}") if cache is not None
              else tmp_path_factory.mktemp(f"rogerwilco-{REFERENCE_VERSION}"))
    if not (folder / "unpacked" / "rogerwilco" / "tests" / "conformance.jsonl").is_file():
        _download_reference(folder)
    return _unpacked_reference(folder / "unpacked")
