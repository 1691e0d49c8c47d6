"""Scan: find RW1 lines wherever they sit in real logs, one record each.

Theory of operation
-------------------
Input is read as bytes in blocks, never whole. A file is opened by its magic
bytes (gzip ``1f 8b``, bzip2 ``BZh``, xz ``fd 37 7a 58 5a 00``; anything else
is read as it is) and cut into *chunks* of whole lines (about 1 MiB each),
each carrying the number of its first line. A physical line longer than
``max_line_bytes`` is never held: the reader skips to its end and leaves an
empty placeholder, remembering its size and whether it may hold a candidate. Memory is
therefore bounded by the chunk size times the chunks in flight, whatever the
size of the file.

A leading UTF-8 byte order mark is dropped from each input (columns count
from after it). Each line of a chunk goes through one cheap test on its
bytes: a line without a version token followed by whitespace and a letter
(the byte form of the candidate test below, or a JSON ``\\u`` escape, which
could spell one) holds no candidate and costs nothing more. The rest are decoded
(UTF-8, undecodable bytes kept as surrogates) and split into *frames*, the
texts in which a message could sit:

* a line that is a whole JSON value (a JSON Lines record) yields every string
  at any depth, with its JSON Pointer (``/payload/text``);
* a line that is one member or element of a pretty-printed JSON document
  (``"text": "RW1 ..."``, the shape of a Slack-style export) yields its
  string, with the member's key;
* a line whose rest, from its first ``{`` or ``[``, is a JSON object or
  array (a log prefix, then JSON) yields that value's strings as a JSON line
  does, unless the prefix itself holds a candidate;
* any other line (plain messages, log prefixes, chat, Markdown code blocks
  and ``>`` quotes) is itself the frame.

Strings are decoded by hand so that every decoded character keeps the column
of the raw character it came from: a record's column is always the column in
the physical line, even behind escapes. A decoded string is split at its own
line breaks. In a Slack-style export (a JSON array whose first block names
``"type": "message"``) the ``text`` fields also lose Slack's three entities
(``&lt; &gt; &amp;``); nothing else is rewritten. A Slack export is read with
its JSON location carried from line to line (:class:`JsonPath`; its chunks
are cut between messages and carry the location at their start), so each
message is reported once: its ``text`` member is preferred, and a candidate in
its ``blocks`` is kept only when it is not part of that ``text``.

A *candidate* in a frame starts at a version token (``RW`` and digits, not
preceded by a letter or digit) followed by a space and an uppercase letter,
or by any run of whitespace (tab, NBSP ...) and two letters of either case
standing alone (when they are not both uppercase, an id-shaped token must
follow, so prose such as "RW1 is fine" stays out). It runs to the end of its
line, except: after a run of backticks it ends at the next run of the same
length (inline code); after a quote (``"`` or ``'``) at the first such quote
followed by the end, whitespace or ``, ; ) ] }``; after an opening wrapper
(``**`` ``__`` ``*`` ``_`` ``(`` ``[`` ``<``) a matching closer that ends
the candidate is left off. Every candidate goes through
:func:`rogerwilco.semantics.check_line` exactly once, the same call the core
makes for a bare line, and becomes a ``message`` record or a ``diagnostic``
record naming ``why``, the offending ``token`` and the reason. A line too
long to read, or undecodable inside a candidate, also becomes a diagnostic.
Nothing that looks like RW1 is dropped.

``-j N`` hands chunks to N worker processes with at most ``2N`` chunks in
flight and collects the results in submission order, so output is in input
order and memory stays bounded. Workers return their output already
formatted (JSON Lines or CSV text, or an Arrow record batch), so the parent
only reads, cuts and writes.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import re
import sys
from collections import Counter, deque
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Sequence

import attrs

from .errors import RW1Error, printable
from .semantics import check_line
from .vocab import Receiver, as_receiver

DEFAULT_MAX_LINE_BYTES = 1024 * 1024
DEFAULT_CHUNK_BYTES = 1024 * 1024
_BLOCK = 256 * 1024

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
_BOM = b"\xef\xbb\xbf"
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
_SLACK_SNIFF = re.compile(rb'"type"\s*:\s*"message"')
# one JSON string literal, or a structural character
_JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}\[\],:])')
# a pretty-printed member or element: "key": "value",  /  "value",
_JSON_MEMBER = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"\s*:\s*)?"((?:[^"\\]|\\.)*)"\s*,?\s*')
_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SLACK_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))

#: The record columns, in order (the stable schema of every output format).
COLUMNS = (
    "record", "file", "line", "column", "field", "text",
    "type", "id", "from", "to", "re", "item", "json",
    "why", "reason", "token", "message",
)


@attrs.frozen(kw_only=True)
class Record:
    """One candidate found in a log: a message, or a diagnostic saying why not.

    ``record`` is ``"message"`` or ``"diagnostic"``. ``line`` and ``column``
    are 1-based (column in code points of the physical line). ``field`` is
    the JSON location the candidate was read from, else None. For a message,
    ``json`` is its JSON form and the envelope columns are filled; for a
    diagnostic, ``why`` (``UNK`` or ``VER``), ``reason`` (the finding kind:
    ``syntax``, ``enum``, ``missing``, ``too-long``, ``encoding`` ...),
    ``token`` (the offending text as written) and ``message`` say why, and
    ``type``/``id`` are filled where the line got that far.
    """

    record: str
    file: str
    line: int
    column: int
    text: str
    field: str | None = None
    type: str | None = None
    id: str | None = None
    from_: str | None = None
    to: str | None = None
    re: str | None = None
    item: str | None = None
    json: dict | None = None
    why: str | None = None
    reason: str | None = None
    token: str | None = None
    message: str | None = None

    @property
    def is_message(self) -> bool:
        return self.record == "message"

    def to_dict(self) -> dict[str, Any]:
        """The record as a plain object with the documented column names."""
        return {
            "record": self.record, "file": self.file, "line": self.line, "column": self.column,
            "field": self.field, "text": self.text, "type": self.type, "id": self.id,
            "from": self.from_, "to": self.to, "re": self.re, "item": self.item, "json": self.json,
            "why": self.why, "reason": self.reason, "token": self.token, "message": self.message,
        }


@attrs.define
class Tally:
    """What a scan saw: the figures of the summary table."""

    lines: int = 0
    files: int = 0
    bytes: int = 0
    messages: Counter = attrs.Factory(Counter)  # by type
    diagnostics: Counter = attrs.Factory(Counter)  # by why
    reasons: Counter = attrs.Factory(Counter)  # by reason (finding kind)

    def add(self, other: "Tally") -> None:
        self.lines += other.lines
        self.files += other.files
        self.bytes += other.bytes
        self.messages.update(other.messages)
        self.diagnostics.update(other.diagnostics)
        self.reasons.update(other.reasons)

    def count(self, record: Record) -> None:
        if record.is_message:
            self.messages[record.type] += 1
        else:
            self.diagnostics[record.why or "UNK"] += 1
            self.reasons[record.reason or "?"] += 1

    @property
    def refused(self) -> int:
        return sum(self.diagnostics.values())


# --------------------------------------------------------------------------
# frames: the texts in which a message could sit


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


def _json_strings(line: str, at: int = 0) -> list[tuple[str, str, int]] | None:
    """(pointer, raw body, body column) of every string value of the JSON value ``line[at:]``.

    None when that is not a JSON object or array.
    """
    try:
        value = json.loads(line[at:] if at else line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, (dict, list)):
        return None
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
        pointer = "".join("/" + str(level[1]).replace("~", "~0").replace("/", "~1") for level in stack)
        out.append((pointer, body, m.start(1) + 1))
    return out


# where a JSON object or array may start after a prefix (a cheap test before json.loads)
_EMBEDDED_JSON = re.compile(r'\{\s*["}]|\[\s*["{\[\]0-9tfn-]')


def _embedded_json(line: str) -> list[tuple[str, str, int]] | None:
    """The strings of a JSON object or array that ends a line after a log prefix.

    Tried from the first ``{`` and the first ``[`` (so ``[agent] {...}`` is
    found); None when neither rest is JSON, or when the prefix itself holds a
    candidate (the candidate then runs to the end of the line, JSON and all).
    """
    for at in sorted(i for i in (line.find("{"), line.find("[")) if i > 0):
        strings = _json_strings(line, at)
        if strings is not None:
            return None if CANDIDATE_RE.search(line, 0, at) else strings
    return None


def frames_of(line: str, *, slack: bool = False, strings: list[tuple[str, str, int]] | None = None) -> list[Frame]:
    """The texts of one physical line in which a message could sit.

    ``strings`` are the line's JSON strings as (field, raw body, column) when
    the caller already knows them (a Slack export read with :class:`JsonPath`).
    """
    head = line.lstrip()[:1]
    raw_strings: list[tuple[str, str, int]] | None = strings
    if raw_strings is not None:
        pass
    elif head in ("{", "["):
        raw_strings = _json_strings(line)
    elif head == '"':
        m = _JSON_MEMBER.fullmatch(line)
        if m is not None:
            key = m.group(1)
            if key is not None and "\\" in key:
                decoded_key = decode_json_string(key, 0)
                key = decoded_key[0] if decoded_key else key
            raw_strings = [(key if key is not None else "", m.group(2), m.start(2) + 1)]
    if raw_strings is None and _EMBEDDED_JSON.search(line) is not None:
        raw_strings = _embedded_json(line)
    if raw_strings is None:
        return [Frame(line, 1)]
    frames: list[Frame] = []
    for field, body, column in raw_strings:
        if "RW" not in body and "\\u" not in body:
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
            for left, right in _WRAPPERS:
                if text.endswith(left, 0, start):
                    if cand.endswith(right) and len(cand) > len(right):
                        cand = cand[:-len(right)]
                    break
            yield start, cand
            return
        yield start, text[start:end]
        pos = end + 1


# --------------------------------------------------------------------------
# one line, one chunk


def _diagnostic(file: str, line: int, column: int, text: str, field: str | None, *, why: str, reason: str,
                token: str, message: str, type_: str | None = None, id_: str | None = None) -> Record:
    return Record(record="diagnostic", file=file, line=line, column=column, text=text, field=field,
                  type=type_, id=id_, why=why, reason=reason, token=token, message=message)


def records_of_line(text: str, receiver: Receiver, *, file: str, line: int, slack: bool = False,
                    strings: list[tuple[str, str, int]] | None = None) -> list[Record]:
    """Every record of one decoded physical line."""
    out: list[Record] = []
    for frame in frames_of(text, slack=slack, strings=strings):
        for start, cand in candidates(frame.text):
            column = frame.column(start)
            undecodable = _SURROGATE.search(cand)
            if undecodable is not None:
                bad = undecodable.start()
                byte = ord(cand[bad]) - 0xDC00
                shown = _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", cand)
                out.append(_diagnostic(file, line, column, shown, frame.field, why="UNK", reason="encoding",
                                       token=f"\\x{byte:02x}",
                                       message=f"byte 0x{byte:02x} at column {bad + 1} of the candidate is not UTF-8"))
                continue
            result = check_line(cand, receiver, line_number=line, file=file)
            msg = result.message
            if msg is not None:
                out.append(Record(record="message", file=file, line=line, column=column, text=cand,
                                  field=frame.field, type=msg.type, id=msg.id, from_=msg.from_, to=msg.to,
                                  re=msg.re, item=msg.item, json=msg.to_json()))
                continue
            first = result.refusal
            raw = result.raw
            out.append(_diagnostic(
                file, line, column, cand, frame.field, why=(first.why if first else None) or "UNK",
                reason=first.kind if first else "syntax", token=(first.token if first else "") or "",
                message=first.message if first else "refused",
                type_=raw.type if raw is not None else None, id_=raw.id if raw is not None else None))
    return out


@attrs.frozen
class Chunk:
    """Whole lines of one file: ``data`` (lines ending in ``\\n``), its first line number,
    and the lines that were too long to hold (relative index -> (size, held "RW"))."""

    file: str
    first: int
    data: bytes
    overlong: dict = attrs.Factory(dict)
    slack: bool = False
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    json_state: tuple = ()  # Slack exports: the JSON location (JsonPath.state) before the first line


def _may_hold(data: bytes) -> bool:
    """Whether raw bytes may hold a candidate (the one test every line pays)."""
    return b"RW" in data and (_CANDIDATE_BYTES.search(data) is not None or b"\\u" in data)


def records_of_chunk(chunk: Chunk, receiver: Receiver) -> tuple[list[Record], int]:
    """The records of a chunk, in order, and its number of lines."""
    lines = chunk.data.split(b"\n")
    lines.pop()  # data ends with "\n"
    if chunk.slack:
        return _slack_records(chunk, lines, receiver), len(lines)
    out: list[Record] = []
    limit = chunk.max_line_bytes
    for i, raw in enumerate(lines):
        if not _may_hold(raw):
            if i in chunk.overlong and chunk.overlong[i][1]:
                size = chunk.overlong[i][0]
                out.append(_too_long(chunk.file, chunk.first + i, size, limit))
            continue
        number = chunk.first + i
        if len(raw) > limit:
            out.append(_too_long(chunk.file, number, len(raw), limit))
            continue
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        text = raw.decode("utf-8", "surrogateescape")
        out.extend(records_of_line(text, receiver, file=chunk.file, line=number, slack=chunk.slack))
    return out, len(lines)


def _too_long(file: str, line: int, size: int, limit: int) -> Record:
    return _diagnostic(file, line, 1, "", None, why="UNK", reason="too-long", token="",
                       message=f"line is {size} bytes; the limit is {limit}; it may hold a message and was not read")


# --------------------------------------------------------------------------
# Slack exports: each message once


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


def _pointer(path: tuple) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _slack_text(body: str) -> str:
    try:
        text = json.loads('"' + body + '"') if "\\" in body else body
    except ValueError:
        return ""
    for entity, char in _SLACK_ENTITIES:
        text = text.replace(entity, char)
    return text


def _slack_records(chunk: Chunk, lines: list[bytes], receiver: Receiver) -> list[Record]:
    """The records of a chunk of a Slack export, each message reported once.

    A Slack message carries its text twice: the ``text`` member and, in
    ``blocks``, the rich-text copy (``blocks[].elements[].elements[].text``).
    Records are held until their message (a top-level element) ends; then a
    record found in the message's ``blocks`` is dropped when its candidate
    text is part of the message's own ``text``, which is preferred.
    """
    out: list[Record] = []
    tracker = JsonPath(chunk.json_state)
    limit = chunk.max_line_bytes
    held: list[tuple[Record, tuple | None]] = []
    texts: dict[Any, str] = {}

    def release() -> None:
        for record, path in held:
            if (path is not None and len(path) > 2 and path[1] == "blocks" and path[0] in texts
                    and record.text in texts[path[0]]):
                continue
            out.append(record)
        held.clear()
        texts.clear()

    for i, raw in enumerate(lines):
        number = chunk.first + i
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if i in chunk.overlong:
            if chunk.overlong[i][1]:
                held.append((_too_long(chunk.file, number, chunk.overlong[i][0], limit), None))
            continue
        if len(raw) > limit:
            if _may_hold(raw):
                held.append((_too_long(chunk.file, number, len(raw), limit), None))
            continue
        text = raw.decode("utf-8", "surrogateescape")
        whole = tracker.depth == 0
        strings = tracker.feed(text)
        for path, body, _column in strings:
            if len(path) == 2 and path[1] == "text" and isinstance(path[0], int):
                texts[path[0]] = _slack_text(body)
        if _may_hold(raw):
            fields = [(_pointer(path) if whole else (path[-1] if path and isinstance(path[-1], str) else ""),
                       body, column) for path, body, column in strings]
            records = records_of_line(text, receiver, file=chunk.file, line=number, slack=True,
                                      strings=fields if strings else None)
            for record in records:
                where = next((path for path, body, column in strings
                              if column <= record.column <= column + len(body)), None)
                held.append((record, where))
        if tracker.depth <= 1:
            release()
    release()
    return out


def _element_chunks(chunks: Iterable[Chunk], hard_limit: int) -> Iterator[Chunk]:
    """A Slack export's chunks (of one file) cut again between its messages (top-level elements).

    Each chunk carries the JSON location at its start. A message larger than
    ``hard_limit`` bytes is cut inside (memory stays bounded); its two copies
    of the text may then both be reported.
    """
    tracker = JsonPath()
    held: list[bytes] = []
    overlong: dict[int, tuple[int, bool]] = {}
    first = 0
    size = 0
    state = tracker.state
    template: Chunk | None = None

    def emit(count: int, next_state: tuple) -> Chunk:
        nonlocal held, overlong, first, size, state
        assert template is not None
        chunk = attrs.evolve(template, first=first, data=b"".join(x + b"\n" for x in held[:count]),
                             overlong={k: v for k, v in overlong.items() if k < count}, json_state=state)
        held = held[count:]
        overlong = {k - count: v for k, v in overlong.items() if k >= count}
        size = sum(len(x) + 1 for x in held)
        first += count
        state = next_state
        return chunk

    for chunk in chunks:
        if not chunk.slack:
            yield chunk
            continue
        if template is None:
            template, first = chunk, chunk.first
        lines = chunk.data.split(b"\n")
        lines.pop()
        boundary, boundary_state = 0, state
        for i, raw in enumerate(lines):
            if i in chunk.overlong:
                overlong[len(held)] = chunk.overlong[i]
            held.append(raw)
            size += len(raw) + 1
            if i not in chunk.overlong:
                tracker.feed(raw.decode("utf-8", "surrogateescape"))
            if tracker.depth <= 1:
                boundary, boundary_state = len(held), tracker.state
        if boundary:
            yield emit(boundary, boundary_state)
        elif size > hard_limit:
            yield emit(len(held), tracker.state)
    if held:
        yield emit(len(held), tracker.state)


# --------------------------------------------------------------------------
# reading files into chunks


def _open_stream(raw: IO[bytes]) -> tuple[IO[bytes], str | None]:
    """The decompressed stream, chosen by magic bytes, and the compression name."""
    buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)  # type: ignore[arg-type]
    head = buffered.peek(6)[:6]  # type: ignore[union-attr]
    for magic, name in _MAGIC:
        if head.startswith(magic):
            if name == "gzip":
                return gzip.GzipFile(fileobj=buffered), name  # type: ignore[arg-type]
            opener = bz2.BZ2File if name == "bz2" else lzma.LZMAFile
            return opener(buffered), name  # type: ignore[arg-type]
    return buffered, None  # type: ignore[return-value]


def iter_chunks(stream: IO[bytes], file: str, *, chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                progress: Callable[[], None] | None = None) -> Iterator[Chunk]:
    """Whole-line chunks of a stream, holding at most ``max_line_bytes`` of any line."""
    first = 1
    parts: list[bytes] = []
    size = 0
    nlines = 0
    overlong: dict[int, tuple[int, bool]] = {}
    pending = b""
    skipping: list | None = None  # [size so far, held RW, last byte]
    slack: bool | None = None
    block_size = max(_BLOCK, min(chunk_bytes, 4 * _BLOCK))

    def flush() -> Chunk:
        nonlocal first, parts, size, nlines, overlong
        chunk = Chunk(file, first, b"".join(parts), overlong, bool(slack), max_line_bytes)
        first += nlines
        parts, size, nlines, overlong = [], 0, 0, {}
        return chunk

    while True:
        block = stream.read(block_size)
        if progress is not None:
            progress()
        if slack is None:
            # a leading UTF-8 byte order mark is no part of the first line
            while block and len(block) < len(_BOM) and _BOM.startswith(block):
                more = stream.read(block_size)
                if not more:
                    break
                block += more
            if block.startswith(_BOM):
                block = block[len(_BOM):]
            head = block.lstrip()
            slack = head.startswith(b"[") and _SLACK_SNIFF.search(block) is not None
        if not block:
            break
        if skipping is not None:
            nl = block.find(b"\n")
            seen = skipping[2] + (block if nl == -1 else block[:nl])
            skipping[1] = skipping[1] or _may_hold(seen)
            if nl == -1:
                skipping[0] += len(block)
                skipping[2] = block[-24:]
                continue
            skipping[0] += nl
            overlong[nlines] = (skipping[0], skipping[1])
            parts.append(b"\n")
            nlines += 1
            size += 1
            skipping = None
            block = block[nl + 1:]
        data = pending + block if pending else block
        last = data.rfind(b"\n")
        if last == -1:
            pending = data
        else:
            whole = data[:last + 1]
            pending = data[last + 1:]
            parts.append(whole)
            size += len(whole)
            nlines += whole.count(b"\n")
        if len(pending) > max_line_bytes:
            skipping = [len(pending), _may_hold(pending), pending[-24:]]
            pending = b""
        if size >= chunk_bytes:
            yield flush()
    if skipping is not None:
        overlong[nlines] = (skipping[0], skipping[1])
        parts.append(b"\n")
        nlines += 1
    elif pending:
        if pending.endswith(b"\r"):
            pending = pending[:-1]
        parts.append(pending + b"\n")
        nlines += 1
    if parts:
        yield flush()


# --------------------------------------------------------------------------
# the records API


def _sources(paths_or_lines: Any) -> Iterator[tuple[str, Any]]:
    """(display name, a path / a binary stream / an iterable of lines)."""
    if isinstance(paths_or_lines, (str, os.PathLike)):
        yield from _path_sources(paths_or_lines)
        return
    if hasattr(paths_or_lines, "read"):
        yield getattr(paths_or_lines, "name", "<stream>"), paths_or_lines
        return
    lines: list = []
    for item in paths_or_lines:
        if isinstance(item, os.PathLike):
            if lines:
                yield "<lines>", lines
                lines = []
            yield from _path_sources(item)
        elif isinstance(item, (str, bytes)):
            lines.append(item)
            if len(lines) >= 10_000:
                yield "<lines>", lines
                lines = []
        else:
            raise TypeError(f"scan() takes paths (os.PathLike) and lines (str or bytes), not {type(item).__name__}")
    if lines:
        yield "<lines>", lines


def _path_sources(path: str | os.PathLike) -> Iterator[tuple[str, Any]]:
    name = os.fspath(path)
    if name == "-":
        yield "<stdin>", sys.stdin.buffer
        return
    p = Path(name)
    if p.is_dir():
        for child in sorted(q for q in p.rglob("*") if q.is_file()):
            yield str(child), child
        return
    yield name, p


def _lines_chunk(name: str, lines: list, first: int) -> Chunk:
    parts = []
    for item in lines:
        data = item.encode("utf-8", "surrogateescape") if isinstance(item, str) else item
        if first == 1 and not parts and data.startswith(_BOM):
            data = data[len(_BOM):]  # a byte order mark opening the lines
        if data.endswith(b"\n"):
            data = data[:-1]
        if data.endswith(b"\r"):
            data = data[:-1]
        parts.append(data.replace(b"\n", b"\\n"))  # a line passed in holds no line break
    return Chunk(name, first, b"\n".join(parts) + b"\n")


def iter_file_chunks(paths_or_lines: Any, *, chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                     max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, tally: Tally | None = None,
                     progress: Callable[[str, int], None] | None = None) -> Iterator[Chunk]:
    """Every chunk of every input, in order.

    ``progress(name, position)`` is called per block read with the position
    in the file as stored (compressed bytes for a compressed file).
    """
    line_counter: dict[str, int] = {}
    for name, source in _sources(paths_or_lines):
        if tally is not None and not (isinstance(source, list) and name in line_counter):
            tally.files += 1
        if isinstance(source, list):
            first = line_counter.get(name, 1)
            line_counter[name] = first + len(source)
            yield _lines_chunk(name, source, first)
            continue
        if isinstance(source, Path):
            try:
                fh = open(source, "rb")
            except OSError as exc:
                raise RW1Error(f"cannot read {name}: {exc.strerror}") from None
        else:
            fh = source
        tick = None
        if progress is not None:
            def tick(fh=fh, name=name):  # noqa: E306
                try:
                    progress(name, fh.tell())
                except (OSError, ValueError):
                    pass
        try:
            stream, _ = _open_stream(fh)
            try:
                yield from _element_chunks(iter_chunks(stream, name, chunk_bytes=chunk_bytes,
                                                       max_line_bytes=max_line_bytes, progress=tick),
                                           hard_limit=16 * max(chunk_bytes, max_line_bytes))
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise RW1Error(f"cannot read {name}: {exc}") from None
        finally:
            if isinstance(source, Path):
                fh.close()


def scan(paths_or_lines: Any, profiles: Receiver | Iterable | None = None, *,
         max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, tally: Tally | None = None) -> Iterator[Record]:
    """Records of every candidate in the inputs, in input order.

    ``paths_or_lines`` is a path (``str`` or ``os.PathLike``; a directory is
    walked; ``"-"`` is standard input), a binary file object, or an iterable
    mixing ``os.PathLike`` paths with lines (``str`` or ``bytes``). In an
    iterable a ``str`` is a line, never a path: wrap paths in ``pathlib.Path``.
    ``profiles`` defaults to every bundled profile.
    """
    receiver = Receiver.all_bundled() if profiles is None else as_receiver(profiles)
    for chunk in iter_file_chunks(paths_or_lines, max_line_bytes=max_line_bytes, tally=tally):
        records, nlines = records_of_chunk(chunk, receiver)
        if tally is not None:
            tally.lines += nlines
            for record in records:
                tally.count(record)
        yield from records


# --------------------------------------------------------------------------
# output formats


def _csv_cell(value: Any) -> str:
    """A CSV cell that cannot start a formula or break a row.

    Control characters are shown as escapes; a cell starting with ``=``,
    ``+``, ``-`` or ``@`` (or a tab or carriage return) gets a leading ``'``,
    so a spreadsheet shows it as text instead of evaluating it.
    """
    if value is None:
        return ""
    if isinstance(value, dict):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    else:
        text = str(value)
    text = printable(text)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        text = "'" + text
    return text


def format_jsonl(records: Iterable[Record]) -> str:
    # ensure_ascii: U+2028, U+2029 and U+0085 in a log cannot break a line of output
    return "".join(json.dumps(r.to_dict(), ensure_ascii=True) + "\n" for r in records)


def format_csv(records: Iterable[Record], *, header: bool = False) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if header:
        writer.writerow(COLUMNS)
    for r in records:
        d = r.to_dict()
        writer.writerow([_csv_cell(d[c]) for c in COLUMNS])
    return buf.getvalue()


def _pyarrow():
    try:
        import pyarrow
    except ImportError:
        raise RW1Error("Parquet and Arrow output need pyarrow: pip install 'rogerwilco[parquet]'") from None
    return pyarrow


def arrow_schema():
    pa = _pyarrow()
    string_cols = {"record", "file", "field", "text", "type", "id", "from", "to", "re", "item", "json",
                   "why", "reason", "token", "message"}
    fields = []
    for name in COLUMNS:
        if name in ("line", "column"):
            fields.append(pa.field(name, pa.int64(), nullable=False))
        else:
            fields.append(pa.field(name, pa.string(), nullable=name not in ("record", "file", "text")))
    assert {f.name for f in fields if f.type == pa.string()} == string_cols
    return pa.schema(fields)


def to_arrow_batch(records: Iterable[Record]):
    """An Arrow RecordBatch of records with the stable schema (``json`` as JSON text)."""
    pa = _pyarrow()
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    for r in records:
        d = r.to_dict()
        d["json"] = json.dumps(d["json"], ensure_ascii=False, separators=(",", ":")) if d["json"] is not None else None
        for c in COLUMNS:
            cols[c].append(d[c])
    schema = arrow_schema()
    return pa.RecordBatch.from_arrays([pa.array(cols[c], type=schema.field(c).type) for c in COLUMNS], schema=schema)


def to_arrow(records: Iterable[Record], *, batch_size: int = 65536):
    """An Arrow Table of records (optional extra ``parquet``): feeds DuckDB, pandas, Spark."""
    pa = _pyarrow()
    batches = []
    buf: list[Record] = []
    for r in records:
        buf.append(r)
        if len(buf) >= batch_size:
            batches.append(to_arrow_batch(buf))
            buf = []
    if buf or not batches:
        batches.append(to_arrow_batch(buf))
    return pa.Table.from_batches(batches, schema=arrow_schema())


# --------------------------------------------------------------------------
# the engine behind `rogerwilco scan`: chunks in, formatted output out, in order

_WORKER_RECEIVER: Receiver | None = None


def _worker_init(profile_spec: tuple | None) -> None:
    global _WORKER_RECEIVER
    _WORKER_RECEIVER = Receiver.all_bundled() if profile_spec is None else Receiver(profile_spec)


def _work(chunk: Chunk, fmt: str, receiver: Receiver | None = None) -> tuple[Any, Tally]:
    receiver = receiver or _WORKER_RECEIVER
    assert receiver is not None
    records, nlines = records_of_chunk(chunk, receiver)
    tally = Tally(lines=nlines)
    for record in records:
        tally.count(record)
    if fmt == "jsonl":
        out: Any = format_jsonl(records)
    elif fmt == "csv":
        out = format_csv(records)
    elif fmt == "parquet":
        out = to_arrow_batch(records) if records else None
    else:
        out = records
    return out, tally


def run_scan(chunks: Iterable[Chunk], fmt: str, *, jobs: int = 1, profile_spec: tuple | None = None,
             receiver: Receiver | None = None) -> Iterator[tuple[Any, Tally]]:
    """Formatted output and tally per chunk, in input order, over ``jobs`` processes.

    ``profile_spec`` is what a worker builds its receiver from (None: every
    bundled profile; a tuple of names, paths or profile objects; ``()``: core
    only). At most ``2 * jobs`` chunks are in flight.
    """
    if jobs <= 1:
        receiver = receiver or (Receiver.all_bundled() if profile_spec is None else Receiver(profile_spec))
        for chunk in chunks:
            yield _work(chunk, fmt, receiver)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(profile_spec,))
    try:
        inflight: deque = deque()
        for chunk in chunks:
            inflight.append(pool.apply_async(_work, (chunk, fmt)))
            if len(inflight) >= 2 * jobs:
                yield inflight.popleft().get()
        while inflight:
            yield inflight.popleft().get()
    finally:
        pool.terminate()
        pool.join()
