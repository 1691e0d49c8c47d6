"""``pip install .`` builds the C scanner, and a failed build never fails the install.

Two real wheel builds of this clone through pip and the build backend
(hatchling with hatch_build.py; no build isolation, so nothing is downloaded):
one with the machine's compiler, whose wheel carries the extension and, once
unpacked, is what the package imports; one with ``CC`` pointing at a compiler
that always fails, whose build still succeeds, as a pure-Python wheel, with
the one-line note. Each is bounded by a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.bounds import HANG

ROOT = Path(__file__).resolve().parents[1]
NOTE = "rogerwilco: the C scanner was not built"


def build_wheel(out: Path, **env: str) -> tuple[Path, str]:
    environ = {k: v for k, v in os.environ.items() if k != "RW1_PURE"}
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-v",
                           "-w", str(out), str(ROOT)], env={**environ, **env}, capture_output=True, text=True,
                          timeout=HANG)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
    (wheel,) = out.glob("rogerwilco-*.whl")
    return wheel, proc.stdout + proc.stderr


def test_the_wheel_carries_the_c_scanner(tmp_path: Path) -> None:
    wheel, output = build_wheel(tmp_path / "dist")
    assert NOTE not in output
    assert not wheel.name.endswith("-py3-none-any.whl")  # a platform wheel
    names = zipfile.ZipFile(wheel).namelist()
    built = [n for n in names if n.endswith((".so", ".pyd"))]
    assert len(built) == 1 and built[0].startswith("rogerwilco/core/_scan."), built  # one compiled path, no other
    assert "rogerwilco/core/accept.py" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # the quick path of `rogerwilco validate` too: its tables and the scanner's sources ship beside the extension
    code = ("import rogerwilco, rogerwilco.speedups as s, rogerwilco.core.verdict as v\n"
            "print(s.active, s.scanning, v.load() is not None, rogerwilco.__file__)")
    for pure, want, scanning in (("", "compiled", "True"), ("1", "pure", "False")):
        env = {**os.environ, "PYTHONPATH": str(site), "RW1_PURE": pure}
        proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=HANG)
        assert proc.returncode == 0, proc.stderr
        active, scans, quick, where = proc.stdout.split()
        assert (active, scans, quick, Path(where).is_relative_to(site)) == (want, scanning, scanning, True)


def test_a_compiler_that_fails_gives_a_pure_wheel_and_a_note(tmp_path: Path) -> None:
    failing = tmp_path / "cc"
    failing.write_text("#!/bin/sh\necho 'cc: cannot compile' >&2\nexit 1\n", encoding="utf-8")
    failing.chmod(0o755)
    wheel, output = build_wheel(tmp_path / "dist", CC=str(failing))
    assert wheel.name.endswith("-py3-none-any.whl")
    assert [line for line in output.splitlines() if NOTE in line][0].endswith("installing pure Python")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    assert "rogerwilco/core/accept.py" in names and "rogerwilco/core/speedups.py" in names
