"""conformance: run the language-neutral suite against an adapter command.

The text report prints one block per failing case (id, what differs, the
request, what was expected and what came back), a line per known failure
and per known failure that now passes, and ends with the summary line
``N passed, N failed, N skipped``. ``--json FILE`` writes the same as a
document (``-`` for stdout, in place of the text). Exit status: 0 when no
case failed, 1 when one did, 2 when the implementation cannot be started.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "conformance", help="run the conformance suite against an implementation",
        description="Run the conformance cases against an adapter command (see conformance/README.md).",
    )
    p.add_argument("--impl", metavar="CMD", help="the adapter command (default: this package's `rogerwilco adapter`)")
    p.add_argument("--suite", metavar="DIR", help="the case directory (default: the bundled suite)")
    p.add_argument("--run", action="append", metavar="GLOB", help="only cases whose id matches (repeatable)")
    p.add_argument("--skip", action="append", metavar="GLOB", help="skip cases whose id matches (repeatable)")
    p.add_argument("--known-failures", metavar="FILE",
                   help="ids or globs expected to fail, one per line: reported, not counted as failed")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    p.add_argument("--json", metavar="FILE", help="write a JSON report (- for stdout instead of the text report)")
    p.add_argument("--list", action="store_true", help="list the selected case ids and stop")
    p.set_defaults(func=cmd_conformance)


def _dump(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def cmd_conformance(args: argparse.Namespace) -> int:
    from ..conformance import StartError, impl_command, load_cases, read_known, run_cases, select, stale_known

    cases = select(load_cases(Path(args.suite) if args.suite else None), args.run, args.skip)
    if args.list:
        for case in cases:
            print(case.id)
        return 0
    known = read_known(args.known_failures)
    command = impl_command(args.impl)
    counts: Counter[str] = Counter()
    report = []
    text_out = args.json != "-"
    out = sys.stdout
    try:
        for outcome in run_cases(cases, command, timeout=args.timeout, known=known):
            case = outcome.case
            counts[outcome.status] += 1
            report.append({
                "id": case.id, "status": outcome.status, "why": outcome.why, "description": case.description,
                "request": case.request, "expected": case.expect, "got": outcome.got,
            })
            if not text_out:
                continue
            if outcome.status == "failed":
                out.write(f"FAIL {case.id}: {outcome.why}\n")
                if case.description:
                    out.write(f"  case:     {case.description}\n")
                out.write(f"  request:  {_dump(case.request)}\n")
                out.write(f"  expected: {_dump(case.expect)}\n")
                out.write(f"  got:      {_dump(outcome.got)}\n")
            elif outcome.status == "known":
                out.write(f"KNOWN {case.id}: {outcome.why}\n")
            elif outcome.status == "fixed":
                out.write(f"FIXED {case.id}: listed as a known failure, now passes\n")
    except StartError as exc:
        sys.stderr.write(f"rogerwilco conformance: {exc}\n")
        return 2
    stale = stale_known(cases, known)
    passed = counts["passed"] + counts["fixed"]
    summary = {"passed": passed, "failed": counts["failed"], "skipped": counts["skipped"],
               "known": counts["known"], "fixed": counts["fixed"]}
    if args.json:
        doc = {"impl": command, "summary": summary, "stale_known_failures": stale, "cases": report}
        text = json.dumps(doc, ensure_ascii=False, indent=1)
        if args.json == "-":
            out.write(text + "\n")
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    if text_out:
        for pat in stale:
            out.write(f"STALE {pat}: in the known-failures file but names no selected case\n")
        extra = []
        if counts["known"]:
            extra.append(f"{counts['known']} known failures")
        if counts["fixed"]:
            extra.append(f"{counts['fixed']} fixed")
        tail = f" ({', '.join(extra)})" if extra else ""
        out.write(f"{passed} passed, {counts['failed']} failed, {counts['skipped']} skipped{tail}\n")
    return 1 if counts["failed"] else 0
