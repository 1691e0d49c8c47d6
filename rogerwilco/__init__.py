"""rogerwilco: the reference Python implementation of RW1.

A json-like front door::

    import rogerwilco
    msg = rogerwilco.loads("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT")
    msg.to_json(); msg.digest(); rogerwilco.dumps(msg)

``check_line`` reports every finding of a line without raising; ``refusal``
builds the ``UN`` reply a receiver sends for a line it must not guess at;
``scan`` finds messages in logs and yields records, ``to_arrow`` makes them an
Arrow table (the ``parquet`` extra).

The reference codec's API (``rogerwilco`` 0.3.0, which this package
succeeds) is here too, unchanged: ``parse``, ``validate``, ``check_rb_full``,
``make_rb``, ``legend`` ... return what they returned there
(:mod:`rogerwilco.front.reference_api`; docs/migrating.md).
"""

from __future__ import annotations

import sys
import types

from . import _public

_public.install()  # rogerwilco.endpoint, rogerwilco.scan ...: the documented paths into the layer folders

from ._public import TYPE_CHECKING  # (False: typing is not imported, so `import rogerwilco` stays light)

if TYPE_CHECKING:
    from typing import IO, Any, Callable, Iterable, Iterator

    from .core.errors import EncodeError, ProfileError, RefusedError, RW1Error, RW1SyntaxError
    from .core.findings import Finding
    from .core.message import Message, Source
    from .core.semantics import LineResult, check_line, refusal
    from .core.vocab import Receiver
    from .io.stream import read_lines, validate_stream

    def loads(line: str, profiles: Receiver | Iterable[Any] | None = None) -> Message:
        """Parse and validate one line into a Message (raises an RW1Error)."""
del TYPE_CHECKING

from .core._version import __version__

# The reference codec's names (0.3.0), each with its call and return shape there.
_REFERENCE = (
    "FormError", "PROFILES", "VERSION", "canonical", "check_dn", "check_ho", "check_rb", "check_rb_full",
    "check_thread", "compare_acc", "digest", "encode", "from_json", "legend", "load_core", "load_profile",
    "make_rb", "now_utc", "parse", "to_json", "validate",
)

__all__ = [
    "EncodeError", "Endpoint", "Finding", "LineResult", "Message", "ProfileError", "ProtocolError", "Receiver", "RefusedError",
    "RW1Error", "RW1SyntaxError", "Source", "check_line", "dump", "dumps", "load",
    "loads", "read_lines", "refusal", "scan", "to_arrow", "validate_stream", *_REFERENCE,
]


# Imported on first use, so that a process pays only for what it uses: `import rogerwilco` loads neither
# attrs nor the vocabulary, and a `rogerwilco validate` whose lines the C scanner settles never does
# (rogerwilco.front.quick).
_LAZY = {"EncodeError": "core.errors", "ProfileError": "core.errors", "RefusedError": "core.errors",
         "RW1Error": "core.errors", "RW1SyntaxError": "core.errors", "Finding": "core.findings",
         "Message": "core.message", "Source": "core.message", "LineResult": "core.semantics",
         "check_line": "core.semantics", "refusal": "core.semantics", "Receiver": "core.vocab",
         "read_lines": "io.stream", "validate_stream": "io.stream",
         "Endpoint": "checks.endpoint", "ProtocolError": "checks.endpoint", "scan": "scan", "to_arrow": "scan",
         **{name: "front.reference_api" for name in _REFERENCE}}


class _Package(types.ModuleType):
    """The package module. ``rogerwilco.scan`` is the function (the records API)
    and ``rogerwilco.legend`` the reference's legend function, while the modules
    of those paths stay importable: when the import system binds such a module
    to its parent, the binding is left out, and the attribute stays the function."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    import importlib

    module = _LAZY.get(name)
    if name == "loads":
        value: Any = _bound_loads()
    elif module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif name in _public.PUBLIC or name in _public.MOVED:  # rogerwilco.readback.check_rb, without an import first
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'rogerwilco' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"loads"})


def _bound_loads() -> Callable[..., Message]:
    """``rogerwilco.loads``, made on first use with the accept path ``rogerwilco.speedups`` picks: a run
    that reads no line through it (the CLI's ``validate``, say) neither loads nor compiles that path."""
    from .core.speedups import loads_line

    def loads(line: str, profiles: Receiver | Iterable[Any] | None = None) -> Message:
        """Parse and validate one line into a Message (raises an RW1Error)."""
        return loads_line(line, profiles)

    loads.__qualname__ = "loads"
    return loads


def dumps(message: Message) -> str:
    """Write a Message as its line."""
    return message.to_line()


def load(fp: IO[str] | IO[bytes], profiles: Receiver | Iterable[Any] | None = None) -> Iterator[LineResult]:
    """Every line of a stream, checked: one LineResult per input line, none dropped."""
    from .io.stream import validate_stream

    return validate_stream(fp, profiles)


def dump(messages: Iterable[Message], fp: IO[str]) -> None:
    """Write messages one per line."""
    for message in messages:
        fp.write(message.to_line() + "\n")
