"""Old names kept for one release: a module's ``__getattr__`` that warns, then answers.

A module that renamed a public name lists ``{old: (new name, value)}`` and sets
``__getattr__ = renamed(__name__, {...})``; the old name keeps working with a
DeprecationWarning that names the new one, and goes in the next release.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Mapping


def renamed(module: str, names: Mapping[str, tuple[str, Any]]) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        found = names.get(name)
        if found is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new, value = found
        warnings.warn(f"{module}.{name} is now {module}.{new}; the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return value

    return __getattr__
