"""Cold start: what an agent pays on every call of the CLI.

Times, as medians of interleaved runs (bytecode cached, one warm-up run each):

* ``python -c pass``: the interpreter alone (the baseline);
* ``python -c "import rogerwilco"``: the library's import;
* ``rogerwilco validate`` of a one-line file, valid and refused;
* ``rogerwilco --version`` (the row ``--version``).

Prints milliseconds for each (wall clock, and CPU time of the child, which a
loaded machine disturbs far less), the difference from the baseline, and which
heavy modules the valid-line run imported (Lark should not be among them).

    python benchmarks/startup.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

VALID = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2\n"
REFUSED = "RW1 HO research-01 from=research  to=writer item=gh:crox/site#42 ask=DRAFT\n"


def commands(valid: str, refused: str) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "python -c pass": [py, "-c", "pass"],
        "import rogerwilco": [py, "-c", "import rogerwilco"],
        "--version": [py, "-m", "rogerwilco", "--version"],
        "validate (valid line)": [py, "-m", "rogerwilco", "validate", valid],
        "validate (refused line)": [py, "-m", "rogerwilco", "validate", refused],
    }


# Bytecode cached, as on an installed package: PYTHONDONTWRITEBYTECODE is
# dropped so the warm-up run writes it (an environment that sets it would
# otherwise time compiling every module on every run).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "NO_COLOR": "1"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(argv: list[str]) -> tuple[float, float]:
    """(wall-clock ms, CPU ms) of one run. On a loaded machine the CPU time
    (user + system, of the child) moves far less than the wall clock."""
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return (time.perf_counter() - start) * 1000, (_children_cpu() - cpu) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        valid, refused = os.path.join(tmp, "valid.rw1"), os.path.join(tmp, "refused.rw1")
        with open(valid, "w", encoding="utf-8") as fh:
            fh.write(VALID)
        with open(refused, "w", encoding="utf-8") as fh:
            fh.write(REFUSED)
        cmds = commands(valid, refused)
        for argv in cmds.values():  # warm-up: bytecode written, files cached
            time_once(argv)
        samples: dict[str, list[float]] = {name: [] for name in cmds}
        cpu: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(args.runs):  # interleaved, so load changes touch every command alike
            for name, argv in cmds.items():
                wall, used = time_once(argv)
                samples[name].append(wall)
                cpu[name].append(used)
        probe = subprocess.run([sys.executable, "-c",
                                "import sys, runpy; sys.argv=['rogerwilco','validate',%r]\n"
                                "try:\n    runpy.run_module('rogerwilco', run_name='__main__')\n"
                                "except SystemExit:\n    pass\n"
                                "heavy=[m for m in ('lark','rich','attrs','sqlite3','pyarrow','asyncio') if m in sys.modules]\n"
                                "print(','.join(heavy), file=sys.stderr)" % valid],
                               capture_output=True, text=True, env=ENV)
    base = statistics.median(samples["python -c pass"])
    cpu_base = statistics.median(cpu["python -c pass"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cold start, median of {args.runs} interleaved runs (load average {load:.2f})")
    print(f"{'command':28} {'ms':>8} {'- python':>9} {'cpu ms':>8} {'- python':>9}")
    for name, values in samples.items():
        median, used = statistics.median(values), statistics.median(cpu[name])
        print(f"{name:28} {median:8.1f} {median - base:9.1f} {used:8.1f} {used - cpu_base:9.1f}")
    valid, refused = statistics.median(samples["validate (valid line)"]), statistics.median(samples["validate (refused line)"])
    print(f"validate of one valid line: {valid:.1f} ms (goal <= 80 ms); refused / valid: {refused / valid:.2f}")
    print(f"imported by validate (valid line): {probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
