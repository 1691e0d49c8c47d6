"""Build hook: the compiled accept path, where this machine can build it.

``pip install .`` (a wheel) compiles the modules in :data:`COMPILED` with
mypyc: each is the very source of a pure-Python module of the package,
compiled under a second name (``rogerwilco/core/accept.py`` becomes the
extension ``rogerwilco.core._accept_c``), so the pure module and the compiled
one are the same text and both are importable; ``rogerwilco.speedups`` says
which one the package uses (``RW1_PURE=1`` forces the pure one).

It also compiles the C scanner, ``rogerwilco/core/_scan.c`` (the extension
``rogerwilco.core._scan``, driven by tables :mod:`rogerwilco.core.scanner`
builds at run time), with the C compiler Python was built with (``CC``
overrides it). Each extension is built, or left out with its own line, alone.

Where the extension cannot be built (no mypyc, no C compiler, a compiler
that fails, a build that runs too long) the wheel is pure Python, with one
line on stderr saying why: a failed build of the extension never fails the
install. Editable installs stay pure Python (run ``python hatch_build.py
--inplace`` in a clone to build the extension next to the sources, as CI does).
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
PACKAGE = "rogerwilco"
# source module (path in the package) -> the compiled twin's module name
COMPILED = {"rogerwilco/core/accept.py": "rogerwilco.core._accept_c"}
BUILD_SECONDS = int(os.environ.get("RW1_BUILD_TIMEOUT", "900"))
_MYPY_INI = """[mypy]
ignore_missing_imports = True
follow_imports = silent
"""


def source_stamp(text: str) -> str:
    """The stamp a compiled twin carries: it was built from exactly this source (as rogerwilco.core.speedups)."""
    data = text.encode("utf-8")
    return f"{zlib.crc32(data):08x}{len(data):08x}"


def build_extensions(root: Path, out: Path) -> list[tuple[Path, str]]:
    """Compile COMPILED with mypyc; [(built file, its path in the wheel)]. Raises on any failure."""
    ext = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    with tempfile.TemporaryDirectory(prefix="rw1-mypyc-") as tmp:
        work = Path(tmp)
        shutil.copytree(root / PACKAGE, work / PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
        (work / "mypy.ini").write_text(_MYPY_INI, encoding="utf-8")
        targets = []
        for source, module in COMPILED.items():
            text = (root / source).read_text(encoding="utf-8")
            twin = Path(*module.split(".")).with_suffix(".py")
            (work / twin).write_text(f"{text}\n\nBUILT_FROM = {source_stamp(text)!r}\n", encoding="utf-8")
            targets.append(str(twin))
        env = dict(os.environ, MYPYC_OPT_LEVEL=os.environ.get("MYPYC_OPT_LEVEL", "3"))
        proc = subprocess.run([sys.executable, "-m", "mypyc", "--config-file", "mypy.ini", *targets], cwd=work,
                              env=env, capture_output=True, text=True, timeout=BUILD_SECONDS)
        if proc.returncode != 0:
            said = (proc.stdout + proc.stderr).splitlines()
            tail = [line for line in said if "error" in line][:1] or said[-1:] or ["no output"]
            raise RuntimeError(f"mypyc exited {proc.returncode}: {tail[0][:200]}")
        built = []
        for path in work.rglob(f"*{ext}"):
            rel = path.relative_to(work)
            if rel.parts[0] == "build":
                continue
            out.joinpath(rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, out / rel)
            built.append((out / rel, rel.as_posix()))
        if not any(rel.endswith(module.replace(".", "/") + ext) for _, rel in built for module in COMPILED.values()):
            raise RuntimeError("mypyc built no extension")
        return built


SCANNER_SOURCE = "rogerwilco/core/_scan.c"
SCANNER_MODULE = "rogerwilco.core._scan"


def build_scanner(root: Path, out: Path) -> list[tuple[Path, str]]:
    """Compile the C scanner with the machine's C compiler; [(built file, its path in the wheel)]. Raises on any failure."""
    ext = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if sys.platform == "win32":
        raise RuntimeError("the C scanner is built with a Unix C compiler; none is set up here")
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    rel = SCANNER_MODULE.replace(".", "/") + ext
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = ["-shared", "-fPIC", "-O3", "-std=c99", "-fno-strict-aliasing", "-I", sysconfig.get_paths()["include"]]
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
    if os.environ.get("RW1_PURE", "") not in ("", "0") or sys.implementation.name != "cpython":
        return []  # try_build has said why
    try:
        return build_scanner(root, out)
    except (OSError, subprocess.TimeoutExpired, RuntimeError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
    print(f"rogerwilco: the C scanner was not built ({reason}); installing without it", file=sys.stderr)
    return []


def try_build(root: Path, out: Path) -> list[tuple[Path, str]]:
    """build_extensions, or [] with a one-line note on stderr."""
    if os.environ.get("RW1_PURE", "") not in ("", "0"):
        print("rogerwilco: RW1_PURE is set: installing the pure-Python accept path", file=sys.stderr)
        return []
    if sys.implementation.name != "cpython":
        print(f"rogerwilco: the compiled accept path is for CPython ({sys.implementation.name} here); "
              "installing pure Python", file=sys.stderr)
        return []
    try:
        return build_extensions(root, out)
    except ImportError as exc:
        reason = f"mypyc is not available ({exc})"
    except subprocess.TimeoutExpired:
        reason = f"the build ran over {BUILD_SECONDS} s"
    except Exception as exc:  # noqa: BLE001 - whatever went wrong, the pure path installs
        reason = f"{type(exc).__name__}: {exc}"
    print(f"rogerwilco: the compiled accept path was not built ({reason}); installing pure Python",
          file=sys.stderr)
    return []


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script without hatchling
    BuildHookInterface = object  # type: ignore[misc,assignment]


class CompiledAcceptHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._out = Path(tempfile.mkdtemp(prefix="rw1-ext-"))
        built = try_build(Path(self.root), self._out) + try_build_scanner(Path(self.root), self._out)
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
    """``python hatch_build.py --inplace``: build the extension next to the sources of this clone."""
    if argv != ["--inplace"]:
        print("usage: python hatch_build.py --inplace", file=sys.stderr)
        return 2
    built = build_extensions(ROOT, ROOT) + build_scanner(ROOT, ROOT)
    for path, _ in built:
        print(f"built {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
