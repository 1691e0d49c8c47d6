"""The queries of docs/scan.md, each run by DuckDB on the records of the shipped sample, with their answers."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from rogerwilco.front.cli import main

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs" / "scan.md"
SAMPLE = ROOT / "examples" / "queries" / "agents.log"


def documented_queries() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Queries people run", 1)[1].split("\n## ", 1)[0]
    out = {}
    for part in section.split("\n### ")[1:]:
        title = part.splitlines()[0].strip()
        blocks = re.findall(r"```sql\n(.*?)```", part, re.S)
        assert len(blocks) == 1, title
        out[title] = blocks[0]
    return out


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    out = tmp_path_factory.mktemp("q") / "records.parquet"
    assert main(["scan", str(SAMPLE), "-o", str(out), "--no-summary"]) == 0
    connection = duckdb.connect()
    connection.execute("set TimeZone = 'Pacific/Auckland'")  # the queries must not depend on DuckDB's zone
    connection.execute(f"create view records as select * from read_parquet('{out}')")
    return connection


def run(con, sql: str) -> list[tuple]:
    return con.execute(sql.replace("'records.parquet'", "records")).fetchall()


def t(hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(2026, 10, 1, hour, minute, second)


def test_every_documented_query_has_an_answer_here():
    assert set(documented_queries()) == set(ANSWERS)


def test_messages_by_type_per_hour(con):
    got = run(con, documented_queries()["Messages by type per hour"])
    assert got == [
        (t(9, 0), "HO", 4), (t(9, 0), "RB", 3), (t(9, 0), "UN", 1),
        (t(10, 0), "AN", 1), (t(10, 0), "CX", 1), (t(10, 0), "DN", 1), (t(10, 0), "HO", 4), (t(10, 0), "RB", 1),
        (t(11, 0), "DN", 1), (t(11, 0), "ST", 1), (t(11, 0), "UN", 1),
    ]


def test_refusals_and_failed_readbacks_per_agent(con):
    got = run(con, documented_queries()["Refusals and failed readbacks per agent"])
    assert got == [("builder", 0, 0, 1), ("editor", 1, 1, 0), ("writer", 1, 1, 0)]


def test_handoffs_with_no_readback(con):
    got = run(con, documented_queries()["Handoffs with no readback"])
    assert [(r[0], r[2], r[5]) for r in got] == [
        ("research-02", "editor", "UN"), ("ops-03", "builder", None), ("ops-05", "builder", "CX"),
        ("research-03", "writer", "UN"),
    ]


def test_handoffs_still_open(con):
    got = run(con, documented_queries()["Handoffs still open"])
    assert [(r[0], r[5]) for r in got] == [("ops-03", False), ("ops-04", True)]


def test_time_from_each_ho_to_its_dn(con):
    got = run(con, documented_queries()["Time from each HO to its DN"])
    assert [(r[0], r[1], r[3], r[4]) for r in got] == [
        ("research-01", "writer", "writer-02", timedelta(hours=1, minutes=11, seconds=55)),
        ("ops-02", "builder", "builder-06", timedelta(hours=2, minutes=23)),
    ]


ANSWERS = {
    "Messages by type per hour", "Refusals and failed readbacks per agent", "Handoffs with no readback",
    "Handoffs still open", "Time from each HO to its DN",
}
