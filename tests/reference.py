"""Where the published reference codec (``rogerwilco`` 0.3.0, unpacked) is: ``RW1_REFERENCE_DIR``.

The tests that compare with the reference read its files from this one place:
the unpacked wheel's ``rogerwilco/`` folder (``tests/conformance.jsonl``,
``profiles/``, ``scripts/rogerwilco.py``). ``RW1_REFERENCE_DIR`` names it;
unset, the copy unpacked on the development machine is used.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

_UNPACKED = "/work/ref/whl/rogerwilco"


def reference_dir() -> Path:
    """The unpacked reference package's folder (it holds ``tests/conformance.jsonl``)."""
    folder = Path(os.environ.get("RW1_REFERENCE_DIR") or _UNPACKED)
    if not (folder / "tests" / "conformance.jsonl").is_file():
        raise FileNotFoundError(f"{folder} holds no tests/conformance.jsonl: set RW1_REFERENCE_DIR to the unpacked "
                                "rogerwilco 0.3.0 wheel's rogerwilco/ folder")
    return folder


def reference_cases() -> list[dict[str, Any]]:
    """The published conformance cases, in order."""
    text = (reference_dir() / "tests" / "conformance.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
