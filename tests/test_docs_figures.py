"""Figures the docs quote cannot go stale: see ``docs/figures.py``.

Each live figure (a count, a limit, a list of names, a table a script prints)
is compared with today's value; each measured figure (a time, a rate, a memory
peak) sits under a dated statement naming the benchmark command that gave it;
and the census finds any count that is neither. ``python docs/snippets.py
--write`` rewrites the live figures.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("doc_figures", ROOT / "docs" / "figures.py")
figures = importlib.util.module_from_spec(_spec)
sys.modules["doc_figures"] = figures
_spec.loader.exec_module(figures)  # type: ignore[union-attr]


@pytest.mark.parametrize("figure", figures.FIGURES, ids=[f"{f.doc} {f.what}" for f in figures.FIGURES])
def test_every_live_figure_is_todays_value(figure):
    assert figures.stale(figure) == [], "run python docs/snippets.py --write"


def test_the_fault_table_has_one_row_per_fault_class():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    bench, results = figures._faults()
    assert figures.fault_rows(text) == len(results.faults) == len(bench.FAULTS)


def test_every_measured_figure_says_when_where_and_how():
    assert figures.measured_problems() == []


def test_every_count_in_the_docs_is_compared_or_said_not_to_be_ours():
    assert figures.census() == [], "add a Figure to docs/figures.py (or, for a count that is not ours, NOT_OURS)"


def test_every_not_ours_entry_is_still_in_its_doc():
    for (doc, phrase), reason in figures.NOT_OURS.items():
        assert reason and phrase in (ROOT / doc).read_text(encoding="utf-8"), (doc, phrase)


# The checks themselves can fail.

def test_a_stale_count_is_caught(tmp_path, monkeypatch):
    doc = tmp_path / "README.md"
    doc.write_text("Nine types, and the suite: 7 passed, 0 failed, 0 skipped\n", encoding="utf-8")
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    types = figures.Figure("README.md", r"\b([Nn]ine) types\b", figures._word(lambda: 8), "types")
    run = figures.Figure("README.md", figures._RUN, lambda m: ("9",), "cases")
    gone = figures.Figure("README.md", r"(\d+) rules", lambda m: ("3",), "rules")
    assert figures.stale(types) == ["README.md:1: types: the doc says 'Nine', today it is 'Eight'"]
    assert figures.stale(run) == ["README.md:1: cases: the doc says '7', today it is '9'"]
    assert "is gone" in figures.stale(gone)[0]
    monkeypatch.setattr(figures, "FIGURES", [types, run])
    figures.rewrite()
    assert doc.read_text(encoding="utf-8") == "Eight types, and the suite: 9 passed, 0 failed, 0 skipped\n"


def test_an_undated_or_misattributed_timing_is_caught(tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "b.py").write_text('ap.add_argument("--lines")\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "README.md"
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    monkeypatch.setattr(figures, "doc_files", lambda: [doc])
    good = "# Speed\n\nMeasured 2026-11-29 on a 2-core machine, with `python benchmarks/b.py --lines 9`:\n\n| a | 12.5 us |\n"
    doc.write_text(good, encoding="utf-8")
    assert figures.measured_problems() == []
    doc.write_text("# Speed\n\nIt parses 100,241 lines/s.\n", encoding="utf-8")
    assert re.search(r"'100,241 lines/s' is a measured figure", figures.measured_problems()[0])
    doc.write_text(good.replace("--lines", "--rows"), encoding="utf-8")
    assert figures.measured_problems() == ["README.md:3: benchmarks/b.py takes no --rows"]
    doc.write_text(good.replace("b.py", "gone.py"), encoding="utf-8")
    assert "benchmarks/gone.py does not exist" in figures.measured_problems()[0]
    doc.write_text(good.replace("2026-11-29", "2999-01-01"), encoding="utf-8")
    assert "a day still to come" in figures.measured_problems()[0]
    monkeypatch.setattr(figures, "CORPUS_FLAGS", {"benchmarks/b.py": "--lines"})
    doc.write_text(good.replace(" --lines 9", ""), encoding="utf-8")  # a figure that does not name its corpus
    assert figures.measured_problems() == ["README.md:3: benchmarks/b.py times more than one corpus: name the one "
                                           "measured (--lines ...)"]
    doc.write_text(good.replace("\n| a |", "\n## Another section\n\n| a |"), encoding="utf-8")
    assert "'12.5 us' is a measured figure" in figures.measured_problems()[0]  # not covered from another section


def test_the_census_finds_a_new_count(tmp_path, monkeypatch):
    doc = tmp_path / "README.md"
    doc.write_text("The suite has 1,200 cases and twelve rules.\n\n```sh\nrogerwilco x  # 3 cases\n```\n",
                   encoding="utf-8")
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    monkeypatch.setattr(figures, "doc_files", lambda: [doc])
    monkeypatch.setattr(figures, "FIGURES", [])
    assert [p for _, _, p in figures.census()] == ["1,200 cases", "twelve rules"]
