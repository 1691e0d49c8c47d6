"""grammar: print the RW1 grammar (the Lark file, or its ABNF rendering)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "grammar", help="print the RW1 grammar: grammar/rw1.lark, or --abnf for RFC 5234 ABNF derived from it",
    )
    p.add_argument("--abnf", action="store_true", help="print the ABNF rendering (RFC 5234) derived from the Lark grammar")
    p.add_argument("--rule", action="append", metavar="NAME",
                   help="with --abnf, print only this rule (repeatable, in the order given), without comments")
    p.set_defaults(func=cmd_grammar)


def cmd_grammar(args: argparse.Namespace) -> int:
    if args.rule and not args.abnf:
        print("rogerwilco grammar: --rule selects rules of the ABNF; give --abnf too", file=sys.stderr)
        return 2
    if args.abnf:
        from ...core.abnf import AbnfError, excerpt, render

        try:
            sys.stdout.write(excerpt(args.rule) if args.rule else render())
        except AbnfError as exc:
            print(f"rogerwilco grammar: {exc}", file=sys.stderr)
            return 2
    else:
        from ...core.syntax import grammar_text

        sys.stdout.write(grammar_text())
    return 0
