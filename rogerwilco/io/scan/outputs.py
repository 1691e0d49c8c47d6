"""Output formats: JSON Lines, CSV (formula-safe), Arrow record batches and tables (schema: :mod:`rogerwilco.io.records`)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

from ...core.errors import printable
from ..records import COLUMNS, RECORDS_VERSION, Record, _iso, arrow_schema, to_arrow_batch
from .._pyarrow import import_pyarrow


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


# ensure_ascii: U+2028, U+2029 and U+0085 in a log cannot break a line of output. A record's line is written
# from its fields, each as json.dumps(r.to_dict(), ensure_ascii=True) writes it (its default separators, the
# same string escaper, the JSON form through json.dumps itself), without the dict in between.
_quoted = json.encoder.encode_basestring_ascii
_dumps = json.JSONEncoder(ensure_ascii=True).encode


def _text(value: str | None) -> str:
    return "null" if value is None else _quoted(value)


def _jsonl_line(r: Record) -> str:
    return (f'{{"record": {_quoted(r.record)}, "file": {_quoted(r.file)}, "line": {r.line}, '
            f'"column": {r.column}, "field": {_text(r.field)}, "text": {_quoted(r.text)}, '
            f'"type": {_text(r.type)}, "id": {_text(r.id)}, "from": {_text(r.from_)}, "to": {_text(r.to)}, '
            f'"re": {_text(r.re)}, "item": {_text(r.item)}, "json": {"null" if r.json is None else _dumps(r.json)}, '
            f'"why": {_text(r.why)}, "reason": {_text(r.reason)}, "token": {_text(r.token)}, '
            f'"message": {_text(r.message)}, "version": {RECORDS_VERSION}, "ts": {_text(_iso(r.ts))}, '
            f'"unvalidated": {"true" if r.unvalidated else "false"}}}\n')


def format_jsonl(records: Iterable[Record]) -> str:
    """Records as JSON Lines: each line is ``json.dumps(record.to_dict(), ensure_ascii=True)``."""
    return "".join(map(_jsonl_line, records))


def format_csv(records: Iterable[Record], *, header: bool = False) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if header:
        writer.writerow(COLUMNS)
    for r in records:
        d = r.to_dict()
        writer.writerow([_csv_cell(d[c]) for c in COLUMNS])
    return buf.getvalue()


def to_arrow(records: Iterable[Record], *, batch_size: int = 65536, json_column: str = "struct"):
    """An Arrow Table of records (optional extra ``parquet``) with :func:`rogerwilco.io.records.arrow_schema`:
    feeds DuckDB, pandas, polars, Spark."""
    pa = import_pyarrow()
    batches = []
    buf: list[Record] = []
    for r in records:
        buf.append(r)
        if len(buf) >= batch_size:
            batches.append(to_arrow_batch(buf, json_column))
            buf = []
    if buf or not batches:
        batches.append(to_arrow_batch(buf, json_column))
    return pa.Table.from_batches(batches, schema=arrow_schema(json_column))
