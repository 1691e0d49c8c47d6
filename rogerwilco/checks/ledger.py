"""The agent's ledger: what it sent and received, its message numbers, and its tool's statements.

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
before the transaction or after it. A file that is not a ledger, whose
pages or text are damaged, or that is reached through a symbolic link, is
refused with :class:`LedgerError`; it is never reset.

**Two engines.** A ``postgresql://`` URL in place of a path selects the
same store on a PostgreSQL server, shared by many hosts
(:mod:`rogerwilco.checks.ledger_pg`): same tables, same guarantees.

**One store per agent.** The same file holds the tool's prepared statements
(:class:`rogerwilco.tool.ToolStore`: the tables ``statements``, ``issues`` and
``cancels``), so the tool's steps and the endpoint's are transactions over one
state, and one counter (``numbers``) numbers every line the agent sends. A
transaction opened while this thread already holds one joins it: the
endpoint's queries made inside a tool's step read, and are decided by, that
step's transaction. A tool store kept in a file of its own is the same schema
with an empty journal.

**Versions.** ``meta.version`` is 2. A version 1 ledger (no tool tables) and a
tool store from before the ledger held it (its tables alone, no
``application_id``) are upgraded in place when opened; a later version is
refused.

**Refused input.** A line the endpoint cannot take is journalled as a prefix
of :data:`REFUSED_PREFIX` characters, with the SHA-256 and the size of the
whole line in its extras (:func:`refused_entry`), so a peer's oversized line
costs the file a few hundred bytes and a restart never parses it again.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
import stat
import threading
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Protocol, Sequence

import attrs

from ..core.errors import RW1Error
from .lifecycle import STATEMENT_LIVE

#: what ``meta.format`` says, and the schema version ``meta.version`` records (both engines)
FORMAT = _FORMAT = "rogerwilco-ledger"
VERSION = _VERSION = 2
#: how many characters of a refused line the journal keeps (its hash and size say what the rest was)
REFUSED_PREFIX = 512
#: ``PRAGMA application_id``: the file says what it is ("RWLG").
_APPLICATION_ID = 0x52574C47
_SCHEMA_TEXT = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
    seq {serial},
    agent TEXT NOT NULL,
    dir TEXT NOT NULL CHECK (dir IN ('in', 'out')),
    msg_id TEXT,
    line TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{{}}',
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_agent ON journal (agent, seq);
CREATE TABLE IF NOT EXISTS numbers (agent TEXT PRIMARY KEY, n {bigint} NOT NULL);
CREATE TABLE IF NOT EXISTS statements (
    token TEXT PRIMARY KEY,
    ho_id TEXT NOT NULL,
    ho_from TEXT NOT NULL,
    ho_to TEXT NOT NULL,
    item TEXT,
    ask TEXT NOT NULL,
    profile TEXT,
    ho_line TEXT NOT NULL,
    agent TEXT NOT NULL,
    statement TEXT NOT NULL,
    rb_line TEXT NOT NULL,
    exp TEXT NOT NULL,
    state TEXT NOT NULL,
    prepared_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    pid {bigint},
    reply_n {bigint},
    executed TEXT,
    reply_line TEXT,
    cx_id TEXT,
    detail TEXT,
    handoff TEXT,
    rb_id TEXT
);
CREATE INDEX IF NOT EXISTS statements_ho ON statements (ho_id);
CREATE TABLE IF NOT EXISTS cancels (ho_id TEXT PRIMARY KEY, cx_id TEXT NOT NULL, cx_line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS issues (
    ho_id TEXT PRIMARY KEY,
    handoff TEXT NOT NULL,
    ho_from TEXT NOT NULL,
    ho_to TEXT NOT NULL,
    item TEXT,
    re TEXT,
    prev TEXT,
    seen INTEGER NOT NULL,
    reply_line TEXT
);
CREATE INDEX IF NOT EXISTS issues_handoff ON issues (handoff);
CREATE INDEX IF NOT EXISTS issues_re ON issues (re);
CREATE INDEX IF NOT EXISTS issues_parties ON issues (ho_from, ho_to, item);
"""
#: the column types that differ between the engines: the journal's sequence, and 64-bit counters
_COLUMN_TYPES = {
    "sqlite": {"serial": "INTEGER PRIMARY KEY AUTOINCREMENT", "bigint": "INTEGER"},
    "postgresql": {"serial": "BIGSERIAL PRIMARY KEY", "bigint": "BIGINT"},
}
#: The statements' handoff indexes, created once the columns exist (a tool store from before handoff keys
#: gains them first: :meth:`rogerwilco.tool.ToolStore.open`). The partial unique index allows one statement
#: per handoff in the states that can commit or have run.
TOOL_INDEXES = """
CREATE INDEX IF NOT EXISTS statements_rb ON statements (rb_id);
CREATE INDEX IF NOT EXISTS statements_handoff ON statements (handoff);
CREATE UNIQUE INDEX IF NOT EXISTS one_act_per_handoff ON statements (handoff)
    WHERE state IN (%s);
""" % ", ".join(f"'{state}'" for state in STATEMENT_LIVE)


def schema(engine: str) -> str:
    """The store's tables and indexes as ``engine`` (``sqlite`` or ``postgresql``) writes them: one definition,
    with the column types that differ put in per engine."""
    return _SCHEMA_TEXT.format(**_COLUMN_TYPES[engine])


_SCHEMA = schema("sqlite")
#: the tables of a tool store from before the ledger held it
_TOOL_TABLES = {"statements", "cancels", "numbers", "issues"}


class LedgerError(RW1Error):
    """A ledger that cannot be opened, read or written."""


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Each statement of ``script`` in turn (inside the caller's transaction, unlike ``executescript``)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def has_handoff_keys(db: sqlite3.Connection) -> bool:
    """Whether the statements table has its handoff key (a tool store written before it had not)."""
    return "handoff" in {row[1] for row in db.execute("PRAGMA table_info(statements)")}


def refused_entry(text: str) -> tuple[str, dict[str, Any]]:
    """What the journal keeps of a line the endpoint refused: a prefix, and the whole line's hash and size.

    The hash (of the line's UTF-8) recognises the same line delivered again; the size says how much was
    left out."""
    data = text.encode("utf-8", "surrogatepass")
    kept = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    return text[:REFUSED_PREFIX], {"refused": kept}


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

    def acts(self, ho_ids: Sequence[str]) -> list[str]: ...


class Ledger(Protocol):
    # a context manager yielding a Transaction; ``agent``: a step of that agent's endpoint alone (an engine may run
    # it beside other agents' steps), None: a step over the whole store
    def transaction(self, agent: str | None = None) -> Any: ...


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

    def acts(self, ho_ids: Sequence[str]) -> list[str]:
        return []  # the tool keeps no statements in memory


class MemoryLedger:
    """The journal in a list: all or nothing per transaction, for one process."""

    def __init__(self) -> None:
        self._journal: list[Entry] = []
        self._numbers: dict[str, int] = {}
        self._lock = threading.RLock()

    @contextmanager
    def transaction(self, agent: str | None = None) -> Iterator[_MemoryTransaction]:
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

    def acts(self, ho_ids: Sequence[str]) -> list[str]:
        """The states of the tool's statements for these HOs whose act ran or may have (``committed``,
        ``in-doubt``)."""
        marks = ", ".join("?" * len(ho_ids))
        return [row[0] for row in self.db.execute(f"SELECT state FROM statements WHERE ho_id IN ({marks}) AND "
                                                  "state IN ('in-doubt', 'committed')", tuple(ho_ids))]


def _cut_refused_lines(db: sqlite3.Connection) -> None:
    """Journal a version 1 ledger's refused lines (received, no id) as this version does: cut short."""
    for seq, line, extra in db.execute("SELECT seq, line, extra FROM journal WHERE dir = 'in' AND msg_id IS NULL "
                                       "AND length(line) > ?", (REFUSED_PREFIX,)).fetchall():
        kept, refused = refused_entry(line)
        try:
            merged = {**json.loads(extra), **refused}
        except ValueError:
            continue  # damaged extras: left for the endpoint to report when it reads them
        db.execute("UPDATE journal SET line = ?, extra = ? WHERE seq = ?", (kept, json.dumps(merged, sort_keys=True),
                                                                          seq))


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
        found = self._lstat()
        existed = found is not None and found.st_size > 0
        db = self._connect()
        try:
            self._check(db, existed)
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{self.path} is not a usable rogerwilco ledger ({exc}); it was left as it is") from None
        finally:
            db.close()

    def _lstat(self) -> os.stat_result | None:
        """The path's own status (a symbolic link is refused, never followed), or None where nothing is there."""
        try:
            found = os.lstat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise LedgerError(f"cannot open the ledger {self.path}: {exc.strerror or exc}") from None
        if stat.S_ISLNK(found.st_mode):
            raise LedgerError(f"{self.path} is a symbolic link: a ledger is opened only where it is, never through "
                              "a link (give the path of the file itself)")
        if not stat.S_ISREG(found.st_mode):
            raise LedgerError(f"{self.path} is not a regular file: a ledger is a SQLite file")
        return found

    def _connect(self) -> sqlite3.Connection:
        """A connection to the file at the path itself: created (without following a link) when absent.

        Not tied to its thread (``check_same_thread=False``): the thread that forks closes the idle connections
        it holds (:func:`_close_before_fork`); each thread still has its own (:meth:`_connection`)."""
        self._lstat()
        try:
            # O_NOFOLLOW: a link put at the path after the check above is refused here, not followed
            fd = os.open(self.path, os.O_RDONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._lstat()  # says it is a link
            raise LedgerError(f"cannot open the ledger {self.path}: {exc.strerror or exc}") from None
        try:
            opened = os.fstat(fd)
            try:
                db = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None,
                                     check_same_thread=False)
            except sqlite3.Error as exc:
                raise LedgerError(f"cannot open the ledger {self.path}: {exc}") from None
        finally:
            os.close(fd)
        now = self._lstat()
        if now is None or (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino):
            db.close()
            raise LedgerError(f"{self.path} was replaced while it was being opened; open it again")
        db.row_factory = sqlite3.Row
        return db

    def _check(self, db: sqlite3.Connection, existed: bool) -> None:
        app = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} - {
            "sqlite_sequence"}
        version = None
        if existed and (app != 0 or tables):
            # a tool store from before the ledger held it: its own tables and no application id
            adopt = app == 0 and "statements" in tables and tables <= _TOOL_TABLES
            if app != _APPLICATION_ID and not adopt:
                raise LedgerError(f"{self.path} is not a rogerwilco ledger (another kind of SQLite file); "
                                  "it was left as it is")
            problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise LedgerError(f"{self.path} is damaged ({'; '.join(problems[:3])}); it was left as it is: "
                                  "restore it from a copy")
            if not adopt:
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                version = row[0] if row else None
                if version not in ("1", str(_VERSION)):
                    raise LedgerError(f"{self.path} is a ledger of another version ({version or 'none'}); "
                                      f"this package reads versions 1 and {_VERSION}")
        db.execute("PRAGMA journal_mode=WAL")
        if version != str(_VERSION):
            self._create(db)

    @staticmethod
    def _create(db: sqlite3.Connection) -> None:
        """Create the tables, or upgrade an older file to this version, in one transaction."""
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA application_id").fetchone()[0] == 0:
                db.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
            run_script(db, _SCHEMA)
            _cut_refused_lines(db)
            if has_handoff_keys(db):  # else the tool store gives its statements their keys first
                run_script(db, TOOL_INDEXES)
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)", (_FORMAT,))
            db.execute("INSERT INTO meta (key, value) VALUES ('version', ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(_VERSION),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened once, and again after a fork (in the child, and in the parent where
        the fork closed it: :func:`_close_before_fork`)."""
        held = getattr(self._local, "held", None)
        if held is None or held.closed:
            db = self._connect()
            db.execute(f"PRAGMA synchronous={self.synchronous}")
            held = self._local.held = _Held(db)
            self._local.depth = 0
        return held.db

    def _damaged(self, exc: sqlite3.Error) -> LedgerError:
        if "decode" in str(exc).lower():
            return LedgerError(f"{self.path} holds text that is not UTF-8 ({exc}): the file is damaged; it was "
                               "left as it is: restore it from a copy")
        return LedgerError(f"ledger {self.path}: {exc}")

    @contextmanager
    def transaction(self, agent: str | None = None) -> Iterator[_SQLiteTransaction]:
        """One ``BEGIN IMMEDIATE`` transaction: committed when the block ends, rolled back on any error. SQLite
        lets one writer hold a file at a time, so ``agent`` changes nothing here.

        Opened while this thread already holds one, it joins it (the outer block commits or rolls back)."""
        db = self._connection()
        local = self._local
        if local.depth:
            local.depth += 1
            try:
                yield _SQLiteTransaction(db)
            finally:
                local.depth -= 1
            return
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise LedgerError(f"ledger {self.path}: {exc}") from None
        local.depth = 1
        try:
            yield _SQLiteTransaction(db)
        except BaseException as exc:
            local.depth = 0
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                self._forget()
            if isinstance(exc, sqlite3.Error):
                raise self._damaged(exc) from None
            raise
        local.depth = 0
        try:
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise LedgerError(f"ledger {self.path}: {exc}") from None

    def close(self) -> None:
        """Close this thread's connection (the next step opens it again)."""
        self._forget()

    def _forget(self) -> None:
        held = getattr(self._local, "held", None)
        if held is not None:
            self._local.held = None
            if not held.closed:
                held.closed = True
                held.db.close()


class _Held:
    """One thread's connection to a ledger file, as the fork guard sees it."""

    __slots__ = ("db", "thread", "closed", "__weakref__")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.thread, self.closed = db, threading.get_ident(), False
        _HELD.add(self)


_HELD: "weakref.WeakSet[_Held]" = weakref.WeakSet()  # every ledger connection open in this process
_INHERITED: list[sqlite3.Connection] = []  # in a child: the parent's connections, never used and never closed


def _close_before_fork() -> None:
    """Close the idle ledger connections of the thread that forks, before the fork.

    SQLite keeps, per process, what it knows of each file it has open (its locks, its WAL index), and a forked
    child inherits that: the child's own new connection to the same file shares its parent's, and the parent
    closing its connection later (its last, as it sees it) checkpoints the file and deletes the WAL under the
    children, who then lose each other's writes (measured: eight forked writers each counting to 50 under
    ``BEGIN IMMEDIATE`` ended below 400 in every round of 20; two acts of one handoff in the tool). A connection
    closed before the fork leaves the child nothing of the file; the parent opens it again at its next step.
    A connection inside a transaction, or another thread's, is left open: fork with no ledger step under way."""
    me = threading.get_ident()
    for held in list(_HELD):  # a child set aside what it inherited (:func:`_keep_inherited`): all open are its own
        if not held.closed and held.thread == me and not held.db.in_transaction:
            held.closed = True
            held.db.close()


def _keep_inherited() -> None:
    """In a forked child: the connections still open in the parent are set aside, never closed here (closing
    one would act on the parent's file state as if it were the child's); each ledger opens its own."""
    for held in list(_HELD):
        if not held.closed:
            held.closed = True
            _INHERITED.append(held.db)


os.register_at_fork(before=_close_before_fork, after_in_child=_keep_inherited)


def open_ledger(path: str | os.PathLike[str] | None, *, busy_timeout: float = 60.0) -> Any:
    """A SQLite ledger at ``path``, a PostgreSQL one at a ``postgresql://`` URL
    (:class:`rogerwilco.checks.ledger_pg.PostgresLedger`), or an in-memory one for None."""
    if path is None:
        return MemoryLedger()
    if isinstance(path, str) and path.startswith(("postgresql://", "postgres://")):
        from .ledger_pg import PostgresLedger

        return PostgresLedger(path)
    return SQLiteLedger(path, busy_timeout=busy_timeout)


__all__ = [
    "Entry",
    "FORMAT",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "SQLiteLedger",
    "Transaction",
    "REFUSED_PREFIX",
    "TOOL_INDEXES",
    "VERSION",
    "has_handoff_keys",
    "schema",
    "open_ledger",
    "refused_entry",
    "run_script",
]
