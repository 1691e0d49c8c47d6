"""Build hook: the C scanner, where this machine can build it.

``pip install .`` (a wheel) compiles ``rogerwilco/core/_scan.c`` (the
extension ``rogerwilco.core._scan``, driven by tables
:mod:`rogerwilco.core.scanner` builds at run time) with the C compiler Python
was built with (``CC`` overrides it). ``rogerwilco.speedups`` says whether the
package uses it (``RW1_PURE=1`` turns it off).

Where it cannot be built (no C compiler, a compiler that fails, a build that
runs too long) the wheel is pure Python, with one line on stderr saying why:
a failed build never fails the install. Editable installs stay pure Python
(run ``python hatch_build.py --inplace`` in a clone to build the extension
next to the sources, as CI does).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
BUILD_SECONDS = int(os.environ.get("RW1_BUILD_TIMEOUT", "900"))


SCANNER_SOURCE = "rogerwilco/core/_scan.c"
SCANNER_MODULE = "rogerwilco.core._scan"
# what the stamp covers, in order (rogerwilco.core.scanner.SOURCES)
STAMPED = ("rogerwilco/core/_scan.c", "rogerwilco/core/_scan_classes.h")


def source_stamp(text: str) -> str:
    """The stamp the scanner carries of its sources (as rogerwilco.core.scanner.source_stamp)."""
    data = text.encode("utf-8")
    return f"{zlib.crc32(data):08x}{len(data):08x}"


def build_scanner(root: Path, out: Path) -> list[tuple[Path, str]]:
    """Compile the C scanner with the machine's C compiler; [(built file, its path in the wheel)]. Raises on any failure."""
    ext = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if sys.platform == "win32":
        raise RuntimeError("the C scanner is built with a Unix C compiler; none is set up here")
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    rel = SCANNER_MODULE.replace(".", "/") + ext
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    stamp = source_stamp("".join((root / name).read_text(encoding="utf-8") for name in STAMPED))
    flags = ["-shared", "-fPIC", "-O3", "-std=c99", "-fno-strict-aliasing", "-I", sysconfig.get_paths()["include"],
             f'-DRW1_BUILT_FROM="{stamp}"']
    if sys.platform == "darwin":
        flags += ["-undefined", "dynamic_lookup"]
    proc = subprocess.run([*compiler, *flags, str(root / SCANNER_SOURCE), "-o", str(target)], capture_output=True,
                          text=True, timeout=BUILD_SECONDS)
    if proc.returncode != 0:
        said = (proc.stdout + proc.stderr).splitlines()
        raise RuntimeError(f"the C compiler exited {proc.returncode}: {(said or ['no output'])[0][:200]}")
    return [(target, rel)]


def try_build_scanner(root: Path, out: Path) -> list[tuple[Path, str]]:
    """build_scanner, or [] with a one-line note on stderr."""
    if os.environ.get("RW1_PURE", "") not in ("", "0"):
        print("rogerwilco: RW1_PURE is set: installing pure Python", file=sys.stderr)
        return []
    if sys.implementation.name != "cpython":
        print(f"rogerwilco: the C scanner is for CPython ({sys.implementation.name} here); installing pure Python",
              file=sys.stderr)
        return []
    try:
        return build_scanner(root, out)
    except (OSError, subprocess.TimeoutExpired, RuntimeError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
    print(f"rogerwilco: the C scanner was not built ({reason}); installing pure Python", file=sys.stderr)
    return []


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script without hatchling
    BuildHookInterface = object  # type: ignore[misc,assignment]


class ScannerHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._out = Path(tempfile.mkdtemp(prefix="rw1-ext-"))
        built = try_build_scanner(Path(self.root), self._out)
        if not built:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path, rel in built:
            build_data["force_include"][str(path)] = rel

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        out = getattr(self, "_out", None)
        if out is not None:
            shutil.rmtree(out, ignore_errors=True)


def main(argv: list[str]) -> int:
    """``python hatch_build.py --inplace``: build the C scanner next to the sources of this clone."""
    if argv != ["--inplace"]:
        print("usage: python hatch_build.py --inplace", file=sys.stderr)
        return 2
    built = build_scanner(ROOT, ROOT)
    for path, _ in built:
        print(f"built {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
