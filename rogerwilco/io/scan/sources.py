"""Input sources: paths, directories, standard input, streams and lines; decompression; whole-line chunks.

A file is opened by its magic bytes (gzip, bzip2, xz, else as it is), read
in blocks and cut into chunks of whole lines of about ``chunk_bytes`` each,
carrying the number of their first line. A line longer than
``max_line_bytes`` is skipped without being held. A Slack export's chunks
are cut again between its messages (:func:`_element_chunks`) and carry the
JSON location at their start.
"""

from __future__ import annotations

import bz2
import glob as _glob
import gzip
import io
import lzma
import os
import re
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Iterator, cast

import attrs

from ...core.errors import RW1Error
from .frames import JsonPath, _may_hold

if TYPE_CHECKING:
    from .records import Tally


DEFAULT_MAX_LINE_BYTES = 1024 * 1024
DEFAULT_CHUNK_BYTES = 1024 * 1024
_BLOCK = 256 * 1024
_BOM = b"\xef\xbb\xbf"
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
_SLACK_SNIFF = re.compile(rb'"type"\s*:\s*"message"')


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
    problem: str | None = None  # an input that could not be opened or read to its end: one diagnostic
    # a compact JSON array streamed element by element: per element, (physical line, code points before it
    # on that line, its index in the array); and the physical lines the chunk completes
    elements: tuple | None = None
    physical_lines: int = 0


@attrs.frozen
class Inputs:
    """Names that are all inputs, never lines: local paths (a directory is walked, ``-`` is stdin)
    and fsspec URLs (``s3://bucket/logs/*.gz``, ``memory://x.log``, ``file:///var/log/app``)."""

    names: tuple = ()


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB = re.compile(r"[*?\[]")


def is_url(name: Any) -> bool:
    """Whether an input name is a URL (read through fsspec) rather than a local path."""
    return isinstance(name, str) and _URL.match(name) is not None


def is_glob(name: str) -> bool:
    """Whether a name holds a glob's wildcards (``*``, ``?``, ``[``)."""
    return _GLOB.search(name) is not None


def local_glob(name: str) -> list[str]:
    """The files a local glob matches (``**`` spans directories), sorted; RW1Error when none does."""
    matches = sorted(p for p in _glob.glob(name, recursive=True) if os.path.isfile(p))
    if not matches:
        raise RW1Error(f"no input matches {name}")
    return matches


def _fsspec():
    try:
        import fsspec
    except ImportError:
        raise RW1Error("inputs given as URLs need fsspec: pip install 'rogerwilco[remote]'") from None
    return fsspec


@attrs.frozen
class _Remote:
    fs: Any
    path: str


@attrs.frozen
class _Failed:
    problem: str


def _problem(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, OSError) or not exc.strerror else exc.strerror


def _url_sources(url: str) -> Iterator[tuple[str, Any]]:
    """(URL, a remote file or the reason it cannot be read) of every file a URL names: a file,
    a directory (walked) or a glob. Each file is named by its filesystem's own URL for it
    (``fs.unstrip_protocol``), whichever way it was given; an input that cannot be read keeps its name."""
    fsspec = _fsspec()
    try:
        fs, path = fsspec.core.url_to_fs(url)
        if _GLOB.search(path):
            files = sorted(p for p in fs.glob(path) if fs.isfile(p))
        elif fs.isdir(path):
            files = sorted(fs.find(path))
        else:
            files = [path]
    except Exception as exc:  # a missing backend, credentials, a network error: the input fails alone
        yield url, _Failed(f"cannot open {url}: {_problem(exc)}")
        return
    if not files:
        yield url, _Failed(f"no input matches {url}")
        return
    for path in files:
        # one name per object, however it was reached: memory://logs/a.log named and memory:///logs/a.log
        # walked are the same object, and a GROUP BY file must not see two
        yield fs.unstrip_protocol(path), _Remote(fs, path)


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
        if not chunk.slack or chunk.elements is not None:  # a compact export is cut between messages already
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


_STRUCTURE = re.compile(rb'["\[\]{},\n]')
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_CONTINUATION = bytes(range(0x80, 0xC0))


def _code_points(data: bytes) -> int:
    """Code points in UTF-8 bytes (continuation bytes do not count), whatever the cut between blocks."""
    return len(data.translate(None, _CONTINUATION))


def compact_chunks(head: bytes, stream: IO[bytes], file: str, *, chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                   max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, block_size: int = _BLOCK,
                   progress: Callable[[], None] | None = None) -> Iterator[Chunk]:
    """A JSON array written on few, long lines (a compact Slack export), streamed element by element.

    ``head`` is what was read of the stream so far (the array's start). Each
    top-level element becomes one entry of a chunk (its bytes on a line of
    ``data``, with raw line breaks inside it turned into spaces), carrying
    the physical line it starts on, the code points before it on that line
    and its index. At most one element (up to ``max_line_bytes``) and one
    block are held: a longer element is skipped as it streams past and
    reported ``too-long`` if it may hold a candidate.
    """
    buf = head
    pos = 0
    depth = 0
    in_string = False
    line, column = 1, 0  # where buf[0] sits: physical line, code points before it on that line
    index = -1  # the current element's index in the array
    start: int | None = None  # the current element's start in buf (None: between elements)
    skipped: list | None = None  # an element too long to hold: [bytes so far, may hold RW, last bytes]
    where: tuple = (1, 0, 0)
    entries: list[bytes] = []
    places: list[tuple] = []
    overlong: dict[int, tuple[int, bool]] = {}
    size = 0
    lines_done = 0
    done_at_flush = 0

    def advance(upto: int) -> None:
        """Drop buf[:upto], keeping line and column of buf[0]."""
        nonlocal buf, pos, line, column, start
        dropped = buf[:upto]
        breaks = dropped.count(b"\n")
        if breaks:
            line += breaks
            column = _code_points(dropped[dropped.rfind(b"\n") + 1:])
        else:
            column += _code_points(dropped)
        buf = buf[upto:]
        pos -= upto
        if start is not None:
            start -= upto

    def flush() -> Chunk:
        nonlocal entries, places, overlong, size, done_at_flush
        first_line = places[0][0] if places else line
        chunk = Chunk(file, first_line, b"".join(e + b"\n" for e in entries), overlong, True, max_line_bytes,
                      elements=tuple(places), physical_lines=lines_done - done_at_flush)
        done_at_flush = lines_done
        entries, places, overlong, size = [], [], {}, 0
        return chunk

    eof = False
    while True:
        # scan what is buffered
        while pos < len(buf):
            if in_string:
                m = _STRING_BODY.match(buf, pos)
                assert m is not None  # the body pattern matches the empty string
                end = m.end()
                if end < len(buf) and buf[end:end + 1] == b'"':
                    in_string = False
                    pos = end + 1
                    continue
                pos = end  # the buffer ends inside the string (or on a lone backslash): read on
                break
            m = _STRUCTURE.search(buf, pos)
            if m is None:
                pos = len(buf)
                break
            ch = m.group()
            pos = m.end()
            if ch == b'"':
                in_string = True
            elif ch == b"\n":
                if start is None:
                    lines_done += 1
            elif ch in (b"[", b"{"):
                depth += 1
                if depth == 2:
                    index += 1
                    advance(pos - 1)
                    start = 0
                    where = (line, column, index)
            elif ch in (b"]", b"}"):
                depth -= 1
                if depth == 1 and start is not None:
                    if skipped is None and pos - start > max_line_bytes:
                        skipped = [0, False, b""]  # whole in the buffer, but longer than a line may be
                        skipped[1] = _may_hold(buf[start:pos])
                        skipped[0] = -start
                    if skipped is None:
                        element = buf[start:pos]
                        breaks = element.count(b"\n")
                        lines_done += breaks
                        entries.append(element.replace(b"\n", b" ") if breaks else element)
                    else:
                        skipped[0] += pos
                        skipped[1] = skipped[1] or _may_hold(skipped[2] + buf[:pos])
                        overlong[len(entries)] = (skipped[0], skipped[1])
                        lines_done += buf[:pos].count(b"\n")
                        entries.append(b"")
                        skipped = None
                    places.append(where)
                    size += pos - start + 1
                    advance(pos)
                    start = None
                    if size >= chunk_bytes:
                        yield flush()
                elif depth <= 0:
                    depth = 0
        if start is None:
            advance(pos)  # between elements nothing is held
        elif len(buf) > max_line_bytes or skipped is not None:
            # an element too long to hold: count it and let it stream past
            if skipped is None:
                skipped = [0, False, b""]
            piece = buf[:pos]
            skipped[0] += len(piece)
            skipped[1] = skipped[1] or _may_hold(skipped[2] + piece)
            skipped[2] = piece[-24:]
            lines_done += piece.count(b"\n")
            advance(pos)
            start = 0
        if eof:
            break
        block = stream.read(block_size)
        if progress is not None:
            progress()
        if not block:
            eof = True
            if start is None and column > 0:
                lines_done += 1  # the last line has no line break
            if start is not None and skipped is None and buf:
                # the array ends inside an element: what was held is one last entry
                entries.append(buf.replace(b"\n", b" "))
                places.append(where)
                buf = b""
            continue
        buf += block
    if entries:
        yield flush()
    elif lines_done > done_at_flush:
        yield flush()


def _open_stream(raw: IO[bytes]) -> tuple[IO[bytes], str | None]:
    """The decompressed stream, chosen by magic bytes, and the compression name."""
    # a stream that can look ahead without consuming (any buffered reader), else one wrapped to do so
    buffered = cast(io.BufferedReader, raw) if hasattr(raw, "peek") else io.BufferedReader(cast(io.RawIOBase, raw))
    head = buffered.peek(6)[:6]
    for magic, name in _MAGIC:
        if head.startswith(magic):
            opened: io.BufferedIOBase
            if name == "gzip":
                opened = gzip.GzipFile(fileobj=buffered)
            elif name == "bz2":
                opened = bz2.BZ2File(buffered)
            else:
                opened = lzma.LZMAFile(buffered)
            return cast(IO[bytes], opened), name  # a binary file object: read, readline, iteration
    return cast(IO[bytes], buffered), None


_BARE_CR = re.compile(rb"\r(?!\n)")


class _LineEnds:
    """A stream read with each bare CR as a LF: a bare CR ends a line in ``scan`` as it does in ``validate``,
    ``lint`` and the editor (``rogerwilco.io.stream``), so the three number lines alike. A CR ending a block is
    held until the next shows whether a LF follows it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.held = b""

    def read(self, size: int = -1) -> bytes:
        while True:
            data = self.stream.read(size)
            block, self.held = self.held + data, b""
            if not data:
                return b"\n" if block else b""  # a CR ending the stream ends its last line
            if block.endswith(b"\r"):
                block, self.held = block[:-1], b"\r"
            if block.count(b"\r") != block.count(b"\r\n"):  # a bare CR (CRLF files pay two counts, no copy)
                block = _BARE_CR.sub(b"\n", block)
            if block:
                return block


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
        if slack and first == 1 and nlines == 0 and not parts:
            first_break = data.find(b"\n")
            if first_break > max_line_bytes or (first_break == -1 and len(data) > max_line_bytes):
                # a Slack export written on one line: streamed message by message, never held whole
                yield from compact_chunks(data, stream, file, chunk_bytes=chunk_bytes, max_line_bytes=max_line_bytes,
                                          block_size=block_size, progress=progress)
                return
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
    """(display name, a path / a remote file / a failure / a binary stream / an iterable of lines)."""
    if isinstance(paths_or_lines, Inputs):
        for name in paths_or_lines.names:
            yield from _path_sources(name)
        return
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
    if is_url(name):
        yield from _url_sources(name)
        return
    if name == "-":
        yield "<stdin>", sys.stdin.buffer
        return
    p = Path(name)
    if p.is_dir():
        for child in sorted(q for q in p.rglob("*") if q.is_file()):
            yield str(child), child
        return
    yield name, p


def _lines_chunk(name: str, lines: list[str | bytes], first: int) -> Chunk:
    parts: list[bytes] = []
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


def _file_chunks(fh: IO[bytes], name: str, chunk_bytes: int, max_line_bytes: int,
                 progress: Callable[[str, int], None] | None) -> Iterator[Chunk]:
    """The chunks of one open file (decompressed by its magic bytes), reporting its position as it is read."""
    tick = None
    if progress is not None:
        def tick() -> None:
            try:
                progress(name, fh.tell())
            except (OSError, ValueError):
                pass
    stream, _ = _open_stream(fh)
    yield from _element_chunks(iter_chunks(cast(IO[bytes], _LineEnds(stream)), name, chunk_bytes=chunk_bytes, max_line_bytes=max_line_bytes,
                                           progress=tick), hard_limit=16 * max(chunk_bytes, max_line_bytes))


def _remote_chunks(name: str, source: _Remote, chunk_bytes: int, max_line_bytes: int,
                   progress: Callable[[str, int], None] | None) -> Iterator[Chunk]:
    """The chunks of one remote file; a file that cannot be opened or read to its end ends in one
    chunk carrying the problem (the chunks read before it stand), and the scan goes on."""
    try:
        fh = source.fs.open(source.path, "rb")
    except Exception as exc:  # every backend raises its own errors
        yield Chunk(name, 0, b"", problem=f"cannot open {name}: {_problem(exc)}")
        return
    try:
        yield from _file_chunks(fh, name, chunk_bytes, max_line_bytes, progress)
    except Exception as exc:
        yield Chunk(name, 0, b"", problem=f"cannot read {name}: {_problem(exc)}")
    finally:
        try:
            fh.close()
        except Exception:  # closing a broken remote file must not end the scan
            pass


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
        if isinstance(source, _Failed):
            yield Chunk(name, 0, b"", problem=source.problem)
            continue
        if isinstance(source, _Remote):
            yield from _remote_chunks(name, source, chunk_bytes, max_line_bytes, progress)
            continue
        if isinstance(source, Path):
            try:
                fh = open(source, "rb")
            except OSError as exc:
                raise RW1Error(f"cannot read {name}: {exc.strerror}") from None
        else:
            fh = source
        try:
            try:
                yield from _file_chunks(fh, name, chunk_bytes, max_line_bytes, progress)
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise RW1Error(f"cannot read {name}: {exc}") from None
        finally:
            if isinstance(source, Path):
                fh.close()
