"""Output formats: JSON Lines, CSV (formula-safe), Arrow record batches and tables."""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

from ..errors import RW1Error, printable
from ..records import COLUMNS, Record


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
