"""Cold start: what an agent pays on every call of the CLI.

Times, as medians of interleaved runs (bytecode cached, one warm-up run each):

* ``python -c pass``: the interpreter alone (the baseline);
* ``python -c "import attrs"``: the floor the package stands on (attrs, its data-class library, imports
  ``typing``, ``inspect`` and ``platform``);
* ``python -c "import rogerwilco"``: the library's import;
* a program's first ``rogerwilco.loads`` of a valid line (the row ``first
  loads``): the import, then the accept path (and the C scanner where it is
  built) bound on first use;
* ``python -m rogerwilco validate`` of a one-line file, valid and refused,
  and of the valid line on standard input (the row ``validate < valid
  line``: an agent piping the line it is about to send);
* ``rogerwilco --version`` (the row ``--version``);
* the installed ``rogerwilco`` command (the console script beside the
  interpreter, which is what a person or an agent runs) validating the same
  files and the line piped to it: the goal, 50 ms for a valid line on a
  quiet machine, is read on it.
  ``python -m`` also loads ``runpy`` and ``importlib.util``, which it does not.

Prints milliseconds for each (wall clock, and CPU time of the child, which a
loaded machine disturbs far less), the difference from the baseline, and which
heavy modules the valid-line run imported (Lark should not be among them).
``--importtime`` adds the modules the valid-line run spends most on importing
(``python -X importtime``, the least of each module's times over the runs);
``--callgrind`` the instructions of each command under valgrind's callgrind,
which the machine's load does not change at all.

    python benchmarks/startup.py [--runs 21] [--importtime] [--callgrind]

It times the package the children import: from a clone's root that is the
clone (``python -c`` and ``python -m`` put the current folder first on the
path); to time another tree, run it from elsewhere with ``PYTHONPATH`` naming
that tree.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

VALID = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2\n"
REFUSED = "RW1 HO research-01 from=research  to=writer item=gh:crox/site#42 ask=DRAFT\n"


def console_script() -> str | None:
    """The ``rogerwilco`` command installed beside this interpreter (what a person or an agent runs), if any."""
    return shutil.which("rogerwilco", path=os.path.dirname(sys.executable))


def commands(valid: str, refused: str) -> dict[str, list[str]]:
    py = sys.executable
    table = {
        "python -c pass": [py, "-c", "pass"],
        "import attrs": [py, "-c", "import attrs"],
        "import rogerwilco": [py, "-c", "import rogerwilco"],
        # a program's first loads: the library's cold start (the accept path, and the C scanner where it is built)
        "first loads (valid line)": [py, "-c", f"import rogerwilco; rogerwilco.loads({VALID.strip()!r})"],
        "--version": [py, "-m", "rogerwilco", "--version"],
        "validate (valid line)": [py, "-m", "rogerwilco", "validate", valid],
        "validate (refused line)": [py, "-m", "rogerwilco", "validate", refused],
    }
    table["validate < valid line"] = [py, "-m", "rogerwilco", "validate"]
    script = console_script()
    if script is not None:  # python -m adds runpy and importlib.util, which the installed command does not load
        table["rogerwilco validate (valid)"] = [script, "validate", valid]
        table["rogerwilco validate (refused)"] = [script, "validate", refused]
        table["rogerwilco validate < valid"] = [script, "validate"]
    return table


#: the rows whose command reads the valid line on standard input (as an agent pipes a line to the command)
FROM_STDIN = ("validate < valid line", "rogerwilco validate < valid")


# Bytecode cached, as on an installed package: PYTHONDONTWRITEBYTECODE is
# dropped so the warm-up run writes it (an environment that sets it would
# otherwise time compiling every module on every run).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "NO_COLOR": "1"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(argv: list[str], stdin: str | None = None) -> tuple[float, float]:
    """(wall-clock ms, CPU ms) of one run, reading the file ``stdin`` on standard input where given. On a loaded
    machine the CPU time (user + system, of the child) moves far less than the wall clock."""
    with open(stdin or os.devnull, "rb") as source:
        cpu = _children_cpu()
        start = time.perf_counter()
        subprocess.run(argv, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        return (time.perf_counter() - start) * 1000, (_children_cpu() - cpu) * 1000


def importtimes(argv: list[str], runs: int) -> dict[str, tuple[int, int]]:
    """module -> (self, cumulative) microseconds of importing it, the least over ``runs`` runs."""
    best: dict[str, tuple[int, int]] = {}
    for _ in range(runs):
        err = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], capture_output=True, text=True, env=ENV).stderr
        for m in re.finditer(r"^import time:\s+(\d+) \|\s+(\d+) \| (.*)$", err, re.M):
            own, cumulative, name = int(m.group(1)), int(m.group(2)), m.group(3).strip()
            old = best.get(name, (own, cumulative))
            best[name] = (min(old[0], own), min(old[1], cumulative))
    return best


def instructions(argv: list[str], stdin: str | None = None) -> int | None:
    """Instructions of one run under valgrind's callgrind, or None where valgrind cannot run it."""
    try:
        with open(stdin or os.devnull, "rb") as source:
            proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                                  stdin=source, capture_output=True, text=True, env={**ENV, "PYTHONHASHSEED": "0"})
    except FileNotFoundError:
        return None
    m = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    return int(m.group(1)) if m else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--importtime", action="store_true", help="the modules the valid-line run spends most on importing")
    parser.add_argument("--callgrind", action="store_true", help="instructions of each command under callgrind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        valid, refused = os.path.join(tmp, "valid.rw1"), os.path.join(tmp, "refused.rw1")
        with open(valid, "w", encoding="utf-8") as fh:
            fh.write(VALID)
        with open(refused, "w", encoding="utf-8") as fh:
            fh.write(REFUSED)
        cmds = commands(valid, refused)
        stdin = {name: valid if name in FROM_STDIN else None for name in cmds}
        for name, argv in cmds.items():  # warm-up: bytecode written, files cached
            time_once(argv, stdin[name])
        samples: dict[str, list[float]] = {name: [] for name in cmds}
        cpu: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(args.runs):  # interleaved, so load changes touch every command alike
            for name, argv in cmds.items():
                wall, used = time_once(argv, stdin[name])
                samples[name].append(wall)
                cpu[name].append(used)
        probe = subprocess.run([sys.executable, "-c",
                                "import sys, runpy; sys.argv=['rogerwilco','validate',%r]\n"
                                "try:\n    runpy.run_module('rogerwilco', run_name='__main__')\n"
                                "except SystemExit:\n    pass\n"
                                "heavy=[m for m in ('lark','rich','attrs','sqlite3','pyarrow','asyncio','shutil','importlib.resources',"
                                "'rogerwilco.core.accept') if m in sys.modules]\n"
                                "print(','.join(heavy), file=sys.stderr)" % valid],
                               capture_output=True, text=True, env=ENV)
        imports = importtimes(cmds["validate (valid line)"], args.runs) if args.importtime else {}
        counts = {name: instructions(argv, stdin[name]) for name, argv in cmds.items()} if args.callgrind else {}
    base = statistics.median(samples["python -c pass"])
    cpu_base = statistics.median(cpu["python -c pass"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cold start, median of {args.runs} interleaved runs (load average {load:.2f})")
    print(f"{'command':30} {'ms':>8} {'- python':>9} {'cpu ms':>8} {'- python':>9}")
    for name, values in samples.items():
        median, used = statistics.median(values), statistics.median(cpu[name])
        print(f"{name:30} {median:8.1f} {median - base:9.1f} {used:8.1f} {used - cpu_base:9.1f}")
    valid, refused = statistics.median(samples["validate (valid line)"]), statistics.median(samples["validate (refused line)"])
    print(f"python -m rogerwilco validate of one valid line: {valid:.1f} ms; refused / valid: {refused / valid:.2f}")
    if "rogerwilco validate (valid)" in samples:
        valid, refused = (statistics.median(samples["rogerwilco validate (valid)"]),
                          statistics.median(samples["rogerwilco validate (refused)"]))
        print(f"rogerwilco validate of one valid line: {valid:.1f} ms (goal <= 50 ms on a quiet machine); "
              f"refused / valid: {refused / valid:.2f}")
    else:
        print("(no rogerwilco command beside this python: the goal, <= 50 ms on a quiet machine, is read on python -m)")
    print(f"imported by validate (valid line): {probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else 'none'}")
    if imports:
        total = sum(own for own, _ in imports.values())
        print(f"importing for validate (valid line): {len(imports)} modules, {total / 1000:.1f} ms (the least of "
              f"{args.runs} runs each); the most, own and with what they import:")
        for name, (own, cumulative) in sorted(imports.items(), key=lambda kv: -kv[1][0])[:12]:
            print(f"  {name:36} {own / 1000:7.2f} ms {cumulative / 1000:8.2f} ms")
    if counts and counts.get("python -c pass"):
        pass_ir = counts["python -c pass"] or 0
        print("instructions under callgrind (millions; less python -c pass):")
        for name, count in counts.items():
            print(f"  {name:30} {count / 1e6:9.1f} {(count - pass_ir) / 1e6:9.1f}" if count else f"  {name:30} (no count)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
