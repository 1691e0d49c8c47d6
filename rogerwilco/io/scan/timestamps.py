"""Timestamps of log lines: the ``ts`` column.

A line's time is read from its prefix (the text before its first candidate,
or before the JSON value it ends with) and, failing that, from the first of
the JSON fields ``ts``, ``time``, ``timestamp``, ``@timestamp`` of a JSON
object line. Forms read:

* RFC 3339 / ISO 8601: ``2026-10-01T12:00:00Z``, ``2026-10-01 12:00:00,123``,
  ``2026-10-01T12:00:00.123456789+02:00`` (fractions past microseconds are
  cut, never rounded), with or without a zone;
* syslog (RFC 3164) ``Oct  1 12:00:00`` at the start of a line, optionally
  after ``<PRI>``: it names no year, so it is read only when the caller gives
  one (``--year``); RFC 5424 syslog carries an RFC 3339 time and is read as such;
* the common access-log form ``[10/Oct/2026:13:55:36 -0700]``;
* in a JSON field, epoch seconds or milliseconds as a number or a numeric
  string (Slack's ``"1727740800.000100"``): ``abs(value) >= 1e11`` is milliseconds.

A zone-less time is in UTC unless a zone is given (``--tz``). A form that is
matched but cannot be a time (month 13, 25 o'clock, a JSON ``ts`` of
``"yesterday"``) gives no time and is counted as unreadable; nothing is
guessed.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from decimal import Decimal, InvalidOperation
from typing import Any

import attrs

from ...core import speedups

UTC = timezone.utc
# the C scanner's reading of the commonest form, a time in UTC written YYYY-MM-DD[T ]HH:MM:SS[.fraction]Z at the
# start of a text (speedups.utc_time: the datetime the regular expression below and _iso give it, or None where it
# is not sure), or None where it is not built
_NATIVE_TIME = speedups.utc_time
JSON_TIME_FIELDS = ("ts", "time", "timestamp", "@timestamp")

_ISO = re.compile(
    r"(?<![0-9])(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,](\d{1,9}))?"
    r"(?:\s?(Z|z|UTC|[+-]\d{2}(?::?\d{2})?))?(?![0-9])"
)
_ACCESS = re.compile(r"\[(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\]")
_SYSLOG = re.compile(r"(?:<\d{1,3}>)?([A-Z][a-z]{2}) ([ 0-3]?\d) (\d{2}):(\d{2}):(\d{2})(?![0-9])")
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                       "Dec"), 1)}
_DIGIT = re.compile(r"[0-9]")
_EPOCH_TEXT = re.compile(r"-?\d{1,16}(?:\.\d{1,9})?")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: A time read, or None; and whether a time-shaped text could not be read.
Read = tuple[datetime | None, bool]
_NONE: Read = (None, False)
_BAD: Read = (None, True)


def _build(year: int, month: int, day: int, hour: int, minute: int, second: int, micro: int,
           zone: tzinfo | None, default_tz: tzinfo | None) -> Read:
    try:
        if second == 60:  # a leap second is the last instant of its minute
            second, micro = 59, 999_999
        local = datetime(year, month, day, hour, minute, second, micro, tzinfo=zone or default_tz or UTC)
        return local.astimezone(UTC), False
    except (ValueError, OverflowError):
        return _BAD


def _offset(text: str) -> tzinfo | None:
    if text in ("Z", "z", "UTC"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    if hours > 23 or minutes > 59:
        raise ValueError(text)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _iso(m: re.Match, default_tz: tzinfo | None) -> Read:
    year, month, day, hour, minute, second, frac, zone = m.groups()
    try:
        tz = _offset(zone) if zone else None
    except ValueError:
        return _BAD
    micro = int((frac or "0")[:6].ljust(6, "0"))
    return _build(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro, tz, default_tz)


def parse_time_text(text: str, default_tz: tzinfo | None = None) -> Read:
    """A whole text that is an RFC 3339 / ISO 8601 time or an epoch number (a JSON field's value)."""
    if _NATIVE_TIME is not None:
        ts = _NATIVE_TIME(text, len(text), True)
        if ts is not None:
            return ts, False
    m = _ISO.fullmatch(text.strip())
    if m is not None:
        return _iso(m, default_tz)
    if _EPOCH_TEXT.fullmatch(text.strip()):
        return epoch(text.strip())
    return _BAD


def epoch(value: float | int | str) -> Read:
    """Epoch seconds, or milliseconds when ``abs(value) >= 1e11``; fractions past microseconds are cut."""
    try:
        number = Decimal(value if isinstance(value, (int, str)) else repr(value))
    except (InvalidOperation, ValueError):
        return _BAD
    if not number.is_finite():
        return _BAD
    if abs(number) >= Decimal("1e11"):
        number = number / 1000
    micros = int((number * 1_000_000).to_integral_value(rounding="ROUND_FLOOR"))
    try:
        return _EPOCH + timedelta(microseconds=micros), False
    except OverflowError:
        return _BAD


def prefix_time(prefix: str, default_tz: tzinfo | None = None, year: int | None = None) -> Read:
    """The first time written in a line's prefix (the text before its candidate or its JSON)."""
    if _NATIVE_TIME is not None:
        ts = _NATIVE_TIME(prefix, len(prefix), False)
        if ts is not None:
            return ts, False
    if not prefix or _DIGIT.search(prefix) is None:
        return _NONE
    best: tuple[int, Any] | None = None
    m = _ISO.search(prefix)
    if m is not None:
        if m.start() == 0:  # a line that starts with its time: no access-log or syslog time can come first
            return _iso(m, default_tz)
        best = (m.start(), lambda m=m: _iso(m, default_tz))
    a = _ACCESS.search(prefix, 0, best[0] + 40 if best else len(prefix))
    if a is not None and (best is None or a.start() < best[0]):
        best = (a.start(), lambda a=a: _access(a))
    s = _SYSLOG.match(prefix)
    if s is not None and s.group(1) in _MONTHS:
        best = (0, lambda s=s: _syslog(s, default_tz, year))
    return best[1]() if best is not None else _NONE


def _access(m: re.Match) -> Read:
    day, mon, year, hour, minute, second, sign, oh, om = m.groups()
    if mon not in _MONTHS:
        return _BAD
    try:
        tz = _offset(f"{sign}{oh}{om}")
    except ValueError:
        return _BAD
    return _build(int(year), _MONTHS[mon], int(day), int(hour), int(minute), int(second), 0, tz, None)


def _syslog(m: re.Match, default_tz: tzinfo | None, year: int | None) -> Read:
    if year is None:
        return _BAD  # no year is written, and none is guessed
    mon, day, hour, minute, second = m.groups()
    return _build(year, _MONTHS[mon], int(day), int(hour), int(minute), int(second), 0, None, default_tz)


def json_time(value: Any, default_tz: tzinfo | None = None) -> Read:
    """The time in a parsed JSON object's first field of :data:`JSON_TIME_FIELDS`."""
    if not isinstance(value, dict):
        return _NONE
    for key in JSON_TIME_FIELDS:
        if key in value:
            v = value[key]
            if isinstance(v, bool) or v is None:
                return _BAD
            if isinstance(v, (int, float)):
                return epoch(v)
            if isinstance(v, str):
                return parse_time_text(v, default_tz)
            return _BAD
    return _NONE


def zone(name: str | None) -> tzinfo | None:
    """The zone a zone-less time is read in (``--tz``): an IANA name, ``UTC``, or an offset ``+02:00``."""
    if name is None:
        return None
    if re.fullmatch(r"[+-]\d{2}:?\d{2}|Z|UTC", name):
        return _offset(name)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {name!r}") from exc


@attrs.define
class Clock:
    """Reads the time of each line with a scan's settings, and counts the times it could not read."""

    tz: tzinfo | None = None
    year: int | None = None
    unreadable: int = 0

    def line_time(self, text: str, candidate_at: int, json_at: int | None = None, value: Any = None) -> datetime | None:
        """The time of a physical line whose first candidate starts at index ``candidate_at``.

        ``json_at`` and ``value``: where the JSON value the line ends with
        starts, and its parsed value, when the candidates came from one.
        """
        end = candidate_at if json_at is None else json_at
        ts, bad = prefix_time(text[:end], self.tz, self.year)
        if ts is None and not bad and json_at is not None:
            ts, bad = json_time(value, self.tz)
        return self.note(ts, bad)

    def note(self, ts: datetime | None, bad: bool) -> datetime | None:
        if bad:
            self.unreadable += 1
        return ts
