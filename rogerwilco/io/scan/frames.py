"""Candidate finding: the texts of a physical line in which a message could sit, and the candidates in them.

Every line first pays one byte test (:func:`_may_hold`). The lines that pass
are split into *frames*: a whole JSON value yields each of its strings with
its JSON Pointer; one member of a pretty-printed JSON document yields its
string with its key; a log prefix followed by JSON yields that JSON's strings;
any other line is its own frame. Strings are decoded by hand so that each
character keeps the physical column it came from. :func:`candidates` then
cuts the candidates out of a frame (version token to end of line, or to the
closing backticks, quote or wrapper). :class:`JsonPath` carries a JSON
document's location from line to line (Slack exports).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, Sequence

import attrs

from ...core import speedups


#: A candidate: a version token at a word boundary, then either the wire form's
#: one space and an uppercase letter, or any run of whitespace (tab, NBSP ...)
#: and two letters of either case standing alone; in the second form, when the
#: letters are not both uppercase, an id-shaped token (``name-<digits>``) must
#: follow, so prose ("RW1 is fine", "RW1 in use") stays out.
CANDIDATE_RE = re.compile(
    r"(?<![A-Za-z0-9])RW[0-9]+"
    r"(?: [A-Z]"
    r"|\s+[A-Z]{2}(?=\s|$)"
    r"|\s+[A-Za-z]{2}\s+[A-Za-z0-9._-]*-[0-9])"
)
# Whitespace as bytes: ASCII, JSON escapes (\t \n \r \f), and the UTF-8 of every
# other character Python's \s matches (U+0085, U+00A0, U+1680, U+2000-U+200A,
# U+2028, U+2029, U+202F, U+205F, U+3000).
_WS_BYTES = (rb"(?:[\s\x1c-\x1f]|\\[tnrf]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
             rb"|\xe2\x81\x9f|\xe3\x80\x80)")
# the same test on raw bytes, a superset, without the look-behind (a JSON "\\nRW1 ..." has a letter before RW)
_CANDIDATE_BYTES = re.compile(rb"RW[0-9]+(?: [A-Z]|" + _WS_BYTES + rb"+(?:[A-Z]{2}(?:" + _WS_BYTES + rb"|$)|[A-Za-z]{2}"
                              + _WS_BYTES + rb"+[A-Za-z0-9._-]))")

# one JSON string literal, or a structural character
_JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}\[\],:])')
# one JSON string literal (the same strings as above, matched in fewer steps)
_JSON_STRING = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"')
# a pretty-printed member or element: "key": "value",  /  "value",
_JSON_MEMBER = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"\s*:\s*)?"((?:[^"\\]|\\.)*)"\s*,?\s*')
_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SLACK_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


def _may_hold(data: bytes) -> bool:
    """Whether raw bytes may hold a candidate (the one test every line pays)."""
    return b"RW" in data and (_CANDIDATE_BYTES.search(data) is not None or b"\\u" in data)


@attrs.frozen
class Frame:
    """A text in which a message could sit, and how to find the physical column of its characters.

    ``text`` starts at decoded offset ``offset`` of its string. Columns are
    ``base + offset + index`` when the string was copied as it stands (no
    escape), else read from ``columns`` (computed on demand from ``body``,
    the raw literal, only when a candidate is found).
    """

    text: str
    base: int  # physical 1-based column of the string's first character
    offset: int = 0
    field: str | None = None
    body: str | None = None  # the raw JSON literal body, when it holds escapes
    columns: Sequence[int] | None = None  # per decoded character of the whole string

    def column(self, index: int) -> int:
        cols = self.columns
        if cols is None and self.body is not None:
            decoded = decode_json_string(self.body, self.base)
            cols = decoded[1] if decoded is not None else None
        if cols is None:
            return self.base + self.offset + index
        at = self.offset + index
        return cols[at] if at < len(cols) else (cols[-1] + 1 if cols else self.base)


def decode_json_string(body: str, start_column: int) -> tuple[str, list[int]] | None:
    """A JSON string literal's body decoded, with each character's physical column.

    None when the body is not a valid JSON string (a bad escape).
    """
    out: list[str] = []
    cols: list[int] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        col = start_column + i
        if ch != "\\":
            out.append(ch)
            cols.append(col)
            i += 1
            continue
        if i + 1 >= n:
            return None
        esc = body[i + 1]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            cols.append(col)
            i += 2
            continue
        if esc != "u" or i + 6 > n:
            return None
        hex4 = body[i + 2:i + 6]
        if not re.fullmatch(r"[0-9a-fA-F]{4}", hex4):
            return None
        code = int(hex4, 16)
        i += 6
        if 0xD800 <= code <= 0xDBFF and body[i:i + 2] == "\\u" and re.fullmatch(r"[dD][c-fC-F][0-9a-fA-F]{2}", body[i + 2:i + 6]):
            low = int(body[i + 2:i + 6], 16)
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            i += 6
        out.append(chr(code))
        cols.append(col)
    return "".join(out), cols


def _unescape_slack(text: str, cols: list[int]) -> tuple[str, list[int]]:
    if "&" not in text:
        return text, cols
    out: list[str] = []
    ocols: list[int] = []
    i = 0
    while i < len(text):
        for entity, char in _SLACK_ENTITIES:
            if text.startswith(entity, i):
                out.append(char)
                ocols.append(cols[i])
                i += len(entity)
                break
        else:
            out.append(text[i])
            ocols.append(cols[i])
            i += 1
    return "".join(out), ocols


# the string values of a JSON text as the C scanner finds them in one pass over the text (speedups.json_strings:
# what _walked_strings and _tokenized_strings give, or None where it is not sure), or None where it is not built
_NATIVE_STRINGS = speedups.json_strings


def _may_frame(body: str) -> bool:
    """Whether a JSON string's raw body may hold a candidate (a version token, or an escape that could spell one)."""
    return "RW" in body or "\\u" in body


def _json_strings(line: str, at: int = 0, keep: dict | None = None) -> list[tuple[str, str, int]] | None:
    """(pointer, raw body, body column) of every string value of the JSON value ``line[at:]`` that may hold a
    candidate (:func:`_may_frame`), in order.

    None when that is not a JSON object or array. ``keep``, when given, gets
    the value's start (``at``) and the parsed value (``value``).
    """
    try:
        value = json.loads(line[at:] if at else line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, (dict, list)):
        return None
    if keep is not None:
        keep["at"], keep["value"] = at, value
    if _NATIVE_STRINGS is not None:
        native = _NATIVE_STRINGS(line, at)  # the C scanner's walk of the text, where it is built
        if native is not None:
            return native
    return _read_strings(line, at, value)


def _read_strings(line: str, at: int, value: Any) -> list[tuple[str, str, int]]:
    """:func:`_json_strings` of ``line[at:]``, whose parsed value is ``value``, as Python reads them: the value
    walked beside its literals, else the text's tokens (what the C scanner's walk is held to)."""
    literals = [(m.group(1), m.start(1) + 1) for m in _JSON_STRING.finditer(line, at)]
    try:
        found = _walked_strings(value, literals)
    except RecursionError:
        found = None
    return found if found is not None else _tokenized_strings(line, at)


def _walked_strings(value: Any, literals: list[tuple[str, int]]) -> list[tuple[str, str, int]] | None:
    """The parsed value walked in order beside its string literals (keys and values, in the text's order), a
    pointer built only for a value that may hold a candidate; None when the two do not line up one for one
    (a repeated key, which the parsed object holds once)."""
    out: list[tuple[str, str, int]] = []
    path: list[str | int] = []  # keys and indexes as they stand, escaped only for a pointer built
    index = 0

    def walk(item: Any) -> None:
        nonlocal index
        kind = item.__class__
        if kind is str:
            body, column = literals[index]
            index += 1
            if _may_frame(body):
                out.append(("".join([f"/{step}" if isinstance(step, int) else
                                     "/" + step.replace("~", "~0").replace("/", "~1") for step in path]),
                            body, column))
        elif kind is dict:
            for key, member in item.items():
                index += 1  # the key's own literal
                path.append(key)
                walk(member)
                path.pop()
        elif kind is list:
            for i, member in enumerate(item):
                path.append(i)
                walk(member)
                path.pop()

    try:
        walk(value)
    except IndexError:
        return None
    return out if index == len(literals) else None


def _tokenized_strings(line: str, at: int) -> list[tuple[str, str, int]]:
    """What :func:`_json_strings` gives, from the text's tokens alone (a JSON value known to parse)."""
    out: list[tuple[str, str, int]] = []
    stack: list[list[Any]] = []  # [container, key or index, expecting_key]
    pending_key: str | None = None
    for m in _JSON_TOKEN.finditer(line, at):
        body, punct = m.group(1), m.group(2)
        if punct is not None:
            if punct in "{[":
                stack.append([punct, None if punct == "{" else 0, punct == "{"])
                continue
            if punct in "}]":
                if stack:
                    stack.pop()
                continue
            if punct == ",":
                if stack:
                    top = stack[-1]
                    if top[0] == "[":
                        top[1] += 1
                    else:
                        top[2] = True
                continue
            continue  # ':'
        if stack and stack[-1][0] == "{" and stack[-1][2]:
            pending_key = decode_json_string(body, 0)[0] if "\\" in body else body  # type: ignore[index]
            stack[-1][1] = pending_key
            stack[-1][2] = False
            continue
        if _may_frame(body):
            pointer = "".join("/" + str(level[1]).replace("~", "~0").replace("/", "~1") for level in stack)
            out.append((pointer, body, m.start(1) + 1))
    return out


# where a JSON object or array may start after a prefix (a cheap test before json.loads)
_EMBEDDED_JSON = re.compile(r'\{\s*["}]|\[\s*["{\[\]0-9tfn-]')


def _embedded_json(line: str, keep: dict | None = None) -> list[tuple[str, str, int]] | None:
    """The strings of a JSON object or array that ends a line after a log prefix.

    Tried from the first ``{`` and the first ``[`` (so ``[agent] {...}`` is
    found); None when neither rest is JSON, or when the prefix itself holds a
    candidate (the candidate then runs to the end of the line, JSON and all).
    """
    for at in sorted(i for i in (line.find("{"), line.find("[")) if i > 0):
        probe: dict = {}
        strings = _json_strings(line, at, probe)
        if strings is not None:
            if CANDIDATE_RE.search(line, 0, at):
                return None
            if keep is not None:
                keep.update(probe)
            return strings
    return None


def frames_of(line: str, *, slack: bool = False, strings: list[tuple[str, str, int]] | None = None,
              keep: dict | None = None) -> list[Frame]:
    """The texts of one physical line in which a message could sit.

    ``strings`` are the line's JSON strings as (field, raw body, column) when
    the caller already knows them (a Slack export read with :class:`JsonPath`).
    """
    head = line.lstrip()[:1]
    raw_strings: list[tuple[str, str, int]] | None = strings
    if raw_strings is not None:
        pass
    elif head in ("{", "["):
        raw_strings = _json_strings(line, 0, keep)
    elif head == '"':
        m = _JSON_MEMBER.fullmatch(line)
        if m is not None:
            key = m.group(1)
            if key is not None and "\\" in key:
                decoded_key = decode_json_string(key, 0)
                key = decoded_key[0] if decoded_key else key
            raw_strings = [(key if key is not None else "", m.group(2), m.start(2) + 1)]
    if raw_strings is None and _EMBEDDED_JSON.search(line) is not None:
        raw_strings = _embedded_json(line, keep)
    if raw_strings is None:
        return [Frame(line, 1)]
    frames: list[Frame] = []
    for field, body, column in raw_strings:
        if not _may_frame(body):
            continue
        escaped = "\\" in body
        columns = None
        if escaped:
            try:
                text = json.loads('"' + body + '"')
            except ValueError:
                continue
        else:
            text = body
        if slack and "&" in text and (field == "text" or field.endswith("/text")):
            decoded = decode_json_string(body, column)
            if decoded is None:
                continue
            text, columns = _unescape_slack(*decoded)
        if "RW" not in text:
            continue
        start = 0
        for part in text.split("\n") if "\n" in text else (text,):
            end = start + len(part)
            if part.endswith("\r"):
                part = part[:-1]
            if "RW" in part:
                frames.append(Frame(part, column, start, field, body if escaped else None, columns))
            start = end + 1
    if not frames and CANDIDATE_RE.search(line):
        # a JSON-shaped line whose candidate is not inside a string value
        return [Frame(line, 1)]
    return frames


_QUOTE_END = frozenset(" \t,;)]}")
_WRAPPERS = (("**", "**"), ("__", "__"), ("*", "*"), ("_", "_"), ("(", ")"), ("[", "]"), ("<", ">"))
_OPENERS = frozenset(left[-1] for left, _ in _WRAPPERS)  # the character before a candidate a wrapper ends with


def _closing_quote(text: str, quote: str, start: int) -> int:
    """Index of the first ``quote`` after ``start`` followed by the end, whitespace or ``, ; ) ] }``; -1 if none."""
    at = text.find(quote, start)
    while at != -1:
        after = text[at + 1:at + 2]
        if not after or after in _QUOTE_END or after.isspace():
            return at
        at = text.find(quote, at + 1)
    return -1


def candidates(text: str) -> Iterator[tuple[int, str]]:
    """(0-based start, text) of every candidate in one frame, in order.

    A candidate runs to the end of its line, except that after a run of
    backticks it ends at the next run of the same length (inline code,
    CommonMark), after a quote at the first matching quote followed by the
    end, whitespace or ``, ; ) ] }``, and after an opening wrapper (``**``
    ``__`` ``*`` ``_`` ``(`` ``[`` ``<``) a matching closer that ends it is
    left off.
    """
    pos = 0
    while True:
        m = CANDIDATE_RE.search(text, pos)
        if m is None:
            return
        start = m.start()
        opener = text[start - 1] if start else ""
        end = -1
        if opener == "`":
            ticks = 1
            while ticks < start and text[start - 1 - ticks] == "`":
                ticks += 1
            fence = "`" * ticks
            at = text.find(fence, start)
            while at != -1 and (text[at + ticks:at + ticks + 1] == "`"):
                # a longer run of backticks does not close the span
                run_end = at + ticks
                while run_end < len(text) and text[run_end] == "`":
                    run_end += 1
                at = text.find(fence, run_end)
            end = at
        elif opener in ("'", '"'):
            end = _closing_quote(text, opener, start)
        if end == -1:
            cand = text[start:]
            for left, right in _WRAPPERS if opener in _OPENERS else ():
                if text.endswith(left, 0, start):
                    if cand.endswith(right) and len(cand) > len(right):
                        cand = cand[:-len(right)]
                    break
            yield start, cand
            return
        yield start, text[start:end]
        pos = end + 1


class JsonPath:
    """The JSON location, carried from line to line of a (pretty-printed) JSON document.

    :meth:`feed` reads one physical line and returns its string values as
    (path, raw body, 1-based body column); ``state`` is a plain tuple to
    hand to the next reader (a chunk boundary).
    """

    __slots__ = ("stack",)

    def __init__(self, state: tuple = ()) -> None:
        self.stack: list[list[Any]] = [list(level) for level in state]  # [container, key or index, expecting key]

    @property
    def state(self) -> tuple:
        return tuple(tuple(level) for level in self.stack)

    @property
    def depth(self) -> int:
        return len(self.stack)

    def feed(self, line: str) -> list[tuple[tuple, str, int]]:
        out: list[tuple[tuple, str, int]] = []
        stack = self.stack
        for m in _JSON_TOKEN.finditer(line):
            body, punct = m.group(1), m.group(2)
            if punct is not None:
                if punct in "{[":
                    stack.append([punct, None if punct == "{" else 0, punct == "{"])
                elif punct in "}]":
                    if stack:
                        stack.pop()
                elif punct == "," and stack:
                    if stack[-1][0] == "[":
                        stack[-1][1] += 1
                    else:
                        stack[-1][2] = True
                continue
            if stack and stack[-1][0] == "{" and stack[-1][2]:
                key = body
                if "\\" in body:
                    decoded = decode_json_string(body, 0)
                    key = decoded[0] if decoded is not None else body
                stack[-1][1] = key
                stack[-1][2] = False
                continue
            out.append((tuple(level[1] for level in stack), body, m.start(1) + 1))
        return out
