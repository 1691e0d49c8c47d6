"""Parse throughput: full parse + validation against the Lark path and json.loads.

Builds a mixed corpus (all nine types, core and pay profile lines, tails on
some), then times, in one run and on the same messages:

* full:  rogerwilco.check_line -> a validated Message (the fast path derived
         from the grammar, falling back to Lark only for rejects);
* lark:  the Lark LALR parser alone on the same lines (syntax only);
* json:  stdlib json.loads of the same messages' JSON forms (the baseline).

Prints lines per second for each and the ratio full / json.

    python benchmarks/parse_bench.py [--lines 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from rogerwilco import Receiver, check_line
from rogerwilco.core.syntax import lark_parser

TEMPLATES = [
    "RW1 HO {a}-{n} from={a} to={b} item=gh:crox/site#{n} ask=DRAFT due=20261002 pri=2 conf=M keep={a} // hero copy, 120 words, no em dashes",
    "RW1 RB {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} ask=DRAFT due=20261002 h=c40bba4360dc",
    "RW1 AQ {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} need=ENUM opts=formal+plain+punchy // tone?",
    "RW1 AN {a}-{n} re={b}-{n} from={a} to={b} val=plain",
    "RW1 ST {b}-{n} from={b} to={a} item=jira:OPS-{n} pct=40 eta=20261003",
    "RW1 DN {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} out=OK art=sha256:9f3e1c // v1, 118 words",
    "RW1 UN {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} why=NOCTX alt=copywriter // no style guide on file",
    "RW1 FL {b}-{n} re={a}-{n} from={b} to={a} item=jira:OPS-{n} why=ERR retry=Y art=file:logs/run.txt",
    "RW1 CX {a}-{n} re={a}-{m} from={a} to={b} item=jira:OPS-{n} why=SUPERSEDED",
    "RW1 HO {a}-{n} p=pay from={a} to={b} item=inv:MD-2026-{n} ask=PAY rb=exec sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-{n} apref=FD-0929",
    "RW1 RB {b}-{n} re={a}-{n} from={b} to={a} item=inv:MD-2026-{n} ask=PAY p=pay h=a7a82de76607 sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-{n} apref=FD-0929",
    "RW1 ST {b}-{n} p=pay from={b} to={a} item=inv:MD-2026-{n} amt=120.00 net=100.00 vat=20.00 cur=GBP kind=GROSS src=email:7+bank:20260918",
]


def corpus(size: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    agents = ["research", "writer", "scheduler", "payer", "ops", "builder", "triage"]
    lines = []
    for i in range(size):
        a, b = rng.sample(agents, 2)
        lines.append(rng.choice(TEMPLATES).format(a=a, b=b, n=i + 1, m=i))
    return lines


def best_rate(fn, items, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    receiver = Receiver.load(["pay"])
    lines = corpus(args.lines)
    results = [check_line(line, receiver) for line in lines]
    assert all(r.message is not None for r in results), "corpus must be valid"
    forms = [json.dumps(r.message.to_json()) for r in results]
    lark = lark_parser()

    def full(items):
        for line in items:
            check_line(line, receiver)

    def lark_only(items):
        for line in items:
            lark.parse(line)

    def json_only(items):
        for text in items:
            json.loads(text)

    full_rate = best_rate(full, lines, args.repeat)
    lark_rate = best_rate(lark_only, lines, max(1, args.repeat // 2))
    json_rate = best_rate(json_only, forms, args.repeat)
    mean_len = sum(map(len, lines)) / len(lines)
    print(f"corpus: {len(lines)} lines, 9 types, core + pay, mean {mean_len:.0f} chars")
    print(f"{'path':<34}{'lines/s':>12}{'us/line':>10}{'vs json':>10}")
    for name, rate in (("full parse + validation (Message)", full_rate), ("Lark LALR alone (syntax only)", lark_rate),
                       ("json.loads of the JSON forms", json_rate)):
        print(f"{name:<34}{rate:>12,.0f}{1e6 / rate:>10.2f}{rate / json_rate:>9.2f}x")
    print(f"ratio full / json.loads: {full_rate / json_rate:.2f} (goal >= 0.25)")
    print(f"ratio full / Lark alone: {full_rate / lark_rate:.2f}")


if __name__ == "__main__":
    main()
