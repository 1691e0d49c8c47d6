"""A ledger open in a process that forks: its children's writes are never lost, whatever the parent does.

SQLite keeps per process what it knows of an open file, and a forked child inherits it. A parent holding its
ledger open across a fork, then closing it while its children write (a garbage collection is enough), used to
checkpoint and delete the WAL under them: they lost each other's updates, and the tool ran two acts of one
handoff in ``tests/test_tool_race.py``. The ledger closes the forking thread's idle connections before a fork
(:func:`rogerwilco.checks.ledger._close_before_fork`), and a child never closes what it inherited.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3

from rogerwilco.checks.ledger import SQLiteLedger
from rogerwilco.front.tool import ToolStore
from tests.bounds import HANG

WRITERS = 8
STEPS = 40


def _count(path: str, steps: int) -> None:
    ledger = SQLiteLedger(path)
    for _ in range(steps):
        with ledger.transaction() as tx:
            n = tx.db.execute("SELECT n FROM counter").fetchone()[0]
            tx.db.execute("UPDATE counter SET n = ?", (n + 1,))


def _race(path: str, during) -> int:
    context = multiprocessing.get_context("fork")
    procs = [context.Process(target=_count, args=(path, STEPS)) for _ in range(WRITERS)]
    for proc in procs:
        proc.start()
    during()  # while the children open the ledger and write
    for proc in procs:
        proc.join(timeout=HANG)
        assert proc.exitcode == 0
    return sqlite3.connect(path).execute("SELECT n FROM counter").fetchone()[0]


def test_children_lose_no_write_when_the_parent_closes_its_ledger_meanwhile(tmp_path):
    for number in range(5):
        path = str(tmp_path / f"ledger-{number}.db")
        ledger = SQLiteLedger(path)
        with ledger.transaction() as tx:  # the parent's connection is open, and idle, at the fork
            tx.db.execute("CREATE TABLE counter (n INTEGER)")
            tx.db.execute("INSERT INTO counter VALUES (0)")
        assert _race(path, ledger.close) == WRITERS * STEPS, f"round {number}: writes lost"


def test_a_ledger_used_again_after_a_fork_in_parent_and_child(tmp_path):
    """The connection the fork closed opens again at the next step, in the parent and in the child."""
    ledger = SQLiteLedger(str(tmp_path / "ledger.db"))
    with ledger.transaction() as tx:
        tx.db.execute("CREATE TABLE counter (n INTEGER)")
        tx.db.execute("INSERT INTO counter VALUES (0)")
    pid = os.fork()
    if pid == 0:  # the child: its own connection
        code = 1
        try:
            with ledger.transaction() as tx:
                tx.db.execute("UPDATE counter SET n = n + 1")
            code = 0
        finally:
            os._exit(code)
    with ledger.transaction() as tx:
        tx.db.execute("UPDATE counter SET n = n + 10")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with ledger.transaction() as tx:
        assert tx.db.execute("SELECT n FROM counter").fetchone()[0] == 11


def _open_here(path: str) -> bool:
    return any(os.path.realpath(f"/proc/self/fd/{fd}") == path for fd in os.listdir("/proc/self/fd"))


def test_a_tool_store_lets_go_of_its_file(tmp_path):
    """``close()`` (or the ``with`` block) closes the store's connection, so a fork after it carries nothing."""
    path = str((tmp_path / "store.db").resolve())
    with ToolStore.open(path, profiles=["pay"]) as store:
        store.status()
        assert _open_here(path)
    assert not _open_here(path)
    assert store.status() == []  # the next step opens it again
    store.close()
    assert not _open_here(path)
