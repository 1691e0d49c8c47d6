"""Values: one decode, one encode, one equality, and one "write it, read it back".

Theory of operation
-------------------
A slot value has two forms (decisions D1, D2): the text a line writes
(``pri=02``, ``keep=a+b``, ``retry=Y``) and the decoded value a
:class:`~rogerwilco.message.Message` holds (``2``, ``("a", "b")``,
``True``). The slot type decides the decoding; writing needs no type,
because decoded values map back uniquely (``bool`` is ``Y``/``N``, ``int``
its decimal, a tuple joins with ``+``, a string is itself).

=================  ==========================================================
function           job
=================  ==========================================================
:func:`decode`     text, or a record's JSON value, as the slot type decodes
                   it; lenient (kept as given when it does not decode) or
                   ``strict=True`` (``ValueError``)
:func:`encode`     a decoded value as a line writes it (``EncodeError``)
:func:`shown`      a value for a person: as a line writes it, else as JSON
:func:`as_json`    a decoded value in the JSON form (tuples become arrays)
:func:`same`       equality of decoded or JSON values, type and all:
                   ``True`` is not ``1``, ``2.0`` is not ``2``, lists keep
                   their order, a JSON form's ``slots`` compare in order
:func:`reread`     a message written as its line and read back by a
                   receiver: what goes on the wire is what the grammar and
                   the vocabulary accept, never a value built by hand
=================  ==========================================================

Every check (readback tiers, the JSON form's read-back test), the tool, the
adapter and the conformance comparison use these; nothing else decodes,
writes or compares a value.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, overload

from .errors import EncodeError, RW1Error
from .slottypes import MAX_INT_DIGITS, int_in_limit

if TYPE_CHECKING:
    from .message import Message
    from .vocab import Receiver, Vocabulary

__all__ = ["as_json", "decode", "encode", "reread", "same", "shown"]


def decode(vocab: Vocabulary, key: str, value: Any, *, strict: bool = False) -> Any:
    """``value`` (a line's text, or a record's JSON value) as the slot type of ``key`` decodes it.

    Lenient (the default): a key that is no slot, or a value that does not
    decode, is kept as given (a JSON array as a tuple), so a check can
    report it as written. ``strict=True``: either is a ``ValueError``, and a
    boolean, an integer or a list is re-decoded through its written form.
    """
    slot = vocab.slots.get(key)
    if isinstance(value, list):
        value = tuple(value)
    if slot is None:
        if strict:
            raise ValueError(f"{key} is not a slot")
        return value
    try:
        if isinstance(value, str):
            return slot.type.decode(value)
        if isinstance(value, tuple) and (strict or slot.type.is_list) or strict and isinstance(value, (bool, int)):
            return slot.type.decode(slot.type.encode(value))
    except ValueError:
        if strict:
            raise
        return value
    if strict:
        raise ValueError(f"{key}: a {type(value).__name__} is not a slot value")
    return value


def encode(key: str, value: Any) -> str:
    """A decoded value as written in a line (type-agnostic, see the module doc); ``EncodeError``
    for what no line can hold (an empty value or list, a nested list, a float, a ``+`` in a list item)."""
    if isinstance(value, (tuple, list)):
        if not value:
            raise EncodeError(f"empty list for {key}", token=key)
        items = []
        for item in value:
            if isinstance(item, (tuple, list, dict)):  # lists are flat (D2): refused without recursing
                raise EncodeError(f"{key}: a list holds strings, integers or booleans, not a "
                                  f"{type(item).__name__}", token=key)
            items.append(_encode_scalar(key, item))
        if any("+" in item for item in items):
            raise EncodeError(f"a list element of {key} contains '+'", token=key)
        return "+".join(items)
    return _encode_scalar(key, value)


def _encode_scalar(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "Y" if value else "N"
    if isinstance(value, int):
        if not int_in_limit(value):
            raise EncodeError(f"{key}: an integer has at most {MAX_INT_DIGITS} digits", token=key)
        return str(value)
    if isinstance(value, str):
        if value == "":
            raise EncodeError(f"empty value for {key}", token=key)
        return value
    if isinstance(value, float):
        raise EncodeError(f"{key}: {value!r} is not an integer; a number in a JSON form is an integer (D9)",
                          token=key)
    raise EncodeError(f"{key}: cannot write a {type(value).__name__}", token=key)


@overload
def shown(key: None, value: Any) -> str: ...
@overload
def shown(key: str, value: Any) -> str | None: ...
def shown(key: str | None, value: Any) -> str | None:
    """A value for a person: as a line writes it under ``key`` (``None`` stays ``None``), else, or
    with no key, as JSON, never a Python repr."""
    if key is not None:
        if value is None:
            return None
        try:
            return encode(key, value)
        except RW1Error:
            pass
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def as_json(value: Any) -> Any:
    """A decoded value in the JSON form (D1): a tuple is an array, anything else is itself."""
    return list(value) if isinstance(value, tuple) else value


def same(a: Any, b: Any, *, ordered: bool = False) -> bool:
    """Equality where Python's ``==`` is too loose: ``True`` is not ``1``, ``2.0`` is not ``2``.

    Lists (and tuples) compare item by item in order; objects by their
    members in any order, except when ``ordered`` and except a JSON form's
    ``slots``, which hold the line's slots in written order (D1).
    """
    if isinstance(a, dict) and isinstance(b, dict):
        if ordered and list(a) != list(b):
            return False
        return a.keys() == b.keys() and all(same(a[k], b[k], ordered=k == "slots") for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def reread(message: Message, receiver: Receiver | None) -> Message:
    """``message`` written as its line and read back by ``receiver``: the one way a message this
    package composes reaches the wire. Raises the :class:`~rogerwilco.errors.RW1Error` the line earns."""
    from .message import Message

    return Message.from_line(message.to_line(), receiver).replace(source=None)
