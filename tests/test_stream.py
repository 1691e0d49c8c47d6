"""Streams: every input line yields a message or a diagnostic, never dropped."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import load, validate_stream
from rogerwilco.stream import read_lines

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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=60), max_size=20))
def test_one_result_per_input_line(chunks):
    data = b"\n".join(c.replace(b"\n", b"") for c in chunks)
    expected = len(data.split(b"\n")) - (1 if data.endswith(b"\n") or data == b"" else 0)
    if data == b"":
        expected = 0
    results = list(validate_stream(io.BytesIO(data), max_bytes=40))
    assert len(results) == expected
    assert [r.line_number for r in results] == list(range(1, expected + 1))
    assert len(list(read_lines(io.BytesIO(data), max_bytes=40))) == expected


def test_a_byte_order_mark_opening_the_stream_is_not_part_of_the_first_line():
    results = list(validate_stream(io.BytesIO(b"\xef\xbb\xbf" + GOOD + b"\n\xef\xbb\xbf" + GOOD + b"\n")))
    assert results[0].message is not None
    assert results[1].message is None  # only the stream's opening mark is dropped
