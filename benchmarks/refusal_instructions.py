"""Instructions a refused line costs through ``rogerwilco.loads``, per kind of refusal, against the same lines valid.

The kinds are ``parse_bench.py``'s (an unknown code, a missing slot, a bad value, an id that is not
``<from>-<n>``, a profile rule), each made from its own line of the realistic corpus, so the values vary as
the corpus's do. Each count is valgrind's callgrind over a run with two passes less a run with one, divided by
the lines: instructions a line, which no load on the machine moves (the times ``parse_bench.py`` prints do).

    python benchmarks/refusal_instructions.py [--lines 1000] [--kinds "unknown code,profile rule"]

Needs valgrind. Run it in another tree (``PYTHONPATH=/other/tree``) to compare two versions.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import parse_bench  # noqa: E402 - beside this script


def _lines(kind: str, which: str, size: int) -> list[str]:
    from rogerwilco import Receiver

    receiver = Receiver.load(["pay"])
    lines = parse_bench.corpora(["realistic"], size, False)["realistic"]
    valid, broken = parse_bench.refused_kinds(receiver, lines)[kind]
    return valid if which == "valid" else broken


def child(kind: str, which: str, size: int, passes: int) -> None:
    import rogerwilco
    from rogerwilco import Receiver

    receiver = Receiver.load(["pay"])
    items = _lines(kind, which, size)
    for _ in range(1 + passes):
        for line in items:
            try:
                rogerwilco.loads(line, receiver)
            except rogerwilco.RW1Error:
                pass


def instructions(kind: str, which: str, size: int, passes: int) -> int:
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
            "--lines", str(size), "--child", f"{kind}|{which}|{passes}"]
    proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"valgrind failed on {kind} ({which}): {proc.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1000, help="realistic corpus lines each kind is made from")
    parser.add_argument("--kinds", default=",".join(parse_bench.REFUSED_KINDS),
                        help="comma-separated kinds (default: all of parse_bench.py's)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, which, passes = args.child.split("|")
        child(kind, which, args.lines, int(passes))
        return
    import rogerwilco.speedups as speedups

    print(f"rogerwilco.speedups: {speedups.active}; C scanner: {'built' if speedups.scanning else speedups.scan_reason}; "
          f"instructions a line through rogerwilco.loads (callgrind, two passes less one)")
    for kind in args.kinds.split(","):
        n = len(_lines(kind, "broken", args.lines))
        valid = (instructions(kind, "valid", args.lines, 2) - instructions(kind, "valid", args.lines, 1)) / n
        broken = (instructions(kind, "broken", args.lines, 2) - instructions(kind, "broken", args.lines, 1)) / n
        print(f"{kind:20s} valid {valid:9,.0f}  refused {broken:9,.0f}  {broken / valid:5.2f}x  ({n} lines)", flush=True)


if __name__ == "__main__":
    main()
