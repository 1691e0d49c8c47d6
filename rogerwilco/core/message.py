"""The message: a frozen value with two forms, the line and the JSON form.

Theory of operation
-------------------
A :class:`Message` holds decoded values (decisions D1, D2): the envelope
(``v type id re from to item``) as attributes, every other keyed slot in
``slots`` in written order, and the tail. Equality is by decoded value, so
``pri=02`` and ``pri=2`` give equal messages; the source position (the raw
line, file and line number) is kept for logs and never compared.

Writing is type-agnostic because decoded values map back uniquely: ``bool``
is ``Y``/``N``, ``int`` its decimal, a tuple joins with ``+``, a string is
itself. Writing refuses (never strips or escapes) anything the grammar would
refuse: every written line is parsed back before it is returned, so no value
or tail can forge a second line (D3).

Reading and validation live in :mod:`rogerwilco.core.semantics`; the named
constructors here call it.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple

import attrs

from .codec import encode
from .errors import EncodeError, RW1SyntaxError
from .syntax import read_tail

if TYPE_CHECKING:
    from .vocab import Profiles

JSON_KEYS = ("v", "type", "id", "re", "from", "to", "item", "slots", "tail")


class Source(NamedTuple):
    """Where a message came from: the raw line, and its place in a stream.

    Never part of a message's equality. A named tuple: one is built per line.
    """

    text: str
    line: int | None = None
    file: str | None = None
    column: int | None = None


def _freeze(slots: Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(slots, MappingProxyType):
        return slots
    return MappingProxyType({k: tuple(v) if isinstance(v, list) else v for k, v in slots.items()})


@attrs.frozen(kw_only=True, hash=False)
class Message:
    """One RW1 message, decoded. Build it with the named constructors."""

    type: str
    id: str
    from_: str
    to: str
    re: str | None = None
    item: str | None = None
    slots: Mapping[str, Any] = attrs.field(factory=dict, converter=_freeze)
    tail: str | None = None
    v: str = "RW1"
    source: Source | None = attrs.field(default=None, eq=False, repr=False)

    # ---- named constructors -------------------------------------------------

    @classmethod
    def from_line(cls, line: str, profiles: Profiles = None, *, line_number: int | None = None) -> "Message":
        """Parse and validate a line; raise RW1SyntaxError or RefusedError."""
        from .speedups import loads_line

        return loads_line(line, profiles, line_number)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | str, profiles: Profiles = None) -> "Message":
        """Validate a JSON form (object or text); raise EncodeError or RefusedError."""
        from .semantics import message_from_json

        return message_from_json(obj, profiles)

    # ---- the two forms ------------------------------------------------------

    @property
    def profile(self) -> str | None:
        return self.slots.get("p")

    def get(self, key: str, default: Any = None) -> Any:
        """Any slot by key, envelope included (``from``, ``re``, ``item``...)."""
        if key == "from":
            return self.from_
        if key in ("re", "to", "item"):
            value = getattr(self, key)
            return default if value is None else value
        return self.slots.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return {
            "v": self.v,
            "type": self.type,
            "id": self.id,
            "re": self.re,
            "from": self.from_,
            "to": self.to,
            "item": self.item,
            "slots": {k: list(v) if isinstance(v, tuple) else v for k, v in self.slots.items()},
            "tail": self.tail,
        }

    def canonical(self) -> str:
        """The canonical JSON text (D1): sorted keys, no whitespace, UTF-8 kept."""
        return canonical_json(self.to_json())

    def digest(self) -> str:
        """``h=``: the first 12 hex digits of SHA-256 of the canonical form."""
        import hashlib  # here, not at import: OpenSSL's loading is a cost of every process otherwise

        return hashlib.sha256(self.canonical().encode("utf-8")).hexdigest()[:12]

    def to_line(self) -> str:
        """The line, in the recommended order: envelope, then slots as held.

        Raises EncodeError for anything the grammar would refuse.
        """
        parts = [self.v, self.type, self.id]
        if self.re is not None:
            parts.append(f"re={self.re}")
        parts.append(f"from={self.from_}")
        parts.append(f"to={self.to}")
        if self.item is not None:
            parts.append(f"item={self.item}")
        for key, value in self.slots.items():
            parts.append(f"{key}={encode(key, value)}")
        line = " ".join(parts)
        if self.tail is not None:
            line += " // " + self.tail
        check_written(line, self.tail)
        return line

    def replace(self, **changes: Any) -> "Message":
        changes.setdefault("source", None)
        if len(changes) == 1 and self.__class__ is Message:
            # the source alone: every other field as it is, already what the constructor makes of it
            copy = _new_object(Message)
            for set_field, name in _COPIED:
                set_field(copy, getattr(self, name))
            _SET_SOURCE(copy, changes["source"])
            return copy
        return attrs.evolve(self, **changes)

    def __str__(self) -> str:
        return self.to_line()

    def __hash__(self) -> int:
        # Equal messages have equal canonical forms (slot order aside, which
        # the sorted canonical form ignores too), so they hash alike.
        return hash(self.canonical())


def canonical_json(obj: Any) -> str:
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (ValueError, TypeError, RecursionError) as exc:  # a message built by hand around the checks
        raise EncodeError(f"no canonical form: {type(exc).__name__}", token="json") from None


def check_written(line: str, tail: str | None) -> None:
    """Refuse a written line the grammar would not read back identically."""
    try:
        read = read_tail(line)
    except RW1SyntaxError as exc:
        token = "tail" if tail is not None and exc.column is not None and exc.column > len(line) - len(tail) else exc.token
        raise EncodeError(f"cannot write: {exc.message}", token=token, column=exc.column, text=line) from None
    if read != tail:
        raise EncodeError("cannot write: the tail would not read back as written", token="tail")


# The attributes' slot descriptors' setters, in this order: the accept path
# (rogerwilco.core.accept) builds a Message from values it has already checked
# and decoded by setting each one, the same object ``Message(...)`` builds (slots
# already read-only) at a fraction of the cost. Everything else builds messages
# with the named constructors.
FIELD_SETTERS = tuple(getattr(Message, name).__set__ for name in
                      ("type", "id", "re", "from_", "to", "item", "slots", "tail", "v", "source"))
# Message.replace of the source alone copies the other fields through the same setters.
_COPIED = tuple(zip(FIELD_SETTERS[:-1], ("type", "id", "re", "from_", "to", "item", "slots", "tail", "v")))
_SET_SOURCE = FIELD_SETTERS[-1]
_new_object = object.__new__
