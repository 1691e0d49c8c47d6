"""Decision D12: a tier the handoff asked for that could not be checked.

Tier 4 without criteria from the sender and tier 5 with a value the receiver
resolved and no sender record: the readback passes, the verdict says which
tier was not checked ("tier 5 not checked"), and the CLI exits 0
unless ``--strict``, where it exits 1.
"""

from __future__ import annotations

from rogerwilco.front.cli import main
from rogerwilco.checks.readback import check_rb

HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
      "amt=5400.00 cur=GBP kind=GROSS paid=20261002 ref=MD-2026-057 apref=FD-0929")
RB = ("RW1 RB payer-1 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 ask=PAY p=pay sup=marlow "
      "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
HO_ACC = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT rb=acc"
RB_ACC = ("RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT "
          "acc=len:120w+tone:plain")


def test_a_resolved_value_without_a_record_is_an_unchecked_note_naming_the_slot():
    report = check_rb(HO, RB, profiles=["pay"])
    assert report.passed
    notes = [(f.kind, f.tier, f.key) for f in report.findings if f.severity == "note"]
    assert ("unchecked", 5, "acct") in notes
    assert report.unchecked == (5,)


def test_tier_5_says_not_checked_while_a_resolved_value_has_no_record():
    assert check_rb(HO, RB, profiles=["pay"]).tiers[5] == "not checked"
    assert check_rb(HO, RB, profiles=["pay"], record={"acct": "40-12-88/61102938"}).tiers[5] == "passed"
    # two resolved, one in the record: the other keeps tier 5 not checked, and is the one the note names
    ho = HO.replace(" paid=20261002", "")
    report = check_rb(ho, RB, profiles=["pay"], record={"acct": "40-12-88/61102938"})
    assert report.passed and report.tiers[5] == "not checked" and report.resolved_unchecked == ("paid",)
    assert [(f.kind, f.key) for f in report.findings if f.tier == 5] == [("unchecked", "paid")]
    wrong = check_rb(ho, RB, profiles=["pay"], record={"acct": "11-22-33/00000000"})
    assert not wrong.passed and wrong.tiers[5] == "failed"
    assert [(f.severity, f.kind, f.key) for f in wrong.findings if f.tier == 5] == [
        ("fail", "record", "acct"), ("note", "unchecked", "paid")]


def test_with_a_record_the_resolved_value_is_checked_and_the_note_goes():
    report = check_rb(HO, RB, profiles=["pay"], record={"acct": "40-12-88/61102938"})
    assert report.passed and report.unchecked == ()
    assert not [f for f in report.findings if f.kind == "unchecked"]
    wrong = check_rb(HO, RB, profiles=["pay"], record={"acct": "11-22-33/00000000"})
    assert not wrong.passed and [(f.kind, f.key) for f in wrong.failures()] == [("record", "acct")]


def test_tier_4_without_sender_criteria_is_not_checked():
    report = check_rb(HO_ACC, RB_ACC)
    assert report.passed and report.unchecked == (4,)


def test_the_verdict_says_which_tier_was_not_checked_and_strict_exits_1(capsys):
    assert main(["check-rb", "--ho", HO, "--rb", RB, "--profile", "pay"]) == 0
    assert "tier 5 not checked" in capsys.readouterr().out
    assert main(["check-rb", "--ho", HO, "--rb", RB, "--profile", "pay", "--strict"]) == 1
    assert main(["check-rb", "--ho", HO_ACC, "--rb", RB_ACC, "--strict"]) == 1
    assert "tier 4 not checked" in capsys.readouterr().out
    assert main(["check-rb", "--ho", HO_ACC, "--rb", RB_ACC, "--expect-acc", "len:120w+tone:plain", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "readback passes every tier asked for" in out
