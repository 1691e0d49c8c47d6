"""ledger: an agent's store, as an operator sees it: ``status`` (who owns what) and ``migrate`` (between engines).

``rogerwilco ledger status --ledger PATH|URL`` reads the store (a SQLite
file, or a ``postgresql://`` URL) without changing it, and says per agent:
the last message number, the items it owns, its open handoffs and its tool's
statements in doubt. ``rogerwilco ledger migrate --from A --to B`` copies a
store to a new place (a SQLite file to a PostgreSQL database and back) in
one transaction on each side, then verifies the copy: the row count and a
SHA-256 digest of every table, read back from the new store, equal the
source's. The source is left as it is; a destination that already holds a
store (or anything) is refused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from ...core.errors import RW1Error
from ._common import add_format

#: the tables of a store and the key each is read in (meta is each store's own: format and version)
TABLES = {"journal": "seq", "numbers": "agent", "statements": "token", "issues": "ho_id", "cancels": "ho_id"}


def register(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("ledger", help="an agent's store: status (who owns what), migrate (SQLite <-> PostgreSQL)")
    verbs = top.add_subparsers(dest="verb", metavar="VERB", parser_class=type(top))
    verbs.required = True
    p = verbs.add_parser("status", help="per agent: its counter, what it owns, open handoffs, statements in doubt")
    p.add_argument("--ledger", metavar="PATH|URL", required=True,
                   help="the store: a SQLite file, or postgresql://USER@HOST:PORT/DATABASE")
    p.add_argument("--profile", action="append", dest="profiles", metavar="NAME|PATH",
                   help="a profile the agents hold (repeatable; default: every bundled profile)")
    add_format(p)
    p.set_defaults(func=cmd_status)
    p = verbs.add_parser("migrate", help="copy a store to a new place (a file or a database), verified")
    p.add_argument("--from", dest="source", metavar="PATH|URL", required=True, help="the store to copy")
    p.add_argument("--to", dest="target", metavar="PATH|URL", required=True,
                   help="where the copy goes: a new SQLite file, or a database (or schema) with no tables")
    add_format(p)
    p.set_defaults(func=cmd_migrate)


def _open(location: str, *, create: bool) -> Any:
    """The store at ``location``; one that is not there yet is made only where ``create`` says."""
    from ...checks.ledger import LedgerError, open_ledger
    from ...checks.ledger_pg import PostgresLedger, is_url

    if is_url(location):
        return PostgresLedger(location, create=create)
    path = Path(location)
    if create and path.exists():
        raise LedgerError(f"{location} exists: migrate writes a new file, never over one (move it away first)")
    if not create and not path.is_file():
        raise LedgerError(f"no ledger at {location}: check the path")
    return open_ledger(location)


# ---- status ------------------------------------------------------------------------------------------------


def _item_of(line: str) -> str | None:
    """The item= of a journalled HO line (before its tail)."""
    return next((t[5:] for t in line.split(" // ")[0].split(" ") if t.startswith("item=")), None)


def status(ledger: Any, profiles: Any = None) -> list[dict[str, Any]]:
    """Per agent: its last number, the items it owns, its open handoffs, its statements in doubt."""
    from ...checks.endpoint import Endpoint

    with ledger.transaction() as tx:
        agents = sorted({row[0] for row in tx.db.execute("SELECT DISTINCT agent FROM journal")}
                        | {row[0] for row in tx.db.execute("SELECT agent FROM numbers")}
                        | {row[0] for row in tx.db.execute("SELECT DISTINCT agent FROM statements")})
        doubt = [tuple(row) for row in tx.db.execute("SELECT agent, token, ho_id, started_at, pid FROM statements "
                                                     "WHERE state = 'in-doubt' ORDER BY started_at, token")]
        numbers = {row[0]: int(row[1]) for row in tx.db.execute("SELECT agent, n FROM numbers")}
        handed = [tuple(row) for row in tx.db.execute("SELECT agent, line FROM journal WHERE line LIKE 'RW1 HO %'")]
    out = []
    for agent in agents:
        end = Endpoint(agent, profiles=profiles, ledger=ledger)
        handoffs = end.open_handoffs()
        items = sorted({item for who, line in handed if who == agent and (item := _item_of(line)) is not None})
        owns = [item for item in items if end.owner(item) == agent]
        out.append({"agent": agent, "last_number": numbers.get(agent, 0), "owns": owns,
                    "open_handoffs": [h.to_json() for h in handoffs],
                    "in_doubt": [{"token": t, "ho": ho, "started_at": at, "pid": pid}
                                 for who, t, ho, at, pid in doubt if who == agent]})
    return out


def cmd_status(args: argparse.Namespace) -> int:
    from ...core.vocab import Receiver

    ledger = _open(args.ledger, create=False)
    profiles = Receiver.load(args.profiles) if args.profiles else Receiver.all_bundled()
    agents = status(ledger, profiles)
    if args.format == "json":
        sys.stdout.write(json.dumps({"ledger": str(ledger.path), "agents": agents}, ensure_ascii=False) + "\n")
        return 0
    if not agents:
        sys.stdout.write("an empty ledger: no agent has a line in it\n")
    for agent in agents:
        sys.stdout.write(f"{agent['agent']}: last number {agent['last_number']}, owns "
                         f"{', '.join(agent['owns']) or 'nothing'}\n")
        for h in agent["open_handoffs"]:
            sys.stdout.write(f"  open  {h['id']} {h['from']} -> {h['to']} item={h['item']} readback {h['readback']}\n")
        for s in agent["in_doubt"]:
            sys.stdout.write(f"  IN DOUBT  statement {s['token']} for {s['ho']}: executor started {s['started_at']} "
                             f"(process {s['pid']}); settle it: rogerwilco tool resolve\n")
    return 0


# ---- migrate -----------------------------------------------------------------------------------------------


def _read(ledger: Any) -> dict[str, tuple[list[str], list[tuple]]]:
    """Every table's columns and rows, in key order, read in one transaction."""
    tables = {}
    with ledger.transaction() as tx:
        for table, key in TABLES.items():
            cursor = tx.db.execute(f"SELECT * FROM {table} ORDER BY {key}")
            columns = [d[0] for d in cursor.description]
            tables[table] = (columns, [tuple(row) for row in cursor.fetchall()])
    return tables


def digests(tables: dict[str, tuple[list[str], list[tuple]]]) -> dict[str, dict[str, Any]]:
    """Per table: its row count and the SHA-256 of its rows (JSON, by column name, in key order)."""
    out = {}
    for table, (columns, rows) in tables.items():
        digest = hashlib.sha256()
        for row in rows:
            digest.update(json.dumps(dict(zip(columns, row)), sort_keys=True, ensure_ascii=False).encode() + b"\n")
        out[table] = {"rows": len(rows), "sha256": digest.hexdigest()}
    return out


def migrate(source: Any, target: Any) -> dict[str, dict[str, Any]]:
    """Copy every table of ``source`` into the empty store ``target`` in one transaction; verify; the digests."""
    from ...checks.ledger import LedgerError

    tables = _read(source)
    with target.transaction() as tx:
        for table in TABLES:
            if tx.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
                raise LedgerError(f"{target.path} already holds a store ({table} has rows): migrate writes only "
                                  "into an empty one")
        for table, (columns, rows) in tables.items():
            if rows:
                marks = ", ".join("?" * len(columns))
                tx.db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        if getattr(target, "engine", "") == "postgresql":  # the journal's sequence goes on past the copied rows
            tx.db.execute("SELECT setval(pg_get_serial_sequence('journal', 'seq'), "
                          "(SELECT coalesce(max(seq), 0) + 1 FROM journal), false)")
    expected, found = digests(tables), digests(_read(target))
    if found != expected:
        differ = ", ".join(t for t in TABLES if found[t] != expected[t])
        raise LedgerError(f"the copy in {target.path} differs from {source.path} in {differ}; the source is as it "
                          "was: remove the copy and run migrate again")
    return expected


def cmd_migrate(args: argparse.Namespace) -> int:
    from ..tool import ToolStore

    if args.source == args.target:
        raise RW1Error("--from and --to name the same store")
    source = ToolStore.open(args.source).ledger if Path(args.source).is_file() else _open(args.source, create=False)
    target = _open(args.target, create=True)
    verified = migrate(source, target)
    if args.format == "json":
        sys.stdout.write(json.dumps({"from": str(source.path), "to": str(target.path), "tables": verified}) + "\n")
        return 0
    for table, seen in verified.items():
        sys.stdout.write(f"{table}: {seen['rows']} rows, sha256 {seen['sha256'][:16]}... equal in both\n")
    sys.stdout.write(f"copied {source.path} to {target.path}, verified\n")
    return 0
