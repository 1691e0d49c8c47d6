"""Endpoint throughput and the thread check's growth.

Times, in one run:

* validate: ``check_line`` over every line of a conversation (the baseline);
* endpoint (memory): a receiver's ``Endpoint`` taking each handoff, sending the
  composed readback and the DN, with the in-memory ledger;
* endpoint (SQLite): the same with a SQLite ledger (WAL, one transaction per step), with
  ``synchronous=FULL`` (the default: every step synced to disk) and ``NORMAL``;
* check_thread: the conversation replayed through one endpoint per party, at
  n and 4n handoffs, to show it grows linearly (ratio near 4);
* workers: handoffs per second (HO taken, RB and DN sent: three steps) with 1, 4
  and 16 worker processes of one agent sharing one store, each taking its share
  of the handoffs: a SQLite file, and with ``--ledger URL`` a PostgreSQL store
  beside it (every run a new agent in that store, so runs do not meet).

Prints steps per second and ratios against the baseline.

    python benchmarks/endpoint_bench.py [--handoffs 500] [--ledger postgresql://USER@HOST/DB] [--workers 1,4,16]
"""

from __future__ import annotations

import argparse
import multiprocessing
import secrets
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


def run_endpoint(handoffs: int, ledger, *, me: str = "dev", share: range | None = None) -> None:
    dev = Endpoint(me, ledger=ledger)
    for n in share or range(1, handoffs + 1):
        events = dev.receive(f"RW1 HO lead-{n} from=lead to={me} item=gh:org/app#{n} ask=FIX due=20261010")
        offered = next(e for e in events if isinstance(e, HandoffOffered))
        dev.send(offered.readback, number=True)
        dev.send(f"RW1 DN {me}-0 re=lead-{n} from={me} to=lead item=gh:org/app#{n} out=OK", number=True)


def _worker(location: str, me: str, share: range, barrier) -> None:
    barrier.wait()
    run_endpoint(0, location, me=me, share=share)


def handoffs_per_second(location: str, handoffs: int, workers: int) -> float:
    """Handoffs per second with ``workers`` processes of one new agent on the store at ``location``."""
    context = multiprocessing.get_context("fork")
    me = "dev" + secrets.token_hex(3)
    Endpoint(me, ledger=location)  # the store exists before the clock starts
    barrier = context.Barrier(workers + 1)
    procs = [context.Process(target=_worker, args=(location, me, range(1 + w, handoffs + 1, workers), barrier))
             for w in range(workers)]
    for proc in procs:
        proc.start()
    barrier.wait()
    start = time.perf_counter()
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise SystemExit(f"a worker failed (exit {proc.exitcode})")
    return handoffs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handoffs", type=int, default=500)
    parser.add_argument("--ledger", metavar="URL", help="a PostgreSQL store to time beside SQLite (postgresql://...)")
    parser.add_argument("--workers", default="1,4,16", help="the worker counts to time (default 1,4,16)")
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
    counts = [int(w) for w in args.workers.split(",")]
    print(f"workers of one agent on one store, handoffs/s ({n} handoffs, 3 steps each):")
    print("  store        " + "".join(f"{w:>10} w" for w in counts))
    with tempfile.TemporaryDirectory() as tmp:
        stores = [("SQLite FULL", str(Path(tmp) / "workers.ledger"))]
        if args.ledger:
            stores.append(("PostgreSQL", args.ledger))
        for name, location in stores:
            rates = [handoffs_per_second(location, n, w) for w in counts]
            print(f"  {name:<12} " + "".join(f"{rate:>12.0f}" for rate in rates))


if __name__ == "__main__":
    main()
