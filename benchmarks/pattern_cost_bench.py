"""What one value costs against a profile pattern: the work limit per value.

For each case the script matches one value with a freshly compiled pattern
(no DFA state cached: the worst case) and prints the milliseconds it took,
the verdict (``True``, ``False``, or ``None``: refused, past
``iregexp.MAX_MATCH_STEPS`` automaton steps) and the time as a multiple of
the baseline measured in the same run: a simple pattern (clin's ``item``
shape) on a 1,000-character value.

The cases are the issue's: ``[ab]*a[ab]{999}``, within the pattern limits,
on 20,000 and 100,000 characters (3.7 s and 11.4 s each before the limit),
and the earlier probe ``(.|a)*Z`` at the same lengths.

    python benchmarks/pattern_cost_bench.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from rogerwilco.core.iregexp import MAX_MATCH_STEPS, IRegexp

BASELINE = ("[a-z][a-z0-9_-]*:[^ ]+", "a:" + "b" * 1000)
CASES = [
    ("[ab]*a[ab]{999}", "ab" * 10_000),
    ("[ab]*a[ab]{999}", "ab" * 50_000),
    ("(.|a)*Z", "a" * 20_000),
    ("(.|a)*Z", "a" * 100_000),
]


def cold(pattern: str, value: str, repeat: int) -> tuple[float, bool | None]:
    """The best of ``repeat`` matches, each on a newly compiled pattern (empty DFA cache)."""
    best, verdict = float("inf"), None
    for _ in range(repeat):
        compiled = IRegexp(pattern)
        start = time.perf_counter()
        verdict = compiled.matches(value)
        best = min(best, time.perf_counter() - start)
    return best, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base, _ = cold(*BASELINE, args.repeat)
    print(f"limit: {MAX_MATCH_STEPS:,} automaton steps per value")
    print(f"{'pattern':<24} {'length':>8} {'verdict':>8} {'ms':>8} {'x baseline':>11}")
    print(f"{BASELINE[0]:<24} {len(BASELINE[1]):>8} {'True':>8} {base * 1000:>8.3f} {1:>11.1f}")
    for pattern, value in CASES:
        took, verdict = cold(pattern, value, args.repeat)
        print(f"{pattern:<24} {len(value):>8} {str(verdict):>8} {took * 1000:>8.3f} {took / base:>11.1f}")


if __name__ == "__main__":
    main()
