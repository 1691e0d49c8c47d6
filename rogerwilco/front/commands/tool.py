"""tool: the tool's statement, prepare then commit exactly once (spec 5.3).

``rogerwilco tool prepare|commit|abandon|cancel|status --store PATH``. Lines
to send (the RB, the DN, the FL, the AN, the UN why=DUP that answers a
re-sent handoff) go to stdout, one per command;
reasons go to stderr. Exit codes: 0 done, 1 refused (expired, abandoned,
cancelled, already committed, in doubt, a record that contradicts the
handoff) or the act failed (an FL is printed), 2 unusable input (an unknown
token, a line that does not parse, an executor that cannot be started).

One store per agent: with ``--ledger PATH`` the statements live in the
agent's endpoint ledger (``--store`` may be left out, or name the same
file), every step is one transaction over the ledger, and the tool's lines
are numbered by the ledger's one counter.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys

from ...core.errors import RW1Error
from ._common import add_format, add_profiles, line_argument, receiver_from


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="PATH|URL", help="the SQLite file (or postgresql:// URL) holding prepared "
                                                       "statements (with --ledger: the ledger itself; leave it out)")


def _ledger_arg(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--ledger", metavar="PATH|URL", help=help + "; the statements live in it (one store per agent) "
                                                           "and its counter numbers the lines")


def register(sub: argparse._SubParsersAction) -> None:
    tool = sub.add_parser("tool", help="the tool's statement: prepare, commit exactly once, abandon, cancel, status")
    verbs = tool.add_subparsers(dest="verb", metavar="VERB", parser_class=type(tool))
    tool.set_defaults(func=lambda args: (tool.print_help(sys.stderr), 2)[1])

    p = verbs.add_parser("prepare", help="resolve and freeze the statement of an HO; print the RB to relay")
    p.add_argument("line", metavar="HO_LINE", help="the handoff as delivered (- for stdin)")
    _store_arg(p)
    p.add_argument("--record", metavar="FILE", help="JSON object of values on file, for slots the HO leaves to the receiver")
    p.add_argument("--as", dest="me", metavar="NAME", help="the receiver's name (must be the HO's to=; default it)")
    p.add_argument("--n", type=int, help="the RB's message number (default: one more than the store's last)")
    _ledger_arg(p, "the receiver's endpoint ledger: prepare only a handoff it received and nobody closed")
    p.add_argument("--window", type=float, default=15.0, metavar="MINUTES",
                   help="how long the statement may be confirmed (default 15; exp= rounded up to the minute, "
                        "never past the HO's exp)")
    add_profiles(p)
    add_format(p)
    p.set_defaults(func=cmd_prepare)

    p = verbs.add_parser("commit", help="run the executor once for a prepared statement; print the DN as executed",
                         usage="rogerwilco tool commit TOKEN --store PATH [--n N] [--timeout SECONDS] [--profile P] "
                               "--exec CMD [ARG ...]\n       (--exec comes last: everything after it is the executor's)")
    p.add_argument("token", metavar="TOKEN")
    _store_arg(p)
    p.add_argument("--n", type=int, help="the DN's message number (default: one more than the store's last)")
    _ledger_arg(p, "the receiver's endpoint ledger: commit only while it says wilco, not cancelled, not closed "
                   "(needs --as)")
    p.add_argument("--as", dest="me", metavar="NAME", help="the receiver whose ledger --ledger is")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="kill the executor after this long (leaves it in doubt)")
    p.add_argument("--exec", dest="argv", nargs=argparse.REMAINDER, required=True, metavar="CMD",
                   help="the executor and its arguments, last on the line; run without a shell")
    add_profiles(p)
    p.set_defaults(func=cmd_commit)

    p = verbs.add_parser("abandon", help="discard a prepared statement")
    p.add_argument("token", metavar="TOKEN")
    _store_arg(p)
    add_profiles(p)
    p.set_defaults(func=cmd_abandon)

    p = verbs.add_parser("cancel", help="a CX arrived: abandon what was prepared; print AN val=Y, or the act's DN")
    p.add_argument("line", metavar="CX_LINE", help="the cancel (- for stdin)")
    _store_arg(p)
    p.add_argument("--n", type=int, help="the AN's message number (default: one more than the store's last)")
    _ledger_arg(p, "the receiver's endpoint ledger")
    p.add_argument("--as", dest="me", metavar="NAME", help="the receiver whose ledger --ledger is (default: the "
                                                             "CX's to=)")
    add_profiles(p)
    p.set_defaults(func=cmd_cancel)

    p = verbs.add_parser("resolve", help="settle an in-doubt statement by hand: the act ran, or did not",
                         description="Settle a statement left in doubt (the executor was killed or timed out, or its "
                                     "report could not be read) once you have found out what happened: --ran makes it "
                                     "committed (never run again), --did-not-run abandons it (the sender may re-issue). "
                                     "Who settled it (--by, default the login name), when, and the note are recorded.")
    p.add_argument("token", metavar="TOKEN")
    _store_arg(p)
    outcome = p.add_mutually_exclusive_group(required=True)
    outcome.add_argument("--ran", action="store_true", help="the act happened")
    outcome.add_argument("--did-not-run", action="store_true", help="the act did not happen")
    p.add_argument("--note", required=True, metavar="TEXT", help="what you found, and how (recorded)")
    p.add_argument("--by", metavar="NAME", help="who settles it (default: the login name)")
    add_profiles(p)
    p.set_defaults(func=cmd_resolve)

    p = verbs.add_parser("status", help="every statement in the store, or one, with its state")
    p.add_argument("token", metavar="TOKEN", nargs="?")
    _store_arg(p)
    add_profiles(p)
    add_format(p)
    p.set_defaults(func=cmd_status)


def _store(args: argparse.Namespace, *, create: bool = False, **kw):
    """The store at --store; only ``prepare`` may create one (a typo elsewhere is not a new, empty store)."""
    from pathlib import Path

    from ...checks.ledger_pg import PostgresLedger, is_url
    from ..tool import ToolStore

    ledger = getattr(args, "ledger", None)
    if args.store is None and ledger is None:
        raise RW1Error("name the store: --store PATH (or --ledger PATH, the agent's ledger, which holds it)")
    path = ledger if ledger is not None else args.store
    if is_url(path):
        PostgresLedger(path, create=create)  # refuses a database with no store, unless prepare may make one
    elif not create and not Path(path).is_file():
        raise RW1Error(f"no store at {path}: check the path (only `rogerwilco tool prepare` creates a store)")
    if ledger is not None:
        from ...checks.endpoint import Endpoint

        name = getattr(args, "me", None)
        if name is None and getattr(args, "line", None) is not None:
            name = _to_of(args.line)  # prepare: the HO's receiver (its line is read before the store opens)
        if name is None:
            raise RW1Error("--ledger needs --as NAME, the receiver whose ledger it is")
        kw["endpoint"] = Endpoint(name, profiles=receiver_from(args), ledger=ledger)
    return ToolStore.open(args.store, profiles=receiver_from(args), **kw)  # with --ledger: the ledger's


def _to_of(text: str) -> str | None:
    """The to= of a line: prepare's default receiver."""
    return next((t[3:] for t in text.split(" // ")[0].split(" ") if t.startswith("to=")), None)


def _refused(exc) -> int:
    sys.stderr.write(f"rogerwilco: refused ({exc.reason}): {exc.message}\n")
    if exc.reply:
        sys.stderr.write(f"rogerwilco: its reply was: {exc.reply}\n")
    return 1


def cmd_prepare(args: argparse.Namespace) -> int:
    from ..tool import ToolRefused

    if not args.window > 0:
        raise RW1Error("--window is a positive number of minutes")
    record = None
    if args.record:
        from .readback import read_json_object

        record = read_json_object(args.record, "record")
    args.line = line_argument(args.line)
    store = _store(args, create=True, window=_dt.timedelta(minutes=args.window))
    try:
        prepared = store.prepare(args.line, record=record, as_=args.me, n=args.n)
    except ToolRefused as exc:
        if exc.reason == "duplicate" and exc.reply:  # the UN why=DUP is the line to send
            sys.stderr.write(f"rogerwilco: refused ({exc.reason}): {exc.message}\n")
            if args.format == "json":
                sys.stdout.write(json.dumps({"refused": exc.reason, "reply": exc.reply}, ensure_ascii=True) + "\n")
            else:
                sys.stdout.write(exc.reply + "\n")
            return 1
        return _refused(exc)
    if args.format == "json":
        doc = {"token": prepared.token, "exp": prepared.exp, "rb": prepared.rb.to_line()}
        sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
    else:
        sys.stdout.write(prepared.rb.to_line() + "\n")
    return 0


def cmd_commit(args: argparse.Namespace) -> int:
    from ..tool import ToolRefused

    if not args.argv:
        raise RW1Error("--exec needs the executor command")
    try:
        reply = _store(args).commit(args.token, args.argv, n=args.n, timeout=args.timeout)
    except ToolRefused as exc:
        return _refused(exc)
    sys.stdout.write(reply.to_line() + "\n")
    return 0 if reply.type == "DN" else 1


def cmd_abandon(args: argparse.Namespace) -> int:
    from ..tool import ToolRefused

    try:
        statement = _store(args).abandon(args.token)
    except ToolRefused as exc:
        return _refused(exc)
    sys.stderr.write(f"abandoned the statement for {statement.ho}\n")
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    from ..tool import ToolRefused

    args.line = line_argument(args.line)  # read before the store opens: its to= names the ledger's agent
    try:
        reply = _store(args).cancel(args.line, n=args.n)
    except ToolRefused as exc:
        return _refused(exc)
    sys.stdout.write(reply.to_line() + "\n")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    import getpass

    from ..tool import ToolRefused

    try:
        who = args.by or getpass.getuser()
    except (KeyError, OSError):
        who = "unknown"
    try:
        statement = _store(args).settle(args.token, ran=args.ran, note=args.note, who=who)
    except ToolRefused as exc:
        return _refused(exc)
    sys.stderr.write(f"{statement.state}: {statement.detail}\n")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    statements = _store(args).status(args.token)
    if args.format == "json":
        sys.stdout.write(json.dumps([s.to_json() for s in statements], ensure_ascii=True) + "\n")
        return 0
    from ..render import make_console
    from ..render.thread import statements_table

    make_console().print(statements_table(statements))
    return 0
