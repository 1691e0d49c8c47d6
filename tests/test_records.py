"""Records version 2: the time of each line, envelopes recovered on diagnostics, the exported typed schema."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta, timezone

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.io import records as R
from rogerwilco.front.cli import main
from rogerwilco.io.scan import COLUMNS, Tally, recover_envelope, scan, to_arrow
from rogerwilco.io.scan.timestamps import Clock, epoch, json_time, parse_time_text, prefix_time

MSG = "RW1 ST a-1 from=a to=b item=x:1"
UTC = timezone.utc


def one(line: str, **kw):
    tally = Tally()
    records = list(scan([line], tally=tally, **kw))
    assert len(records) == 1
    return records[0], tally


@pytest.mark.parametrize("prefix,expected", [
    ("2026-10-01T09:14:03.540Z INFO [a] ", "2026-10-01T09:14:03.540000Z"),
    ("2026-10-01 09:14:05,220 WARNING a: ", "2026-10-01T09:14:05.220000Z"),
    ("2026-10-01T11:14:05+02:00 ", "2026-10-01T09:14:05.000000Z"),
    ("2026-10-01T09:14:05.123456789Z stdout F ", "2026-10-01T09:14:05.123456Z"),  # cut, never rounded
    ("2026-10-01T09:14:05 ", "2026-10-01T09:14:05.000000Z"),  # zone-less: UTC
    ('127.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET /x" ', "2026-10-10T20:55:36.000000Z"),
    ("<34>1 2026-10-01T22:14:15.003Z host app - - ", "2026-10-01T22:14:15.003000Z"),
    ("[agent] ", None),
    ("", None),
])
def test_ts_is_read_from_the_prefix(prefix, expected):
    record, tally = one(prefix + MSG)
    assert record.to_dict()["ts"] == expected
    assert tally.unreadable_ts == 0


def test_a_zone_less_time_is_read_in_the_given_zone():
    record, _ = one("2026-07-01 12:00:00 " + MSG, tz="Europe/Paris")
    assert record.ts == datetime(2026, 7, 1, 10, 0, tzinfo=UTC)
    record, _ = one("2026-07-01 12:00:00Z " + MSG, tz="Europe/Paris")  # a zone written wins
    assert record.ts == datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    record, _ = one("2026-07-01 12:00:00 " + MSG, tz="-05:00")
    assert record.ts == datetime(2026, 7, 1, 17, 0, tzinfo=UTC)


def test_syslog_times_need_a_year_and_none_is_guessed():
    record, tally = one("Oct  1 09:14:06 host agentd[4121]: " + MSG)
    assert record.ts is None and tally.unreadable_ts == 1
    record, tally = one("Oct  1 09:14:06 host agentd[4121]: " + MSG, year=2026, tz="UTC")
    assert record.ts == datetime(2026, 10, 1, 9, 14, 6, tzinfo=UTC) and tally.unreadable_ts == 0


@pytest.mark.parametrize("line", [
    "2026-13-01T09:00:00Z " + MSG,  # month 13
    "2026-10-01T25:00:00Z " + MSG,  # 25 o'clock
    "2026-10-01T09:00:00+25:00 " + MSG,
    json.dumps({"ts": "yesterday", "msg": MSG}),
    json.dumps({"time": True, "msg": MSG}),
    json.dumps({"timestamp": [1], "msg": MSG}),
])
def test_an_unreadable_time_leaves_ts_null_and_is_counted(line):
    record, tally = one(line)
    assert record.ts is None and tally.unreadable_ts == 1


@pytest.mark.parametrize("fields,expected", [
    ({"ts": 1790000000}, "2026-09-21T14:13:20.000000Z"),
    ({"time": 1790000000123}, "2026-09-21T14:13:20.123000Z"),  # milliseconds
    ({"timestamp": 1790000000.5}, "2026-09-21T14:13:20.500000Z"),
    ({"@timestamp": "2026-10-01T09:20:00Z"}, "2026-10-01T09:20:00.000000Z"),
    ({"ts": "1790000000.000100"}, "2026-09-21T14:13:20.000100Z"),  # Slack's form, exact
    ({"level": "info"}, None),
])
def test_ts_is_read_from_json_fields(fields, expected):
    record, tally = one(json.dumps({**fields, "event": {"msg": MSG}}))
    assert record.to_dict()["ts"] == expected and tally.unreadable_ts == 0


def test_a_prefix_time_comes_before_the_json_fields():
    record, _ = one('2026-10-01T09:00:00Z stdout F {"ts": 1790000000, "msg": "' + MSG + '"}')
    assert record.to_dict()["ts"] == "2026-10-01T09:00:00.000000Z"


def test_slack_messages_take_their_ts():
    records = list(scan("tests/data/scan/slack-export.json"))
    assert records and all(r.ts is not None and r.ts.year == 2026 for r in records)


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(9998, 12, 31)),
       st.integers(min_value=-14 * 60, max_value=14 * 60))
def test_rfc3339_round_trips_to_the_same_instant(moment, offset_minutes):
    zone = timezone(timedelta(minutes=offset_minutes))
    written = moment.replace(tzinfo=zone).isoformat(timespec="microseconds")
    ts, bad = parse_time_text(written)
    assert not bad and ts == moment.replace(tzinfo=zone).astimezone(UTC)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_reading_a_prefix_never_raises(text):
    ts, bad = prefix_time(text, None, 2026)
    assert ts is None or ts.tzinfo is not None
    assert not (ts is not None and bad)


def test_epoch_and_json_time_edges():
    assert epoch("nan") == (None, True) and epoch(float("inf")) == (None, True)
    assert epoch(10 ** 30) == (None, True)
    assert json_time(["ts"]) == (None, False)
    clock = Clock()
    assert clock.line_time("2026-02-30T00:00:00Z x", 22) is None and clock.unreadable == 1


# ---- envelopes on diagnostics ----------------------------------------------------


def test_a_refused_line_keeps_the_envelope_it_got_as_far_as():
    record, _ = one("RW1 HO payer-1 re=x-0 from=payer  to=scheduler item=inv:MD-2026-057 ask=PAY")
    d = record.to_dict()
    assert d["record"] == "diagnostic" and d["unvalidated"] is True
    assert (d["type"], d["id"], d["re"], d["from"], d["to"], d["item"]) == (
        "HO", "payer-1", "x-0", "payer", "scheduler", "inv:MD-2026-057")


def test_a_message_is_validated_and_a_diagnostic_is_not():
    record, _ = one(MSG)
    assert record.to_dict()["unvalidated"] is False and record.to_dict()["version"] == 2


@pytest.mark.parametrize("text,expected", [
    ("RW1 ho ops-4 from=a to=b", {"type": "ho", "id": "ops-4", "from": "a", "to": "b"}),
    ("RW1 HO from=a to=b", {"type": "HO", "from": "a", "to": "b"}),
    ("RW1 HO a-1 from=a from=b // to=c", {"type": "HO", "id": "a-1", "from": "a"}),
    ("RW1 HELLO a-1 from=a", {"from": "a"}),
    ("RW1", {}),
])
def test_recover_envelope_from_tokens(text, expected):
    assert recover_envelope(text) == expected


# ---- the exported schema ---------------------------------------------------------


def records():
    return list(scan("tests/data/scan/prefixed.log")) + list(scan("tests/data/scan/events.jsonl"))


def test_arrow_schema_is_typed():
    import pyarrow as pa

    schema = R.arrow_schema()
    assert schema.names == list(COLUMNS) and list(COLUMNS[:17]) == list(R._COLUMNS_V1)
    for name in ("record", "type", "why", "reason"):
        assert pa.types.is_dictionary(schema.field(name).type)
    assert schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert pa.types.is_struct(schema.field("json").type)
    assert R.arrow_schema("text").field("json").type == pa.string()
    assert not any(pa.types.is_dictionary(f.type) for f in R.arrow_schema(dictionary=False))
    with pytest.raises(R.RW1Error):
        R.arrow_schema("blob")


def test_pandas_dtypes_are_what_pandas_reads():
    import pandas as pd

    for kind in R._JSON_COLUMN_KINDS:
        got = dict(to_arrow(records(), json_column=kind).to_pandas().dtypes)
        want = R.pandas_dtypes(kind)
        for name in COLUMNS:
            if isinstance(want[name], pd.CategoricalDtype):
                assert isinstance(got[name], pd.CategoricalDtype), name
            else:
                assert got[name] == want[name], name


def test_polars_schema_is_what_polars_reads():
    import polars as pl

    for kind in R._JSON_COLUMN_KINDS:
        frame = pl.from_arrow(to_arrow(records(), json_column=kind))
        assert dict(frame.schema) == R.polars_schema(kind)
    frame = pl.from_arrow(to_arrow(records()))
    slots = frame.filter(pl.col("record") == "message")["json"].struct.field("slots").str.json_decode(
        pl.Struct([pl.Field("ask", pl.String)]))
    assert "PAY" in slots.struct.field("ask").to_list()


def test_spark_schema_matches_the_arrow_schema():
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = R.spark_schema()
    assert isinstance(schema, T.StructType) and schema.names == list(COLUMNS)
    assert schema["ts"].dataType == T.TimestampType() and schema["line"].dataType == T.LongType()
    assert isinstance(schema["json"].dataType, T.StructType)
    arrow = to_arrow_schema(schema, timezone="UTC")
    plain = R.arrow_schema(dictionary=False)
    assert [f.type for f in arrow] == [f.type for f in plain]


def test_every_engine_schema_is_derived_from_the_arrow_schema(monkeypatch):
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    from pyspark.sql import types as T

    written = R.arrow_schema

    def retyped(json_column="struct", *, dictionary=True):
        schema = written(json_column, dictionary=dictionary)
        schema = schema.set(schema.get_field_index("line"), pa.field("line", pa.int32(), nullable=False))
        return schema.append(pa.field("lane", pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string()))

    monkeypatch.setattr(R, "arrow_schema", retyped)
    assert (R.polars_schema()["line"], R.polars_schema()["lane"]) == (pl.Int32, pl.Categorical)
    assert R.pandas_dtypes()["line"] == "int32" and isinstance(R.pandas_dtypes()["lane"], pd.CategoricalDtype)
    assert (R.spark_schema()["line"].dataType, R.spark_schema()["lane"].dataType) == (T.IntegerType(), T.StringType())


def test_cli_parquet_json_column_and_tz(tmp_path, capsys):
    log = tmp_path / "a.log"
    log.write_text("2026-07-01 12:00:00 " + MSG + "\n2026-13-01 00:00:00 " + MSG + "\n", encoding="utf-8")
    out = tmp_path / "r.parquet"
    assert main(["scan", str(log), "-o", str(out), "--tz", "Europe/Paris"]) == 0
    table = pq.read_table(out)
    assert table.schema.field("json").type == R.arrow_schema().field("json").type
    assert table.column("ts").to_pylist() == [datetime(2026, 7, 1, 10, 0, tzinfo=UTC), None]
    err = capsys.readouterr().err
    assert "times unreadable" in err
    assert main(["scan", str(log), "-o", str(out), "--json-column", "text"]) == 0
    assert json.loads(pq.read_table(out).column("json")[0].as_py())["type"] == "ST"
    assert main(["scan", str(log), "--tz", "Mars/Olympus"]) == 2
    assert "unknown time zone" in capsys.readouterr().err
    assert main(["scan", str(log), "-f", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.split(",") == list(COLUMNS)


def test_a_diagnostic_says_its_did_you_mean_hint_in_every_format(tmp_path, capsys):
    # the hint validate, lint, parse and SARIF give is in the message column of JSON Lines, CSV and Parquet alike
    log = tmp_path / "a.log"
    log.write_text("x RW1 HO a-2 from=a to=b item=x ask=PAYY\n", encoding="utf-8")
    said = "unknown ask code (did you mean PAY? it is a code of profile pay: add p=pay)"
    assert main(["scan", str(log), "--no-summary"]) == 0
    assert json.loads(capsys.readouterr().out)["message"] == said
    assert main(["scan", str(log), "--no-summary", "-f", "csv"]) == 0
    row = dict(zip(COLUMNS, next(csv.reader(capsys.readouterr().out.splitlines()[1:]))))
    assert row["message"] == said
    out = tmp_path / "r.parquet"
    assert main(["scan", str(log), "--no-summary", "-o", str(out)]) == 0
    assert pq.read_table(out).column("message").to_pylist() == [said]
    (record,) = scan(["x RW1 HO a-2 from=a to=b item=x ask=PAYY"])
    assert record.message == said and to_arrow([record]).schema == R.arrow_schema()


_EAST = timezone(timedelta(hours=5, minutes=30))
_ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=30)  # controls, U+2028, non-BMP, surrogates
_FORM_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _ANY_TEXT,
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ANY_TEXT, inner, max_size=3),
                            max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.builds(R.Record, record=st.sampled_from(["message", "diagnostic"]), file=_ANY_TEXT,
                 line=st.integers(0, 2**70), column=st.integers(0, 2**40), text=_ANY_TEXT,
                 field=st.none() | _ANY_TEXT, type=st.none() | _ANY_TEXT, id=st.none() | _ANY_TEXT,
                 from_=st.none() | _ANY_TEXT, to=st.none() | _ANY_TEXT, re=st.none() | _ANY_TEXT,
                 item=st.none() | _ANY_TEXT, json=st.none() | st.dictionaries(_ANY_TEXT, _FORM_VALUES, max_size=4),
                 why=st.none() | _ANY_TEXT, reason=st.none() | _ANY_TEXT, token=st.none() | _ANY_TEXT,
                 message=st.none() | _ANY_TEXT, unvalidated=st.booleans(),
                 ts=st.none() | st.datetimes(timezones=st.sampled_from([timezone.utc, _EAST]))))
def test_a_record_line_of_json_lines_is_json_dumps_of_its_dict(record):
    """Whichever writes it (the C scanner in one call, its time in UTC too; a value it is not sure of such as a
    float, a huge line number, a time in another zone or before the year 1000; or json's escaper field by field
    without it)."""
    assert record.to_jsonl() == json.dumps(record.to_dict(), ensure_ascii=True) + "\n"
