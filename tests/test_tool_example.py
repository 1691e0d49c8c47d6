"""The pay-tool example runs end to end from its documented command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.bounds import HANG

ROOT = Path(__file__).resolve().parent.parent


def test_pay_tool_example_runs_clean():
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "PYTHON": sys.executable}
    done = subprocess.run(["sh", str(ROOT / "examples" / "pay-tool" / "run.sh")], capture_output=True, env=env,
                          cwd=ROOT, timeout=HANG)
    out = done.stdout.decode()
    assert done.returncode == 0, out + done.stderr.decode()
    assert "second commit refused" in out
    assert "check-dn: PASS" in out
    assert "passed: 0 fails, 0 notes" in out
    assert out.rstrip().endswith("ledger: 1 payment, invoice paid")
    assert (ROOT / "examples" / "pay-tool" / "world.json").read_text().count('"open"') == 1  # the original is untouched
