"""Slot value types: how a value as written decodes, and how it is written back.

Theory of operation
-------------------
Every slot has a type named in the vocabulary data (spec section 7, decisions
D2 and D5): ``token ref agent msgid date time days bool money num int:<lo>-<hi>
enum:<name> list:<type>``, and the core's own ``text`` (``val``), ``digest``
(``h``), ``constraint`` (an ``acc`` item) and ``rb`` (a readback level or a
slot name). :func:`compile_type` turns a type name into a :class:`SlotType`
with two plain functions:

* ``decode(raw) -> value`` raises :class:`ValueError` with a short reason when
  the raw text is not of the type;
* ``encode(value) -> raw`` raises :class:`ValueError` when a decoded value
  cannot be written as that type.

Decoded values are what the JSON form holds (D1): ``int`` for integers and
days, ``bool`` for Y/N, a tuple for lists (a JSON array), ``str`` otherwise.
Enum, ``rb`` and constraint-key membership depends on the active vocabulary,
so those types take their code sets when compiled.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Mapping

import attrs

if TYPE_CHECKING:
    import datetime as _dt

AGENT_RE = re.compile(r"[A-Za-z0-9._-]+")
# The slot types whose values are agents: the ones a profile that names its agents closes.
AGENT_TYPES = frozenset({"agent", "list:agent"})
MSGID_RE = re.compile(r"([A-Za-z0-9._-]+)-([0-9]+)")
KEY_RE = re.compile(r"[a-z][a-z0-9_]*")
_INT_RE = re.compile(r"-?[0-9]+")
_DATE_RE = re.compile(r"[0-9]{8}")
_TIME_RE = re.compile(r"([0-9]{8})T([0-9]{2})([0-9]{2})Z")
_MONEY_RE = re.compile(r"-?[0-9]+\.[0-9]{2}")
_NUM_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:/-?[0-9]+(?:\.[0-9]+)?)?")
_DIGEST_RE = re.compile(r"[0-9a-f]{12}")
# A constraint is key:value (spec 5.2): the one definition the slot type and
# the criteria parser (comprehension.parse_criteria) share. The key runs to
# the first ":" and holds no "+" (the list separator) and no whitespace; keys
# compare case-insensitively, and a key outside the closed set
# (reading-level, 1x) is noted and not compared, never refused (D6).
CONSTRAINT_KEY_RE = re.compile(r"[^:+\s]+")
_CONSTRAINT_RE = re.compile(rf"({CONSTRAINT_KEY_RE.pattern}):(.+)", re.DOTALL)
_INT_TYPE_RE = re.compile(r"int:(-?[0-9]+)-(-?[0-9]+)")
# An integer in a line, a JSON form or a profile's int:<lo>-<hi> has at most
# this many digits: far above any count a message carries, far below the
# point where converting it costs real time (and Python refuses at 4,300).
MAX_INT_DIGITS = 100
_INT_LIMIT = 10**MAX_INT_DIGITS


def int_in_limit(value: int) -> bool:
    """Whether an integer has at most MAX_INT_DIGITS digits (no conversion to text needed)."""
    return bool(-_INT_LIMIT < value < _INT_LIMIT)

_SCALAR_TYPES = ("token", "ref", "agent", "msgid", "date", "time", "days", "bool", "money", "num",
                "text", "digest", "constraint", "rb")
# The slot types of spec section 7, the ones a profile may use; the others
# (text, digest, constraint, rb, time) type the core's own slots.
PROFILE_TYPES = ("token", "ref", "date", "days", "bool", "money", "num", "msgid", "agent")


@attrs.frozen
class SlotType:
    name: str
    decode: Callable[[str], Any]
    encode: Callable[[Any], str]
    enum: str | None = None  # the enum name, for enum types and lists of them
    is_list: bool = False
    codes: frozenset[str] = frozenset()  # the enum's codes (rb's levels and slot keys), or its elements'


# A slot type's two halves: text to value, value to text.
_Codec = tuple[Callable[[str], Any], Callable[[Any], str]]


def _need_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _plain(check: Callable[[str], None] | None = None) -> _Codec:
    def decode(raw: str) -> str:
        if check is not None:
            check(raw)
        return raw

    def encode(value: Any) -> str:
        return decode(_need_str(value))

    return decode, encode


def _pattern(regex: re.Pattern[str], what: str) -> Callable[[str], None]:
    def check(raw: str) -> None:
        if regex.fullmatch(raw) is None:
            raise ValueError(f"not {what}")

    return check


_DAYS_IN = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@lru_cache(maxsize=4096)
def _check_date(raw: str) -> None:
    if _DATE_RE.fullmatch(raw) is None:
        raise ValueError("not a date YYYYMMDD")
    year, month, day = int(raw[:4]), int(raw[4:6]), int(raw[6:])
    # the days of the proleptic Gregorian calendar, as datetime.date has them, with no exception raised and caught
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if year < 1 or not 1 <= month <= 12 or not 1 <= day <= _DAYS_IN[month - 1] + leap:
        raise ValueError("not a calendar date")


@lru_cache(maxsize=4096)
def _check_time(raw: str) -> None:
    m = _TIME_RE.fullmatch(raw)
    if m is None:
        raise ValueError("not a UTC time YYYYMMDDTHHMMZ")
    _check_date(m.group(1))
    if int(m.group(2)) > 23 or int(m.group(3)) > 59:
        raise ValueError("not a time of day")


def parse_time(raw: str) -> _dt.datetime:
    """A checked ``exp`` value as an aware UTC datetime."""
    import datetime as _dt  # here, not at the top: a run that reads no time does not load datetime

    return _dt.datetime.strptime(raw, "%Y%m%dT%H%MZ").replace(tzinfo=_dt.timezone.utc)


def _days_decoder(decode_int: Callable[[str], int]) -> Callable[[str], int]:
    """A number of days, written ``14`` or ``14d`` (as the published profiles write ``stall=19d``); written back ``14``.

    A count of days is 0 or more: ``-1`` is refused, as the published reference codec refuses it
    (docs/reference.md R17)."""
    def decode(raw: str) -> int:
        digits = raw[:-1] if raw.endswith("d") else raw
        if not (digits.isdigit() and digits.isascii()):
            raise ValueError("not a number of days (digits, optionally ending in d: 14 or 14d)")
        return decode_int(digits)
    return decode


def _int_codec(lo: int | None, hi: int | None) -> _Codec:
    @lru_cache(maxsize=1024)
    def decode(raw: str) -> int:
        if _INT_RE.fullmatch(raw) is None:
            raise ValueError("not an integer")
        if len(raw) - raw.startswith("-") > MAX_INT_DIGITS:
            raise ValueError(f"more than {MAX_INT_DIGITS} digits")
        value = int(raw)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"out of range {lo}-{hi}")
        return value

    def encode(value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {type(value).__name__}")
        if not int_in_limit(value):
            raise ValueError(f"more than {MAX_INT_DIGITS} digits")
        return str(decode(str(value)))

    return decode, encode


def _bool_decode(raw: str) -> bool:
    if raw == "Y":
        return True
    if raw == "N":
        return False
    raise ValueError("not Y or N")


def _bool_encode(value: Any) -> str:
    if not isinstance(value, bool):
        raise ValueError(f"expected a boolean, got {type(value).__name__}")
    return "Y" if value else "N"


def _member_codec(codes: Mapping[str, Any] | frozenset[str], what: str) -> _Codec:
    def decode(raw: str) -> str:
        if raw not in codes:
            raise ValueError(f"unknown {what}")
        return raw

    def encode(value: Any) -> str:
        return decode(_need_str(value))

    return decode, encode


def _list_codec(inner: SlotType) -> _Codec:
    inner_decode, inner_encode = inner.decode, inner.encode

    @lru_cache(maxsize=4096)  # lists repeat in a stream (keep=, opts=, rb=); tuples are immutable
    def decode(raw: str) -> tuple[Any, ...]:
        parts = raw.split("+")
        if "" in parts:
            raise ValueError("empty list element")
        return tuple(inner_decode(part) for part in parts)

    def encode(value: Any) -> str:
        if not isinstance(value, (list, tuple)) or not value:
            raise ValueError("expected a non-empty list")
        written = [inner_encode(v) for v in value]
        if any("+" in w or not w for w in written):
            raise ValueError("a list element cannot be empty or contain '+'")
        return "+".join(written)

    return decode, encode


def compile_type(
    name: str,
    enums: Mapping[str, Mapping[str, str]],
    rb_codes: frozenset[str] = frozenset(),
) -> SlotType:
    """Compile a type name from the vocabulary into codec functions.

    Raises ValueError for an unknown type name or an enum the vocabulary
    does not define.
    """
    if name.startswith("list:"):
        inner = compile_type(name[5:], enums, rb_codes)
        if inner.is_list:
            raise ValueError(f"nested list type {name!r}")
        dec, enc = _list_codec(inner)
        return SlotType(name, dec, enc, enum=inner.enum, is_list=True, codes=inner.codes)
    if name.startswith("enum:"):
        enum = name[5:]
        if enum not in enums:
            raise ValueError(f"type {name!r} names an enum that is not defined")
        dec, enc = _member_codec(enums[enum], f"{enum} code")
        return SlotType(name, dec, enc, enum=enum, codes=frozenset(enums[enum]))
    if name.startswith("int:"):
        m = _INT_TYPE_RE.fullmatch(name)
        if m is not None and max(len(m.group(1)), len(m.group(2))) > MAX_INT_DIGITS:
            raise ValueError(f"bad integer type {name[:40]!r}...: a bound has more than {MAX_INT_DIGITS} digits")
        if m is None or int(m.group(1)) > int(m.group(2)):
            raise ValueError(f"bad integer type {name!r} (int:<lo>-<hi>)")
        dec, enc = _int_codec(int(m.group(1)), int(m.group(2)))
        return SlotType(name, dec, enc)
    if name == "days":
        dec, enc = _int_codec(None, None)
        return SlotType(name, _days_decoder(dec), enc)
    if name == "bool":
        return SlotType(name, _bool_decode, _bool_encode)
    if name == "rb":
        dec, enc = _member_codec(rb_codes, "readback level or slot")
        return SlotType(name, dec, enc, codes=frozenset(rb_codes))
    checks = {
        "token": None,
        "ref": None,
        "text": None,
        "agent": lru_cache(maxsize=4096)(_pattern(AGENT_RE, "an agent name")),
        "msgid": _pattern(MSGID_RE, "a message id <agent>-<n>"),
        "date": _check_date,
        "time": _check_time,
        "money": _pattern(_MONEY_RE, "money with two decimals and no separators"),
        "num": _pattern(_NUM_RE, "a number (or two numbers with a slash)"),
        "digest": _pattern(_DIGEST_RE, "12 lowercase hex digits"),
        "constraint": _pattern(_CONSTRAINT_RE, "a constraint key:value"),
    }
    if name not in checks:
        raise ValueError(f"unknown slot type {name!r}")
    dec, enc = _plain(checks[name])
    return SlotType(name, dec, enc)


def split_constraint(item: str) -> tuple[str, str]:
    """A constraint ``key:value`` as (key, value); ValueError for anything else.

    The value may itself hold ``:`` (the key ends at the first one).
    """
    m = _CONSTRAINT_RE.fullmatch(item) if isinstance(item, str) else None
    if m is None:
        raise ValueError("not a constraint key:value")
    return m.group(1), m.group(2)


__all__ = [
    "AGENT_RE",
    "AGENT_TYPES",
    "CONSTRAINT_KEY_RE",
    "KEY_RE",
    "MAX_INT_DIGITS",
    "MSGID_RE",
    "PROFILE_TYPES",
    "SlotType",
    "compile_type",
    "int_in_limit",
    "parse_time",
    "split_constraint",
]
