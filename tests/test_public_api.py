"""The public API is small and deliberate: documented exactly as ``__all__`` says, old names kept one release.

docs/architecture.md lists every module users import and the names each
exports; each of those modules declares the same names in ``__all__``, and
each name is there to import. Every integration module is listed. Renamed
names answer with a DeprecationWarning that names their replacement.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from pathlib import Path

import rogerwilco

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `(rogerwilco(?:\.[a-z_]+)*)` \| (.*) \|$")

def documented() -> dict[str, set[str]]:
    """The table of docs/architecture.md's public API section: module -> names."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.split(r"\n##+ ", text.split("## The public API", 1)[1], maxsplit=1)[0]
    table = {}
    for line in section.splitlines():
        m = ROW.match(line)
        if m:
            table[m.group(1)] = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", m.group(2)))
    return table

def module(path: str):
    importlib.import_module(path)
    return sys.modules[path]  # rogerwilco.scan, the attribute, is the function; the path is the module

def test_the_documented_api_is_exactly_what_each_all_exports():
    table = documented()
    assert "rogerwilco" in table and len(table) > 10
    for path, names in table.items():
        exported = set(module(path).__all__)
        assert exported == names, (f"{path}: documented but not in __all__: {sorted(names - exported)}; "
                                   f"in __all__ but not documented: {sorted(exported - names)}")

def test_every_exported_name_is_there_to_import():
    for path in documented():
        mod = module(path)
        missing = [name for name in mod.__all__ if not hasattr(mod, name)]
        assert missing == [], f"{path}.__all__ names what it does not have: {missing}"

def test_every_integration_is_documented():
    import rogerwilco.integrations as integrations

    listed = {p for p in documented() if p.startswith("rogerwilco.integrations.")}
    present = {f"rogerwilco.integrations.{m.name}" for m in pkgutil.iter_modules(integrations.__path__)
               if not m.name.startswith("_")}
    assert present == listed, "list each integration module and its __all__ in docs/architecture.md"

def test_the_package_version_is_the_projects():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == rogerwilco.__version__

def bound(target) -> list[str]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``), not ``x.attr`` or ``x[i]``."""
    import ast

    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in bound(element)]
    if isinstance(target, ast.Starred):
        return bound(target.value)
    return []

def defined_names(path: Path) -> list[str]:
    """The names a module's own top level defines (functions, classes, assignments), not those it imports."""
    import ast

    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names += bound(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if not (n.startswith("__") and n.endswith("__"))]

def test_a_documented_module_defines_no_public_name_outside_its_all():
    """Everything a user may import is in ``__all__``; the rest of a public module is ``_private``."""
    outside = {}
    for path in documented():
        mod = module(path)
        stray = sorted({n for n in defined_names(Path(mod.__file__)) if not n.startswith("_")} - set(mod.__all__))
        if stray:
            outside[path] = stray
    assert outside == {}, f"public-looking names not in __all__ (add them to __all__ and the table, or prefix _): {outside}"

def test_the_stray_name_check_sees_a_stray_name(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import os\nfrom x import y\n__all__ = ['a']\n_p = 1\ndef a(): pass\nclass B: pass\nC: int = 1\n"
                      "def __getattr__(name): pass\nd, (e, *_f) = 1, (2, 3)\nsys.x = 1\nif True:\n    g = 1\n", encoding="utf-8")
    assert defined_names(source) == ["_p", "a", "B", "C", "d", "e", "_f"]
