"""mcp: serve RW1's tools to an agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="an MCP server on stdin/stdout: validate, make_rb, check_rb, check_ho, check_dn, check_thread, legend, digest",
        description="Serve RW1's tools over the Model Context Protocol, stdio transport. "
                    "Register `rogerwilco mcp` as a stdio server with an MCP client. Needs the mcp extra. "
                    "With --ledger and --as, session mode: the tools receive, send, owner, open_handoffs, may_act, "
                    "pending_questions and tick run one agent's endpoint, kept in the ledger.",
    )
    p.add_argument("--ledger", metavar="PATH|URL", help="session mode: the agent's ledger (a SQLite file, made if "
                                                        "absent, or a postgresql:// URL)")
    p.add_argument("--as", dest="as_", metavar="NAME", help="session mode: the agent this server speaks for")
    p.add_argument("--profile", action="append", default=None, metavar="NAME",
                   help="session mode: a profile the agent holds (repeatable; default: every bundled profile)")
    p.add_argument("--strict", action="store_true",
                   help="list the strict-compatible input schemas (closed objects, every property required or "
                        "null, profiles by name, slot values as {slot, value} lists) for clients with a strict "
                        "tool mode; plain arguments are taken too")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from ...core.errors import RW1Error
    from ..mcp_server import MissingSDK, serve

    endpoint = None
    if (args.ledger is None) != (args.as_ is None):
        sys.stderr.write("rogerwilco: session mode needs both --ledger PATH and --as NAME\n")
        return 2
    if args.ledger is not None:
        from ...checks.endpoint import Endpoint
        from ...core.vocab import Receiver

        try:
            profiles = Receiver.load(args.profile) if args.profile else Receiver.all_bundled()
            endpoint = Endpoint(args.as_, profiles=profiles, ledger=args.ledger)
        except (RW1Error, ValueError) as exc:
            sys.stderr.write(f"rogerwilco: {exc}\n")
            return 2
    try:
        return serve(endpoint, strict=args.strict)
    except MissingSDK as exc:
        sys.stderr.write(f"rogerwilco: {exc}\n")
        return 2
