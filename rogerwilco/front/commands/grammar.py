"""grammar: print the RW1 grammar (the Lark file, or its ABNF rendering)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "grammar", help="print the RW1 grammar: grammar/rw1.lark, or --abnf for RFC 5234 ABNF derived from it",
    )
    p.add_argument("--abnf", action="store_true", help="print the ABNF rendering (RFC 5234) derived from the Lark grammar")
    p.set_defaults(func=cmd_grammar)


def cmd_grammar(args: argparse.Namespace) -> int:
    if args.abnf:
        from ...core.abnf import render

        sys.stdout.write(render())
    else:
        from ...core.syntax import grammar_text

        sys.stdout.write(grammar_text())
    return 0
