"""benchmarks/refusal_instructions.py counts under callgrind what a refused line costs against the same line valid."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_it_counts_a_refused_line_above_the_same_line_valid():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "refusal_instructions.py"), "--lines", "40",
                           "--kinds", "unknown code"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    row = re.search(r"unknown code\s+valid\s+([\d,]+)\s+refused\s+([\d,]+)\s+([\d.]+)x\s+\((\d+) lines\)", proc.stdout)
    assert row is not None, proc.stdout
    valid, refused = (int(row.group(i).replace(",", "")) for i in (1, 2))
    assert 1000 < valid < refused and int(row.group(4)) > 0
    assert abs(float(row.group(3)) - refused / valid) < 0.01
