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

__all__ = ["INVISIBLE_RANGES", "caret_lines", "is_invisible", "printable"]

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


_CARET_WIDTH = 160  # characters of a long line shown around a caret
_CARET_CONTEXT = 60  # of which before the offending token


def caret_lines(text: str, column: int, token: str = "") -> tuple[str, str]:
    """The line as shown (escaped) and a caret line under ``token`` at 1-based ``column``.

    A line longer than :data:`_CARET_WIDTH` is shown as a window around the
    column, with ``...`` where it was cut, so a report of many findings on one
    long line grows with the number of findings, never with findings x length.
    """
    idx = max(0, min(column - 1, len(text)))
    start = max(0, idx - _CARET_CONTEXT) if len(text) > _CARET_WIDTH else 0
    end = min(len(text), start + _CARET_WIDTH)
    before = "..." if start > 0 else ""
    after = "..." if end < len(text) else ""
    body = printable(text[start:end])
    shown = before + body + after
    pad = len(before) + len(printable(text[start:idx]))
    width = max(1, min(len(printable(token)) if token else 1, len(before) + len(body) - pad))
    return shown, " " * pad + "^" * width
