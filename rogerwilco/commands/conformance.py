"""conformance: run the language-neutral suite against an adapter command."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("conformance", help="run the conformance suite against an implementation")
    p.add_argument("--impl", metavar="CMD", help="the adapter command (default: this package's `rogerwilco adapter`)")
    p.add_argument("--suite", metavar="DIR", help="the case directory (default: the bundled suite)")
    p.add_argument("--run", action="append", metavar="GLOB", help="only cases whose id matches (repeatable)")
    p.add_argument("--skip", action="append", metavar="GLOB", help="skip cases whose id matches (repeatable)")
    p.add_argument("--known-failures", metavar="FILE", help="ids expected to fail: reported, not counted as failed")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    p.add_argument("--json", metavar="FILE", help="write a JSON report (- for stdout instead of the text report)")
    p.add_argument("--list", action="store_true", help="list the selected case ids and stop")
    p.set_defaults(func=cmd_conformance)


def cmd_conformance(args: argparse.Namespace) -> int:
    from ..conformance import impl_command, load_cases, read_known, run_cases, select

    cases = select(load_cases(Path(args.suite) if args.suite else None), args.run, args.skip)
    if args.list:
        for case in cases:
            print(case.id)
        return 0
    known = read_known(args.known_failures)
    counts: Counter[str] = Counter()
    report = []
    text_out = args.json != "-"
    for outcome in run_cases(cases, impl_command(args.impl), timeout=args.timeout, known=known):
        counts[outcome.status] += 1
        report.append({"id": outcome.case.id, "status": outcome.status, "why": outcome.why,
                       "expected": outcome.case.expect, "got": outcome.got})
        if text_out and outcome.status in ("failed", "known", "fixed"):
            label = {"failed": "FAIL", "known": "KNOWN", "fixed": "FIXED"}[outcome.status]
            print(f"{label} {outcome.case.id}: {outcome.why}")
            if outcome.status == "failed":
                print(f"  expected: {json.dumps(outcome.case.expect, ensure_ascii=False)}")
                print(f"  got:      {json.dumps(outcome.got, ensure_ascii=False)}")
    passed = counts["passed"] + counts["fixed"]
    summary = {"passed": passed, "failed": counts["failed"], "skipped": counts["skipped"], "known": counts["known"]}
    if args.json:
        doc = json.dumps({"summary": summary, "cases": report}, ensure_ascii=False, indent=1)
        if args.json == "-":
            sys.stdout.write(doc + "\n")
        else:
            Path(args.json).write_text(doc + "\n", encoding="utf-8")
    if text_out:
        extra = f" ({counts['known']} known failures)" if counts["known"] else ""
        print(f"{passed} passed, {counts['failed']} failed, {counts['skipped']} skipped{extra}")
    return 1 if counts["failed"] else 0
