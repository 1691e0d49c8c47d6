"""Crosswalks: a readback in the receiver's profile checked against the sender's handoff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rogerwilco import Message
from rogerwilco.front.cli import main
from rogerwilco.checks.crosswalk import CrosswalkError, check_rb_across as check_rb, crosswalk_problems, load_crosswalk, translate

ROOT = Path(__file__).resolve().parent.parent
HELD = ["pform", "kanban"]
HO = "RW1 HO TRI-1 p=pform from=TRI to=BLD item=pensive:4102 ask=SCORE4 stg=REV due=20261009 rb=echo+stg"
RB = "RW1 RB BLD-1 re=TRI-1 p=kanban from=BLD to=TRI item=pensive:4102 ask=RANK col=REVIEW due=20261009"


def signature(report):
    return {(f.severity, f.kind, f.tier, f.key) for f in report.findings}


def test_translate_maps_codes_slots_and_the_profile():
    cw = load_crosswalk("pform-kanban")
    out = translate(Message.from_line(HO, HELD), cw, HELD)
    assert dict(out.message.slots) == {"p": "kanban", "ask": "RANK", "col": "REVIEW", "due": "20261009",
                                      "rb": ("echo", "col")}
    assert out.lost == () and out.renamed == {"stg": "col"}
    assert Message.from_line(out.message.to_line(), HELD) == out.message  # the translation is a valid kanban line


def test_translate_names_every_loss():
    ho = HO.replace("ask=SCORE4", "ask=PRUNE").replace("stg=REV", "stg=OPT")
    out = translate(Message.from_line(ho, HELD), load_crosswalk("pform-kanban"), HELD)
    assert set(out.lost) == {("ask", "ask=PRUNE"), ("stg", "stg=OPT")}
    assert "ask" not in out.message.slots and "col" not in out.message.slots


def test_an_exact_mapping_reads_back_exactly():
    report = check_rb(HO, RB, "pform-kanban", profiles=HELD)
    assert report.passed and signature(report) == {("note", "digest", 2, "h")}


def test_a_misread_through_the_mapping_is_a_mismatch():
    report = check_rb(HO, RB.replace("col=REVIEW", "col=DOING"), "pform-kanban", profiles=HELD)
    assert not report.passed and ("fail", "mismatch", 3, "col") in signature(report)


def test_a_loss_the_readback_had_to_echo_fails_naming_the_slot():
    report = check_rb(HO.replace("stg=REV", "stg=DEC"), RB.replace(" col=REVIEW", ""), "pform-kanban", profiles=HELD)
    assert not report.passed and ("fail", "lost", 3, "stg") in signature(report)
    assert report.tiers[3] == "failed"


def test_a_loss_outside_the_echo_set_is_a_note():
    ho = HO.replace("stg=REV", "stg=DEC").replace(" rb=echo+stg", "")
    report = check_rb(ho, RB.replace(" col=REVIEW", ""), "pform-kanban", profiles=HELD)
    assert report.passed and ("note", "lost", None, "stg") in signature(report)


def test_the_digest_is_checked_against_the_handoff_as_sent():
    original = Message.from_line(HO, HELD).digest()
    translated = translate(Message.from_line(HO, HELD), load_crosswalk("pform-kanban"), HELD).message.digest()
    assert check_rb(HO, f"{RB} h={original}", "pform-kanban", profiles=HELD).passed
    report = check_rb(HO, f"{RB} h={translated}", "pform-kanban", profiles=HELD)
    assert ("fail", "digest", 2, "h") in signature(report)


def test_a_handoff_in_another_profile_is_refused():
    with pytest.raises(CrosswalkError):
        translate(Message.from_line(RB, HELD), load_crosswalk("pform-kanban"), HELD)


@pytest.mark.parametrize("change,path", [
    ({"codes": {"ask": {"SCORE5": "RANK"}}}, "$.codes.ask.SCORE5"),
    ({"codes": {"ask": {"SCORE4": "SORT"}}}, "$.codes.ask.SCORE4"),
    ({"slots": {"stg": {"to": "column"}}}, "$.slots.stg.to"),
    ({"slots": {"stg": {"to": "col", "codes": {"DIA": "LATER"}}}}, "$.slots.stg.codes.DIA"),
    ({"slots": {"pri": {"to": "col"}}}, "$.slots.pri"),
    ({"colour": 1}, "$.colour"),
])
def test_a_crosswalk_naming_what_the_profiles_lack_is_refused(change, path):
    doc = json.loads((ROOT / "profiles" / "crosswalks" / "pform-kanban.json").read_text(encoding="utf-8"))
    doc.update(change)
    assert path in [p for p, _ in crosswalk_problems(doc)]
    with pytest.raises(CrosswalkError):
        load_crosswalk(doc)


def test_the_bundled_crosswalk_has_no_problems():
    doc = json.loads((ROOT / "profiles" / "crosswalks" / "pform-kanban.json").read_text(encoding="utf-8"))
    assert crosswalk_problems(doc) == []


@pytest.mark.parametrize("example,code", [("exact", 0), ("lost", 1), ("misread", 1)])
def test_check_rb_crosswalk_command_on_the_examples(example, code, capsys):
    ho, rb = (ROOT / "examples" / "crosswalk" / f"{example}.rw1").read_text(encoding="utf-8").splitlines()
    assert main(["check-rb", "--ho", ho, "--rb", rb, "--crosswalk", "pform-kanban", "-f", "json"]) == code
    assert json.loads(capsys.readouterr().out)["passed"] is (code == 0)


def test_check_rb_with_an_unknown_crosswalk_is_a_usage_error(capsys):
    assert main(["check-rb", "--ho", HO, "--rb", RB, "--crosswalk", "no-such"]) == 2
    assert "crosswalk" in capsys.readouterr().err
