"""Streams: files and stdin, line by line, with nothing dropped.

Theory of operation
-------------------
A stream is read as bytes in bounded chunks, never whole: a line longer
than ``max_bytes`` (default 64 KiB) is consumed in bounded chunks and yields a
diagnostic instead of text, so one runaway line cannot exhaust memory (the
reader holds at most ``max_bytes`` plus one chunk). A line ends at ``\\n``,
``\\r\\n`` or a bare ``\\r`` (a file from an old Mac, or a log joined by a
tool that ends lines with CR); a line ended by a bare CR carries a
``bare-cr`` note, so the reader says how it split the text. The terminator is
stripped, and so is a UTF-8 byte-order mark opening the stream; a line that
is not UTF-8 yields a diagnostic naming the column of the first bad byte.
Every input line yields exactly one :class:`~rogerwilco.semantics.LineResult`:
a message, or findings that say why not. A blank line yields a ``blank`` note
and no message.
"""

from __future__ import annotations

import io
from typing import IO, Callable, Iterable, Iterator

import attrs

from ..core.findings import Finding, fail, note
from ..core.message import Message
from ..core.semantics import LineResult, check_line
from ..core.vocab import Receiver, as_receiver

DEFAULT_MAX_BYTES = 64 * 1024

#: the quiet attempt, ``speedups.accept_quiet``: bound on first use, so a short ``validate`` (which asks for it from
#: :data:`QUIET_FROM` lines on) never loads the accept path
accept_quiet: Callable[[str, Receiver, int | None, str | None], Message | None] | None = None


def _quiet() -> Callable[[str, Receiver, int | None, str | None], Message | None]:
    global accept_quiet
    if accept_quiet is None:
        from ..core.speedups import accept_quiet as bound
        accept_quiet = bound
    return accept_quiet
#: the line from which ``validate`` tries the quiet attempt: loading the accept path costs about as much as the
#: full pass of a thousand lines, so a short input (one line given on the command line) never pays for it
QUIET_FROM = 1000
_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"


@attrs.frozen
class RawInputLine:
    number: int
    text: str | None  # None when the line could not be read
    problem: Finding | None = None
    notes: tuple[Finding, ...] = ()


BARE_CR_NOTE = note(kind="bare-cr", message="line ended by a bare CR (\\r), read as a line break")


def _binary(fp: IO[str] | IO[bytes]) -> IO[bytes]:
    if isinstance(fp, io.TextIOBase):
        buffer = getattr(fp, "buffer", None)
        if buffer is not None:
            return buffer
        return _EncodedText(fp)  # type: ignore[return-value]
    return fp  # type: ignore[return-value]


class _EncodedText:
    """A text stream without a byte buffer (``io.StringIO``) read as UTF-8 in chunks, never whole."""

    def __init__(self, fp: IO[str]) -> None:
        self.fp = fp

    def read1(self, size: int) -> bytes:
        return self.fp.read(size // 4 or 1).encode("utf-8", "surrogatepass")  # a lone surrogate: not UTF-8, a diagnostic


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """What the stream has, in chunks of at most ``_CHUNK`` bytes; ``read1``
    returns what is there, so a live pipe or terminal is read line by line."""
    read = getattr(stream, "read1", None) or stream.read
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            return
        yield chunk


_NL, _CRLF, _CR = b"\n", b"\r\n", b"\r"


def _physical_lines(stream: IO[bytes], max_bytes: int, bare_cr: bool = True) -> Iterator[tuple[bytes | None, int, bytes]]:
    """``(line, size, terminator)`` for each line of the stream; ``line`` is
    None (and ``size`` its length) when it is longer than ``max_bytes``.
    Memory stays within ``max_bytes`` plus two chunks whatever the input.

    A line ends at ``\n``, ``\r\n`` or (with ``bare_cr``, the default) a
    bare ``\r``: the first ``\n`` ahead is found with ``bytes.find``, and so
    is the first CR, once for what is held and again only past a line a CR
    ended, so a file with no CR costs one search a line."""
    chunks = _chunks(stream)
    buf = b""
    pos = 0
    cr = -1  # with bare_cr: where the first CR at or after pos is in buf, or -1
    eof = False
    skipping = -1  # when >= 0: inside an overlong line, this many bytes of it seen
    while True:
        nl = buf.find(_NL, pos)
        if cr >= 0 and (nl < 0 or cr < nl):  # a CR first: CRLF, or a bare CR
            if cr + 1 == len(buf) and not eof:
                found, after, terminator = -1, 0, _CR  # a CR at the end of what we hold: a \n may follow next
            elif cr + 1 == nl:
                found, after, terminator = cr, nl + 1, _CRLF
            else:
                found, after, terminator = cr, cr + 1, _CR
        elif nl >= 0:
            found, after, terminator = nl, nl + 1, _NL
        else:
            found, after, terminator = -1, 0, _NL
        if found >= 0:
            if skipping >= 0:
                size = skipping + found - pos
                skipping = -1
                yield None, size, terminator
            else:
                line = buf[pos:found]
                yield (line if len(line) <= max_bytes else None), len(line), terminator
            pos = after
            if found == cr:
                cr = buf.find(_CR, pos)
            continue
        if eof:
            if skipping >= 0:
                yield None, skipping + len(buf) - pos, b""
            elif pos < len(buf):
                line = buf[pos:]
                yield (line if len(line) <= max_bytes else None), len(line), b""
            return
        held = len(buf) - pos
        if skipping >= 0 or held > max_bytes + 1:
            # an overlong line: count it and let it go, keeping only a trailing CR
            keep = 1 if buf.endswith(_CR) else 0
            skipping = max(skipping, 0) + held - keep
            buf, pos = buf[len(buf) - keep:], 0
        chunk = next(chunks, b"")
        if not chunk:
            eof = True
        buf = buf[pos:] + chunk
        pos = 0
        cr = buf.find(_CR) if bare_cr else -1


def plain_lines(fp: IO[str] | IO[bytes], *, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[tuple[int, str | None]]:
    """``(number, text)`` of each line of a stream as :func:`read_lines` reads it, where the line reads with
    nothing to say (no diagnostic, no note, not blank); ``(number, None)`` for any other line. For a caller
    that takes the plain lines alone and reads the stream the full way at the first other one (lint's accept
    path): no record is made of a line."""
    stream = _binary(fp)
    number = 0
    for data, _, terminator in _physical_lines(stream, max_bytes):
        number += 1
        if data is None or terminator == _CR or not data:
            yield number, None
            continue
        if number == 1 and data.startswith(_BOM):
            data = data[len(_BOM):]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            yield number, None
            continue
        yield number, (text or None)


def read_lines(fp: IO[str] | IO[bytes], *, max_bytes: int = DEFAULT_MAX_BYTES,
               bare_cr: bool = True) -> Iterator[RawInputLine]:
    """Lines of a stream as text, or a diagnostic where a line cannot be read.

    ``bare_cr=False`` ends lines at ``\\n`` only (a ``\\r`` before it is still
    stripped): for line protocols such as the adapter's JSON requests."""
    stream = _binary(fp)
    number = 0
    for data, size, terminator in _physical_lines(stream, max_bytes, bare_cr):
        number += 1
        if terminator == b"\n" and not bare_cr and data is not None and data.endswith(b"\r"):
            data = data[:-1]
        notes = (BARE_CR_NOTE,) if terminator == b"\r" else ()
        if number == 1 and data is not None and data.startswith(_BOM):
            data = data[len(_BOM):]  # a byte-order mark opens the file; it is not part of the first line
        if data is None:
            problem = fail(kind="too-long", why="UNK", token="",
                              message=f"line is {size} bytes; the limit is {max_bytes}")
            yield RawInputLine(number, None, problem, notes)
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            column = len(data[: exc.start].decode("utf-8", "replace")) + 1
            problem = fail(kind="encoding", why="UNK", token=f"\\x{data[exc.start]:02x}",
                              column=column, message=f"byte 0x{data[exc.start]:02x} at column {column} is not UTF-8")
            yield RawInputLine(number, None, problem, notes)
            continue
        yield RawInputLine(number, text, None, notes)


def validate_stream(
    fp: IO[str] | IO[bytes],
    profiles: Receiver | Iterable | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    file: str | None = None,
    quiet_first: bool = False,
    quiet_from: int | None = None,
) -> Iterator[LineResult]:
    """One LineResult per input line, in order.

    ``quiet_first`` tries the accept path first: a line it takes with no finding at all (no note either) is
    given as its message alone, with no :class:`~rogerwilco.core.syntax.RawLine` (nothing to place a finding
    on); every other line goes through the never-guess pass. The findings are the same; a check that reads
    the messages of a long stream (lint, check-thread) pays the full pass only where there is something to say.
    ``quiet_from`` tries it from that line number on (``quiet_first`` is ``quiet_from=1``): the lines before it
    go through the full pass, so a short stream never loads the accept path.
    """
    receiver = as_receiver(profiles)
    start = 1 if quiet_first else quiet_from
    quiet = _quiet() if start == 1 else None
    for line in read_lines(fp, max_bytes=max_bytes):
        if quiet is None and start is not None and line.number >= start:
            quiet = _quiet()
        if quiet is not None and line.text and not line.notes:
            message = quiet(line.text, receiver, line.number, file)
            if message is not None:
                yield LineResult(text=line.text, message=message, findings=(), line_number=line.number)
                continue
        yield full_result(line, receiver, file)


def full_result(line: RawInputLine, receiver: Receiver, file: str | None = None) -> LineResult:
    """The LineResult of one line read by :func:`read_lines`, through the never-guess pass: a line that could
    not be read is its diagnostic, a blank line a note, any other line every finding ``check_line`` gives
    (with the line's own notes, a bare CR's, after them)."""
    if line.text is None:
        assert line.problem is not None
        return LineResult(text="", message=None, findings=(line.problem, *line.notes), line_number=line.number)
    if line.text == "":
        blank = note(kind="blank", message="blank line")
        return LineResult(text="", message=None, findings=(blank, *line.notes), line_number=line.number)
    result = check_line(line.text, receiver, line_number=line.number, file=file)
    return result._replace(findings=result.findings + line.notes) if line.notes else result
