"""The mutation run over the JavaScript port (``benchmarks/mutate_port.py``).

The mutants are made deterministically from ``examples/ports/js/rw1.js``;
each changes one line and applies back onto the source. A bounded sample
(``RW1_MUTANTS``, default 3; ``all`` for every mutant, about ten seconds
each; ``RW1_MUTANTS_SEED`` picks the sample) is run for real: no mutant may
survive the cases while ``--diff`` shows it disagreeing with this package,
since that would be a behaviour no case pins.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutate_port", ROOT / "benchmarks" / "mutate_port.py")
mutate_port = importlib.util.module_from_spec(_spec)
sys.modules["mutate_port"] = mutate_port
_spec.loader.exec_module(mutate_port)  # type: ignore[union-attr]

SOURCE = (mutate_port.PORT / mutate_port.TARGET).read_text(encoding="utf-8")


def test_mutants_are_many_kinds_made_in_source_order_and_each_changes_one_line():
    made = mutate_port.mutants(SOURCE)
    assert len(made) >= 300
    assert {m.operator for m in made} >= {"comparison", "logic", "negation", "dropped check", "off by one",
                                          "swapped token", "arithmetic"}
    assert [m.number for m in made] == list(range(1, len(made) + 1))
    assert [m.line for m in made] == sorted(m.line for m in made)
    for m in made[::17]:
        changed = mutate_port.apply(SOURCE, m)
        differ = [i for i, (a, b) in enumerate(zip(SOURCE.split("\n"), changed.split("\n"))) if a != b]
        assert differ == [m.line - 1]


def test_the_data_tables_and_comments_are_not_mutated():
    made = mutate_port.mutants(SOURCE)
    assert not any(m.before.startswith(("//", "[0x", "0x")) for m in made)
    assert mutate_port.mutants("const T = [\n  [0x00, 0x1f], [0x7f, 0x9f],\n];\n// if (a < b) return 1;\n") == []
    assert [m.after for m in mutate_port.mutants("if (a < b) return 1;")] == [
        "if (a <= b) return 1;", "if (false && a < b) return 1;", "if (a < b) return 0;"]


def test_a_sample_is_reproducible_and_bounded():
    made = mutate_port.mutants(SOURCE)
    a = mutate_port.select(made, 5, 7)
    assert a == mutate_port.select(made, 5, 7) and len(a) == 5
    assert mutate_port.select(made, None, 0) == made


def test_the_score_line_counts_every_outcome():
    done = [mutate_port.Mutant(i, i, "logic", "a", "b", outcome=o)
            for i, o in enumerate(["killed", "killed", "survived-agrees", "stillborn"], 1)]
    assert mutate_port.describe(mutate_port.score(done)) == (
        "4 mutants: 2 killed by the cases, 0 survived with a disagreement (a missing case), "
        "1 survived and agree, 1 stillborn; score 2/3 (67%)")


def test_no_sampled_mutant_disagrees_with_the_package_yet_passes_every_case():
    wanted = os.environ.get("RW1_MUTANTS", "3")
    made = mutate_port.mutants(SOURCE)
    chosen = mutate_port.select(made, None if wanted == "all" else int(wanted), int(os.environ.get("RW1_MUTANTS_SEED", "0")))
    counts = mutate_port.run(chosen, mutate_port.DIFF_COUNT, out=sys.stderr)
    holes = [f"#{m.number} line {m.line}: {m.before} -> {m.after} ({m.detail})"
             for m in chosen if m.outcome == "survived-disagrees"]
    assert holes == [], mutate_port.describe(counts)
    assert counts["made"] == len(chosen)
