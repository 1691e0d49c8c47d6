"""Did you mean: near words suggested, ties named without a fix, profile slots and codes pointed at their p=."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rogerwilco import check_line
from rogerwilco.core.suggest import closest, distance, nearest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("a, b, d", [("form", "from", 1), ("ask", "ask", 0), ("PAYY", "PAY", 1), ("HX", "HO", 1),
                                     ("abc", "xyz", 3), ("itme", "item", 1), ("", "ab", 2)])
def test_distance_counts_a_swap_as_one_edit(a, b, d):
    assert distance(a, b) == d


def test_nearest_keeps_ties_and_closest_refuses_them():
    assert nearest("HX", ["HO", "RB", "CX"]) == ["HO", "CX"] and closest("HX", ["HO", "RB", "CX"]) is None
    assert closest("form", ["from", "to", "item"]) == "from"
    assert closest("completely", ["from", "to"]) is None
    assert nearest("from", ["from", "form"]) == []  # a known word needs no suggestion


def finding(line, profiles=()):
    (f,) = [f for f in check_line(line, profiles).findings if f.kind != "missing"]
    return f


@pytest.mark.parametrize("line, profiles, hint, fix", [
    ("RW1 HO a-1 from=a to=b item=x ask=FIXX", (), "did you mean FIX?", "ask=FIX"),
    ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=x ask=PAYY", ("pay",), "did you mean PAY?", "ask=PAY"),
    ("RW1 HO scheduler-1 from=scheduler to=payer item=x ask=PAYY", ("pay",), "did you mean PAY? it is a code of profile pay: add p=pay",
     "p=pay ask=PAY"),
    ("RW1 HO scheduler-1 from=scheduler to=payer item=x ask=PAY", ("pay",), "PAY is a code of profile pay: add p=pay", "p=pay ask=PAY"),
    ("RW1 HO a-1 from=a to=b item=x ask=FIX form=a", (), "did you mean from=?", "from=a"),
    ("RW1 HO scheduler-1 from=scheduler to=payer item=x ask=FIX amt=5400.00", (), "amt is a slot of profile pay: add p=pay",
     "p=pay amt=5400.00"),
    ("RW1 HX a-1 from=a to=b item=x ask=FIX", (), "did you mean HO or CX?", None),
    ("RW1 HO a-1 from=a to=b item=x ask=QWERTY", (), None, None),
])
def test_hints_and_fixes(line, profiles, hint, fix):
    f = finding(line, profiles)
    assert (f.hint, f.fix) == (hint, fix)


def test_a_refusal_reply_never_carries_the_hint():
    from rogerwilco import refusal

    reply = refusal("RW1 HO a-1 from=a to=b item=x ask=FIXX", "b", 1, ())
    assert reply is not None and "did you mean" not in reply and "ask=FIXX" in reply


def test_the_docs_show_exactly_what_lint_prints_for_the_shipped_typos():
    done = subprocess.run([sys.executable, "-m", "rogerwilco", "lint", "--isolated", "--select", "RW0",
                           "examples/ci/typos.rw1"], cwd=ROOT, capture_output=True, text=True,
                          env={"COLUMNS": "200", "PATH": "", "NO_COLOR": "1"})
    assert done.returncode == 1
    docs = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    assert "$ rogerwilco lint --select RW0 examples/ci/typos.rw1\n" + done.stdout in docs


def test_a_misspelling_met_again_is_answered_from_the_memo_and_a_caller_cannot_change_it():
    from rogerwilco.core import suggest

    choices = ["DRAFT", "FIX", "REVIEW", "DRIFT"]
    first = suggest.nearest("DRAFTT", choices)
    hits = suggest._nearest.cache_info().hits
    first.append("TAMPERED")
    assert suggest.nearest("DRAFTT", iter(choices)) == ["DRAFT"]
    assert suggest._nearest.cache_info().hits == hits + 1
    assert suggest._nearest.cache_info().maxsize == 4096  # bounded: new words from a peer evict old ones
