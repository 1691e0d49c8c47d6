"""adapter: serve the conformance contract on stdin/stdout."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("adapter", help="the conformance adapter: JSON requests on stdin, responses on stdout")
    p.set_defaults(func=cmd_adapter)


def cmd_adapter(args: argparse.Namespace) -> int:
    from ..adapter import serve

    return serve()
