"""Records: what ``rogerwilco scan`` writes, one per candidate found in a log.

A record is a ``message`` (the candidate passed ``check_line``; its JSON form
and envelope are filled) or a ``diagnostic`` (why it was refused; the
envelope fields the line got as far as are recovered from its tokens and the
row is marked ``unvalidated``). The columns are a stable, versioned schema
shared by every output format (see ``docs/scan.md``): the seventeen columns
of version 1 keep their names, order and meaning, and version 2 adds
``version``, ``ts`` and ``unvalidated`` at the end.

The typed schema is written once, here, for every engine that reads
records: :func:`arrow_schema` (Parquet, DuckDB, Dask ``meta``), and derived
from it, type by type, :func:`spark_schema` (a PySpark ``StructType``),
:func:`pandas_dtypes` and :func:`polars_schema`, so a column added or retyped
in the Arrow schema is so on every engine. Each library is imported only when
its function is called.
"""

from __future__ import annotations

import json
import operator
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

import attrs

from ..core.errors import RW1Error  # noqa: F401  (also raised to callers of this module)
from ._pyarrow import import_pyarrow

#: The version of the record schema written in the ``version`` column.
RECORDS_VERSION = 2

#: The columns of version 1, in order.
_COLUMNS_V1 = (
    "record", "file", "line", "column", "field", "text",
    "type", "id", "from", "to", "re", "item", "json",
    "why", "reason", "token", "message",
)

#: The record columns, in order (the stable schema of every output format).
COLUMNS = _COLUMNS_V1 + ("version", "ts", "unvalidated")

#: The envelope fields, as named in the columns and in a message's JSON form.
_ENVELOPE = ("type", "id", "re", "from", "to", "item")

#: The ways the ``json`` column can be typed in Arrow, Parquet, Spark, pandas and polars.
_JSON_COLUMN_KINDS = ("struct", "text")

_UTC = timezone.utc


def _iso(ts: datetime | None) -> str | None:
    """RFC 3339 in UTC with microseconds and ``Z`` (the form ``ts`` takes in JSON Lines and CSV)."""
    if ts is None:
        return None
    t = ts.astimezone(_UTC)
    if t.year < 1000:  # strftime's %Y does not pad a year below 1000 on every platform: its text is the reference
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return (f"{t.year}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
            f".{t.microsecond:06d}Z")


@attrs.frozen(kw_only=True)
class Record:
    """One candidate found in a log: a message, or a diagnostic saying why not.

    ``record`` is ``"message"`` or ``"diagnostic"``. ``line`` and ``column``
    are 1-based (column in code points of the physical line). ``field`` is
    the JSON location the candidate was read from, else None. For a message,
    ``json`` is its JSON form and the envelope columns are filled; for a
    diagnostic, ``why`` (``UNK`` or ``VER``), ``reason`` (the finding kind:
    ``syntax``, ``enum``, ``missing``, ``too-long``, ``encoding`` ...),
    ``token`` (the offending text as written) and ``message`` say why, the
    envelope columns hold what the line's tokens gave, as written, and
    ``unvalidated`` is true. ``ts`` is the UTC time of the log line, or None.
    """

    record: str
    file: str
    line: int
    column: int
    text: str
    field: str | None = None
    type: str | None = None
    id: str | None = None
    from_: str | None = None
    to: str | None = None
    re: str | None = None
    item: str | None = None
    json: dict | None = None
    why: str | None = None
    reason: str | None = None
    token: str | None = None
    message: str | None = None
    ts: datetime | None = None
    unvalidated: bool = False

    @classmethod
    def of(cls, record: str, file: str, line: int, column: int, text: str, field: str | None, type: str | None,
           id: str | None, from_: str | None, to: str | None, re: str | None, item: str | None, json: dict | None,
           why: str | None, reason: str | None, token: str | None, message: str | None, ts: datetime | None,
           unvalidated: bool) -> "Record":
        """A record from every field, in order: what the constructor makes, without its keywords (a scan makes one
        a candidate). Every field is given, none is checked or converted, as the constructor checks none."""
        made = _NEW(cls)
        for setter, value in zip(_SETTERS, (record, file, line, column, text, field, type, id, from_, to, re, item,
                                            json, why, reason, token, message, ts, unvalidated)):
            setter(made, value)
        return made

    @property
    def is_message(self) -> bool:
        return self.record == "message"

    @property
    def version(self) -> int:
        return RECORDS_VERSION

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> "Record":
        """A record back from :meth:`to_dict` (``ts`` as RFC 3339 text or a datetime)."""
        fields = {("from_" if k == "from" else k): v for k, v in row.items() if k != "version"}
        ts = fields.get("ts")
        if isinstance(ts, str):
            fields["ts"] = datetime.fromisoformat(ts.replace("Z", "+00:00"))
        return cls(**fields)

    def to_dict(self) -> dict[str, Any]:
        """The record as a plain object with the documented column names (``ts`` as RFC 3339 text)."""
        return {
            "record": self.record, "file": self.file, "line": self.line, "column": self.column,
            "field": self.field, "text": self.text, "type": self.type, "id": self.id,
            "from": self.from_, "to": self.to, "re": self.re, "item": self.item, "json": self.json,
            "why": self.why, "reason": self.reason, "token": self.token, "message": self.message,
            "version": RECORDS_VERSION, "ts": _iso(self.ts), "unvalidated": self.unvalidated,
        }

    def to_jsonl(self) -> str:
        """The record as one line of JSON Lines, newline included: exactly what
        ``json.dumps(self.to_dict(), ensure_ascii=True)`` writes, without the dict in between: by the C scanner
        in one call where it is built, else from json's own string escaper. ASCII, so U+2028, U+2029 and U+0085
        in a log cannot break a line of output."""
        if not _WRITERS:
            _load_writers()
        write = _WRITERS[1]
        if write is not None:
            text = write(COLUMNS, (
                self.record, self.file, self.line, self.column, self.field, self.text, self.type, self.id,
                self.from_, self.to, self.re, self.item, self.json, self.why, self.reason, self.token, self.message,
                RECORDS_VERSION, self.ts, self.unvalidated))  # a time in UTC: its text written in C too
            if text is not None:
                return text + "\n"
        return (f'{{"record": {_quoted(self.record)}, "file": {_quoted(self.file)}, "line": {self.line}, '
                f'"column": {self.column}, "field": {_text(self.field)}, "text": {_quoted(self.text)}, '
                f'"type": {_text(self.type)}, "id": {_text(self.id)}, "from": {_text(self.from_)}, '
                f'"to": {_text(self.to)}, "re": {_text(self.re)}, "item": {_text(self.item)}, '
                f'"json": {"null" if self.json is None else _WRITERS[0](self.json)}, "why": {_text(self.why)}, '
                f'"reason": {_text(self.reason)}, "token": {_text(self.token)}, "message": {_text(self.message)}, '
                f'"version": {RECORDS_VERSION}, "ts": {_text(_iso(self.ts))}, '
                f'"unvalidated": {"true" if self.unvalidated else "false"}}}\n')


#: the slots' setters in field order, and the bare allocation Record.of fills (a frozen class's fields are set
#: through their slot descriptors, as attrs' own __init__ sets them)
_SETTERS = tuple(Record.__dict__[field.name].__set__ for field in attrs.fields(Record))
_NEW = object.__new__

_quoted = json.encoder.encode_basestring_ascii  # json.dumps's own escaper, ensure_ascii

#: ``speedups.json_text`` and ``speedups.json_object`` (the C scanner's JSON text where it is built), taken at
#: the first record written: importing them here would load the accept path into every process that imports
#: the schema
_WRITERS: list[Any] = []


def _load_writers() -> None:
    from ..core.speedups import json_object, json_text

    _WRITERS[:] = [json_text, json_object]


def _text(value: str | None) -> str:
    return "null" if value is None else _quoted(value)


# --------------------------------------------------------------------------
# the typed schema


def _check_kind(json_column: str) -> None:
    if json_column not in _JSON_COLUMN_KINDS:
        raise RW1Error(f"json_column must be one of {', '.join(_JSON_COLUMN_KINDS)}, not {json_column!r}")


def _json_struct_type():
    """The Arrow type of the ``json`` column as a struct: the envelope, then ``slots`` as JSON text, then ``tail``."""
    pa = import_pyarrow()
    return pa.struct([pa.field(name, pa.string()) for name in ("v",) + _ENVELOPE + ("slots", "tail")])


def arrow_schema(json_column: str = "struct", *, dictionary: bool = True):
    """The Arrow schema of records, version 2.

    ``record type why reason`` are dictionary-encoded (``dictionary=False``
    gives plain strings, the form Spark's Arrow exchange takes); ``ts`` is a
    UTC timestamp in microseconds; ``json`` is a struct (``json_column=
    "struct"``, the default) or JSON text (``"text"``, the version 1 form).
    """
    pa = import_pyarrow()
    _check_kind(json_column)
    category = pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string()
    types = {
        "record": category, "line": pa.int64(), "column": pa.int64(), "type": category, "why": category,
        "reason": category, "json": _json_struct_type() if json_column == "struct" else pa.string(),
        "version": pa.int32(), "ts": pa.timestamp("us", tz="UTC"), "unvalidated": pa.bool_(),
    }
    required = {"record", "file", "line", "column", "text", "version", "unvalidated"}
    return pa.schema([pa.field(name, types.get(name, pa.string()), nullable=name not in required)
                      for name in COLUMNS], metadata={b"rogerwilco.io.records.version": str(RECORDS_VERSION).encode()})


#: A column's Record field, where the two names differ.
_FIELD_OF = {"from": "from_"}


def _json_value(form: dict | None, json_column: str) -> Any:
    if form is None:
        return None
    if json_column == "text":
        return json.dumps(form, ensure_ascii=False, separators=(",", ":"))
    out = {k: form.get(k) for k in ("v",) + _ENVELOPE + ("tail",)}
    out["slots"] = json.dumps(form.get("slots") or {}, ensure_ascii=False, separators=(",", ":"))
    return out


#: the json struct's fields read from the form as they are (the slots are written as JSON text)
_STRUCT_KEYS = ("v",) + _ENVELOPE + ("tail",)


def struct_texts(form: Mapping[str, Any]) -> tuple[Any, ...]:
    """The ``json`` struct's nine fields of a JSON form, in the struct's order (``v``, the envelope, ``slots``,
    ``tail``): each as it is, the slots as compact JSON text (the C writer's where it is sure, else
    ``json.dumps``'s, the same text)."""
    from ..core.speedups import json_compact_text

    return (*(form.get(key) for key in ("v",) + _ENVELOPE), json_compact_text(form.get("slots") or {}),
            form.get("tail"))

#: each column but ``json`` and ``version``, and how it is read from a record
_GETTERS = tuple((c, operator.attrgetter(_FIELD_OF.get(c, c))) for c in COLUMNS if c not in ("json", "version"))


def _json_array(pa: Any, forms: list, json_column: str) -> Any:
    """The ``json`` column of a batch: JSON text, or the struct built child by child (no dict a record)."""
    from ..core.speedups import json_compact_text, json_struct_columns

    if json_column == "text":
        return _array(pa, [None if form is None else json_compact_text(form) for form in forms], pa.string())
    if json_struct_columns is not None:
        columns, unsure = json_struct_columns(forms, _STRUCT_KEYS)
    else:
        columns = [[None] * len(forms) for _ in range(len(_STRUCT_KEYS) + 1)]
        unsure = [i for i, form in enumerate(forms) if form is not None]
    for i in unsure:  # (every form, without the C scanner)
        *envelope, slots, tail = struct_texts(forms[i])
        for j, value in enumerate((*envelope, tail, slots)):  # (the order of _STRUCT_KEYS, then the slots)
            columns[j][i] = value
    by_name = dict(zip(_STRUCT_KEYS + ("slots",), columns))
    typ = _json_struct_type()
    children = [_array(pa, by_name[typ.field(j).name], pa.string()) for j in range(typ.num_fields)]
    return pa.StructArray.from_arrays(children, fields=list(typ), mask=pa.array([f is None for f in forms], pa.bool_()))


def to_arrow_batch(records: Iterable[Record], json_column: str = "struct", *, dictionary: bool = True):
    """An Arrow RecordBatch of records with :func:`arrow_schema`."""
    pa = import_pyarrow()
    schema = arrow_schema(json_column, dictionary=dictionary)
    rows = records if isinstance(records, (list, tuple)) else list(records)
    # column by column, straight from the records' fields (``ts`` as the datetime, not its text)
    cols: dict[str, list] = {c: list(map(get, rows)) for c, get in _GETTERS}
    cols["version"] = [RECORDS_VERSION] * len(rows)
    arrays = []
    for c in COLUMNS:
        if c == "json":
            arrays.append(_json_array(pa, [r.json for r in rows], json_column))
            continue
        typ = schema.field(c).type
        if pa.types.is_dictionary(typ):
            arrays.append(_array(pa, cols[c], pa.string()).dictionary_encode().cast(typ))
        else:
            arrays.append(_array(pa, cols[c], typ))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _array(pa: Any, values: list, typ: Any) -> Any:
    """``pa.array(values, type=typ)``; a text holding a lone surrogate (a JSON ``\\ud800`` escape, a file name's
    undecodable byte) has it written as that escape, ``\\ud800``, as CSV shows it: Arrow's strings are UTF-8, which
    has no surrogates, and the record must not be lost."""
    try:
        return pa.array(values, type=typ)
    except UnicodeEncodeError:
        return pa.array([_utf8(v) for v in values], type=typ)


def _utf8(value: Any) -> Any:
    """A value with every lone surrogate in its texts (nested ones too) written as its ``\\uXXXX`` escape."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_utf8(k): _utf8(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    return value


def spark_schema(json_column: str = "struct"):
    """The PySpark ``StructType`` matching :func:`arrow_schema` (dictionary columns as strings)."""
    try:
        from pyspark.sql import types as T
    except ImportError:
        raise RW1Error("the Spark schema needs pyspark: pip install 'rogerwilco[spark]'") from None
    return _spark_type(arrow_schema(json_column, dictionary=False), T)


def _spark_type(arrow: Any, T: Any) -> Any:
    pa = import_pyarrow()
    if isinstance(arrow, pa.Schema) or pa.types.is_struct(arrow):
        fields = arrow if isinstance(arrow, pa.Schema) else [arrow.field(i) for i in range(arrow.num_fields)]
        return T.StructType([T.StructField(f.name, _spark_type(f.type, T), f.nullable) for f in fields])
    if pa.types.is_dictionary(arrow):
        return _spark_type(arrow.value_type, T)
    if pa.types.is_string(arrow):
        return T.StringType()
    if pa.types.is_int64(arrow):
        return T.LongType()
    if pa.types.is_int32(arrow):
        return T.IntegerType()
    if pa.types.is_boolean(arrow):
        return T.BooleanType()
    if pa.types.is_timestamp(arrow):
        return T.TimestampType()
    raise RW1Error(f"no Spark type for {arrow}")


def pandas_dtypes(json_column: str = "struct") -> dict[str, Any]:
    """The pandas dtypes of records as ``to_arrow(...).to_pandas()`` gives them, derived from
    :func:`arrow_schema`: categories for its dictionary columns, a UTC timestamp for ``ts``.

    Text columns take pandas' default string dtype (``str`` from pandas 3,
    ``object`` before); ``json`` is ``object`` (a dict per row as a struct)
    or that string dtype (as text).
    """
    import numpy as np
    import pandas as pd

    text: Any = pd.StringDtype(na_value=float("nan")) if int(pd.__version__.split(".")[0]) >= 3 else "object"

    def dtype(arrow: Any) -> Any:
        pa = import_pyarrow()
        if pa.types.is_dictionary(arrow):
            return pd.CategoricalDtype()
        if pa.types.is_string(arrow):
            return text
        if pa.types.is_timestamp(arrow):
            return pd.DatetimeTZDtype(arrow.unit, arrow.tz)
        if pa.types.is_struct(arrow):
            return "object"
        return np.dtype(arrow.to_pandas_dtype()).name  # int64, int32, bool

    return {f.name: dtype(f.type) for f in arrow_schema(json_column)}


def polars_schema(json_column: str = "struct") -> dict[str, Any]:
    """The polars schema of records, derived from :func:`arrow_schema`: ``pl.Categorical`` for its
    dictionary columns, ``json`` a ``pl.Struct`` of strings (or ``pl.String`` as text)."""
    import polars as pl

    pa = import_pyarrow()

    def dtype(arrow: Any) -> Any:
        if pa.types.is_dictionary(arrow):
            return pl.Categorical
        if pa.types.is_struct(arrow):
            return pl.Struct([pl.Field(arrow.field(i).name, dtype(arrow.field(i).type)) for i in range(arrow.num_fields)])
        if pa.types.is_timestamp(arrow):
            return pl.Datetime(arrow.unit, arrow.tz)
        return _polars_scalars()[str(arrow)]

    return {f.name: dtype(f.type) for f in arrow_schema(json_column)}


def _polars_scalars() -> dict[str, Any]:
    import polars as pl

    return {"string": pl.String, "int64": pl.Int64, "int32": pl.Int32, "bool": pl.Boolean}


__all__ = [
    "COLUMNS",
    "RECORDS_VERSION",
    "Record",
    "arrow_schema",
    "pandas_dtypes",
    "polars_schema",
    "spark_schema",
    "struct_texts",
    "to_arrow_batch",
]
