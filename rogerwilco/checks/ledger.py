"""The endpoint's ledger: what an agent sent and received, and its message numbers.

Theory of operation
-------------------
An :class:`rogerwilco.checks.endpoint.Endpoint` holds no state of its own that is
not derived from its *journal*: the lines it received and the lines it sent,
in the order it handled them, with the sender's private extras (the criteria
and record it checks readbacks against). Replaying the journal rebuilds the
endpoint exactly, so a ledger only has to keep the journal and the last
message number each agent used.

A ledger is a small interface (:class:`Ledger`): ``transaction()`` yields a
:class:`Transaction` that reads the journal past a sequence number, appends
entries and takes message numbers; everything done in one transaction is
kept together or not at all. The endpoint runs one transaction per event (a
received line with every automatic reply it caused, or one sent line).

:class:`MemoryLedger` keeps it in a list (the default: an endpoint that
lives as long as its process). :class:`SQLiteLedger` keeps it in a SQLite
file in WAL mode, each transaction a ``BEGIN IMMEDIATE`` one: SQLite lets one
writer hold it at a time, so two processes sharing a ledger for the same
agent see each other's entries before they act and never take the same
message number, and a process killed at any point leaves the file as it was
before the transaction or after it. A file that is not a ledger, or whose
pages are damaged, is refused with :class:`LedgerError`; it is never reset.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Protocol

import attrs

from ..core.errors import RW1Error

_FORMAT = "rogerwilco-ledger"
_VERSION = 1
#: ``PRAGMA application_id``: the file says what it is ("RWLG").
_APPLICATION_ID = 0x52574C47
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    agent TEXT NOT NULL,
    dir TEXT NOT NULL CHECK (dir IN ('in', 'out')),
    msg_id TEXT,
    line TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_agent ON journal (agent, seq);
CREATE TABLE IF NOT EXISTS numbers (agent TEXT PRIMARY KEY, n INTEGER NOT NULL);
"""


class LedgerError(RW1Error):
    """A ledger that cannot be opened, read or written."""


@attrs.frozen(kw_only=True)
class Entry:
    """One journal entry: a line received (``in``) or sent (``out``) by ``agent``."""

    seq: int
    agent: str
    dir: str
    line: str
    msg_id: str | None = None
    extra: Mapping[str, Any] = attrs.field(factory=dict)
    at: str = ""


class Transaction(Protocol):
    def entries(self, agent: str, after: int) -> list[Entry]: ...

    def append(self, agent: str, dir: str, line: str, *, msg_id: str | None, extra: Mapping[str, Any],
               at: str) -> int: ...

    def last_number(self, agent: str) -> int: ...

    def use_number(self, agent: str, n: int) -> None: ...


class Ledger(Protocol):
    def transaction(self) -> Any: ...  # a context manager yielding a Transaction


# --------------------------------------------------------------------------
# in memory


class _MemoryTransaction:
    def __init__(self, journal: list[Entry], numbers: dict[str, int]) -> None:
        self.journal = journal
        self.numbers = numbers

    def entries(self, agent: str, after: int) -> list[Entry]:
        return [e for e in self.journal[after:] if e.agent == agent]  # seq n is at index n - 1

    def append(self, agent: str, dir: str, line: str, *, msg_id: str | None, extra: Mapping[str, Any],
               at: str) -> int:
        seq = len(self.journal) + 1
        self.journal.append(Entry(seq=seq, agent=agent, dir=dir, line=line, msg_id=msg_id, extra=dict(extra), at=at))
        return seq

    def last_number(self, agent: str) -> int:
        return self.numbers.get(agent, 0)

    def use_number(self, agent: str, n: int) -> None:
        self.numbers[agent] = max(self.numbers.get(agent, 0), n)


class MemoryLedger:
    """The journal in a list: all or nothing per transaction, for one process."""

    def __init__(self) -> None:
        self._journal: list[Entry] = []
        self._numbers: dict[str, int] = {}
        self._lock = threading.RLock()

    @contextmanager
    def transaction(self) -> Iterator[_MemoryTransaction]:
        with self._lock:
            length, numbers = len(self._journal), dict(self._numbers)
            try:
                yield _MemoryTransaction(self._journal, self._numbers)
            except BaseException:
                del self._journal[length:]  # all or nothing
                self._numbers.clear()
                self._numbers.update(numbers)
                raise


# --------------------------------------------------------------------------
# SQLite


class _SQLiteTransaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def entries(self, agent: str, after: int) -> list[Entry]:
        rows = self.db.execute("SELECT seq, agent, dir, msg_id, line, extra, at FROM journal "
                               "WHERE agent = ? AND seq > ? ORDER BY seq", (agent, after)).fetchall()
        out = []
        for seq, who, direction, msg_id, line, extra, at in rows:
            try:
                loaded = json.loads(extra)
            except ValueError:
                raise LedgerError(f"journal entry {seq} is damaged: its extras are not JSON") from None
            out.append(Entry(seq=seq, agent=who, dir=direction, msg_id=msg_id, line=line, extra=loaded, at=at))
        return out

    def append(self, agent: str, dir: str, line: str, *, msg_id: str | None, extra: Mapping[str, Any],
               at: str) -> int:
        cursor = self.db.execute("INSERT INTO journal (agent, dir, msg_id, line, extra, at) VALUES (?, ?, ?, ?, ?, ?)",
                                 (agent, dir, msg_id, line, json.dumps(dict(extra), sort_keys=True), at))
        return int(cursor.lastrowid or 0)

    def last_number(self, agent: str) -> int:
        row = self.db.execute("SELECT n FROM numbers WHERE agent = ?", (agent,)).fetchone()
        return int(row[0]) if row else 0

    def use_number(self, agent: str, n: int) -> None:
        self.db.execute("INSERT INTO numbers (agent, n) VALUES (?, ?) ON CONFLICT(agent) DO UPDATE SET n = MAX(n, ?)",
                        (agent, n, n))


class SQLiteLedger:
    """The journal in a SQLite file (WAL): durable, shared safely between processes."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 60.0, synchronous: str = "FULL") -> None:
        """``synchronous``: SQLite's setting. ``FULL`` (the default) syncs every step to disk, so a step
        survives a power cut; ``NORMAL`` survives a killed process, not a power cut, and is faster."""
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError("synchronous is FULL, NORMAL or EXTRA")
        self.path = Path(path)
        self.synchronous = synchronous
        self._busy_timeout = busy_timeout
        self._local = threading.local()
        existed = self.path.exists() and self.path.stat().st_size > 0
        db = self._connect()
        try:
            self._check(db, existed)
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{self.path} is not a usable rogerwilco ledger ({exc}); it was left as it is") from None
        finally:
            db.close()

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise LedgerError(f"cannot open the ledger {self.path}: {exc}") from None
        return db

    def _check(self, db: sqlite3.Connection, existed: bool) -> None:
        if existed and (db.execute("PRAGMA application_id").fetchone()[0] != 0
                        or db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] != 0):
            app = db.execute("PRAGMA application_id").fetchone()[0]
            if app != _APPLICATION_ID:
                raise LedgerError(f"{self.path} is not a rogerwilco ledger (another kind of SQLite file); "
                                  "it was left as it is")
            problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise LedgerError(f"{self.path} is damaged ({'; '.join(problems[:3])}); it was left as it is: "
                                  "restore it from a copy")
            row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if row is None or row[0] != str(_VERSION):
                raise LedgerError(f"{self.path} is a ledger of another version ({row[0] if row else 'none'}); "
                                  f"this package reads version {_VERSION}")
            db.execute("PRAGMA journal_mode=WAL")
            return
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA application_id").fetchone()[0] == 0:
                db.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?), ('version', ?)",
                       (_FORMAT, str(_VERSION)))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened once (and again in a child process after a fork)."""
        local = self._local
        if getattr(local, "db", None) is None or local.pid != os.getpid():
            db = self._connect()
            db.execute(f"PRAGMA synchronous={self.synchronous}")
            local.db, local.pid = db, os.getpid()
        return local.db

    @contextmanager
    def transaction(self) -> Iterator[_SQLiteTransaction]:
        """One ``BEGIN IMMEDIATE`` transaction: committed when the block ends, rolled back on any error."""
        db = self._connection()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise LedgerError(f"ledger {self.path}: {exc}") from None
        try:
            yield _SQLiteTransaction(db)
        except BaseException:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                self._local.db = None
                db.close()
            raise
        try:
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise LedgerError(f"ledger {self.path}: {exc}") from None

    def close(self) -> None:
        """Close this thread's connection (the next step opens it again)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            self._local.db = None
            db.close()


def open_ledger(path: str | os.PathLike[str] | None) -> MemoryLedger | SQLiteLedger:
    """A SQLite ledger at ``path``, or an in-memory one for None."""
    return MemoryLedger() if path is None else SQLiteLedger(path)


__all__ = [
    "Entry",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "SQLiteLedger",
    "Transaction",
    "open_ledger",
]
