"""Records of lines and chunks: each candidate through ``check_line`` once, and the ``scan`` API."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Iterator

import attrs

from ..records import Record
from ...core.speedups import json_form
from ...core.semantics import check_line
from ...core.syntax import RawLine
from ...core.vocab import Receiver, as_receiver
from .frames import _CANDIDATE_BYTES, _SURROGATE, _may_hold, candidates, frames_of
from .sources import DEFAULT_MAX_LINE_BYTES, Chunk, iter_file_chunks
from .timestamps import Clock, zone

_ENVELOPE_KEYS = ("re", "from", "to", "item")
_TYPE_TOKEN = re.compile(r"[A-Za-z]{2}")


@attrs.define
class Tally:
    """What a scan saw: the figures of the summary table."""

    lines: int = 0
    files: int = 0
    bytes: int = 0
    messages: Counter = attrs.Factory(Counter)  # by type
    diagnostics: Counter = attrs.Factory(Counter)  # by why
    reasons: Counter = attrs.Factory(Counter)  # by reason (finding kind)
    unreadable_ts: int = 0  # lines whose time-shaped text could not be read (ts left null)

    def add(self, other: "Tally") -> None:
        self.lines += other.lines
        self.unreadable_ts += other.unreadable_ts
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


def recover_envelope(text: str, raw: RawLine | None = None) -> dict[str, str]:
    """The envelope fields a refused candidate got as far as, as written (unvalidated).

    From the parsed line when it parsed; else from its whitespace-separated
    tokens up to a ``//`` tail: the second token is the type when it is two
    letters, the third the id when it holds no ``=``, then the first
    ``re= from= to= item=`` of each key.
    """
    found: dict[str, str] = {}
    if raw is not None:
        found["type"], found["id"] = raw.type, raw.id
        tokens: Iterable[str] = raw.tokens
    else:
        parts = text.split(" //", 1)[0].split()
        rest = 1
        if len(parts) > 1 and _TYPE_TOKEN.fullmatch(parts[1]):
            found["type"] = parts[1]
            rest = 2
            if len(parts) > 2 and "=" not in parts[2]:
                found["id"] = parts[2]
                rest = 3
        tokens = parts[rest:]
    for token in tokens:
        key, eq, value = token.partition("=")
        if eq and value and key in _ENVELOPE_KEYS and key not in found:
            found[key] = value
    return found


def _diagnostic(file: str, line: int, column: int, text: str, field: str | None, *, why: str, reason: str,
                token: str, message: str, raw: RawLine | None = None, recover: bool = True, ts: Any = None) -> Record:
    env = recover_envelope(text, raw) if recover else {}
    return Record.of("diagnostic", file, line, column, text, field, env.get("type"), env.get("id"), env.get("from"),
                     env.get("to"), env.get("re"), env.get("item"), None, why, reason, token, message, ts, True)


def _said(finding: Any) -> str:
    """A refusal in words for the ``message`` column, with its "did you mean" hint in parentheses where it has one
    (as lint's SARIF and annotation messages say it), so every column keeps its type on every route."""
    if finding is None:
        return "refused"
    return f"{finding.message} ({finding.hint})" if finding.hint else finding.message


def records_of_line(text: str, receiver: Receiver, *, file: str, line: int, slack: bool = False,
                    strings: list[tuple[str, str, int]] | None = None, clock: Clock | None = None,
                    sink: Any = None) -> list[Record]:
    """Every record of one decoded physical line, each with the line's time (``clock`` reads it; UTC by default).

    In a Slack export (``slack``) the time is the message's ``ts``, set by the Slack reader. With ``sink`` (a
    scan's rows being written: :mod:`rogerwilco.io.scan.rows`), every record goes to it instead, in order, and
    the list returned is empty: a message the C scanner is sure of is written by ``sink.candidate`` with no
    Record built, any other record by ``sink.record``.
    """
    out: list[Record] = []
    emit = out.append if sink is None else sink.record
    sure = None if sink is None else sink.candidate
    keep: dict = {}
    ts = None
    timed = slack
    for frame in frames_of(text, slack=slack, strings=strings, keep=keep):
        for start, cand in candidates(frame.text):
            column = frame.column(start)
            if not timed:  # the line's time, read once, at its first candidate
                timed = True
                ts = (clock or Clock()).line_time(text, column - 1, keep.get("at"), keep.get("value"))
            undecodable = _SURROGATE.search(cand)
            if undecodable is not None:
                bad = undecodable.start()
                byte = ord(cand[bad]) - 0xDC00
                shown = _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", cand)
                emit(_diagnostic(file, line, column, shown, frame.field, why="UNK", reason="encoding",
                                 token=f"\\x{byte:02x}", ts=ts,
                                 message=f"byte 0x{byte:02x} at column {bad + 1} of the candidate is not UTF-8"))
                continue
            if sure is not None and sure(cand, receiver, file, line, column, frame.field, ts):
                continue  # the row written whole from the candidate
            form = json_form(cand, receiver)  # the batch path: a valid line straight to its JSON form
            if form is not None:
                emit(Record.of("message", file, line, column, cand, frame.field, form["type"], form["id"],
                               form["from"], form["to"], form["re"], form["item"], form, None, None, None, None,
                               ts, False))
                continue
            result = check_line(cand, receiver, line_number=line, file=file)
            msg = result.message
            if msg is not None:
                emit(Record.of("message", file, line, column, cand, frame.field, msg.type, msg.id, msg.from_,
                               msg.to, msg.re, msg.item, msg.to_json(), None, None, None, None, ts, False))
                continue
            first = result.refusal
            emit(_diagnostic(
                file, line, column, cand, frame.field, why=(first.why if first else None) or "UNK",
                reason=first.kind if first else "syntax", token=(first.token if first else "") or "",
                message=_said(first), raw=result.raw, ts=ts))
    return out


def records_of_chunk(chunk: Chunk, receiver: Receiver, clock: Clock | None = None, *,
                     sink: Any = None) -> tuple[list[Record], int]:
    """The records of a chunk, in order, and its number of lines.

    ``clock`` reads the lines' times (default: zone-less times are UTC, no
    syslog year) and counts those it cannot read. With ``sink``, as
    :func:`records_of_line` takes it, every record goes to it and the list
    returned is empty; a plain log line the C scanner is sure of is written
    whole by ``sink.line``.
    """
    clock = clock or Clock()
    if chunk.problem is not None:
        return _given([_unreadable(chunk.file, chunk.problem)], sink), 0
    if chunk.elements is not None:
        from .slack import _compact_records  # the Slack reader builds on records_of_line

        return _given(_compact_records(chunk, receiver, clock), sink), chunk.physical_lines
    if chunk.slack:
        from .slack import _slack_records  # the Slack reader builds on records_of_line

        lines = chunk.data.split(b"\n")
        lines.pop()  # data ends with "\n"
        return _given(_slack_records(chunk, lines, receiver, clock), sink), len(lines)
    out: list[Record] = []
    emit = out.append if sink is None else sink.record
    whole = None if sink is None else sink.line
    limit = chunk.max_line_bytes
    data = chunk.data
    for i, raw in _lines_to_read(data, chunk.overlong):
        if not _may_hold(raw):
            if i in chunk.overlong and chunk.overlong[i][1]:
                size = chunk.overlong[i][0]
                emit(_too_long(chunk.file, chunk.first + i, size, limit))
            continue
        number = chunk.first + i
        if len(raw) > limit:
            emit(_too_long(chunk.file, number, len(raw), limit))
            continue
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        text = raw.decode("utf-8", "surrogateescape")
        if whole is not None and whole(text, receiver, chunk.file, number):
            continue  # a plain line's one record, written whole
        out.extend(records_of_line(text, receiver, file=chunk.file, line=number, clock=clock, sink=sink))
    return out, data.count(b"\n")


def _given(records: list[Record], sink: Any) -> list[Record]:
    """``records``, or with a sink, each given to it and nothing returned."""
    if sink is None:
        return records
    for record in records:
        sink.record(record)
    return []


# a JSON escape, which could spell a version token (the other half of _may_hold's test)
_ESCAPE_BYTES = re.compile(rb"\\u")


def _lines_to_read(data: bytes, overlong: dict) -> list[tuple[int, bytes]]:
    """(index, bytes) of the lines of ``data`` (each ending in ``\n``) that may hold a candidate, and of the
    overlong placeholders, in order: a superset of the lines :func:`_may_hold` passes, found by two searches of
    the whole chunk (the candidate test on bytes, and ``\\u``) instead of a test per line.

    A line whose own match a search across lines would skip (a match from the line before, running on through
    whitespace and line ends) is one that match touches, and every line a match touches is taken.
    """
    starts: dict[int, int] = {}  # line index -> offset of its first byte
    for pattern in (_CANDIDATE_BYTES, _ESCAPE_BYTES):
        line, at = 0, 0
        for m in pattern.finditer(data):
            begin, end = m.span()
            line += data.count(b"\n", at, begin)
            at = begin
            start = data.rfind(b"\n", 0, begin) + 1
            for index in range(line, line + data.count(b"\n", begin, end - 1) + 1):
                starts.setdefault(index, start)
                start = data.find(b"\n", start) + 1
    for index in overlong:  # placeholders, a few a chunk: found by counting lines
        if index not in starts:
            start = 0
            for _ in range(index):
                start = data.find(b"\n", start) + 1
            starts[index] = start
    return [(index, data[starts[index]:data.find(b"\n", starts[index])]) for index in sorted(starts)]


def _unreadable(file: str, problem: str) -> Record:
    """The one diagnostic of an input that could not be opened or read to its end (line 0: the input as a whole)."""
    return _diagnostic(file, 0, 0, "", None, why="UNK", reason="unreadable", token=file, message=problem,
                       recover=False)


def _too_long(file: str, line: int, size: int, limit: int) -> Record:
    return _diagnostic(file, line, 1, "", None, why="UNK", reason="too-long", token="", recover=False,
                       message=f"line is {size} bytes; the limit is {limit}; it may hold a message and was not read")


def scan(paths_or_lines: Any, profiles: Receiver | Iterable | None = None, *,
         max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, tally: Tally | None = None, tz: str | None = None,
         year: int | None = None) -> Iterator[Record]:
    """Records of every candidate in the inputs, in input order.

    ``paths_or_lines`` is a path (``str`` or ``os.PathLike``; a directory is
    walked; ``"-"`` is standard input), an fsspec URL (a file, a directory or
    a glob: ``s3://bucket/logs/*.gz``, ``memory://x.log``; a URL that cannot
    be read gives one ``unreadable`` diagnostic and the scan goes on),
    :class:`Inputs` (several such names), a binary file object, or an iterable
    mixing ``os.PathLike`` paths with lines (``str`` or ``bytes``). In an
    iterable a ``str`` is a line, never a path: wrap paths in ``pathlib.Path``.
    ``profiles`` defaults to every bundled profile. ``tz`` is the zone of
    zone-less times (an IANA name or ``+02:00``; default UTC) and ``year`` the
    year of syslog times, which name none (default: such times are not read).
    """
    receiver = Receiver.all_bundled() if profiles is None else as_receiver(profiles)
    clock = Clock(zone(tz), year)
    for chunk in iter_file_chunks(paths_or_lines, max_line_bytes=max_line_bytes, tally=tally):
        before = clock.unreadable
        records, nlines = records_of_chunk(chunk, receiver, clock)
        if tally is not None:
            tally.unreadable_ts += clock.unreadable - before
            tally.lines += nlines
            for record in records:
                tally.count(record)
        yield from records
