"""The import paths users rely on, answered from the layer folders.

The code lives in four layer folders (``rogerwilco/core``, ``checks``, ``io``,
``front``: docs/architecture.md), each importing only from those below it.
The documentation gives modules by their short paths: ``rogerwilco.endpoint``,
``rogerwilco.scan``, ``rogerwilco.records``, ``rogerwilco.integrations.langgraph``
and the others in :data:`PUBLIC`. A finder on ``sys.meta_path`` answers a short
path with the very module object of its folder, so
``rogerwilco.endpoint is rogerwilco.checks.endpoint``: one module, two names,
and patching or checking ``isinstance`` through either is the same.

The other paths of the flat package (``rogerwilco.semantics``,
``rogerwilco.commands.lint`` ...) were never documented; they keep working for
one release with a DeprecationWarning that names the path to use, and then go.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import ModuleType

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing on every run)
if TYPE_CHECKING:
    from typing import Sequence

    from importlib.abc import Loader as _Loader, MetaPathFinder as _Finder
else:
    # The import system asks a finder and a loader only for their methods. importlib.abc
    # itself imports importlib.resources (and tempfile, shutil, random ...): work every
    # run of the CLI would pay for base classes that only name the methods.
    _Loader = _Finder = object

#: documented short path (a module or package under ``rogerwilco``) -> its layer folder
PUBLIC: dict[str, str] = {
    "a2a": "front", "display": "core", "endpoint": "checks", "errors": "core", "handoff": "checks",
    "integrations": "front", "iregexp": "core", "ledger": "checks", "legend": "core", "lint": "io",
    "readback": "checks", "records": "io", "scan": "io", "slottypes": "core", "speedups": "core", "testing": "front",
    "thread": "checks", "tool": "front", "tools": "front", "vocab": "core",
    # console scripts installed by earlier releases name rogerwilco.cli:run
    "cli": "front",
}

#: the flat package's other modules -> their layer folder (deprecated paths, for one release)
MOVED: dict[str, str] = {
    "_fastpath": "core", "_lru": "core", "_resources": "core", "abnf": "core", "extras": "core",
    "findings": "core", "jsonform_schema": "core", "message": "core", "schemacheck": "core",
    "semantics": "core", "suggest": "core", "syntax": "core", "accept": "core",
    "comprehension": "checks", "crosswalk": "checks", "evidence": "checks",
    "lint_config": "io", "sarif": "io", "stream": "io",
    "adapter": "front", "commands": "front", "conformance": "front", "difftest": "front",
    "editor": "front", "lsp": "front", "mcp_server": "front", "ops": "front", "render": "front",
}


def target(name: str) -> tuple[str, bool] | None:
    """(the module's path in its layer folder, whether the short path is deprecated), or None."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "rogerwilco":
        return None
    top = parts[1]
    layer = PUBLIC.get(top)
    deprecated = layer is None
    if layer is None:
        layer = MOVED.get(top)
    if layer is None:
        return None
    return ".".join(["rogerwilco", layer, *parts[1:]]), deprecated


class _SameModule(_Loader):
    """Loads a short path as the module already at its layer path (imported first if need be)."""

    def __init__(self, real: str, deprecated: bool) -> None:
        self.real = real
        self.deprecated = deprecated
        self.real_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        if self.deprecated:
            warnings.warn(f"the module path {spec.name} goes in the next release; import {self.real}",
                          DeprecationWarning, stacklevel=2)
        module = importlib.import_module(self.real)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module ran under its own name); only its own spec is given back.

        The import system sets ``__spec__`` to the short path's; the module keeps
        its name, package and spec, so its relative imports resolve as before.
        """
        module.__spec__ = self.real_spec


class _ShortPaths(_Finder):
    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target_module: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        found = target(fullname)
        if found is None:
            return None
        real, deprecated = found
        import importlib.util  # here: a run that takes no short path does not load it

        if importlib.util.find_spec(real) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _SameModule(real, deprecated))


def install() -> None:
    if not any(isinstance(f, _ShortPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _ShortPaths())
