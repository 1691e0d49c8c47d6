"""The tool's statement: prepare, then commit exactly once (spec 5.3, 5.4).

Theory of operation
-------------------
A tool that can state its transaction before running it does so in two
phases, kept in a SQLite file (the *store*):

``prepare(HO)``
    resolves the execution values of the HO's ask (the profile's ``exec``
    map): the HO's value where it gives one, the record's (what the tool finds
    on file) where the HO leaves the slot to the receiver. A record value
    that contradicts the HO's stops the tool: it states nothing it was not
    told, and says what differs. The values are frozen under a token from
    :mod:`secrets` (128 random bits, never derived from the message) and the
    RB line is returned, composed by code (:func:`rogerwilco.checks.readback.make_rb`)
    with the execution slots as they will run, ``x_tok=<token>`` and
    ``exp=``: now plus the window (15 minutes by default), rounded up to the
    minute, never later than the HO's own ``exp``.

``commit(token, argv)``
    runs the executor once. In one ``BEGIN IMMEDIATE`` transaction the
    statement moves from ``prepared`` to ``in-doubt`` (only a prepared,
    unexpired statement may); SQLite lets one writer hold that transaction at
    a time, so of any number of processes committing one token at the same
    moment exactly one sees ``prepared``. Then the executor runs, outside any
    transaction, without a shell: ``argv`` is the program and its arguments
    as a list, the frozen statement is written as JSON on its stdin, and it
    reports what it executed as JSON on stdout. A second transaction records
    the result (``committed`` with the DN, or ``failed`` with an FL). A crash,
    a kill or a timeout between the two transactions leaves ``in-doubt``:
    nothing runs it again by itself, and :meth:`ToolStore.status` says so.
    Every change of a statement's state is one row of
    :data:`rogerwilco.checks.lifecycle.STATEMENT_TRANSITIONS`, applied only to a
    statement in that row's state.
    The DN carries the values the executor reported, never the plan, so the
    sender's ``check-dn`` sees what actually ran.

**One handoff, one act.** The issues of a handoff (an HO, its re-sends, its
re-issues after a void readback: :func:`rogerwilco.checks.lifecycle.issue_link`, the
rule :func:`rogerwilco.checks.thread.check_thread` uses) share a handoff key in the
table ``issues``; keys are joined in the same ``BEGIN IMMEDIATE`` transaction
that prepares, commits or cancels, and a partial unique index allows one
statement per key in the states that can commit or have run. A re-send
after the readback is refused and answered ``UN why=DUP``; a re-issue
replaces the prepared statement; an earlier issue arriving late is refused.
Where an issue never reached the store (an HO whose ``re=`` names a message
of its agents the store never saw, a cancel naming such an HO), the store
cannot tell two handoffs between the same agents about the same item apart,
and reads them as one: it refuses a second act, and the cancel covers both.

``abandon(token)`` discards a prepared statement. ``cancel(CX)`` records the
cancel for the handoff (a later ``prepare`` of any issue is refused), abandons
whatever was prepared for it and answers ``AN re=<CX id> val=Y``; where the act
already ran it answers with the act's DN instead; where the act is in doubt
it answers nothing and says why.

**The executor contract.** stdin: ``{"token", "ho", "item", "ask",
"profile", "agent", "to", "exp", "values": {slot: value}}`` with values in
the JSON form (D1). stdout on success: ``{"out": "OK"|"PARTIAL"|"NOOP",
"values": {slot: value}, "tail": "..."}`` (``out`` defaults to ``OK``;
``tail`` is optional; keys outside the ask's execution slots are ignored).
Exit status 0 means it ran and the output says what; a positive status
means it failed and did nothing (recorded ``failed``, answered with ``FL
why=ERR``); death by a signal, a timeout, or output that cannot be read
leaves the statement ``in-doubt``.

**One store per agent.** The store is a ledger
(:class:`rogerwilco.checks.ledger.SQLiteLedger`): the statements live in the
tables ``statements``, ``issues`` and ``cancels`` of the same SQLite file as
the agent's journal. Given the agent's endpoint, the tool works in the
endpoint's ledger, and every step is one transaction over both: ``commit``
asks :meth:`rogerwilco.checks.endpoint.Endpoint.may_act`, moves the statement to
``in-doubt`` and takes the DN's number in one ``BEGIN IMMEDIATE`` transaction,
so a cancel another process records is either seen there (and nothing runs) or
recorded after the act (and answered with its DN); the second transaction
records the result and journals the DN (or FL) as sent by the agent.

Message numbers: one counter per agent, the ledger's. With an endpoint, the
readback, the DN, the ``UN why=DUP`` and the cancel's AN take the next number
the endpoint would give (:meth:`rogerwilco.checks.endpoint.Endpoint.reserve_number`),
so the tool and the endpoint never issue one id twice; ``n``, where given,
must be a number this agent has not used. Without one, the store keeps the
last number per agent and a caller that knows the conversation passes ``n``
to set it.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
import sqlite3
import subprocess
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import attrs

from ..checks.ledger import TOOL_INDEXES, SQLiteLedger, has_handoff_keys, open_ledger, run_script
from ..checks.ledger_pg import PostgresLedger, is_url, redact
from ..checks.lifecycle import (REISSUE, RESEND, STATEMENT_EVENTS, STATEMENT_LIVE, STATEMENT_START, STATEMENT_STATES,
                                Envelope, issue_link)
from ..checks.readback import exec_slots, make_rb, vocabulary_of
from ..core.codec import as_json, decode, reread
from ..core.errors import RW1Error
from ..core.message import Message
from ..core.slottypes import parse_time
from ..core.vocab import Profiles, Receiver, Vocabulary, as_receiver

DEFAULT_WINDOW = _dt.timedelta(minutes=15)
STATES = STATEMENT_STATES
_LIVE = STATEMENT_LIVE  # a statement that can commit, or whose act ran
def _move(db: sqlite3.Connection, event: str, where: str, params: Sequence[Any], *, also: str = "",
          values: Sequence[Any] = ()) -> None:
    """Move the statements ``where`` selects along :data:`rogerwilco.checks.lifecycle.STATEMENT_TRANSITIONS`:
    those in the event's from-state take its next state (and the columns ``also`` sets, from ``values``)."""
    before, after = STATEMENT_EVENTS[event]
    db.execute(f"UPDATE statements SET state = ?{also} WHERE {where} AND state = ?", (after, *values, *params, before))


def _slot_of(line: str, key: str) -> str | None:
    """A slot's value as written in a stored line (before the tail), or None."""
    head = line.split(" // ", 1)[0]
    for token in head.split(" ")[3:]:
        if token.startswith(key + "="):
            return token[len(key) + 1:]
    return None


def _number_of(ident: str) -> int:
    """The message number of an id (``<from>-<digits>``, D3)."""
    digits = ident.rpartition("-")[2]
    return int(digits) if digits.isdigit() else 0


def _location(path: str | os.PathLike[str]) -> str:
    """A store's location, comparable: a URL as written, a file by its absolute path."""
    return path if is_url(path) else os.path.abspath(path)


def _shown(path: str | os.PathLike[str]) -> str:
    """A store's location as printed (a URL's password never)."""
    return redact(path) if is_url(path) else os.fspath(path)


class ToolError(RW1Error):
    """Input the tool cannot use at all: an unknown token, a line that is not the right type."""


class ToolRefused(RW1Error):
    """The tool will not do what was asked; ``reason`` says why, ``reply`` holds any line to send."""

    def __init__(self, message: str, *, reason: str, reply: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.reply = reply


@attrs.frozen(kw_only=True)
class Statement:
    """A prepared statement as the store holds it."""

    token: str
    ho: str
    item: str | None
    agent: str
    state: str  # one of STATES, or "expired" for a prepared statement past its exp
    exp: str
    values: Mapping[str, Any]
    rb: str
    reply: str | None = None
    detail: str | None = None
    started_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"token": self.token, "ho": self.ho, "item": self.item, "agent": self.agent, "state": self.state,
                "exp": self.exp, "values": dict(self.values), "rb": self.rb, "reply": self.reply,
                "detail": self.detail, "started_at": self.started_at}


@attrs.frozen(kw_only=True)
class Prepared:
    token: str
    rb: Message
    exp: str


def _utc(now: _dt.datetime | None) -> _dt.datetime:
    if now is None:
        return _dt.datetime.now(_dt.timezone.utc)
    return now if now.tzinfo is not None else now.replace(tzinfo=_dt.timezone.utc)


def _stamp(at: _dt.datetime) -> str:
    return at.strftime("%Y%m%dT%H%MZ")


class ToolStore:
    """Prepared statements in the agent's ledger (a SQLite file); every method is one short transaction or two."""

    def __init__(self, path: str | os.PathLike[str] | None, *, receiver: Receiver | None = None,
                 window: _dt.timedelta = DEFAULT_WINDOW, busy_timeout: float = 60.0, endpoint: Any = None,
                 profiles: Profiles = None) -> None:
        """A store over a file :meth:`open` made ready; no I/O here.

        ``endpoint``: the receiver's :class:`rogerwilco.checks.endpoint.Endpoint` (over its SQLite ledger).
        Given one, the statements live in its ledger (``path`` is that file, or None), ``prepare`` takes only
        a handoff the endpoint received and nobody closed, and ``commit`` runs only while the endpoint says
        the receiver may act: wilco (under ``rb=exec``, after ``AN val=Y``), not cancelled, not closed.

        Called without ``receiver`` (the earlier form, ``ToolStore(path, profiles=...)``), it also opens
        the file and creates its tables, as :meth:`open` does; that form is deprecated and goes in the
        next release.
        """
        if window <= _dt.timedelta(0):
            raise ToolError("the window for confirmation is a positive time")
        self.endpoint = endpoint
        self._ledger: SQLiteLedger | PostgresLedger | None = None
        if endpoint is not None:
            ledger = getattr(endpoint, "ledger", None)
            if not isinstance(ledger, (SQLiteLedger, PostgresLedger)):
                raise ToolError(f"the tool keeps its statements in {endpoint.me}'s ledger: give the endpoint a "
                                "SQLite ledger (ledger=PATH) or a PostgreSQL one (ledger=postgresql://...)")
            if path is not None and _location(path) != _location(getattr(ledger, "url", ledger.path)):
                raise ToolError(f"{endpoint.me}'s statements live in its ledger {ledger.path}, not in "
                                f"{_shown(path)}: an agent keeps one store (open the store at its ledger's path)")
            self._ledger, path = ledger, getattr(ledger, "url", ledger.path)
        if path is None:
            raise ToolError("a store needs a path, or an endpoint whose ledger holds it")
        self.path: Path | str = path if is_url(path) else Path(path)
        self.window = window
        self._busy_timeout = busy_timeout
        if receiver is None:
            warnings.warn("ToolStore(path, profiles=...) is deprecated and goes in the next release; "
                          "use ToolStore.open(path, profiles=...)", DeprecationWarning, stacklevel=2)
            self.receiver = as_receiver(profiles)
            self._create()
        else:
            self.receiver = receiver

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None, *, profiles: Profiles = None,
             window: _dt.timedelta = DEFAULT_WINDOW, busy_timeout: float = 60.0, endpoint: Any = None) -> "ToolStore":
        """The store in the SQLite file at ``path`` (with ``endpoint``: its ledger): created, or upgraded from an
        older layout, as needed."""
        store = cls(path, receiver=as_receiver(profiles), window=window, busy_timeout=busy_timeout, endpoint=endpoint)
        store._create()
        return store

    def _create(self) -> None:
        with self._transaction() as db:
            if isinstance(db, sqlite3.Connection) and not has_handoff_keys(db):  # a store written before them
                db.execute("ALTER TABLE statements ADD COLUMN handoff TEXT")
                db.execute("ALTER TABLE statements ADD COLUMN rb_id TEXT")
                self._backfill(db)
                run_script(db, TOOL_INDEXES)

    def _backfill(self, db: sqlite3.Connection) -> None:
        """Give the statements of an older store their handoff keys, keeping one live statement per handoff."""
        for row in db.execute("SELECT * FROM statements ORDER BY prepared_at, token").fetchall():
            envelope = Envelope("HO", row["ho_id"], _slot_of(row["ho_line"], "re"), row["ho_from"], row["ho_to"],
                                row["item"])
            db.execute("UPDATE statements SET rb_id = ? WHERE token = ?", (row["rb_line"].split(" ", 3)[2], row["token"]))
            key, _ = self._register(db, envelope)
            if row["state"] in _LIVE and self._live(db, key) is not None:
                if row["state"] != "prepared":
                    continue  # two acts ran before the store knew they were one handoff: left as they are
                _move(db, "abandon", "token = ?", (row["token"],), also=", detail = ?",
                      values=("superseded: another statement of the same handoff",))
            db.execute("UPDATE statements SET handoff = ? WHERE token = ?", (key, row["token"]))

    def close(self) -> None:
        """Let go of the store's file in this thread (the next step opens it again); an endpoint's ledger is
        the endpoint's to close."""
        if self.endpoint is None and self._ledger is not None:
            self._ledger.close()

    def __enter__(self) -> "ToolStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- storage -------------------------------------------------------------

    @property
    def ledger(self) -> SQLiteLedger | PostgresLedger:
        """The store the statements live in (the agent's ledger, or the store's own), opened on first use."""
        if self._ledger is None:
            self._ledger = open_ledger(self.path, busy_timeout=self._busy_timeout)
        return self._ledger

    @contextmanager
    def _transaction(self) -> Iterator[Any]:  # the engine's connection: sqlite3's, or ledger_pg's
        """One ``BEGIN IMMEDIATE`` transaction of the ledger: committed on success, rolled back on any error.

        With an endpoint, it first reads what the ledger recorded since the endpoint's last step, and every
        question put to the endpoint inside it is answered by this transaction."""
        try:
            with self.ledger.transaction() as tx:
                if self.endpoint is not None:
                    self.endpoint.refresh()
                yield tx.db
        except sqlite3.Error as exc:
            raise ToolError(f"store {_shown(self.path)}: {exc}") from None
        except (ToolRefused, ToolError):
            raise  # refused before anything was journalled: the endpoint holds nothing the ledger lost
        except BaseException:
            if self.endpoint is not None:
                self.endpoint._reset()  # it may hold what was rolled back: it reads the ledger again
            raise

    def _number(self, db: sqlite3.Connection, agent: str, n: int | None) -> int:
        """The message number to use for ``agent``: with the agent's endpoint, the next it would give (or
        ``n``, if no line of it has that number); else ``n`` if given, or one more than the last."""
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ToolError("n is a message number (an integer, 0 or more)")
        if self.endpoint is not None and agent == self.endpoint.me:
            try:
                return int(self.endpoint.reserve_number(n))
            except ValueError as exc:
                raise ToolError(str(exc)) from None
        row = db.execute("SELECT n FROM numbers WHERE agent = ?", (agent,)).fetchone()
        last = row["n"] if row else 0
        if n is None:
            n = last + 1
        db.execute("INSERT INTO numbers (agent, n) VALUES (?, ?) ON CONFLICT(agent) DO UPDATE SET n = MAX(n, ?)",
                   (agent, n, n))
        return n

    @staticmethod
    def _row(db: sqlite3.Connection, token: str) -> sqlite3.Row:
        if not isinstance(token, str):
            raise ToolError("a token is text")
        row = db.execute("SELECT * FROM statements WHERE token = ?", (token,)).fetchone()
        if row is None:
            raise ToolError("no statement with that token in this store")
        return row

    # ---- one handoff (the rule is rogerwilco.checks.handoff's, shared with check_thread) ----

    @staticmethod
    def _lookup(db: sqlite3.Connection):
        """An id -> :class:`Envelope` function over the HOs this store knows and the RBs it wrote."""

        def find(ident: str) -> Envelope | None:
            row = db.execute("SELECT ho_id, ho_from, ho_to, item, re FROM issues WHERE ho_id = ?", (ident,)).fetchone()
            if row is not None:
                return Envelope("HO", row["ho_id"], row["re"], row["ho_from"], row["ho_to"], row["item"])
            row = db.execute("SELECT rb_id, ho_id, agent, ho_from, item FROM statements WHERE rb_id = ? LIMIT 1",
                             (ident,)).fetchone()
            if row is not None:
                return Envelope("RB", row["rb_id"], row["ho_id"], row["agent"], row["ho_from"], row["item"])
            return None

        return find

    @staticmethod
    def _key(db: sqlite3.Connection, ho_id: str) -> str | None:
        row = db.execute("SELECT handoff FROM issues WHERE ho_id = ?", (ho_id,)).fetchone()
        return row["handoff"] if row is not None else None

    @staticmethod
    def _live(db: sqlite3.Connection, key: str) -> sqlite3.Row | None:
        """The one statement of a handoff that can commit or whose act ran (the unique index allows one)."""
        return db.execute("SELECT * FROM statements WHERE handoff = ? AND state IN (?, ?, ?, ?)",
                          (key, *_LIVE)).fetchone()

    @staticmethod
    def _cancelled(db: sqlite3.Connection, key: str) -> sqlite3.Row | None:
        return db.execute("SELECT cancels.ho_id, cancels.cx_id FROM cancels JOIN issues ON issues.ho_id = cancels.ho_id "
                          "WHERE issues.handoff = ? LIMIT 1", (key,)).fetchone()

    def _merge(self, db: sqlite3.Connection, keep: str, other: str) -> str:
        """Make two handoff keys one, leaving at most one statement that can commit; returns the key."""
        if keep == other:
            return keep
        live = db.execute("SELECT token, state, prepared_at FROM statements WHERE handoff IN (?, ?) AND state IN "
                          "(?, ?, ?, ?) ORDER BY prepared_at, token", (keep, other, *_LIVE)).fetchall()
        ran = [row for row in live if row["state"] != "prepared"]
        if len(ran) > 1:
            return keep  # both acts already ran before the link was known: nothing to undo here
        survivor = ran[0] if ran else (live[-1] if live else None)
        for row in live:
            if row is not survivor:
                _move(db, "abandon", "token = ?", (row["token"],), also=", detail = ?",
                      values=("superseded: another statement of the same handoff",))
        db.execute("UPDATE issues SET handoff = ? WHERE handoff = ?", (keep, other))
        db.execute("UPDATE statements SET handoff = ? WHERE handoff = ?", (keep, other))
        cancel = self._cancelled(db, keep)
        if cancel is not None:  # a cancel of any issue cancels the handoff
            _move(db, "cancel", "handoff = ?", (keep,), also=", cx_id = ?, detail = ?",
                  values=(cancel["cx_id"], f"cancelled by {cancel['cx_id']}"))
        return keep

    def _register(self, db: sqlite3.Connection, ho: Envelope) -> tuple[str, tuple[str, str] | None]:
        """Record an HO that reached the tool and join it to its handoff: (the handoff key, its issue link)."""
        row = db.execute("SELECT * FROM issues WHERE ho_id = ?", (ho.id,)).fetchone()
        if row is None:
            db.execute("INSERT INTO issues (ho_id, handoff, ho_from, ho_to, item, re, seen) VALUES (?, ?, ?, ?, ?, ?, 1)",
                       (ho.id, ho.id, ho.from_, ho.to, ho.item, ho.re))
            key = ho.id
        else:
            key = row["handoff"]
            if not row["seen"]:  # named by a CX before it arrived: now its envelope is known
                db.execute("UPDATE issues SET ho_from = ?, ho_to = ?, item = ?, re = ?, seen = 1 WHERE ho_id = ?",
                           (ho.from_, ho.to, ho.item, ho.re, ho.id))
        find = self._lookup(db)
        own = find(ho.id)
        assert own is not None
        link = issue_link(own, find)
        if link is not None:
            db.execute("UPDATE issues SET prev = ? WHERE ho_id = ?", (link[0], ho.id))
            key = self._merge(db, self._key(db, link[0]) or key, key)
        # issues that arrived first and carry this one forward
        for later in db.execute("SELECT ho_id, handoff, ho_from, ho_to, item, re FROM issues WHERE re = ? AND "
                                "seen = 1 AND ho_id != ?", (ho.id, ho.id)).fetchall():
            envelope = Envelope("HO", later["ho_id"], later["re"], later["ho_from"], later["ho_to"], later["item"])
            if issue_link(envelope, find) == (ho.id, RESEND):
                db.execute("UPDATE issues SET prev = ? WHERE ho_id = ?", (ho.id, later["ho_id"]))
                key = self._merge(db, key, later["handoff"])
        return key, link

    @staticmethod
    def _carries(db: sqlite3.Connection, later: str, earlier: str) -> bool:
        """Whether the issue ``later`` carries ``earlier`` forward (through any number of issues)."""
        seen = {later}
        current: str | None = later
        while current is not None:
            row = db.execute("SELECT prev FROM issues WHERE ho_id = ?", (current,)).fetchone()
            current = row["prev"] if row is not None else None
            if current == earlier:
                return True
            if current in seen:
                return False
            seen.add(current)  # type: ignore[arg-type]
        return False

    def _dangling(self, db: sqlite3.Connection, key: str) -> bool:
        """Whether a handoff's first known issue carries forward a message of its two agents this store never saw."""
        find = self._lookup(db)
        for row in db.execute("SELECT ho_from, ho_to, re FROM issues WHERE handoff = ? AND seen = 1 AND prev IS NULL "
                              "AND re IS NOT NULL", (key,)).fetchall():
            if row["re"].rpartition("-")[0] in (row["ho_from"], row["ho_to"]) and find(row["re"]) is None:
                return True
        return False

    def _open_elsewhere(self, db: sqlite3.Connection, message: Message, key: str, at: _dt.datetime) -> str | None:
        """Another open handoff that may be this one, as text; None when there is none.

        When an issue carries forward a message this store never saw (a re-send
        whose original was lost, or that is still on its way), the store cannot
        tell its handoff from another between the same two agents about the
        same item; one act is the safe reading, so such an open handoff blocks.
        """
        dangling = self._dangling(db, key)
        for row in db.execute("SELECT DISTINCT handoff FROM issues WHERE ho_from = ? AND ho_to = ? AND item IS ? AND "
                              "handoff != ?", (message.from_, message.to, message.item, key)).fetchall():
            cancel = self._cancelled(db, row["handoff"])
            # a cancel naming an HO never seen here may name an issue of this handoff, unless this HO was
            # issued after the cancel (message numbers of one sender grow)
            unseen = cancel is not None and _number_of(message.id) <= _number_of(cancel["cx_id"]) and \
                db.execute("SELECT 1 FROM issues WHERE handoff = ? AND seen = 0", (row["handoff"],)).fetchone() is not None
            if not dangling and not unseen and not self._dangling(db, row["handoff"]):
                continue
            if cancel is not None:
                return f"{cancel['ho_id']} was cancelled by {cancel['cx_id']}"
            live = self._live(db, row["handoff"])
            if live is not None and (live["state"] != "prepared" or at <= parse_time(live["exp"])):
                return f"the statement for {live['ho_id']} is {live['state']}"
        return None

    def _duplicate(self, db: sqlite3.Connection, message: Message, live: sqlite3.Row, n: int | None) -> str:
        """The ``UN why=DUP`` answering a re-send (the same one each time the re-send comes)."""
        row = db.execute("SELECT reply_line FROM issues WHERE ho_id = ?", (message.id,)).fetchone()
        if row is not None and row["reply_line"]:
            return row["reply_line"]
        number = self._number(db, message.to, n)
        slots = {"p": message.profile} if message.profile else {}
        slots["why"] = "DUP"
        un = Message(type="UN", id=f"{message.to}-{number}", re=message.id, from_=message.to, to=message.from_,
                     item=message.item, slots=slots,
                     tail=f"duplicate of {live['ho_id']}, read back as {live['rb_id']}; statement {live['state']}")
        line = reread(un, self.receiver).to_line()
        db.execute("UPDATE issues SET reply_line = ? WHERE ho_id = ?", (line, message.id))
        return line

    def _line(self, text: str, want: str) -> Message:
        message = Message.from_line(text, self.receiver)
        if message.type != want:
            raise ToolError(f"expected a {want} line, got a {message.type}")
        return message

    # ---- prepare ---------------------------------------------------------------

    def resolve(self, ho: Message, record: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The execution values: the HO's, and the record's for what the HO leaves open."""
        vocab = vocabulary_of(ho, self.receiver)
        keys = exec_slots(ho, vocab)
        if not keys:
            raise ToolRefused(f"the profile names no execution slots for ask={ho.get('ask')}: there is no "
                              "statement to prepare", reason="no-exec")
        record = dict(record or {})
        values: dict[str, Any] = {}
        missing, conflicts = [], []
        for key in keys:
            given = ho.get(key)
            on_file = None
            if key in record:
                try:
                    on_file = decode(vocab, key, record[key], strict=True)
                except ValueError as exc:
                    raise ToolError(f"record value for {key}: {exc}") from None
            if given is not None and on_file is not None and given != on_file:
                conflicts.append(f"{key}: the handoff says {given}, the record {on_file}")
            value = given if given is not None else on_file
            if value is None:
                missing.append(key)
            else:
                values[key] = value
        if conflicts:
            raise ToolRefused("the record contradicts the handoff; stop and ask: " + "; ".join(conflicts),
                              reason="record")
        if missing:
            raise ToolRefused("no value for execution slot(s) " + ", ".join(missing) +
                              " in the handoff or the record", reason="missing")
        return values

    def prepare(self, ho: Message | str, *, record: Mapping[str, Any] | None = None, as_: str | None = None,
                n: int | None = None, now: _dt.datetime | None = None) -> Prepared:
        """Resolve and freeze the statement; return its token and the RB line to relay."""
        at = _utc(now)
        message = self._line(ho, "HO") if isinstance(ho, str) else ho
        if message.type != "HO":
            raise ToolError(f"expected an HO, got a {message.type}")
        agent = as_ or message.to
        if agent != message.to:
            raise ToolRefused(f"the handoff is addressed to {message.to}, not {agent}", reason="not-addressed")
        ho_exp = message.get("exp")
        if ho_exp is not None and at > parse_time(ho_exp):
            raise ToolRefused(f"the handoff expired at {ho_exp}: nothing may be done on it", reason="expired")
        values = self.resolve(message, record)
        exp_at = at + self.window
        if exp_at.second or exp_at.microsecond:  # exp= is to the minute: round up, never shorten the window
            exp_at = exp_at.replace(second=0, microsecond=0) + _dt.timedelta(minutes=1)
        if ho_exp is not None:
            exp_at = min(exp_at, parse_time(ho_exp))
        exp = _stamp(exp_at)
        token = secrets.token_hex(16)
        statement = {
            "token": token, "ho": message.id, "item": message.item, "ask": message.get("ask"),
            "profile": message.profile, "agent": agent, "to": message.from_, "exp": exp,
            "values": {k: as_json(v) for k, v in values.items()},
        }
        with self._transaction() as db:
            self._offered(message)
            refused = None
            key, link = self._register(db, Envelope.of(message))
            cancel = self._cancelled(db, key)
            live = self._live(db, key)
            if cancel is not None:
                refused = ToolRefused(f"{cancel['ho_id']} was cancelled by {cancel['cx_id']}", reason="cancelled")
            elif live is not None and live["ho_id"] != message.id:
                expired = live["state"] == "prepared" and at > parse_time(live["exp"])
                if self._carries(db, live["ho_id"], message.id):
                    refused = ToolRefused(f"{message.id} is carried forward by {live['ho_id']}, whose statement is "
                                          f"{live['state']}: nothing to prepare for it", reason="duplicate")
                elif live["state"] == "prepared" and (expired or (link is not None and link[1] == REISSUE)):
                    live = None  # a re-issue after a void readback, or a statement past its window: superseded
                elif link is not None and link[1] == RESEND:
                    refused = ToolRefused(f"{message.id} re-sends the handoff of {live['ho_id']}, already read back "
                                          f"as {live['rb_id']} (statement {live['state']}): answer UN why=DUP",
                                          reason="duplicate", reply=self._duplicate(db, message, live, n))
                else:
                    refused = ToolRefused(f"{message.id} is the same handoff as {live['ho_id']}, whose statement is "
                                          f"already {live['state']}", reason="duplicate")
            elif live is not None and live["state"] != "prepared":
                refused = ToolRefused(f"a statement for {message.id} is already {live['state']}: preparing it again "
                                      "could run the act twice", reason=live["state"])
            elif live is None:
                other = self._open_elsewhere(db, message, key, at)
                if other is not None:
                    refused = ToolRefused(f"{message.id} may be the same handoff as another this store holds (one of "
                                          f"them carries forward a message never seen here), and {other}: refused "
                                          "rather than risk a second act", reason="duplicate")
            if refused is None:
                number = self._number(db, agent, n)
                rb = make_rb(message, number, profiles=self.receiver, values=values, digest=True)
                rb = reread(rb.replace(slots={**rb.slots, "exp": exp, "x_tok": token}), self.receiver)
                _move(db, "abandon", "handoff = ?", (key,), also=", detail = ?",
                      values=("superseded by a new statement",))
                db.execute(
                    "INSERT INTO statements (token, ho_id, ho_from, ho_to, item, ask, profile, ho_line, agent, statement,"
                    " rb_line, exp, state, prepared_at, handoff, rb_id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (token, message.id, message.from_, message.to, message.item, message.get("ask"), message.profile,
                     message.to_line(), agent, json.dumps(statement, ensure_ascii=False), rb.to_line(), exp,
                     STATEMENT_START, at.isoformat(), key, rb.id),
                )
        if refused is not None:
            raise refused
        return Prepared(token=token, rb=rb, exp=exp)

    # ---- the endpoint's answers, inside the store's transaction --------------------------

    def _offered(self, message: Message) -> None:
        """With an endpoint: refuse an HO its ledger does not hold open, offered to it."""
        if self.endpoint is None:
            return
        view = self.endpoint.handoff(message.id)
        if view is None or view.receiver != self.endpoint.me or message.to != self.endpoint.me:
            raise ToolRefused(f"{self.endpoint.me}'s ledger holds no handoff {message.id} to it",
                              reason="not-offered")
        if view.close != "open":
            raise ToolRefused(f"{message.id} is {view.close} in {self.endpoint.me}'s ledger: nothing may be "
                              "prepared for it", reason="cancelled" if view.close == "cancelled" else "closed")

    def _cleared(self, ho_id: str) -> None:
        """With an endpoint: refuse an act its ledger does not clear (asked inside the commit's transaction)."""
        if self.endpoint is None or self.endpoint.may_act(ho_id):
            return
        view = self.endpoint.handoff(ho_id)
        state = "unknown to it" if view is None else f"readback {view.readback}, {view.close}"
        raise ToolRefused(f"{self.endpoint.me}'s ledger does not clear the act on {ho_id} ({state}): "
                          "only a handoff that is wilco, not cancelled and not closed may commit",
                          reason="cancelled" if view is not None and view.close == "cancelled" else "not-wilco")

    # ---- commit ----------------------------------------------------------------

    @staticmethod
    def _refusal(row: sqlite3.Row, at: _dt.datetime) -> ToolRefused | None:
        state = row["state"]
        if state == "prepared":
            if at > parse_time(row["exp"]):
                return ToolRefused(f"the statement expired at {row['exp']}: prepare it again", reason="expired")
            return None
        reasons = {
            "committed": "the statement was already committed",
            "failed": "the statement was already committed and failed",
            "abandoned": "the statement was abandoned",
            "cancelled": f"the statement was cancelled by {row['cx_id']}",
            "in-doubt": f"the statement is in doubt (executor started {row['started_at']}, no result recorded); "
                        "it is never run again by itself",
        }
        return ToolRefused(reasons[state], reason=state, reply=row["reply_line"])

    def commit(self, token: str, argv: Sequence[str], *, n: int | None = None, now: _dt.datetime | None = None,
               timeout: float | None = None) -> Message:
        """Run the executor once for a prepared statement; return the DN (or FL) built from what it reports."""
        argv = list(argv)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ToolError("the executor is a program and its arguments, as a list of strings")
        at = _utc(now)
        with self._transaction() as db:  # the ledger's answer and the move to in-doubt are one transaction
            row = self._row(db, token)
            refused = self._refusal(row, at)
            if refused is not None:
                raise refused
            self._cleared(row["ho_id"])
            cancel = self._cancelled(db, row["handoff"]) if row["handoff"] is not None else None
            if cancel is not None:
                _move(db, "cancel", "token = ?", (token,), also=", cx_id = ?, detail = ?",
                      values=(cancel["cx_id"], f"cancelled by {cancel['cx_id']}"))
                refused = ToolRefused(f"the statement was cancelled by {cancel['cx_id']}", reason="cancelled")
            elif row["handoff"] is None or (live := self._live(db, row["handoff"])) is None or live["token"] != token:
                _move(db, "abandon", "token = ?", (token,), also=", detail = ?",
                      values=("superseded: another statement of the same handoff",))
                refused = ToolRefused("another statement of the same handoff stands", reason="abandoned")
            else:
                number = self._number(db, row["agent"], n)
                _move(db, "commit", "token = ?", (token,), also=", started_at = ?, pid = ?, reply_n = ?",
                      values=(at.isoformat(), os.getpid(), number))
        if refused is not None:
            raise refused
        statement = row["statement"]
        try:
            proc = subprocess.run(argv, input=statement.encode("utf-8"), capture_output=True, timeout=timeout,
                                  shell=False, check=False)
        except subprocess.TimeoutExpired:
            self._set(token, "doubt", detail=f"the executor did not finish within {timeout}s and was killed")
            raise ToolRefused("the executor timed out: the statement is in doubt", reason="in-doubt") from None
        except OSError as exc:  # it never started: nothing ran, the statement is still good
            self._set(token, "not-started", detail=None, clear=True)
            raise ToolError(f"cannot start the executor {argv[0]}: {exc.strerror or exc}") from None
        ho = Message.from_line(row["ho_line"], self.receiver)
        if proc.returncode < 0:
            self._set(token, "doubt", detail=f"the executor was killed by signal {-proc.returncode}")
            raise ToolRefused("the executor was killed: the statement is in doubt", reason="in-doubt")
        if proc.returncode > 0:
            fl = self._fl(ho, row["agent"], number, proc)
            self._set(token, "fail", reply=fl.to_line(), detail=f"executor exit status {proc.returncode}")
            return fl
        try:
            dn, executed = self._dn(ho, row["agent"], number, proc.stdout)
        except ValueError as exc:
            self._set(token, "doubt", detail=f"the executor ran but its report cannot be read: {exc}")
            raise ToolRefused(f"the executor ran but its report cannot be read ({exc}): the statement is in doubt",
                              reason="in-doubt") from None
        self._set(token, "ran", reply=dn.to_line(), executed=json.dumps(executed, ensure_ascii=False))
        return dn

    def _set(self, token: str, event: str, *, reply: str | None = None, executed: str | None = None,
             detail: str | None = None, clear: bool = False) -> None:
        """An in-doubt statement's ``event`` (the executor's outcome), with what it reported."""
        stamp = _dt.datetime.now(_dt.timezone.utc).isoformat()
        with self._transaction() as db:
            if clear:
                _move(db, event, "token = ?", (token,), also=", started_at = NULL, pid = NULL, detail = ?",
                      values=(detail,))
            else:
                _move(db, event, "token = ?", (token,),
                      also=", reply_line = ?, executed = ?, detail = ?, finished_at = ?",
                      values=(reply, executed, detail, stamp))
                if reply is not None and self.endpoint is not None:
                    self.endpoint.record_act(reply)  # the act's report, in the agent's journal with its state

    def _base(self, ho: Message, agent: str, number: int) -> dict[str, Any]:
        return {"type": "DN", "id": f"{agent}-{number}", "re": ho.id, "from_": agent, "to": ho.from_, "item": ho.item}

    def _fl(self, ho: Message, agent: str, number: int, proc: subprocess.CompletedProcess) -> Message:
        slots = {"p": ho.profile} if ho.profile else {}
        slots["why"] = "ERR"
        base = {**self._base(ho, agent, number), "type": "FL"}
        fl = Message(**base, slots=slots, tail=f"executor exit status {proc.returncode}; nothing executed")
        return reread(fl, self.receiver)

    def _dn(self, ho: Message, agent: str, number: int, stdout: bytes) -> tuple[Message, dict[str, Any]]:
        try:
            report = json.loads(stdout.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(report, dict):
            raise ValueError("not a JSON object")
        out = report.get("out", "OK")
        if out not in ("OK", "PARTIAL", "NOOP"):
            raise ValueError(f"out={out!r} is not OK, PARTIAL or NOOP")
        reported = report.get("values", {})
        if not isinstance(reported, dict):
            raise ValueError("values is not an object")
        tail = report.get("tail", "as executed, from the tool")
        if not isinstance(tail, str) or not tail:
            raise ValueError("tail is not text")
        vocab = vocabulary_of(ho, self.receiver)
        slots: dict[str, Any] = {"p": ho.profile} if ho.profile else {}
        slots["out"] = out
        for key in exec_slots(ho, vocab):
            if key in reported:
                slots[key] = decode(vocab, key, reported[key], strict=True)
        dn = Message(**self._base(ho, agent, number), slots=slots, tail=tail)
        try:
            dn = reread(dn, self.receiver)
        except RW1Error as exc:
            raise ValueError(f"the DN cannot be written: {exc.token} {exc.message}".strip()) from None
        return dn, {"out": out, "values": {k: as_json(v) for k, v in slots.items() if k not in ("p", "out")}}

    # ---- abandon, cancel, status ------------------------------------------------

    def abandon(self, token: str) -> Statement:
        with self._transaction() as db:
            row = self._row(db, token)
            if row["state"] != "prepared":
                refused = self._refusal(row, _dt.datetime.min.replace(tzinfo=_dt.timezone.utc))
                assert refused is not None
                raise refused
            _move(db, "abandon", "token = ?", (token,), also=", detail = ?", values=("abandoned",))
            row = self._row(db, token)
        return self._statement(row, _utc(None))

    def cancel(self, cx: Message | str, *, n: int | None = None) -> Message:
        """Abandon what was prepared for the CX's handoff; the AN val=Y, or the act's DN where it ran."""
        message = self._line(cx, "CX") if isinstance(cx, str) else cx
        if message.type != "CX":
            raise ToolError(f"expected a CX, got a {message.type}")
        with self._transaction() as db:
            answer = None
            named = message.re or ""
            find = self._lookup(db)
            target = find(named)
            if target is not None and target.type == "RB":  # a cancel naming our readback names its HO
                named = target.re or named
            key = self._key(db, named)
            if key is None:
                # an HO this store never saw: its id names its sender (D3), and only the sender cancels
                if named.rpartition("-")[0] != message.from_:
                    raise ToolRefused(f"{message.id} is from {message.from_}; only the sender of {message.re} can "
                                      "cancel it", reason="wrong-party")
                db.execute("INSERT INTO issues (ho_id, handoff, ho_from, ho_to, item, re, seen) "
                           "VALUES (?, ?, ?, ?, ?, NULL, 0)", (named, named, message.from_, message.to, message.item))
                key, uncertain = named, True
            else:
                uncertain = self._dangling(db, key)
            # Where the store cannot tell whether two handoffs between the same two agents about the same item
            # are one (an issue it never saw), a cancel fails safe: it cancels both.
            for row in db.execute("SELECT DISTINCT handoff FROM issues WHERE ho_from = ? AND ho_to = ? AND "
                                  "item IS ? AND seen = 1 AND handoff != ?",
                                  (message.from_, message.to, message.item, key)).fetchall():
                if uncertain or self._dangling(db, row["handoff"]):
                    key = self._merge(db, key, row["handoff"])
            parties = db.execute("SELECT ho_from, ho_to FROM issues WHERE handoff = ? AND seen = 1",
                                 (key,)).fetchall()
            for row in parties:
                if (row["ho_from"], row["ho_to"]) != (message.from_, message.to):
                    raise ToolRefused(f"{message.id} is from {message.from_} to {message.to}; only {row['ho_from']} "
                                      f"can cancel {message.re}, to {row['ho_to']}", reason="wrong-party")
            db.execute("INSERT OR IGNORE INTO cancels (ho_id, cx_id, cx_line) VALUES (?, ?, ?)",
                       (named, message.id, message.to_line()))
            _move(db, "cancel", "handoff = ?", (key,), also=", cx_id = ?, detail = ?",
                  values=(message.id, f"cancelled by {message.id}"))
            rows = db.execute("SELECT * FROM statements WHERE handoff = ? ORDER BY prepared_at", (key,)).fetchall()
            ran = [r for r in rows if r["state"] == "committed"]
            doubt = [r for r in rows if r["state"] == "in-doubt"]
            if not ran and not doubt:
                number = self._number(db, message.to, n)
                slots = {"p": message.profile} if message.profile else {}
                slots["val"] = "Y"
                an = Message(type="AN", id=f"{message.to}-{number}", re=message.id, from_=message.to,
                             to=message.from_, slots=slots, tail="statement abandoned; nothing executed")
                answer = reread(an, self.receiver)
        if ran:
            return Message.from_line(ran[-1]["reply_line"], self.receiver).replace(source=None)
        if doubt:
            raise ToolRefused(f"the act for {message.re} is in doubt: it may have run; check the world before "
                              "answering the cancel", reason="in-doubt")
        assert answer is not None
        return answer

    def _statement(self, row: sqlite3.Row, at: _dt.datetime) -> Statement:
        state = row["state"]
        if state == "prepared" and at > parse_time(row["exp"]):
            state = "expired"
        detail = row["detail"]
        if state == "in-doubt" and not detail:
            detail = (f"executor started {row['started_at']} by process {row['pid']}; no result recorded; "
                      "never run again by itself")
        return Statement(token=row["token"], ho=row["ho_id"], item=row["item"], agent=row["agent"], state=state,
                         exp=row["exp"], values=json.loads(row["statement"])["values"], rb=row["rb_line"],
                         reply=row["reply_line"], detail=detail, started_at=row["started_at"])

    def status(self, token: str | None = None, *, now: _dt.datetime | None = None) -> list[Statement]:
        at = _utc(now)
        with self._transaction() as db:
            if token is not None:
                rows = [self._row(db, token)]
            else:
                rows = db.execute("SELECT * FROM statements ORDER BY prepared_at, token").fetchall()
        return [self._statement(row, at) for row in rows]

    def settle(self, token: str, *, ran: bool, note: str, who: str, now: _dt.datetime | None = None) -> Statement:
        """Settle an in-doubt statement by hand, once a person has found out whether the act ran.

        ``ran=True`` makes it ``committed`` (the act happened: never run it
        again); ``ran=False`` makes it ``abandoned`` (nothing happened: the
        sender may re-issue). Who settled it, when, and their note are
        recorded in the statement's detail. Only an in-doubt statement can
        be settled this way.
        """
        if not note.strip():
            raise ToolRefused("say what you found (--note): the settlement is recorded", reason="note")
        at = _utc(now)
        with self._transaction() as db:
            row = self._row(db, token)
            if row["state"] != "in-doubt":
                raise ToolRefused(f"the statement is {row['state']}, not in doubt: nothing to settle", reason=row["state"])
            detail = (f"settled by hand by {who} at {_stamp(at)}: the act {'ran' if ran else 'did not run'}; "
                      f"note: {' '.join(note.split())}")
            _move(db, "settle-ran" if ran else "settle-not-ran", "token = ?", (token,),
                  also=", pid = NULL, detail = ?, finished_at = ?", values=(detail, at.isoformat()))
            row = self._row(db, token)
        return self._statement(row, at)


__all__ = [
    "DEFAULT_WINDOW",
    "Prepared",
    "STATES",
    "Statement",
    "ToolError",
    "ToolRefused",
    "ToolStore",
]
