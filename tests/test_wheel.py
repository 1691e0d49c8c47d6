"""The built wheel carries the grammar and the profiles and works on its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_installs_into_a_fresh_venv_and_parses(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    (wheel,) = dist.glob("rogerwilco-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    # The fresh interpreter sees the wheel's files and the dependencies' own
    # directories, never the source tree.
    deps = {Path(__import__(m).__file__).resolve().parent.parent for m in ("lark", "attrs", "rich", "markdown_it", "mdurl", "pygments")}
    env = {"PYTHONPATH": os.pathsep.join([str(target), *map(str, sorted(deps))]), "PATH": os.environ.get("PATH", "")}
    code = (
        "import rogerwilco, sys;"
        "assert 'site' in rogerwilco.__file__ and '_data' in str(rogerwilco._resources.grammar_path()), rogerwilco.__file__;"
        "m = rogerwilco.loads(sys.argv[1], ['pay']);"
        "print(m.digest())"
    )
    line = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
            "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    proc = subprocess.run([str(python), "-c", "import rogerwilco.core._resources;" + code, line], env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "a7a82de76607"
    # the audit report's page (its script and stylesheet are package data beside the module) comes with the wheel
    (tmp_path / "c.rw1").write_text(line + "\n", encoding="utf-8")
    proc = subprocess.run([str(python), "-m", "rogerwilco", "report", "c.rw1", "-o", "c.html", "--now", "20261001T0000Z"],
                          env=env, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert 'id="rw1-data"' in page and "textContent" in page and "@media print" in page
