"""Profile patterns: the linear-time matcher against a backtracking engine on the issue's probes.

For each probe pattern the script times, in one run:

* ``re``: Python's backtracking engine (``re.fullmatch``), on short values only,
  because its time grows exponentially (``(.|a)*Z``) or as a high power
  (``[0-9]*`` six times) with the value's length;
* ``iregexp``: ``rogerwilco.core.iregexp`` (the matcher profiles use), on the same
  short values and then on values up to 100,000 characters, warm (the lazily
  built DFA cached) and cold (plain NFA simulation, ``count_steps``, which
  also prints the states visited: the linear bound made visible).

Prints seconds per match and the ratios to the smallest size of the same run.

    python benchmarks/pattern_bench.py [--short 12,14,16,18] [--long 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import re
import time

from rogerwilco.core import iregexp

PROBES = [("(.|a)*Z", "a"), ("[0-9]*[0-9]*[0-9]*[0-9]*[0-9]*[0-9]*x", "1"), ("[a-z][a-z0-9_-]*:[^ ]+", "b")]


def best(fn, repeat: int = 3) -> float:
    out = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", default="12,14,16,18")
    parser.add_argument("--long", default="1000,10000,100000")
    args = parser.parse_args()
    short = [int(n) for n in args.short.split(",")]
    long = [int(n) for n in args.long.split(",")]
    for pattern, char in PROBES:
        compiled = iregexp.compile(pattern)
        native = re.compile(pattern, re.DOTALL)
        print(f"\n{pattern}  ({compiled.states} automaton states)")
        print(f"{'length':>8} {'re s':>10} {'x re':>8} {'iregexp s':>10} {'x ire':>7} {'cold s':>9} {'steps':>9}")
        base_re = base_ire = None
        for n in short + long:
            value = char * n
            if n in short:
                t_re = best(lambda: native.fullmatch(value), 1)
                base_re = base_re or t_re
                re_cols = f"{t_re:>10.5f} {t_re / base_re:>8.1f}"
            else:
                re_cols = f"{'-':>10} {'-':>8}"
            compiled.fullmatch(value)  # warm the DFA cache
            t_ire = best(lambda: compiled.fullmatch(value))
            base_ire = base_ire or t_ire
            t_cold = best(lambda: compiled.count_steps(value), 1)
            steps = compiled.count_steps(value)[1]
            print(f"{n:>8} {re_cols} {t_ire:>10.6f} {t_ire / base_ire:>7.0f} {t_cold:>9.4f} {steps:>9}")


if __name__ == "__main__":
    main()
