"""A scan's rows written as they are found (JSON Lines, Arrow buffers), no Record where the C scanner is sure.

:func:`~rogerwilco.io.scan.records.records_of_chunk` hands each record of a
chunk to a sink, in input order. A message the C scanner is sure of (a
valid message of a plain log line behind a time in UTC or no time, most of
the others) is written by the scanner itself, from the line or the
candidate (``docs/scan.md`` says which lines): no Message, no JSON form
dict and no :class:`~rogerwilco.io.records.Record` are built. Any other
record (a diagnostic, a message the scanner leaves to Python) is built as
before and written from its fields. Either way the output is, to the byte
and to the value, what writing the chunk's Records gives
(``Record.to_jsonl``, ``to_arrow_batch``); ``tests/test_scan.py`` holds the
two to each other.

Where the C scanner is not built (or ``RW1_PURE`` is set) there is no sink:
the scan builds its Records and writes them.
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from typing import Any

from ...core.speedups import COMPILED_MODULE, compiled, json_row, line_row
from ..records import COLUMNS, RECORDS_VERSION, Record, arrow_schema, struct_texts
from .._pyarrow import import_pyarrow

#: whether rows can be written (the C scanner is built and in use)
available = compiled and json_row is not None and line_row is not None

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


class JsonLinesRows:
    """A chunk's records as JSON Lines, the tally counted as they come."""

    __slots__ = ("parts", "tally")

    def __init__(self, tally: Any) -> None:
        self.parts: list[str] = []
        self.tally = tally

    def line(self, text: str, receiver: Any, file: str, number: int) -> bool:
        got = line_row(text, receiver, COLUMNS, file, number, RECORDS_VERSION)  # type: ignore[misc]
        if got is None:
            return False
        self.tally.messages[got[0]] += 1
        self.parts.append(got[1])
        return True

    def candidate(self, text: str, receiver: Any, file: str, line: int, column: int, field: str | None,
                  ts: datetime | None) -> bool:
        row = json_row(text, receiver, COLUMNS, file, line, column, field, ts, RECORDS_VERSION)  # type: ignore[misc]
        if row is None:
            return False
        self.tally.messages[text[4:text.index(" ", 4)]] += 1  # a valid line: RW1 <type> <id> ...
        self.parts.append(row)
        return True

    def record(self, record: Record) -> None:
        self.tally.count(record)
        self.parts.append(record.to_jsonl())

    def output(self) -> str:
        return "".join(self.parts)


class ArrowRows:
    """A chunk's records as the buffers of one Arrow batch (``arrow_schema("struct", dictionary=dictionary)``), the
    tally counted."""

    __slots__ = ("columns", "tally", "dictionary")

    def __init__(self, tally: Any, *, dictionary: bool = True) -> None:
        self.columns = _columns_type()()
        self.tally = tally
        self.dictionary = dictionary

    def line(self, text: str, receiver: Any, file: str, number: int) -> bool:
        typ = self.columns.line(text, receiver, file, number)
        if typ is None:
            return False
        self.tally.messages[typ] += 1
        return True

    def candidate(self, text: str, receiver: Any, file: str, line: int, column: int, field: str | None,
                  ts: datetime | None) -> bool:
        typ = self.columns.candidate(text, receiver, file, line, column, field, ts)
        if typ is None:
            return False
        self.tally.messages[typ] += 1
        return True

    def record(self, record: Record) -> None:
        self.tally.count(record)
        r = record
        self.columns.record((r.record, r.file, r.line, r.column, r.field, r.text, r.type, r.id, r.from_, r.to, r.re,
                             r.item, r.why, r.reason, r.token, r.message, r.unvalidated),
                            None if r.json is None else struct_texts(r.json), _micros(r.ts))

    def output(self) -> Any:
        """The batch, or None when the chunk had no record."""
        return batch_of(self.columns.buffers(), dictionary=self.dictionary) if self.columns.rows else None


def _columns_type() -> Any:
    import importlib

    return importlib.import_module(COMPILED_MODULE).Columns


def _micros(ts: datetime | None) -> int | None:
    """A record's time as microseconds since the epoch in UTC (a time without a zone read as UTC, as Arrow does)."""
    if ts is None:
        return None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    return (ts - _EPOCH) // _MICROSECOND


def batch_of(buffers: tuple, *, dictionary: bool = True) -> Any:
    """The Arrow RecordBatch (``arrow_schema("struct", dictionary=dictionary)``) of ``Columns.buffers()``."""
    pa = import_pyarrow()
    rows, texts, line, column, (ts_valid, ts, ts_nulls), unvalidated, (json_valid, json_nulls) = buffers

    def text(index: int) -> Any:
        valid, offsets, data, nulls = texts[index]
        return pa.Array.from_buffers(pa.string(), rows, [None if valid is None else pa.py_buffer(valid),
                                                          pa.py_buffer(offsets), pa.py_buffer(data)], null_count=nulls)

    schema = arrow_schema("struct", dictionary=dictionary)
    struct_type = schema.field("json").type
    by_name = dict(zip(_TEXT_COLUMNS, range(len(_TEXT_COLUMNS))))
    json_array = pa.Array.from_buffers(struct_type, rows, [None if json_valid is None else pa.py_buffer(json_valid)],
                                       null_count=json_nulls,
                                       children=[text(len(_TEXT_COLUMNS) + i) for i in range(struct_type.num_fields)])
    arrays = []
    for name in COLUMNS:
        typ = schema.field(name).type
        if name in by_name:
            array = text(by_name[name])
            arrays.append(array.dictionary_encode().cast(typ) if pa.types.is_dictionary(typ) else array)
        elif name in ("line", "column"):
            arrays.append(pa.Array.from_buffers(typ, rows, [None, pa.py_buffer(line if name == "line" else column)]))
        elif name == "json":
            arrays.append(json_array)
        elif name == "version":
            arrays.append(pa.Array.from_buffers(typ, rows, [None, pa.py_buffer(_VERSION_BYTES * rows)]))
        elif name == "ts":
            arrays.append(pa.Array.from_buffers(typ, rows, [None if ts_valid is None else pa.py_buffer(ts_valid),
                                                            pa.py_buffer(ts)], null_count=ts_nulls))
        else:  # unvalidated
            arrays.append(pa.Array.from_buffers(typ, rows, [None, pa.py_buffer(unvalidated)]))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


#: the text columns in the order Columns writes them (then the json struct's fields)
_TEXT_COLUMNS = ("record", "file", "field", "text", "type", "id", "from", "to", "re", "item", "why", "reason",
                 "token", "message")
_VERSION_BYTES = RECORDS_VERSION.to_bytes(4, sys.byteorder, signed=True)
