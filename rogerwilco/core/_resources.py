"""Where the grammar, the vocabulary data and the conformance suite live.

They live once, at the top of the repository. A wheel carries them inside the
package as ``rogerwilco/_data/``; an editable install or a source checkout
finds them beside the package.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# os.path, not pathlib: reading the core vocabulary is part of every run of the CLI, and
# importing pathlib (with fnmatch, urllib.parse and ipaddress) would be too.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the package, above core/


@lru_cache(maxsize=None)
def data_folder(name: str) -> str:
    """The directory ``grammar``, ``profiles`` or ``conformance``, as a string."""
    for candidate in (os.path.join(_PACKAGE, "_data", name), os.path.join(os.path.dirname(_PACKAGE), name)):
        if os.path.isdir(candidate):
            return candidate
    raise FileNotFoundError(f"rogerwilco data directory {name!r} not found beside {_PACKAGE}")


def data_dir(name: str) -> Path:
    """The directory ``grammar``, ``profiles`` or ``conformance``."""
    from pathlib import Path

    return Path(data_folder(name))


def grammar_path() -> Path:
    return data_dir("grammar") / "rw1.lark"


def profile_path(name: str) -> Path:
    return data_dir("profiles") / f"{name}.json"


def profile_file(name: str) -> str:
    """The bundled data file ``profiles/NAME.json``, as a string."""
    return os.path.join(data_folder("profiles"), f"{name}.json")
