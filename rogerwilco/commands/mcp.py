"""mcp: serve RW1's tools to an agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="an MCP server on stdin/stdout: validate, make_rb, check_rb, check_ho, check_dn, check_thread, legend, digest",
        description="Serve RW1's tools over the Model Context Protocol, stdio transport. "
                    "Register `rogerwilco mcp` as a stdio server with an MCP client. Needs the mcp extra.",
    )
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..mcp_server import MissingSDK, serve

    try:
        return serve()
    except MissingSDK as exc:
        sys.stderr.write(f"rogerwilco: {exc}\n")
        return 2
