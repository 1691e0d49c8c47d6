"""check-thread and lint over long conversations: time and peak memory by size.

Generates a conversation of N lines (written under benchmarks/_data/, made
once per size and reused): handoffs between 40 pairs of agents that read
back and finish, re-sends answered ``UN why=DUP``, re-issues after a void
readback, questions and answers, cancels answered ``AN val=Y``, and a share
of handoffs left open. Each measurement runs in a fresh process, which
reports its own wall time and peak RSS (``ru_maxrss``); every figure is
printed with its ratio against the smallest size measured in the same run.
Linear time means the time ratio follows the size ratio; flat memory means
peak RSS stays near the interpreter's own plus what the open handoffs need.

``cli`` is the ``check-thread`` command (its report written as JSON to
/dev/null): working state and report on disk, memory flat. ``thread`` is the
``check_thread`` function, whose report is an object in memory, ``lint``
the ``lint`` of the same file, and ``lint-log`` the ``lint`` of the same
conversation inside a log (each message after a timestamp: embedded mode).

``--items 1`` makes every handoff about one item (a long-lived item handed
on again and again): the handoffs still touch nothing else, so the memory
is the same.

Usage: python benchmarks/thread_bench.py [--sizes 20000,300000] [--what cli,thread,lint] [--items N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
PAIRS = 40


def conversation(lines: int, items: int = 0):
    """The lines of a conversation, in the order they were sent; about ``items`` items (0: one per handoff)."""
    numbers: dict[str, int] = {}

    def nid(agent: str) -> str:
        numbers[agent] = numbers.get(agent, 0) + 1
        return f"{agent}-{numbers[agent]}"

    written, k = 0, 0
    while written < lines:
        a, b = f"lead{k % PAIRS}", f"dev{k % PAIRS}"
        item = f"jira:OPS-{k % items if items else k}"
        env = f"from={a} to={b} item={item}"
        back = f"from={b} to={a} item={item}"
        ho = nid(a)
        head = f"RW1 HO {ho} {env} ask=FIX due=20261010"
        kind = k % 8
        unit = [head]
        if kind == 0:  # re-send answered UN why=DUP
            rb = nid(b)
            unit.append(f"RW1 RB {rb} re={ho} {back} ask=FIX due=20261010")
            again = nid(a)
            unit.append(f"RW1 HO {again} re={ho} {env} ask=FIX due=20261010")
            unit.append(f"RW1 UN {nid(b)} re={again} {back} why=DUP")
            unit.append(f"RW1 DN {nid(b)} re={ho} {back} out=OK")
        elif kind == 1:  # void readback, re-issue
            rb = nid(b)
            unit.append(f"RW1 RB {rb} re={ho} {back} ask=TEST due=20261010")
            again = nid(a)
            unit.append(f"RW1 HO {again} re={rb} {env} ask=FIX due=20261010")
            unit.append(f"RW1 RB {nid(b)} re={again} {back} ask=FIX due=20261010")
            unit.append(f"RW1 DN {nid(b)} re={again} {back} out=OK")
        elif kind == 2:  # a question on the way
            unit.append(f"RW1 RB {nid(b)} re={ho} {back} ask=FIX due=20261010")
            aq = nid(b)
            unit.append(f"RW1 AQ {aq} re={ho} {back} need=ENUM opts=a+b // which?")
            unit.append(f"RW1 AN {nid(a)} re={aq} from={a} to={b} val=a")
            unit.append(f"RW1 DN {nid(b)} re={ho} {back} out=OK")
        elif kind == 3:  # cancelled
            cx = nid(a)
            unit.append(f"RW1 CX {cx} re={ho} {env} why=REVOKED")
            unit.append(f"RW1 AN {nid(b)} re={cx} from={b} to={a} val=Y")
        elif kind == 4:  # left open, read back
            unit.append(f"RW1 RB {nid(b)} re={ho} {back} ask=FIX due=20261010")
        else:
            unit.append(f"RW1 RB {nid(b)} re={ho} {back} ask=FIX due=20261010")
            unit.append(f"RW1 DN {nid(b)} re={ho} {back} out=OK")
        for line in unit[: lines - written]:
            yield line
        written += len(unit)
        k += 1


def data_file(lines: int, items: int = 0) -> Path:
    DATA.mkdir(exist_ok=True)
    path = DATA / (f"thread-{lines}.rw1" if not items else f"thread-{lines}-items{items}.rw1")
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            for line in conversation(lines, items):
                out.write(line + "\n")
        tmp.replace(path)
    return path


CHILD = r"""
import json, resource, sys, time
what, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if what == "thread":
    from rogerwilco.checks.thread import check_thread
    with open(path, encoding="utf-8") as fh:
        report = check_thread(fh, now="20261003T0900Z")
    count = len(report.findings)
elif what == "cli":
    import os
    from rogerwilco.front.cli import main
    saved = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    try:
        code = main(["check-thread", "--now", "20261003T0900Z", "--format", "json", path])
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
    count = f"exit {code}"  # the report went to /dev/null
else:  # lint, or lint-log: the conversation inside a log (lint's embedded mode, chosen by the file's name)
    from rogerwilco.io.lint import lint_stream
    with open(path, "rb") as fh:
        count = len(lint_stream(fh, file=path, now="20261003T0900Z"))
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "findings": count}))
"""


def log_file(lines: int, items: int = 0) -> Path:
    """The conversation of :func:`data_file` inside a log: each message after a timestamp and a level."""
    source = data_file(lines, items)
    path = source.with_suffix(".log")
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        with open(source, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8") as out:
            for n, line in enumerate(src):
                out.write(f"2026-10-02T14:{n // 60 % 60:02}:{n % 60:02}Z INFO sent {line}")
        tmp.replace(path)
    return path


def measure(what: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, what, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,300000", help="comma-separated line counts (first is the baseline)")
    parser.add_argument("--items", type=int, default=0,
                        help="handoffs about this many items in turn (default 0: an item of its own for each)")
    parser.add_argument("--what", default="cli,thread,lint",
                        help="cli (the check-thread command, report on disk), thread (check_thread, report in "
                             "memory), lint, lint-log (a log holding the conversation); comma-separated")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for what in args.what.split(","):
        base = None
        print(f"{what}:")
        for size in sizes:
            figures = measure(what, (log_file if what == "lint-log" else data_file)(size, args.items))
            if base is None:
                base = (size, figures)
            n0, f0 = base
            print(f"  {size:>8} lines  {figures['seconds']:8.2f} s  peak {figures['peak_mib']:7.1f} MiB  "
                  f"findings {figures['findings']!s:>7}  | x{size / n0:.1f} lines: time x{figures['seconds'] / f0['seconds']:.1f}, "
                  f"memory x{figures['peak_mib'] / f0['peak_mib']:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
