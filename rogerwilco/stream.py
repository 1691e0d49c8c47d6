"""Streams: files and stdin, line by line, with nothing dropped.

Theory of operation
-------------------
A stream is read as bytes, one line at a time, never whole: a line longer
than ``max_bytes`` (default 64 KiB) is consumed in bounded chunks and yields a
diagnostic instead of text, so one runaway line cannot exhaust memory. The
terminator (``\\n`` or ``\\r\\n``) is stripped, and so is a UTF-8 byte-order mark
opening the stream; a line that is not UTF-8 yields
a diagnostic naming the column of the first bad byte. Every input line yields
exactly one :class:`~rogerwilco.semantics.LineResult`: a message, or findings
that say why not. A blank line yields a ``blank`` note and no message.
"""

from __future__ import annotations

import io
from typing import IO, Iterable, Iterator

import attrs

from .findings import FAIL, NOTE, Finding
from .semantics import LineResult, check_line
from .vocab import Receiver, as_receiver

DEFAULT_MAX_BYTES = 64 * 1024
_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"


@attrs.frozen
class RawInputLine:
    number: int
    text: str | None  # None when the line could not be read
    problem: Finding | None = None


def _binary(fp: IO[str] | IO[bytes]) -> IO[bytes]:
    if isinstance(fp, io.TextIOBase):
        buffer = getattr(fp, "buffer", None)
        if buffer is not None:
            return buffer
        return io.BytesIO(fp.read().encode("utf-8", "surrogateescape"))  # type: ignore[union-attr]
    return fp  # type: ignore[return-value]


def read_lines(fp: IO[str] | IO[bytes], *, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[RawInputLine]:
    """Lines of a stream as text, or a diagnostic where a line cannot be read."""
    stream = _binary(fp)
    number = 0
    while True:
        data = stream.readline(max_bytes + 2)
        if not data:
            return
        number += 1
        if not data.endswith(b"\n") and len(data) > max_bytes:
            size = len(data)
            while True:  # consume the rest of the overlong line in bounded chunks
                more = stream.readline(_CHUNK)
                size += len(more)
                if not more or more.endswith(b"\n"):
                    break
            problem = Finding(severity=FAIL, kind="too-long", why="UNK", token="",
                              message=f"line is {size} bytes; the limit is {max_bytes}")
            yield RawInputLine(number, None, problem)
            continue
        if number == 1 and data.startswith(_BOM):
            data = data[len(_BOM):]  # a byte-order mark opens the file; it is not part of the first line
        if data.endswith(b"\n"):
            data = data[:-1]
            if data.endswith(b"\r"):
                data = data[:-1]
        if len(data) > max_bytes:
            problem = Finding(severity=FAIL, kind="too-long", why="UNK", token="",
                              message=f"line is {len(data)} bytes; the limit is {max_bytes}")
            yield RawInputLine(number, None, problem)
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            column = len(data[: exc.start].decode("utf-8", "replace")) + 1
            problem = Finding(severity=FAIL, kind="encoding", why="UNK", token=f"\\x{data[exc.start]:02x}",
                              column=column, message=f"byte 0x{data[exc.start]:02x} at column {column} is not UTF-8")
            yield RawInputLine(number, None, problem)
            continue
        yield RawInputLine(number, text)


def validate_stream(
    fp: IO[str] | IO[bytes],
    profiles: Receiver | Iterable | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    file: str | None = None,
) -> Iterator[LineResult]:
    """One LineResult per input line, in order."""
    receiver = as_receiver(profiles)
    for line in read_lines(fp, max_bytes=max_bytes):
        if line.text is None:
            assert line.problem is not None
            yield LineResult(text="", message=None, findings=(line.problem,), line_number=line.number)
        elif line.text == "":
            note = Finding(severity=NOTE, kind="blank", message="blank line")
            yield LineResult(text="", message=None, findings=(note,), line_number=line.number)
        else:
            yield check_line(line.text, receiver, line_number=line.number, file=file)
