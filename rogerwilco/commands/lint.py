"""lint: the never-guess pass and the stream rules over message files, for CI."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import RW1Error
from ._common import add_profiles


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lint", help="lint message files: every line checked, plus rules across the stream (RW001...)",
        description="Lint RW1 message files (one conversation per file). Exit 0 clean, 1 findings, 2 usage error.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="message files or directories (walked), - for stdin (default)")
    p.add_argument("--format", "-f", choices=("text", "json", "sarif", "github"), default="text", help="output format")
    p.add_argument("--select", action="append", metavar="CODES", help="rules or prefixes to enable (comma-separated; default all)")
    p.add_argument("--ignore", action="append", metavar="CODES", help="rules or prefixes to disable (comma-separated)")
    p.add_argument("--now", metavar="YYYYMMDDTHHMMZ", help="the time to judge exp= and due= against (RW106, RW107); 'now' for the clock")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument("--config", metavar="PYPROJECT", help="read [tool.rogerwilco.lint] from this file (default: the nearest pyproject.toml)")
    p.add_argument("--no-config", action="store_true", help="ignore pyproject.toml")
    p.add_argument("--list-rules", action="store_true", help="print the rule table and stop")
    add_profiles(p)
    p.set_defaults(func=cmd_lint)


def _codes(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [code for value in values for code in value.split(",") if code.strip()]


def cmd_lint(args: argparse.Namespace) -> int:
    from ..lint import find_pyproject, lint_paths, load_config
    from ..render import make_console
    from ..vocab import Receiver

    if args.list_rules:
        from ..render.lint import rules_table

        make_console().print(rules_table())
        return 0
    config: dict = {}
    if not args.no_config:
        path = Path(args.config) if args.config else find_pyproject()
        if args.config and not path.is_file():  # type: ignore[union-attr]
            raise RW1Error(f"cannot read {args.config}: no such file")
        config = load_config(path)
    select = _codes(args.select) if args.select else config.get("select")
    ignore = _codes(args.ignore) if args.ignore else config.get("ignore", [])
    if args.core_only or (config.get("core-only") and not args.profiles):
        receiver = Receiver(())
    elif args.profiles or config.get("profiles"):
        receiver = Receiver(args.profiles or config["profiles"])
    else:
        receiver = Receiver.all_bundled()
    now = args.now or config.get("now")
    if now == "now":
        import datetime as dt

        now = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%MZ")

    files = args.files or ["-"]
    every: list = []
    nfiles = 0
    out = sys.stdout
    console = None
    if args.format == "text":
        from ..render.lint import finding_text

        console = make_console()
    for _name, findings in lint_paths(files, profiles=receiver, now=now, select=select, ignore=ignore or ()):
        nfiles += 1
        every.extend(findings)
        if args.format == "text":
            for f in findings:
                console.print(finding_text(f))  # type: ignore[union-attr]
        elif args.format == "json":
            for f in findings:
                out.write(json.dumps(f.to_json(), ensure_ascii=True) + "\n")
        elif args.format == "github":
            from ..sarif import github_annotation

            for f in findings:
                out.write(github_annotation(f) + "\n")
    if args.format == "sarif":
        from ..sarif import to_sarif

        out.write(json.dumps(to_sarif(every), ensure_ascii=True, indent=2) + "\n")
    if args.format == "text":
        from ..render.lint import summary_text

        console.print(summary_text(every, nfiles))  # type: ignore[union-attr]
    return 1 if every and not args.exit_zero else 0
