"""lint against validate: CPU per line on the same conversation, as a stream and inside a log.

The conversation is thread_bench's (handoffs between 40 pairs of agents, read
back and finished, re-sends, re-issues, questions, cancels; under
benchmarks/_data/, made once per size and reused), written as an RW1 stream
and as a log (each message after a timestamp and a level: lint's embedded
mode). Each command runs in a fresh process, its output to /dev/null, and
reports the CPU time of the command (user + system, ``getrusage``, from the
call of the CLI's ``main`` to its return: the interpreter's start-up is left
out, what the command imports is counted); the figures are CPU
microseconds per line and the ratio of each lint to ``validate`` of the same
stream, measured in the same run (the goal: lint at most 1.5 x validate).
Most of a stream that lint reads takes its accept path (every message a step
of a plain thread: ``rogerwilco/checks/_plain.py``); so does this
conversation. ``lint (stream, one HO off the plain steps at its end)`` is
the same stream with one more handoff at its end, asking ``rb=all`` (every
change echoed before the act), a step the accept path does not follow: lint
reads the whole stream on the accept path, then again the full way (its
worst case: the cost of the full pass, plus one read). ``check-thread`` of the stream (its JSON report to /dev/null) is measured
beside them: it reads the stream as lint does, one parse a line, then walks
the threads; ``parse`` of the stream (each line's JSON form as JSON
Lines), which reads a long input through the batch path; and ``encode`` of
those JSON forms back to lines (made once by ``parse`` and kept beside the
stream).

Usage: python benchmarks/lint_bench.py [--lines 300000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("thread_bench", HERE / "thread_bench.py")
assert _spec is not None and _spec.loader is not None
thread_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(thread_bench)

CHILD = r"""
import json, os, resource, sys
from rogerwilco.front.cli import main
argv = sys.argv[1:]
before = resource.getrusage(resource.RUSAGE_SELF)
saved = os.dup(1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
try:
    code = main(argv)
finally:
    sys.stdout.flush()
    os.dup2(saved, 1)
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime  # the command's, not the start-up's
print(json.dumps({"cpu": cpu, "code": code}))
"""


def cpu_seconds(*argv: str) -> float:
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["cpu"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=300_000, help="lines of the conversation (default 300000)")
    args = parser.parse_args()
    stream = thread_bench.data_file(args.lines)
    log = thread_bench.log_file(args.lines)
    lines = sum(1 for _ in open(stream, "rb"))
    runs = {
        "validate (stream)": ("validate", "--quiet", str(stream)),
        "lint (stream)": ("lint", "--isolated", "--exit-zero", str(stream)),
        "lint (log)": ("lint", "--isolated", "--exit-zero", str(log)),
        "check-thread (stream)": ("check-thread", "--now", "20261003T0900Z", "--format", "json", str(stream)),
        "parse (stream)": ("parse", str(stream)),
    }
    off = stream.with_name(stream.stem + "-off.rw1")
    if not off.exists():
        a, b = "lead0", "dev0"
        tail = (f"RW1 HO {a}-999999 from={a} to={b} item=jira:OFF-1 ask=FIX rb=all\n"
                f"RW1 RB {b}-999999 re={a}-999999 from={b} to={a} item=jira:OFF-1 ask=FIX\n"
                f"RW1 DN {b}-1000000 re={a}-999999 from={b} to={a} item=jira:OFF-1 out=OK\n")
        tmp = off.with_suffix(".tmp")
        tmp.write_bytes(stream.read_bytes() + tail.encode())
        tmp.replace(off)
    runs["lint (stream, one HO off the plain steps at its end)"] = ("lint", "--isolated", "--exit-zero", str(off))
    forms = stream.with_suffix(".jsonl")
    if not forms.exists():
        with open(forms, "wb") as out:
            subprocess.run([sys.executable, "-m", "rogerwilco", "parse", str(stream)], stdout=out, check=True)
    runs["encode (JSON forms)"] = ("encode", str(forms))
    figures = {name: cpu_seconds(*argv) for name, argv in runs.items()}
    base = figures["validate (stream)"]
    print(f"{lines} lines, CPU per line (user + system, one process each):")
    for name, seconds in figures.items():
        print(f"  {name:<52} {seconds:8.2f} s  {seconds / lines * 1e6:8.1f} us/line  x{seconds / base:.2f} validate",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
