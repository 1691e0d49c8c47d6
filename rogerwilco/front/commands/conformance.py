"""conformance: run the language-neutral suite against an adapter command.

The text report opens with what the harness is talking to (the handshake of
a contract-2 adapter, or "contract 1"), prints one block per failing or
errored case (id, what differs, the request, what was expected and what came
back), a line per known failure and per known failure that now passes, and
ends with the summary line ``N passed, N failed, N skipped``, errored cases
counted in brackets after it. ``--json FILE`` writes the same as a document
that matches ``conformance/report.schema.json`` (``-`` for stdout, in place
of the text). Exit status: 0 when no case failed or errored, 1 when one did,
2 when the implementation cannot be started or a case file (or a report
given to ``--check-report``) does not match its schema.

``--diff`` runs no cases: it draws requests from :mod:`rogerwilco.front.testing`
and compares this package's answers with the implementation's
(:mod:`rogerwilco.front.difftest`), exit status 1 on any disagreement.

``--agent REPLIES`` runs no adapter: it scores an agent's replies against the
agent-behaviour cases of ``--cases`` (:mod:`rogerwilco.front.agentscore`), one
line per case and a summary; exit status 0 when every case passes, 1 when
one does not, 2 when a file cannot be scored (naming the file and line).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

OPS = ("parse", "encode", "digest", "reply", "make-rb", "check-rb", "check-ho", "check-dn", "check-thread")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "conformance", help="run the conformance suite against an implementation",
        description="Run the conformance cases against an adapter command (see conformance/README.md), "
                    "or with --diff compare it with this package on generated requests.",
    )
    p.add_argument("--impl", metavar="CMD", help="the adapter command (default: this package's `rogerwilco adapter`)")
    p.add_argument("--suite", metavar="DIR", help="the case directory (default: the bundled suite)")
    p.add_argument("--run", action="append", metavar="GLOB", help="only cases whose id matches (repeatable)")
    p.add_argument("--skip", action="append", metavar="GLOB", help="skip cases whose id matches (repeatable)")
    p.add_argument("--op", action="append", metavar="OP", choices=OPS,
                   help="only requests of this op (repeatable)")
    p.add_argument("--known-failures", metavar="FILE",
                   help="ids or globs expected to fail, one per line: reported, not counted as failed")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    p.add_argument("--json", metavar="FILE", help="write a JSON report (- for stdout instead of the text report)")
    p.add_argument("--slowest", type=int, default=0, metavar="N", help="list the N slowest cases after the report")
    p.add_argument("--contract", type=int, choices=(1, 2), default=2,
                   help="2 (default): open with the start handshake; 1: drive the adapter as contract 1")
    p.add_argument("--list", action="store_true", help="list the selected case ids and stop")
    p.add_argument("--check-report", metavar="FILE", help="check a JSON report against its schema and stop")
    p.add_argument("--diff", action="store_true",
                   help="run no cases: compare the implementation with this package on generated requests")
    p.add_argument("--count", type=int, default=1000, metavar="N", help="--diff: how many requests (default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="--diff: the generator's seed (default 0)")
    p.add_argument("--show", type=int, default=20, metavar="N", help="--diff: print at most N disagreements (default 20)")
    p.add_argument("--coverage", action="store_true",
                   help="--diff: list the classes of request reached and this package's kinds of answer, by op")
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="--diff: a progress bar on stderr (auto: when stderr is a terminal)")
    p.add_argument("--agent", metavar="REPLIES",
                   help="run no adapter: score an agent's replies (JSON Lines of {\"id\", \"reply\"}) "
                        "against agent-behaviour cases")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="--agent: a JSON Lines file of agent cases, such as the reference's "
                        "tests/conformance.jsonl (repeatable; default: this package's conformance/agent/cases.jsonl)")
    p.set_defaults(func=cmd_conformance)


def _dump(value: Any) -> str:
    from ..conformance import json_text

    return json_text(value)


def describe(contract: int, hello: dict[str, Any] | None) -> str:
    """One line naming what the harness talks to."""
    if contract != 2 or not hello:
        return "implementation: contract 1 (no handshake)"
    impl = hello.get("implementation") or {}
    name = f"{impl.get('name', '?')} {impl.get('version', '?')} ({impl.get('language', '?')})"
    ops = hello.get("ops") or []
    return f"implementation: {name}, contract 2, {len(ops)} ops: {' '.join(map(str, ops))}"


def cmd_conformance(args: argparse.Namespace) -> int:
    from ..conformance import (
        Run, StartError, SuiteError, check_report, impl_command, load_suite, plain_request, read_known, select,
        stale_known,
    )

    if args.check_report:
        try:
            doc: dict[str, Any] = check_report(args.check_report)
        except SuiteError as exc:
            sys.stderr.write(f"rogerwilco conformance: {exc}\n")
            return 2
        print(f"{args.check_report}: a valid report (suite {doc['suite']}, contract {doc['contract']})")
        return 0
    if args.diff:
        return cmd_diff(args)
    if args.agent:
        return cmd_agent(args)
    try:
        suite = load_suite(Path(args.suite) if args.suite else None, raw_numbers=True)
    except SuiteError as exc:
        sys.stderr.write(f"rogerwilco conformance: {exc}\n")
        return 2
    cases = select(suite.cases, args.run, args.skip, args.op)
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
    began = time.perf_counter()
    run = Run(cases, command, timeout=args.timeout, known=known, handshake=args.contract == 2)
    try:
        run.start()
        if text_out:
            out.write(f"suite {suite.version}, {len(cases)} cases; {describe(run.contract, run.hello)}\n")
        for outcome in run:
            case = outcome.case
            counts[outcome.status] += 1
            report.append({
                "id": case.id, "status": outcome.status, "why": outcome.why, "ms": outcome.ms,
                "description": case.description, "request": plain_request(case.request),
                "expected": plain_request(case.expect),
                "got": outcome.got,
            })
            if not text_out:
                continue
            if outcome.status in ("failed", "errored"):
                out.write(f"{'FAIL' if outcome.status == 'failed' else 'ERROR'} {case.id}: {outcome.why}\n")
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
    summary = {"passed": passed, "failed": counts["failed"], "errored": counts["errored"],
               "skipped": counts["skipped"], "known": counts["known"], "fixed": counts["fixed"],
               "ms": round((time.perf_counter() - began) * 1000, 3)}
    if args.json:
        doc = {
            "report": "rw1-conformance", "suite": suite.version, "contract": run.contract, "impl": command,
            "implementation": run.hello if run.contract == 2 else None,
            "summary": summary, "stale_known_failures": stale, "cases": report,
        }
        if args.op:
            doc["ops"] = list(args.op)
        from ..conformance import json_text

        text = json_text(doc, indent=1)
        if args.json == "-":
            out.write(text + "\n")
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    if text_out:
        for pat in stale:
            out.write(f"STALE {pat}: in the known-failures file but names no selected case\n")
        if args.slowest > 0:
            for entry in sorted(report, key=lambda e: -e["ms"])[:args.slowest]:
                out.write(f"SLOW {entry['id']}: {entry['ms']:.1f} ms\n")
        extra = []
        if counts["errored"]:
            extra.append(f"{counts['errored']} errored")
        if counts["known"]:
            extra.append(f"{counts['known']} known failures")
        if counts["fixed"]:
            extra.append(f"{counts['fixed']} fixed")
        tail = f" ({', '.join(extra)})" if extra else ""
        out.write(f"{passed} passed, {counts['failed']} failed, {counts['skipped']} skipped{tail}\n")
    return 1 if counts["failed"] or counts["errored"] else 0


# ---------------------------------------------------------------- --diff

class _Bar:
    """A one-line progress bar on stderr."""

    WIDTH = 30

    def __init__(self, stream) -> None:
        self.stream = stream
        self.last = -1

    def __call__(self, done: int, total: int, disagreements: int) -> None:
        step = done * 200 // max(total, 1)
        if step == self.last and done != total:
            return
        self.last = step
        filled = done * self.WIDTH // max(total, 1)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} requests, "
                          f"{disagreements} disagreements")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def cmd_diff(args: argparse.Namespace) -> int:
    from ..conformance import StartError, impl_command, json_text
    from ..difftest import describe, run_diff, to_json

    if not args.impl:
        sys.stderr.write("rogerwilco conformance --diff: --impl CMD names the implementation to compare\n")
        return 2
    if args.count < 1:
        sys.stderr.write("rogerwilco conformance --diff: --count must be at least 1\n")
        return 2
    command = impl_command(args.impl)
    show_bar = args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty())
    try:
        report = run_diff(command, count=args.count, seed=args.seed, ops=args.op, timeout=args.timeout,
                          progress=_Bar(sys.stderr) if show_bar else None)
    except StartError as exc:
        sys.stderr.write(f"rogerwilco conformance: {exc}\n")
        return 2
    doc = to_json(report, command, args.seed)
    if args.json:
        text = json_text(doc, indent=1)
        if args.json == "-":
            sys.stdout.write(text + "\n")
            return 1 if report.disagreements else 0
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    out = sys.stdout
    for d in doc["disagreements"][: args.show]:
        kind = "CRASH" if d["crashed"] else "DISAGREE"
        out.write(f"{kind} {d['op']}: {d['why']}\n")
        out.write(f"  request:   {json_text(d['request'])}\n")
        out.write(f"  this:      {json_text(d['ours'])}\n")
        out.write(f"  theirs:    {json_text(d['theirs'])}\n")
        out.write(f"  reproduce: {d['reproducer']}\n")
    hidden = len(doc["disagreements"]) - args.show
    if hidden > 0:
        out.write(f"... and {hidden} more (--show N, or --json FILE for all)\n")
    for op, row in doc["by_op"].items():
        if any(row.values()):
            out.write(f"  {op}: {row['agreed']} agree, {row['disagreed']} disagree, {row['skipped']} skipped\n")
    if args.coverage:
        _write_coverage(out, doc["coverage"])
    out.write(f"{report.coverage.summary()}\n")
    out.write(f"diff (seed {args.seed}): {describe(report)}\n")
    return 1 if report.disagreements else 0


def _write_coverage(out, coverage: dict[str, Any]) -> None:
    """The classes of request reached, by op, then this package's answers by op."""
    from ..difftest import CLASSES

    out.write("classes of request (requests, by op):\n")
    for name, by_op in coverage["classes"].items():
        counts = ", ".join(f"{op} {n}" for op, n in sorted(by_op.items())) or "NOT REACHED"
        out.write(f"  {name}: {sum(by_op.values())} ({counts}): {CLASSES[name][1]}\n")
    out.write("answers of this package (requests, by kind):\n")
    for op, kinds in coverage["answers"].items():
        out.write(f"  {op}: {', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}\n")


# ---------------------------------------------------------------- --agent

def cmd_agent(args: argparse.Namespace) -> int:
    from ...core.display import printable
    from ..agentscore import AgentInputError, default_cases, load_cases, load_replies, score

    try:
        cases = load_cases(args.cases or [default_cases()])
        replies = load_replies(args.agent)
    except AgentInputError as exc:
        sys.stderr.write(f"rogerwilco conformance --agent: {exc}\n")
        return 2
    if not cases:
        sys.stderr.write("rogerwilco conformance --agent: the case files hold no agent case (\"kind\": \"agent\")\n")
        return 2
    out = sys.stdout
    scores = score(cases, replies)
    for s in scores:
        if s.passed:
            out.write(f"PASS {s.case.id}\n")
            continue
        out.write(f"FAIL {s.case.id}: {printable('; '.join(s.reasons))}\n")
        if s.reply is not None:
            out.write(f"  reply: {printable(s.reply)}\n")
    unknown = sorted(set(replies) - {c.id for c in cases})
    if unknown:
        out.write(f"NOTE replies to no case: {printable(', '.join(unknown))}\n")
    passed = sum(s.passed for s in scores)
    out.write(f"{passed} of {len(scores)} agent cases passed\n")
    return 0 if passed == len(scores) else 1
