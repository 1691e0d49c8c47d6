"""Endpoint throughput and the thread check's growth.

Times, in one run:

* validate: ``check_line`` over every line of a conversation (the baseline);
* endpoint (memory): a receiver's ``Endpoint`` taking each handoff, sending the
  composed readback and the DN, with the in-memory ledger;
* endpoint (SQLite): the same with a SQLite ledger (WAL, one transaction per step), with
  ``synchronous=FULL`` (the default: every step synced to disk) and ``NORMAL``;
* check_thread: the conversation replayed through one endpoint per party, at
  n and 4n handoffs, to show it grows linearly (ratio near 4).

Prints steps per second and ratios against the baseline.

    python benchmarks/endpoint_bench.py [--handoffs 500]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rogerwilco import Endpoint, check_line
from rogerwilco.checks.endpoint import HandoffOffered
from rogerwilco.checks.ledger import SQLiteLedger
from rogerwilco.checks.thread import check_thread


def conversation(handoffs: int) -> list[str]:
    lines = []
    for n in range(1, handoffs + 1):
        item = f"gh:org/app#{n}"
        lines += [f"RW1 HO lead-{n} from=lead to=dev item={item} ask=FIX due=20261010",
                  f"RW1 RB dev-{2 * n - 1} re=lead-{n} from=dev to=lead item={item} ask=FIX due=20261010",
                  f"RW1 DN dev-{2 * n} re=lead-{n} from=dev to=lead item={item} out=OK"]
    return lines


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run_endpoint(handoffs: int, ledger) -> None:
    dev = Endpoint("dev", ledger=ledger)
    for n in range(1, handoffs + 1):
        events = dev.receive(f"RW1 HO lead-{n} from=lead to=dev item=gh:org/app#{n} ask=FIX due=20261010")
        offered = next(e for e in events if isinstance(e, HandoffOffered))
        dev.send(offered.readback, number=True)
        dev.send(f"RW1 DN dev-0 re=lead-{n} from=dev to=lead item=gh:org/app#{n} out=OK", number=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handoffs", type=int, default=500)
    args = parser.parse_args()
    n = args.handoffs
    lines = conversation(n)
    base = timed(lambda: [check_line(line) for line in lines])
    memory = timed(lambda: run_endpoint(n, None))
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = timed(lambda: run_endpoint(n, SQLiteLedger(Path(tmp) / "full.ledger")))
        normal = timed(lambda: run_endpoint(n, SQLiteLedger(Path(tmp) / "normal.ledger", synchronous="NORMAL")))
    small = timed(lambda: check_thread(lines, now="20261001T0000Z"))
    big_lines = conversation(4 * n)
    big = timed(lambda: check_thread(big_lines, now="20261001T0000Z"))
    steps = 3 * n
    print(f"handoffs: {n} ({steps} lines)")
    print(f"validate (baseline)   {steps / base:10.0f} lines/s")
    print(f"endpoint, memory      {steps / memory:10.0f} steps/s   {memory / base:6.1f}x the baseline's time")
    print(f"endpoint, SQLite FULL {steps / sqlite:10.0f} steps/s   {sqlite / base:6.1f}x the baseline's time")
    print(f"endpoint, SQLite NORMAL {steps / normal:8.0f} steps/s   {normal / base:6.1f}x the baseline's time")
    print(f"check_thread n        {steps / small:10.0f} lines/s   {small / base:6.1f}x the baseline's time")
    print(f"check_thread 4n       {4 * steps / big:10.0f} lines/s   time ratio 4n/n = {big / small:.2f} (linear: 4)")


if __name__ == "__main__":
    main()
