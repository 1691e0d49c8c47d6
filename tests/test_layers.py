"""The layers as folders: each imports only from those below it, and no private name crosses a module.

``rogerwilco/core`` (grammar, slot types, vocabulary, messages, the never-guess
pass, the codec, the Lark wrapper) < ``checks`` (readback, comprehension,
evidence, crosswalk, the lifecycle, the endpoint, threads) < ``io`` (streams,
scan, records, lint, SARIF) < ``front`` (CLI commands, adapter ops, MCP, A2A,
rendering, the tools, integrations). The package's own ``__init__`` (the front
door), ``__main__`` and ``_public`` (the documented short paths) stand above
them all, and nothing inside a layer imports them.

A name with a leading underscore is private to its module; the files of one
sub-package below a layer (``io/scan/``, ``front/commands/``) are one module
split in files and share theirs. A module with a leading underscore
(``core/_resources.py``) is private to the package, not to a layer.
Every import counts: top of a module, inside a function, under TYPE_CHECKING.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rogerwilco"
LAYERS = ("core", "checks", "io", "front")
TOP = len(LAYERS)  # the package root's own modules


def module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_of(p): p for p in PACKAGE.rglob("*.py")}


def layer_of(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else TOP


def is_package(module: str) -> bool:
    return module in MODULES and MODULES[module].name == "__init__.py"


def shares_privates(a: str, b: str) -> bool:
    """Whether modules a and b are files of one sub-package below a layer (rogerwilco.io.scan.*)."""
    def unit(m: str) -> str:
        parts = m.split(".")
        return ".".join(parts[:3]) if len(parts) > 3 or (len(parts) == 3 and is_package(m)) else m
    return layer_of(a) < TOP and unit(a) == unit(b) and unit(a).count(".") == 2 and is_package(unit(a))


def imports(module: str, source: str) -> list[tuple[int, str, str | None]]:
    """(line, imported module, imported attribute or None) for every import of the package in ``source``."""
    package = module if is_package(module) else module.rpartition(".")[0]
    out: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None) for a in node.names if a.name.split(".")[0] == "rogerwilco"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "rogerwilco":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((node.lineno, sub, None) if sub in MODULES else (node.lineno, target, a.name))
    return out


def problems(module: str, source: str) -> list[str]:
    """What ``module`` (with this source) imports against the layers."""
    found = []
    mine = layer_of(module)
    for line, target, name in imports(module, source):
        where = f"{module} line {line}"
        theirs = layer_of(target)
        if mine < TOP and theirs == TOP:
            found.append(f"{where}: imports the package's front door ({target}{'.' + name if name else ''})")
        elif theirs > mine:
            found.append(f"{where}: {LAYERS[mine]} imports {target} from the {LAYERS[theirs]} layer above it")
        if (name is not None and name.startswith("_") and not name.startswith("__") and target != module
                and not shares_privates(module, target)):
            found.append(f"{where}: reaches the private name {name} of {target}")
    return found


def test_every_module_sits_in_a_layer_folder():
    loose = sorted(m for m in MODULES if layer_of(m) == TOP and m not in (
        "rogerwilco", "rogerwilco.__main__", "rogerwilco._public"))
    assert loose == [], "modules outside the layer folders: " + ", ".join(loose)


def test_no_module_imports_a_layer_above_it_or_a_private_name_of_another():
    found = [p for m, path in sorted(MODULES.items()) for p in problems(m, path.read_text(encoding="utf-8"))]
    assert found == [], "\n".join(found)


def test_the_check_catches_an_import_up_a_layer_and_a_reach_for_a_private_name():
    """The rule bites: what it must refuse, it refuses (and what it must allow, it allows)."""
    up = problems("rogerwilco.core.message", "def f():\n    from ..checks.readback import check_rb\n")
    assert up == ["rogerwilco.core.message line 2: core imports rogerwilco.checks.readback from the checks layer above it"]
    private = problems("rogerwilco.checks.evidence", "from ..core.semantics import _condition_holds\n")
    assert private == ["rogerwilco.checks.evidence line 1: reaches the private name _condition_holds of rogerwilco.core.semantics"]
    door = problems("rogerwilco.io.sarif", "from .. import __version__\n")
    assert door == ["rogerwilco.io.sarif line 1: imports the package's front door (rogerwilco.__version__)"]
    assert problems("rogerwilco.front.cli", "from ..core.message import Message\nfrom ..io import scan\n") == []
    assert problems("rogerwilco.io.scan.records", "from .frames import _may_hold\n") == []
    assert problems("rogerwilco.checks.thread", "from ..core import _resources\n") == []
