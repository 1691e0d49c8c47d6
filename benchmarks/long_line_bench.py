"""One long line: the never-guess pass stays linear in the line's length.

The line that once took 35 s in ``validate``: ``RW1 HO ...`` followed by
thousands of repeated ``a=1`` keys (every repeat a finding), and its twin
with as many distinct unknown keys (every key a note). For each size the
script times ``check_line`` and prints seconds, microseconds per slot and the
ratio of time to the smallest size measured in the same run: a linear pass
gives a ratio close to the ratio of sizes (x16 for 16 times the slots), a
quadratic one the square of it. It also renders the ``validate`` report of
the largest line and prints its size, which grows with the number of
findings (a window of the line around each caret), not with findings x
length.

    python benchmarks/long_line_bench.py [--sizes 1000,2000,4000,8000,16000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import time

from rogerwilco import check_line
from rogerwilco.front.render import make_console
from rogerwilco.front.render.lines import finding_text

HEAD = "RW1 HO a-1 from=a to=b item=x ask=FIX "


def timed(line: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        check_line(line)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,4000,8000,16000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    shapes = {
        "repeated a=1": lambda n: HEAD + " ".join(["a=1"] * n),
        "distinct keys": lambda n: HEAD + " ".join(f"k{i}=1" for i in range(n)),
    }
    print(f"{'shape':<14} {'slots':>6} {'bytes':>8} {'seconds':>8} {'us/slot':>8} {'x time':>7} {'x size':>7}")
    for name, make in shapes.items():
        base = None
        for n in sizes:
            line = make(n)
            seconds = timed(line, args.repeat)
            base = base or seconds
            print(f"{name:<14} {n:>6} {len(line.encode()):>8} {seconds:>8.3f} {seconds / n * 1e6:>8.2f} "
                  f"{seconds / base:>7.1f} {n / sizes[0]:>7.1f}")
    line = shapes["repeated a=1"](sizes[-1])
    result = check_line(line, line_number=1)
    buf = io.StringIO()
    console = make_console(buf, width=200, color=False)
    start = time.perf_counter()
    for finding in result.findings:
        console.print(finding_text(result, finding, "big.rw1"))
    seconds = time.perf_counter() - start
    print(f"validate report of the {len(line.encode())}-byte line: {len(result.findings)} findings, "
          f"{len(buf.getvalue())} characters, {seconds:.2f} s to render "
          f"({len(buf.getvalue()) / len(result.findings):.0f} characters per finding)")


if __name__ == "__main__":
    main()
