"""Mutation run: how much of the JavaScript port's behaviour the conformance cases pin.

Theory of operation
-------------------
A suite pins a port when every wrong reading of a rule that changes an
answer fails a case. This script makes the wrong readings: it takes
``examples/ports/js/rw1.js`` (slot types, the never-guess pass, encoding,
refusal replies) and changes one behaviour-relevant spot at a time to the
nearest plausible wrong reading:

* a comparison flipped or its bound moved (``<`` and ``<=``, ``>`` and
  ``>=``, ``===`` and ``!==``);
* a condition dropped or inverted (``if (x)`` never taken, ``!x`` read as
  ``x``, ``&&`` and ``||`` swapped);
* a number one off (``297`` as ``296``, ``300`` as ``301``, ``0`` as ``1``);
* a token or field swapped (``"UNK"`` and ``"VER"``, ``"tail"`` and
  ``"//"``, ``+`` and ``-`` in index arithmetic).

``--target`` mutates another module of the port instead: ``thread.js``
(check-thread), ``readback.js`` (make-rb, check-rb, check-ho, check-dn) or
``comprehension.js`` (tier 4). A target's surviving mutants are compared
on the requests of the ops that module answers (``--op`` of the
differential run), ``--diff-count`` of them.

Each mutant is a copy of the port with that one change. It is run against
the cases (``rogerwilco conformance --impl``); a failing case kills it. A
mutant no case kills is then run differentially against this package
(``rogerwilco conformance --diff``): if the two disagree, the suite has a
hole, and the mutant is reported with its disagreement so a case can be
added for it. A mutant that neither fails a case nor disagrees is reported
as equivalent as far as the run can tell. A mutant whose module does not
load (the adapter cannot start) is stillborn and not counted.

The score is killed / (made - stillborn). Mutants are numbered in source
order and a run takes every one, or a sample drawn by seed
(``--sample N --seed S``), so a CI run is bounded and reproducible.
``tests/test_mutate_port.py`` runs a small sample; ``RW1_MUTANTS=all`` runs
them all there (about ten seconds a mutant).

Usage::

    python benchmarks/mutate_port.py                  # every mutant
    python benchmarks/mutate_port.py --sample 20 --seed 1
    python benchmarks/mutate_port.py --list           # the mutants, no runs
    python benchmarks/mutate_port.py --target thread.js --sample 40 --seed 1
    python benchmarks/mutate_port.py --json report.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
PORT = ROOT / "examples" / "ports" / "js"
TARGET = "rw1.js"
#: the ops whose requests a module's surviving mutant is compared on (none: every op)
TARGET_OPS: dict[str, tuple[str, ...]] = {
    "rw1.js": (),
    "thread.js": ("check-thread",),
    "readback.js": ("make-rb", "check-rb", "check-ho", "check-dn"),
    "comprehension.js": ("check-rb",),
}
DIFF_COUNT = 400  # requests per op that a surviving mutant is compared on

# (pattern, replacement) pairs, each applied at one match at a time. The
# patterns stay inside one line; the operators are written with spaces
# around them, as the port's source is, so "=>" and "<=" in other roles
# are not touched.
OPERATORS: tuple[tuple[str, str, str], ...] = (
    ("comparison", r" <= ", " < "),
    ("comparison", r" < ", " <= "),
    ("comparison", r" >= ", " > "),
    ("comparison", r" > ", " >= "),
    ("comparison", r" === ", " !== "),
    ("comparison", r" !== ", " === "),
    ("logic", r" && ", " || "),
    ("logic", r" \|\| ", " && "),
    ("negation", r"\(!(?=[A-Za-z_(])", "("),
    ("dropped check", r"\bif \((?=.*\) (?:throw|return)\b)", "if (false && "),
    ("off by one", r"(?<![\w.\\])(297|300|12|8|100)(?![\w.])", "{n+1}"),
    ("off by one", r"(?<![\w.\\])(297|300|1)(?![\w.])", "{n-1}"),
    ("swapped token", r'"UNK"', '"VER"'),
    ("swapped token", r'"VER"', '"UNK"'),
    ("swapped token", r'"tail"', '"//"'),
    ("swapped token", r'"//"', '"tail"'),
    ("arithmetic", r" \+ 1\b", " - 1"),
    ("arithmetic", r" - 1\b", " + 1"),
)

# Lines that are data, not behaviour: the character tables (whose every entry
# the invisible-character cases pin one by one) and the module's imports.
_SKIP = re.compile(r"^\s*(//|\*|/\*|import |export \{|\[0x|0x)")


# A failing or errored case in the harness's text report: "FAIL area/file:id: ...".
_FAILED_CASE = re.compile(r"^[A-Z]+ ([a-z0-9-]+/[a-z0-9-]+:[a-z0-9._-]+):", re.M)


@dataclass
class Mutant:
    number: int
    line: int
    operator: str
    before: str
    after: str
    outcome: str = ""  # killed, survived-disagrees, survived-agrees, stillborn
    detail: str = ""


def mutants(source: str) -> list[Mutant]:
    """Every mutant of ``source``, in source order, numbered from 1."""
    found: list[Mutant] = []
    in_table = False
    for index, text in enumerate(source.split("\n")):
        if re.search(r"= \[$|= new Set\(\[", text):
            in_table = True
        if in_table:
            in_table = not re.search(r"\]\)?;\s*$", text)
            continue
        if _SKIP.match(text):
            continue
        code = text.split(" // ", 1)[0]
        for name, pattern, replacement in OPERATORS:
            for m in re.finditer(pattern, code):
                if replacement.startswith("{n"):
                    step = 1 if replacement == "{n+1}" else -1
                    new = str(int(m.group(1)) + step)
                else:
                    new = replacement
                changed = code[:m.start()] + new + code[m.end():]
                if changed != code:
                    found.append(Mutant(len(found) + 1, index + 1, name, text.strip(),
                                        (changed + text[len(code):]).strip()))
    return found


def apply(source: str, mutant: Mutant) -> str:
    lines = source.split("\n")
    original = lines[mutant.line - 1]
    assert original.strip() == mutant.before
    lines[mutant.line - 1] = original[: len(original) - len(original.lstrip())] + mutant.after
    return "\n".join(lines)


def _copy_port(where: Path) -> Path:
    port = where / "js"
    port.mkdir()
    for path in PORT.iterdir():
        if path.is_file() and path.suffix in (".js", ".json"):
            shutil.copy2(path, port / path.name)
    return port


def _rogerwilco(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RW1_PROFILES_DIR": str(ROOT / "profiles"), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "rogerwilco", "conformance", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


def judge(mutant: Mutant, port: Path, diff_count: int, ops: tuple[str, ...] = ()) -> None:
    impl = f"node {port / 'adapter.js'}"
    cases = _rogerwilco("--impl", impl, "--timeout", "20")
    if cases.returncode == 2:
        said = (cases.stderr or cases.stdout).strip().splitlines()
        mutant.outcome, mutant.detail = "stillborn", said[-1] if said else ""
        return
    if cases.returncode == 1:
        failed = [m.group(1) for m in _FAILED_CASE.finditer(cases.stdout)]
        mutant.outcome, mutant.detail = "killed", f"{len(failed)} cases, first {failed[0] if failed else '?'}"
        return
    only = [arg for op in ops for arg in ("--op", op)]
    diff = _rogerwilco("--diff", "--impl", impl, "--count", str(diff_count), "--seed", "0", "--show", "1",
                       "--progress", "off", *only)
    if diff.returncode == 0:
        mutant.outcome = "survived-agrees"
    else:
        mutant.outcome = "survived-disagrees"
        shown = [line for line in diff.stdout.splitlines() if line.startswith(("DISAGREE", "CRASH", "  request:"))]
        mutant.detail = " | ".join(shown[:2])


def run(selected: list[Mutant], diff_count: int, out=sys.stdout, target: str = TARGET) -> dict[str, int]:
    source = (PORT / target).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="rw1-mutant-") as tmp:
        port = _copy_port(Path(tmp))
        for mutant in selected:
            (port / target).write_text(apply(source, mutant), encoding="utf-8")
            judge(mutant, port, diff_count, TARGET_OPS[target])
            print(f"#{mutant.number} line {mutant.line} {mutant.operator}: {mutant.outcome}"
                  + (f" ({mutant.detail})" if mutant.detail else ""), file=out, flush=True)
            if mutant.outcome == "survived-disagrees":
                print(f"    {mutant.before}\n -> {mutant.after}", file=out, flush=True)
    return score(selected)


def score(done: list[Mutant]) -> dict[str, int]:
    counts = {k: sum(m.outcome == k for m in done)
              for k in ("killed", "survived-disagrees", "survived-agrees", "stillborn")}
    counts["made"] = len(done)
    return counts


def describe(counts: dict[str, int]) -> str:
    live = counts["made"] - counts["stillborn"]
    pct = 100 * counts["killed"] / live if live else 100.0
    return (f"{counts['made']} mutants: {counts['killed']} killed by the cases, "
            f"{counts['survived-disagrees']} survived with a disagreement (a missing case), "
            f"{counts['survived-agrees']} survived and agree, {counts['stillborn']} stillborn; "
            f"score {counts['killed']}/{live} ({pct:.0f}%)")


def select(all_mutants: list[Mutant], sample: int | None, seed: int) -> list[Mutant]:
    if sample is None or sample >= len(all_mutants):
        return all_mutants
    return sorted(random.Random(seed).sample(all_mutants, sample), key=lambda m: m.number)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, help="run this many mutants, drawn by --seed (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", type=int, action="append", metavar="N", help="run mutant N (repeatable)")
    parser.add_argument("--diff-count", type=int, default=DIFF_COUNT, help="--diff requests for a surviving mutant")
    parser.add_argument("--target", default=TARGET, choices=sorted(TARGET_OPS),
                        help=f"the port's module to mutate (default {TARGET})")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--json", metavar="FILE", help="write every mutant and its outcome as JSON")
    args = parser.parse_args(argv)
    every = mutants((PORT / args.target).read_text(encoding="utf-8"))
    if args.list:
        for m in every:
            print(f"#{m.number} line {m.line} {m.operator}: {m.before}  ->  {m.after}")
        print(f"{len(every)} mutants")
        return 0
    chosen = [m for m in every if m.number in set(args.only)] if args.only else select(every, args.sample, args.seed)
    counts = run(chosen, args.diff_count, target=args.target)
    print(describe(counts))
    if args.json:
        Path(args.json).write_text(json.dumps({"score": counts, "mutants": [asdict(m) for m in chosen]}, indent=1),
                                   encoding="utf-8")
    return 1 if counts["survived-disagrees"] else 0


if __name__ == "__main__":
    sys.exit(main())
