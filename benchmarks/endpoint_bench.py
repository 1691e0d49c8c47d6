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
  and 16 worker processes sharing one store, each taking its share of the
  handoffs: as processes of one agent (behind one queue), and as one agent each
  (a fleet's agents in one database). On a SQLite file, and with ``--ledger URL``
  on a PostgreSQL store beside it (every run new agents in that store, so runs
  do not meet). ``--hosts`` runs the PostgreSQL store on a server of its own
  (fsync on) in a network namespace, every worker on a host of its own (a
  namespace joined to the server's by a veth pair, tests/netns.py): it needs
  root, and makes and removes the namespaces itself.

Prints steps per second and ratios against the baseline.

    python benchmarks/endpoint_bench.py [--handoffs 500] [--ledger postgresql://USER@HOST/DB | --hosts]
        [--workers 1,4,16]
"""

from __future__ import annotations

import argparse
import multiprocessing
import secrets
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

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


def _worker(location: str, me: str, share: range, barrier, host: tuple[str, int] | None) -> None:
    if host is not None:  # on a host of its own, reaching the server over its own link
        from tests.netns import enter, on

        enter(host[0])
        location = on(host[1], location)
    barrier.wait()
    run_endpoint(0, location, me=me, share=share)


def handoffs_per_second(location: str, handoffs: int, workers: int, *, agents: bool = False,
                        hosts: list[str] | None = None) -> float:
    """Handoffs per second with ``workers`` processes on the store at ``location``: of one new agent, or with
    ``agents`` one new agent each; with ``hosts``, worker ``w`` on ``hosts[w]``."""
    context = multiprocessing.get_context("fork")
    team = "dev" + secrets.token_hex(3)
    names = [f"{team}w{w}" if agents else team for w in range(workers)]
    for me in set(names):
        Endpoint(me, ledger=location)  # the store exists before the clock starts
    barrier = context.Barrier(workers + 1)
    procs = [context.Process(target=_worker, args=(location, names[w], range(1 + w, handoffs + 1, workers), barrier,
                                                   (hosts[w], w + 1) if hosts else None))
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


@contextmanager
def postgres_on_hosts(workers: int) -> Iterator[tuple[str, list[str]]]:
    """A PostgreSQL server (fsync on, as SQLite FULL syncs) in a namespace, and a host per worker."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.netns import NoNamespaces, network

    try:
        with network(workers, fsync=True) as (_, url, hosts):
            yield url, hosts
    except NoNamespaces as exc:
        raise SystemExit(f"--hosts: {exc}") from None


def workers_table(n: int, counts: list[int], ledger: str | None, hosts: list[str] | None) -> None:
    print(f"workers on one store, handoffs/s ({n} handoffs, 3 steps each):")
    print("  store                           " + "".join(f"{w:>10} w" for w in counts))
    with tempfile.TemporaryDirectory() as tmp:
        stores = [("SQLite FULL", str(Path(tmp) / "workers.ledger"), None)]
        if ledger:
            stores.append(("PostgreSQL" + (", hosts" if hosts else ""), ledger, hosts))
        for name, location, on_hosts in stores:
            for agents in (False, True):
                rates = [handoffs_per_second(location, n, w, agents=agents, hosts=on_hosts) for w in counts]
                label = f"{name}, {'an agent each' if agents else 'one agent'}"
                print(f"  {label:<31} " + "".join(f"{rate:>12.0f}" for rate in rates))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handoffs", type=int, default=500)
    parser.add_argument("--ledger", metavar="URL", help="a PostgreSQL store to time beside SQLite (postgresql://...)")
    parser.add_argument("--hosts", action="store_true",
                        help="time PostgreSQL on a server and workers in network namespaces of their own (root)")
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
    if args.hosts:
        with postgres_on_hosts(max(counts)) as (url, hosts):
            workers_table(n, counts, url, hosts)
    else:
        workers_table(n, counts, args.ledger, None)

if __name__ == "__main__":
    main()
