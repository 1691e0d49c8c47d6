"""schema: print the JSON Schema (2020-12) of the JSON form, core or under a profile."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema (2020-12) of the JSON form, generated from the vocabulary")
    p.add_argument("--profile", "-p", metavar="NAME|PATH",
                   help="the schema of messages that use this profile (default: the core)")
    p.set_defaults(func=cmd_schema)


def cmd_schema(args: argparse.Namespace) -> int:
    from ...core.jsonform_schema import schema

    sys.stdout.write(json.dumps(schema(args.profile), ensure_ascii=True, indent=1) + "\n")
    return 0
