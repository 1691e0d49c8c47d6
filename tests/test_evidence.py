"""check-src: each evidence line's tail is the document's own words, at the line it cites."""

from __future__ import annotations

from pathlib import Path

import pytest

from rogerwilco import check_line
from rogerwilco.front.cli import main
from rogerwilco.checks.evidence import check_quote, check_quotes
from rogerwilco.core.vocab import Receiver

ROOT = Path(__file__).resolve().parent.parent
RECEIVER = Receiver.load(["pay", "clin", "pform"])
DOC = "Discharge summary\n\nHistory:   known hypertension,\n  on amlodipine 5 mg daily.\nDiagnosis: NSTEMI.\n"


def statement(src: str, quote: str | None) -> str:
    line = (f"RW1 ST extractor-1 p=clin from=extractor to=record item=dx:nstemi act=ASSESS pol=POS cert=CERT subj=PT time=CUR src={src}")
    return line + (f" // {quote}" if quote is not None else "")


@pytest.fixture
def docs(tmp_path):
    (tmp_path / "dc-1.txt").write_text(DOC, encoding="utf-8")
    return tmp_path


def kinds(line: str, docs: Path) -> list[tuple[str, str]]:
    check = check_quote(check_line(line, RECEIVER), RECEIVER, docs)
    return [(f.severity, f.kind) for f in check.findings]


def test_a_verbatim_quote_at_its_line_passes(docs):
    assert kinds(statement("doc:dc-1#l5", "Diagnosis: NSTEMI."), docs) == [("note", "ok")]


def test_whitespace_is_normalised_and_a_quote_may_run_over_lines(docs):
    assert kinds(statement("doc:dc-1#l3", "known hypertension, on amlodipine 5 mg daily."), docs) == [("note", "ok")]


def test_the_right_words_at_the_wrong_line_name_the_line_they_are_on(docs):
    check = check_quote(check_line(statement("doc:dc-1#l4", "known hypertension"), RECEIVER), RECEIVER, docs)
    assert [(f.severity, f.kind) for f in check.findings] == [("fail", "wrong-line")]
    assert "line 3" in check.findings[0].message and not check.passed


def test_a_cited_line_past_the_end_is_reported(docs):
    assert kinds(statement("doc:dc-1#l99", "Diagnosis: NSTEMI."), docs) == [("fail", "wrong-line")]
    assert kinds(statement("doc:dc-1#l99", "Diagnosis: STEMI."), docs) == [("fail", "paraphrase")]


@pytest.mark.parametrize("quote", ["Diagnosis - NSTEMI.", "diagnosis: NSTEMI.", "The patient had an NSTEMI."])
def test_anything_but_the_exact_words_is_a_paraphrase(docs, quote):
    assert kinds(statement("doc:dc-1#l5", quote), docs) == [("fail", "paraphrase")]


def test_a_missing_document_is_reported(docs):
    assert kinds(statement("doc:dc-2#l5", "Diagnosis: NSTEMI."), docs) == [("fail", "missing-doc")]


def test_a_document_id_cannot_leave_the_directory(docs):
    assert kinds(statement("doc:..#l1", "x"), docs) == [("fail", "pointer")]


def test_lines_without_an_evidence_rule_are_not_checked(docs):
    lines = ["RW1 ST extractor-1 p=pay from=extractor to=reconciler item=po:1 src=email:7",
             "RW1 HO reviewer-1 p=clin from=reviewer to=extractor item=doc:dc-1 ask=EXTRACT",
             statement("doc:dc-1#l5", None)]  # refused by the never-guess pass, not by this check
    checks = check_quotes([check_line(l, RECEIVER) for l in lines], RECEIVER, docs)
    assert [c.checked for c in checks] == [False, False, False]


def test_check_src_command_on_the_example(capsys):
    example = ROOT / "examples" / "clin"
    assert main(["check-src", str(example / "statements.rw1"), "--docs", str(example / "docs")]) == 0
    assert "9 checked, 9 verbatim, 0 failed" in capsys.readouterr().out
    assert main(["check-src", str(example / "faults.rw1"), "--docs", str(example / "docs"), "-f", "json"]) == 1
    out = capsys.readouterr().out
    assert '"wrong-line"' in out and '"paraphrase"' in out and '"missing-doc"' in out
    assert main(["check-src", str(example / "faults.rw1"), "--docs", str(example / "nope")]) == 2
