"""Streams: every input line yields a message or a diagnostic, never dropped."""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import load, validate_stream
from rogerwilco.io import stream
from rogerwilco.io.stream import read_lines

GOOD = b"RW1 HO a-1 from=a to=b item=x ask=DRAFT"


def test_terminators_are_stripped_and_numbers_kept():
    data = GOOD + b"\r\n" + GOOD.replace(b"a-1", b"a-2") + b"\n" + GOOD.replace(b"a-1", b"a-3")
    results = list(validate_stream(io.BytesIO(data)))
    assert [r.line_number for r in results] == [1, 2, 3]
    assert [r.message.id for r in results] == ["a-1", "a-2", "a-3"]


def test_non_utf8_and_overlong_lines_are_diagnosed_and_reading_goes_on():
    data = b"\n".join([GOOD, b"RW1 \xff\xfe bad", b"x" * 5000, GOOD, b"", GOOD]) + b"\n"
    results = list(validate_stream(io.BytesIO(data), max_bytes=1000))
    assert len(results) == 6
    kinds = [r.findings[0].kind if r.findings else None for r in results]
    assert kinds == [None, "encoding", "too-long", None, "blank", None]
    assert results[1].findings[0].column == 5


def test_overlong_line_without_newline_at_eof():
    results = list(validate_stream(io.BytesIO(GOOD + b"\n" + b"y" * 3000), max_bytes=100))
    assert [r.findings[0].kind if r.findings else "ok" for r in results] == ["ok", "too-long"]


def test_text_streams_work_too():
    results = list(load(io.StringIO(GOOD.decode() + "\n")))
    assert results[0].message is not None


def _expected_lines(data: bytes) -> list[bytes]:
    """The reference reading: a line ends at CRLF, a bare CR or LF; a final unterminated piece is a line."""
    parts = re.split(rb"\r\n|\r|\n", data)
    return parts[:-1] if parts[-1] == b"" else parts


class Trickle(io.RawIOBase):
    """A stream that hands out a few bytes per read, like a slow pipe."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.pos = data, step, 0

    def readable(self) -> bool:
        return True

    def read1(self, size: int = -1) -> bytes:
        piece = self.data[self.pos:self.pos + min(self.step, size if size > 0 else self.step)]
        self.pos += len(piece)
        return piece

    read = read1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=60), max_size=20), st.sampled_from([b"\n", b"\r\n", b"\r"]),
       st.integers(min_value=1, max_value=7))
def test_one_result_per_input_line(chunks, terminator, step):
    data = terminator.join(chunks)
    expected = _expected_lines(data)
    results = list(validate_stream(io.BytesIO(data), max_bytes=40))
    assert len(results) == len(expected)
    assert [r.line_number for r in results] == list(range(1, len(expected) + 1))
    raw = list(read_lines(io.BytesIO(data), max_bytes=40))
    assert len(raw) == len(expected)
    trickled = list(read_lines(Trickle(data, step), max_bytes=40))
    assert trickled == raw  # where the chunks fall changes nothing
    for line, want in zip(raw, expected):
        if line.text is not None:
            assert line.text.encode("utf-8") == (want[3:] if line.number == 1 and want.startswith(b"\xef\xbb\xbf") else want)
        elif len(want) > 40:
            assert line.problem.kind == "too-long" and str(len(want)) in line.problem.message


def _expected_ends(data: bytes, bare_cr: bool) -> list[tuple[bytes, bytes]]:
    """The reference reading, each line with its terminator: CRLF, a bare CR (where it ends a line) or LF."""
    pieces = re.split(rb"(\r\n|\r|\n)" if bare_cr else rb"(\n)", data)
    out = list(zip(pieces[0::2], pieces[1::2] + [b""]))
    return out[:-1] if out[-1] == (b"", b"") else out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=50), st.sampled_from([b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\r", b""])),
                max_size=20), st.integers(min_value=1, max_value=9), st.booleans())
def test_mixed_line_ends_are_read_as_the_reference_reads_them(pieces, step, bare_cr):
    data = b"".join(text + end for text, end in pieces)
    want = _expected_ends(data, bare_cr)
    for source in (io.BytesIO(data), Trickle(data, step)):
        got = list(stream._physical_lines(source, 40, bare_cr))
        assert [(size, end) for _, size, end in got] == [(len(text), end) for text, end in want]
        assert [line for line, _, _ in got] == [text if len(text) <= 40 else None for text, _ in want]
    lines = list(read_lines(io.BytesIO(data), max_bytes=40, bare_cr=bare_cr))
    assert [bool(line.notes) for line in lines] == [end == b"\r" for _, end in want]  # a bare CR's note


def test_a_bare_cr_is_a_line_break_with_a_note():
    data = GOOD + b"\r" + GOOD.replace(b"a-1", b"a-2") + b"\r" + GOOD.replace(b"a-1", b"a-3") + b"\r\n"
    results = list(validate_stream(io.BytesIO(data)))
    assert [r.message.id for r in results] == ["a-1", "a-2", "a-3"]
    assert [[f.kind for f in r.findings if f.kind == "bare-cr"] for r in results] == [["bare-cr"], ["bare-cr"], []]


def test_a_crlf_split_across_reads_is_one_line_end():
    data = GOOD + b"\r\n" + GOOD
    for step in range(1, len(data) + 1):
        lines = list(read_lines(Trickle(data, step)))
        assert [line.text for line in lines] == [GOOD.decode(), GOOD.decode()] and not lines[0].notes, step


def test_an_overlong_line_ended_by_crlf_split_across_reads():
    data = b"y" * 100 + b"\r\n" + GOOD
    for step in (1, 7, 50, 101, 102):
        lines = list(read_lines(Trickle(data, step), max_bytes=40))
        assert [line.problem.kind if line.problem else line.text for line in lines] == ["too-long", GOOD.decode()]
        assert "100 bytes" in lines[0].problem.message and not lines[0].notes


def test_a_text_stream_without_a_buffer_is_read_in_pieces():
    text = "\n".join([GOOD.decode()] * 3) + "\r" + GOOD.decode() + "\ud800"
    lines = list(read_lines(io.StringIO(text)))
    assert [line.text is not None for line in lines] == [True, True, True, False]
    assert lines[3].problem.kind == "encoding"


def test_a_byte_order_mark_opening_the_stream_is_not_part_of_the_first_line():
    results = list(validate_stream(io.BytesIO(b"\xef\xbb\xbf" + GOOD + b"\n\xef\xbb\xbf" + GOOD + b"\n")))
    assert results[0].message is not None
    assert results[1].message is None  # only the stream's opening mark is dropped
