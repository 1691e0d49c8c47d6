"""Output formats: JSON Lines, CSV (formula-safe), Arrow record batches and tables (schema: :mod:`rogerwilco.io.records`)."""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable

from ...core.errors import printable
from ...core.speedups import json_compact_text
from ..records import COLUMNS, Record, arrow_schema, to_arrow_batch
from .._pyarrow import import_pyarrow


def _csv_cell(value: Any) -> str:
    """A CSV cell that cannot start a formula or break a row.

    Control characters are shown as escapes; a cell starting with ``=``,
    ``+``, ``-`` or ``@`` (or a tab or carriage return) gets a leading ``'``,
    so a spreadsheet shows it as text instead of evaluating it.
    """
    if value is None:
        return ""
    if value.__class__ is str:  # most cells: printable ASCII is shown as it is (printable's own first test)
        text = value if value.isascii() and value.isprintable() else printable(value)
    elif isinstance(value, dict):
        text = printable(json_compact_text(value))
    else:
        text = printable(str(value))
    if text[:1] in _FORMULA_STARTS:
        text = "'" + text
    return text


#: what a cell may not start with: a spreadsheet would read it as a formula (a tab or CR, as it strips them first)
_FORMULA_STARTS = frozenset(("=", "+", "-", "@", "\t", "\r"))


def format_jsonl(records: Iterable[Record]) -> str:
    """Records as JSON Lines: each line is ``json.dumps(record.to_dict(), ensure_ascii=True)``."""
    return "".join(map(Record.to_jsonl, records))


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
