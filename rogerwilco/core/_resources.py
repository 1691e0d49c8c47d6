"""Where the grammar, the vocabulary data and the conformance suite live.

They live once, at the top of the repository. A wheel carries them inside the
package as ``rogerwilco/_data/``; an editable install or a source checkout
finds them beside the package.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # the package, above core/


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    """The directory ``grammar``, ``profiles`` or ``conformance``."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"rogerwilco data directory {name!r} not found beside {_PACKAGE}")


def grammar_path() -> Path:
    return data_dir("grammar") / "rw1.lark"


def profile_path(name: str) -> Path:
    return data_dir("profiles") / f"{name}.json"
