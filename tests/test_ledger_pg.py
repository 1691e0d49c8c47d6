"""The PostgreSQL engine's own cases: bad URLs and servers, foreign and newer schemas, lost connections.

The behaviour both engines share is tested on both (the ``engine`` fixture of tests/pg.py, in
test_ledger.py, test_endpoint.py and the tool's tests); these are the cases only a server has.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time

import psycopg
import pytest

from rogerwilco import Endpoint
from rogerwilco.checks.ledger import LedgerError
from rogerwilco.checks.ledger_pg import PostgresLedger, dialect, redact
from tests.bounds import HANG
from tests.pg import free_port, new_schema, pg_cluster, pg_database, rows  # noqa: F401 - fixtures

HO = "RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rogerwilco", *args], capture_output=True, text=True, timeout=HANG)


def refusal(url: str) -> str:
    with pytest.raises(LedgerError) as refused:
        Endpoint("dev", ledger=url)
    return refused.value.message


def test_a_url_that_is_not_one_is_refused_with_the_form_to_write():
    said = refusal("postgresql://dev:s3cret@db host/x")
    assert "is not a PostgreSQL URL" in said and "postgresql://USER@HOST:PORT/DATABASE" in said
    assert "s3cret" not in said


def test_refused_credentials_are_named_and_never_printed(pg_cluster):
    said = refusal(pg_cluster.url(password="wrong-horse-battery"))
    assert "refused the credentials" in said and "wrong-horse-battery" not in said


def test_a_missing_database_is_named_with_the_fix(pg_cluster):
    said = refusal(pg_cluster.url("no_such_db"))
    assert "database no_such_db does not exist" in said and "createdb no_such_db" in said
    assert pg_cluster.password not in said


def test_no_server_at_the_address_is_one_line():
    said = refusal(f"postgresql://dev:pw@127.0.0.1:{free_port()}/x?connect_timeout=5")
    assert "no PostgreSQL server answers there" in said and "\n" not in said and ":pw@" not in said


def test_the_cli_says_it_in_one_line_and_exits_2(pg_cluster):
    url = pg_cluster.url(password="wrong-horse-battery")
    done = cli("tool", "status", "--store", url)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "refused the credentials" in done.stderr
    assert "wrong-horse-battery" not in done.stderr + done.stdout
    served = cli("mcp", "--ledger", url, "--as", "payer")
    assert served.returncode == 2 and served.stderr.count("\n") == 1 and "refused the credentials" in served.stderr
    assert "wrong-horse-battery" not in served.stderr
    missing = cli("tool", "status", "--store", new_schema(pg_cluster.url("postgres")))
    assert missing.returncode == 2 and "holds no rogerwilco ledger" in missing.stderr


def test_tables_of_something_else_are_refused_and_left_as_they_are(pg_database):
    url = new_schema(pg_database)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    assert "not a rogerwilco ledger" in refusal(url)
    assert rows(pg_database, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'journal' AND "
                             "table_schema = ?", (url.rsplit("%3D", 1)[1],)) == [(0,)]


def test_a_newer_schema_is_refused_before_and_while_open(pg_database):
    url = new_schema(pg_database)
    dev = Endpoint("dev", ledger=url)
    dev.receive(HO)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'version'")
    assert "another version (3)" in refusal(url)
    with pytest.raises(LedgerError) as during:
        dev.receive(HO.replace("lead-1", "lead-2"))
    assert "another version (3)" in during.value.message


# Each process opens the store and takes steps at once: one that waited to make the tables must not touch
# them again while another's steps hold them (that deadlocked: CREATE INDEX IF NOT EXISTS locks the table).
STARTING = ("import sys\nfrom rogerwilco import Endpoint\nfrom rogerwilco.front.tool import ToolStore\n"
            "dev = Endpoint('dev', ledger=sys.argv[1])\nToolStore.open(sys.argv[1], profiles=['pay'])\n"
            "for n in range(5):\n"
            "    dev.receive(f'RW1 HO lead-{sys.argv[2]}{n} from=lead to=dev item=x{sys.argv[2]}{n} ask=FIX')\n")


def test_the_schema_is_made_once_by_processes_starting_together(pg_database):
    for _ in range(3):
        url = new_schema(pg_database)
        starts = [subprocess.Popen([sys.executable, "-c", STARTING, url, str(k + 1)], stderr=subprocess.PIPE)
                  for k in range(8)]
        assert all(p.wait() == 0 for p in starts), [p.stderr.read() for p in starts if p.stderr]
        assert len(rows(url, "SELECT seq FROM journal")) == 40
    assert rows(url, "SELECT key, value FROM meta ORDER BY key") == [("format", "rogerwilco-ledger"),
                                                                     ("version", "2")]


def _terminate(url: str, ledger: PostgresLedger) -> None:
    """The server ends the ledger's connection (as a restart or a dropped link would)."""
    pid = ledger._local.db.conn.info.backend_pid
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def test_a_connection_lost_between_steps_is_opened_again(pg_database):
    url = new_schema(pg_database)
    dev = Endpoint("dev", ledger=url)
    dev.receive(HO)
    _terminate(url, dev.ledger)
    dev.receive(HO.replace("lead-1", "lead-2"))  # the step begins on a new connection
    assert [r[0] for r in rows(url, "SELECT msg_id FROM journal WHERE dir = 'in' ORDER BY seq")] == ["lead-1",
                                                                                                    "lead-2"]


def test_a_connection_lost_mid_step_is_reported_and_nothing_of_the_step_is_kept(pg_database):
    url = new_schema(pg_database)
    dev = Endpoint("dev", ledger=url)
    dev.receive(HO)
    before = rows(url, "SELECT seq, line FROM journal ORDER BY seq")
    with pytest.raises(LedgerError) as lost:
        with dev.ledger.transaction() as tx:
            tx.append("dev", "in", "RW1 HO lead-9 from=lead to=dev item=x ask=FIX", msg_id="lead-9", extra={},
                      at="20261201T1200Z")
            _terminate(url, dev.ledger)
            tx.use_number("dev", 40)
    assert "the step was not recorded" in lost.value.message and "connection" in lost.value.message
    assert rows(url, "SELECT seq, line FROM journal ORDER BY seq") == before
    assert rows(url, "SELECT n FROM numbers WHERE agent = 'dev'") in ([], [(1,)])
    dev.receive(HO.replace("lead-1", "lead-2"))  # and the endpoint goes on


def test_the_tool_queries_read_the_same_in_postgresql():
    assert dialect("SELECT 1 FROM t WHERE item IS ? AND n LIKE '5%'") == \
        "SELECT 1 FROM t WHERE item IS NOT DISTINCT FROM %s AND n LIKE '5%%'"
    assert dialect("INSERT OR IGNORE INTO cancels (a) VALUES (?)") == \
        "INSERT INTO cancels (a) VALUES (%s) ON CONFLICT DO NOTHING"
    assert redact("postgresql://u:p@h/db?password=q&x=1") == "postgresql://u:***@h/db?password=***&x=1"


def test_both_engines_make_the_same_tables_columns_and_indexes(pg_database, tmp_path):
    """One schema definition, rendered per engine: the same tables, columns, nullability and indexes."""
    url = new_schema(pg_database)
    Endpoint("dev", ledger=url)
    Endpoint("dev", ledger=tmp_path / "dev.ledger")
    name = url.rsplit("%3D", 1)[1]
    on_pg = rows(pg_database, "SELECT table_name, column_name, is_nullable FROM information_schema.columns "
                              "WHERE table_schema = ? ORDER BY table_name, ordinal_position", (name,))
    pg_indexes = {r[0] for r in rows(pg_database, "SELECT indexname FROM pg_indexes WHERE schemaname = ? AND "
                                                  "indexname NOT LIKE '%_pkey'", (name,))}
    db = sqlite3.connect(tmp_path / "dev.ledger")
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name != "
                                       "'sqlite_sequence' ORDER BY name")]
    on_sqlite = [(table, column, "NO" if notnull or primary else "YES") for table in tables
                 for _, column, _, notnull, _, primary in db.execute(f"PRAGMA table_info({table})")]
    sqlite_indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT "
                                               "LIKE 'sqlite_autoindex%'")}
    assert sorted(on_pg) == sorted(on_sqlite) and len(on_pg) > 40
    assert pg_indexes == sqlite_indexes and "one_act_per_handoff" in pg_indexes


def _step(ledger: PostgresLedger, agent: str | None, done: list) -> threading.Thread:
    """A step of ``agent`` (None: the whole store's) on another thread, noted in ``done`` once committed."""
    def run() -> None:
        with ledger.transaction(agent=agent) as tx:
            tx.use_number(agent or "tool", 1)
        done.append(agent)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _waits(url: str, count: int) -> None:
    """Until ``count`` backends wait on a lock (a step that cannot begin yet)."""
    while rows(url, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'") != [(count,)]:
        time.sleep(0.02)


def test_steps_of_other_agents_run_beside_a_step_and_its_own_agent_and_the_tool_wait(pg_database):
    """The lock is per agent for the endpoint's steps, and the store's whole for the tool's (docs/endpoint.md)."""
    url = new_schema(pg_database)
    holder, other = PostgresLedger(url), PostgresLedger(url)
    done: list = []
    with holder.transaction(agent="payer"):
        beside = _step(other, "auditor", done)
        beside.join(HANG)
        assert done == ["auditor"]  # it began and committed while payer's step was open
        same, tool = _step(other, "payer", done), _step(PostgresLedger(url), None, done)
        _waits(pg_database, 2)
        assert done == ["auditor"]
    same.join(HANG)
    tool.join(HANG)
    assert sorted(done, key=str) == sorted(["auditor", "payer", None], key=str)
    with holder.transaction():  # the store's whole: every agent's step waits for it
        blocked = _step(other, "auditor", done)
        _waits(pg_database, 1)
        assert done.count("auditor") == 1
    blocked.join(HANG)
    assert done.count("auditor") == 2
