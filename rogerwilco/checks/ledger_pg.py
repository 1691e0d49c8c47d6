"""The agent's store on a PostgreSQL server: the ledger and the tool's statements, shared by many hosts.

Theory of operation
-------------------
:class:`PostgresLedger` is the second engine of :class:`rogerwilco.checks.ledger.Ledger`,
chosen by a URL (``postgresql://USER@HOST:PORT/DATABASE``) where the first
takes a file path. It keeps the same tables as the SQLite file (journal,
counter, statements, issues, cancels, meta) in the connection's schema (the
first of its ``search_path``: ``public``, or the one ``options=-csearch_path=NAME``
in the URL names), so a database holds one store, or one per schema.

**One step, one transaction, one writer.** Every transaction starts with
``SELECT ... FROM meta WHERE key = 'version' FOR UPDATE``: a row lock on the
store's version row, held to the commit. The steps on one store therefore
run one at a time, as ``BEGIN IMMEDIATE`` makes them on SQLite, at
PostgreSQL's READ COMMITTED isolation, where every statement after the
lock reads what every earlier step committed. The endpoint reads the
journal, decides and appends in one step, and the tool moves a statement
and takes a number in one: that read-decide-write is only right if no other
step runs in between, which the lock gives outright. SERIALIZABLE would give
it too, but by aborting one of two overlapping steps; the step would then
have to be run again from the start, and a step's body is the endpoint's
and the tool's code, not a statement the engine can repeat. With one lock
taken first by every step, no step waits on another in a cycle, so neither
a serialization failure nor a deadlock can occur, and nothing is retried
after a step began.

**One counter per agent.** ``numbers`` holds each agent's last message
number, a row moved inside the step (under the lock), so a step rolled back
gives its number back and two hosts never take the same one. A PostgreSQL
``SEQUENCE`` would not do: ``nextval`` is not undone by a rollback, and the
counter must also move past a number an agent chose itself.

**A lost connection.** Before a step begins, a broken connection is opened
again (up to :data:`CONNECT_ATTEMPTS` times): nothing was written, so that
is safe. Lost during a step, the server rolls the step back; lost during the
commit, the step may or may not have been recorded: both are reported with
:class:`~rogerwilco.checks.ledger.LedgerError`, and the caller reads the
ledger again. A step is never half-applied: the server keeps all of it or
none.

**Schema.** ``meta`` records ``format`` and ``version``
(:data:`~rogerwilco.checks.ledger.VERSION`). The first process to open an
empty database creates the tables (under a transaction-level advisory lock,
so two hosts starting together create them once). Tables of anything else,
or a store of another version, are refused and left as they are.
"""

from __future__ import annotations

import json
import os
import re
import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeGuard

from .ledger import FORMAT, TOOL_INDEXES, VERSION, Entry, LedgerError, schema

#: how many times a step opens a lost connection again before it begins
CONNECT_ATTEMPTS = 3
#: the URL schemes that select this engine
SCHEMES = ("postgresql://", "postgres://")
#: the key of the advisory lock held while the tables are created
_CREATE_LOCK = 0x52574C47
#: the first key of the advisory locks that make one agent's steps run one at a time (the second: its name's hash)
_AGENT_LOCKS = 0x5257
_TABLES = {"meta", "journal", "numbers", "statements", "issues", "cancels"}
_SCHEMA = schema("postgresql") + TOOL_INDEXES


def is_url(location: object) -> TypeGuard[str]:
    """Whether a ledger location names a PostgreSQL server rather than a file."""
    return isinstance(location, str) and location.startswith(SCHEMES)


def redact(url: str) -> str:
    """The URL as it may be printed: any password replaced by ``***``."""
    url = re.sub(r"(://[^/@:]*):[^/@]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", url)


@lru_cache(maxsize=512)
def dialect(sql: str) -> str:
    """A statement the store's code writes for SQLite, as PostgreSQL reads it.

    The tool's queries are written once, in SQLite's words: ``?`` parameters,
    ``INSERT OR IGNORE``, ``IS ?`` (equal, or both null) and the two-argument
    ``MAX``. These are all the forms they use."""
    sql = sql.replace("%", "%%")
    if sql.lstrip().upper().startswith("INSERT OR IGNORE"):
        sql = sql.replace("INSERT OR IGNORE", "INSERT", 1) + " ON CONFLICT DO NOTHING"
    sql = sql.replace(" IS ?", " IS NOT DISTINCT FROM ?")
    sql = sql.replace("MAX(n, ?)", "GREATEST(numbers.n, ?)")
    return sql.replace("?", "%s")


class Row(tuple):
    """A result row read by position or by column name, as :class:`sqlite3.Row` is."""

    names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self.names)


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], Row]:
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    kind = type("Row", (Row,), {"names": names})

    def make(values: Sequence[Any]) -> Row:
        return kind(values)

    return make


class Connection:
    """A psycopg connection that runs the store's SQLite-worded statements (:func:`dialect`)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(dialect(sql), tuple(params) if params else None)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(dialect(sql), rows)


class _PostgresTransaction:
    def __init__(self, db: Connection) -> None:
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
        row = self.db.execute("INSERT INTO journal (agent, dir, msg_id, line, extra, at) VALUES (?, ?, ?, ?, ?, ?) "
                              "RETURNING seq",
                              (agent, dir, msg_id, line, json.dumps(dict(extra), sort_keys=True), at)).fetchone()
        return int(row[0])

    def last_number(self, agent: str) -> int:
        row = self.db.execute("SELECT n FROM numbers WHERE agent = ?", (agent,)).fetchone()
        return int(row[0]) if row else 0

    def use_number(self, agent: str, n: int) -> None:
        self.db.execute("INSERT INTO numbers (agent, n) VALUES (?, ?) ON CONFLICT(agent) DO UPDATE SET n = MAX(n, ?)",
                        (agent, n, n))

    def acts(self, ho_ids: Sequence[str]) -> list[str]:
        """The states of the tool's statements for these HOs whose act ran or may have."""
        return [row[0] for row in self.db.execute("SELECT state FROM statements WHERE ho_id = ANY(?) AND "
                                                  "state IN ('in-doubt', 'committed')", (list(ho_ids),))]


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise LedgerError("a PostgreSQL ledger needs the driver: pip install 'rogerwilco[postgres]'") from None
    return psycopg


def _why(exc: BaseException) -> str:
    """What went wrong, in one line, with the fix: the driver's words sorted by cause (never the password)."""
    text = " ".join(str(exc).split())
    lower = text.lower()
    if "password authentication failed" in lower or "no password supplied" in lower or \
            ("role" in lower and "does not exist" in lower):
        return "the server refused the credentials: check the user and password (or PGPASSWORD, ~/.pgpass)"
    if "database" in lower and "does not exist" in lower:
        found = re.search(r'database "([^"]*)" does not exist', text)
        name = found.group(1) if found else "named"
        return f"the database {name} does not exist on the server: create it (createdb {name}) or fix the URL"
    if "connection refused" in lower or "could not connect" in lower or "timeout expired" in lower or \
            "could not translate host name" in lower or "no route to host" in lower:
        return "no PostgreSQL server answers there: start it, or fix the host and port in the URL"
    if "server closed the connection" in lower or "terminating connection" in lower or "consuming input failed" \
            in lower or "connection is lost" in lower or "connection is closed" in lower or "eof detected" in lower:
        return "the connection to the server was lost"
    return text.replace("\n", " ")


class PostgresLedger:
    """The agent's store in a PostgreSQL database: one step at a time, however many hosts share it."""

    engine = "postgresql"

    def __init__(self, url: str, *, create: bool = True) -> None:
        """``create=False``: refuse a database that holds no store yet, rather than make one."""
        self.url = url
        self.path = redact(url)  # what messages name; the password never
        psycopg = _driver()
        try:
            from psycopg.conninfo import conninfo_to_dict

            conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise LedgerError(f"{self.path} is not a PostgreSQL URL ({_why(exc)}): write "
                              "postgresql://USER@HOST:PORT/DATABASE") from None
        self._local = threading.local()
        db = self._connect()
        try:
            self._check(db, create)
        finally:
            db.conn.close()

    def _fail(self, exc: BaseException, doing: str = "") -> LedgerError:
        return LedgerError(f"ledger {self.path}: {doing}{_why(exc)}")

    def _connect(self) -> Connection:
        psycopg = _driver()
        try:
            conn = psycopg.connect(self.url, autocommit=True, row_factory=_row_factory,
                                   **({} if "connect_timeout" in self.url else {"connect_timeout": 10}))
        except psycopg.Error as exc:
            raise self._fail(exc) from None
        return Connection(conn)

    def _check(self, db: Connection, create: bool) -> None:
        psycopg = _driver()
        try:
            tables = {row[0] for row in db.execute("SELECT table_name FROM information_schema.tables "
                                                   "WHERE table_schema = current_schema()")}
            if not tables:
                if not create:
                    raise LedgerError(f"{self.path} holds no rogerwilco ledger: check the URL (the database and "
                                      "its search_path)")
                self._create(db)
                return
            if "meta" not in tables or not tables <= _TABLES:
                raise LedgerError(f"{self.path} holds tables that are not a rogerwilco ledger; they were left as "
                                  "they are: give the ledger a database (or a schema) of its own")
            found = dict(db.execute("SELECT key, value FROM meta").fetchall())
            if found.get("format") != FORMAT:
                raise LedgerError(f"{self.path} holds tables that are not a rogerwilco ledger; they were left as "
                                  "they are: give the ledger a database (or a schema) of its own")
            if found.get("version") != str(VERSION):
                raise LedgerError(f"{self.path} is a ledger of another version ({found.get('version') or 'none'}); "
                                  f"this package reads version {VERSION}: use the package that wrote it")
        except psycopg.Error as exc:
            raise self._fail(exc) from None

    @staticmethod
    def _create(db: Connection) -> None:
        """The tables, made once however many processes open the empty database together."""
        with db.conn.transaction():
            db.execute("SELECT pg_advisory_xact_lock(?)", (_CREATE_LOCK,))
            # made by another process while this one waited: touching its tables again (CREATE INDEX IF NOT
            # EXISTS locks the table) would only stand in the way of the steps that process has begun
            if db.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND "
                          "table_name = 'meta'").fetchone() is not None:
                return
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)", (FORMAT,))
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('version', ?)", (str(VERSION),))

    def _connection(self) -> Connection:
        """This thread's connection, opened once (and again in a child process after a fork, or once lost)."""
        local = self._local
        if getattr(local, "db", None) is None or local.pid != os.getpid() or local.db.conn.closed:
            local.db, local.pid, local.depth = self._connect(), os.getpid(), 0
        return local.db

    def _begin(self, agent: str | None) -> Connection:
        """A connection inside a new step, holding its locks (:meth:`transaction`); a lost connection is opened
        again."""
        psycopg = _driver()
        for attempt in range(CONNECT_ATTEMPTS):
            db = self._connection()
            try:
                with db.conn.pipeline():  # sent together: one round trip to the server, not three
                    db.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
                    version = db.execute("SELECT value FROM meta WHERE key = 'version' "
                                         + ("FOR UPDATE" if agent is None else "FOR SHARE"))
                    if agent is not None:
                        db.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", (_AGENT_LOCKS, agent))
                row = version.fetchone()
            except psycopg.OperationalError as exc:
                lost = db.conn.broken or db.conn.closed
                self.close()
                if not lost or attempt + 1 == CONNECT_ATTEMPTS:  # a lock timeout, say: not a lost connection
                    raise self._fail(exc, "cannot begin a step: ") from None
                continue
            except psycopg.Error as exc:
                self.close()
                raise self._fail(exc, "cannot begin a step: ") from None
            if row is None or row[0] != str(VERSION):
                db.execute("ROLLBACK")
                raise LedgerError(f"{self.path} became a ledger of another version ({row[0] if row else 'none'}) "
                                  f"while open; this package reads version {VERSION}")
            return db
        raise AssertionError("unreachable")

    @contextmanager
    def transaction(self, agent: str | None = None) -> Iterator[_PostgresTransaction]:
        """One step: committed when the block ends, rolled back on any error; joined when already in one.

        ``agent``: a step of that agent's endpoint, which reads and writes only the agent's journal and counter
        (and reads the statements): it runs beside the steps of other agents and one at a time with its own
        agent's. Without it the step has the store to itself (the tool's steps, whose tables all agents share)."""
        psycopg = _driver()
        local = self._local
        if getattr(local, "depth", 0) and getattr(local, "pid", None) == os.getpid():
            local.depth += 1
            try:
                yield _PostgresTransaction(local.db)
            finally:
                local.depth -= 1
            return
        db = self._begin(agent)
        local.depth = 1
        try:
            yield _PostgresTransaction(db)
        except BaseException as exc:
            local.depth = 0
            try:
                db.execute("ROLLBACK")
            except psycopg.Error:
                self.close()
            if isinstance(exc, psycopg.Error):
                raise self._fail(exc, "the step was not recorded: ") from None
            raise
        local.depth = 0
        try:
            db.execute("COMMIT")
        except psycopg.Error as exc:
            self.close()
            raise self._fail(exc, "the step may or may not have been recorded (the commit got no answer); read the "
                                  "ledger again: ") from None

    def close(self) -> None:
        """Close this thread's connection (the next step opens it again)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            self._local.db = None
            self._local.depth = 0
            try:
                db.conn.close()
            except Exception:  # noqa: BLE001 - a connection already gone closes as it can
                pass


__all__ = ["CONNECT_ATTEMPTS", "Connection", "PostgresLedger", "Row", "SCHEMES", "dialect", "is_url", "redact"]
