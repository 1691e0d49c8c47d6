"""Text shown to a person: every invisible or line-driving character escaped.

Theory of operation
-------------------
A value, token, file name or message that the package prints for a person
(tables, diffs, refusal tails, error messages, carets) goes through
:func:`printable` first. It shows as an escape every character that a person
cannot see, or that could change what the rest of the text looks like
(decisions D3 and D14):

* control characters (C0, DEL, C1), lone surrogates, and every whitespace
  character other than the plain space (no-break and other spaces, line and
  paragraph separators);
* the format and default-ignorable characters: zero-width space and joiners,
  the bidirectional controls, the byte order mark, soft hyphen, word joiner,
  variation selectors, Hangul fillers, tag characters and the like.

The set is a fixed table (:data:`INVISIBLE_RANGES`), not a Unicode category
lookup, so that it does not move with the Unicode version of the runtime and
a port can hold the same table. It is also the grammar's: a value may hold
exactly the characters this table leaves alone, so a valid value prints as
itself and two values never print alike (D16, ``conformance/decisions.md``).

Escapes are ``\\xNN`` below U+0100, ``\\uNNNN`` in the Basic Multilingual
Plane and ``\\UNNNNNNNN`` above it. The function is idempotent (escaped text
holds only visible ASCII where it changed), so a message that already quotes
an escaped token can be escaped again on its way to the screen without
doubling anything.

Plain ASCII text comes back unchanged and unchecked character by character.
"""

from __future__ import annotations

import unicodedata

__all__ = ["INVISIBLE_RANGES", "caret_lines", "cells", "is_invisible", "printable"]

# Inclusive code point ranges shown escaped. Controls and surrogates; the
# characters Python's str.isspace() accepts other than U+0020; format
# characters (Cf) and the other Default_Ignorable_Code_Point characters.
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00A0, 0x00A0), (0x00AD, 0x00AD), (0x034F, 0x034F),
    (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x115F, 0x1160), (0x1680, 0x1680), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x206F), (0x3000, 0x3000), (0x3164, 0x3164),
    (0xD800, 0xDFFF), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_BMP_INVISIBLE = frozenset(
    chr(code) for lo, hi in INVISIBLE_RANGES if hi <= 0xFFFF for code in range(lo, hi + 1)
)


def is_invisible(ch: str) -> bool:
    """Whether a person could not see ``ch`` (or it could move other text)."""
    if ch in _BMP_INVISIBLE:
        return True
    code = ord(ch)
    return code > 0xFFFF and any(lo <= code <= hi for lo, hi in INVISIBLE_RANGES)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every invisible character shown as an escape (see module doc)."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(ch) if is_invisible(ch) else ch for ch in text)


_CARET_WIDTH = 160  # terminal cells of a line shown around a caret when no width is given (not a terminal)
_CARET_MIN_WIDTH = 20  # the narrowest excerpt shown, however narrow the terminal
_CUT = "\u2026"  # marks where the excerpt cuts the line (one cell)


def cells(text: str) -> int:
    """Terminal cells ``text`` takes: two for a wide or full-width character (East Asian Width W or F), none
    for a combining mark, one for any other (run it on :func:`printable` text: controls are escapes by then)."""
    if text.isascii():
        return len(text)
    return sum(_cell(ch) for ch in text)


def _cell(ch: str) -> int:
    if ch.isascii():
        return 1
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def caret_lines(text: str, column: int, token: str = "", width: int | None = None) -> tuple[str, str]:
    """The line as shown (escaped) and a caret line under ``token`` at 1-based ``column``.

    The excerpt fits in ``width`` terminal cells (default :data:`_CARET_WIDTH`): a line wider than that is
    shown as a window around the column, a third of it before the token, with ``…`` where it was cut, so a
    terminal never wraps it and the caret sits under the token, counted in cells (a wide character takes
    two, a combining mark none). Only the window is read, so a report of many findings on one long line
    grows with the number of findings, never with findings x length.
    """
    avail = max(_CARET_MIN_WIDTH, width if width is not None else _CARET_WIDTH)
    idx = max(0, min(column - 1, len(text)))
    if len(text) < avail and cells(printable(text)) < avail:  # the whole line, and a caret after its end, fit
        start, end = 0, len(text)
    else:
        start, end = _window(text, idx, avail - 2)  # two cells kept for the marks
    before = _CUT if start > 0 else ""
    after = _CUT if end < len(text) else ""
    lead = before + printable(text[start:idx])
    body = printable(text[idx:end])
    pad = cells(lead)
    if idx == end:  # the caret after the line's end (where a missing slot would go)
        return lead + body + after, " " * pad + "^"
    under = cells(printable(text[idx:min(idx + max(1, len(token)), end)]))
    return lead + body + after, " " * pad + "^" * max(1, min(under, cells(body)))


def _window(text: str, idx: int, budget: int) -> tuple[int, int]:
    """``(start, end)`` of the part of ``text`` around ``idx`` whose shown characters take at most ``budget``
    cells: up to a third of them before ``idx``, the rest after, and what the line's end leaves unused given
    to the part before. At most ``budget`` characters are read on either side."""
    if idx >= len(text):
        budget -= 1  # the caret after the line's end takes a cell
    start = end = idx
    used = 0

    def take_before(limit: int) -> None:
        nonlocal start, used
        while start > 0 and idx - start < budget:
            size = cells(printable(text[start - 1]))
            if used + size > limit:
                return
            start -= 1
            used += size

    def take_after() -> None:
        nonlocal end, used
        while end < len(text) and end - idx < budget:
            size = cells(printable(text[end]))
            if used + size > budget:
                return
            end += 1
            used += size

    take_before(budget // 3)
    take_after()
    if end == len(text):
        take_before(budget)
    while 0 < start < idx and not cells(printable(text[start])):
        start += 1  # a combining mark cut from its letter would sit on the cut mark
    return start, end
