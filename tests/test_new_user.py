"""What a new user meets in the API and the CLI (issue: the first five minutes).

Each test names the item of the issue it proves; the closing note lists them.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import rogerwilco
import rogerwilco.readback
from rogerwilco.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "examples" / "spec-section8.rw1"
PAY = "RW1 HO a-1 from=a to=b item=inv:1 p=pay ask=PAY amt=1.00 ccy=EUR acct=DE1 due=20260101"


# 1. One default for profiles -------------------------------------------------

def test_the_api_holds_the_bundled_profiles_by_default_as_the_cli_does(capsys):
    with SPEC.open("rb") as fh:
        api_valid = sum(r.message is not None for r in rogerwilco.load(fh))
    assert main(["validate", str(SPEC)]) == 0
    cli = capsys.readouterr().out
    assert f"{api_valid} valid, 0 refused" in cli and api_valid == 19
    assert rogerwilco.loads(PAY).profile == "pay"
    assert rogerwilco.check_line(PAY).valid


def test_a_receiver_that_wants_fewer_profiles_says_so_and_is_told_the_fix():
    with pytest.raises(rogerwilco.RefusedError) as info:
        rogerwilco.loads(PAY, ())
    text = str(info.value)
    assert "p=pay" in text and "profiles=['pay']" in text and "--profile pay" in text
    with pytest.raises(rogerwilco.RefusedError, match="p=zz .*profile object"):
        rogerwilco.loads(PAY.replace("p=pay", "p=zz"))
    assert rogerwilco.loads(PAY, ["pay"]).profile == "pay"


# 2. Verdicts that say what they checked (D12) --------------------------------

README_HO = ("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 rb=acc "
             "keys=len+tone+must+no art=url:https://example.com/brief // hero copy")
README_RB = ("RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002 "
             "acc=len:120w+tone:plain+must:monday-problem+no:em-dash+fmt:md do=copy")
RESOLVED = (ROOT / "examples" / "readback" / "05-resolved-account.rw1").read_text().splitlines()


def test_a_pass_with_an_asked_tier_unchecked_says_so_and_strict_exits_1(capsys):
    assert main(["check-rb", "--ho", README_HO, "--rb", README_RB]) == 0
    verdict = capsys.readouterr().out.splitlines()[0]
    assert "WILCO" in verdict and "tier 4 not checked" in verdict and "--expect-acc" in verdict
    assert main(["check-rb", "--strict", "--ho", README_HO, "--rb", README_RB]) == 1
    capsys.readouterr()
    assert main(["check-rb", "--strict", "--ho", README_HO, "--rb", README_RB,
                 "--expect-acc", "len:120w+tone:plain+must:monday-problem+no:em-dash"]) == 0
    assert "passes every tier asked for" in capsys.readouterr().out


def test_a_resolved_value_without_a_record_leaves_tier_5_unchecked(capsys):
    report = rogerwilco.readback.check_rb(RESOLVED[0], RESOLVED[1])
    assert report.passed and report.unchecked == (5,) and report.resolved_unchecked == ("acct",)
    assert main(["check-rb", "--ho", RESOLVED[0], "--rb", RESOLVED[1], "-f", "json"]) == 0
    assert '"unchecked": [5]' in capsys.readouterr().out
    assert main(["check-rb", "--strict", "--ho", RESOLVED[0], "--rb", RESOLVED[1]]) == 1
    assert "tier 5 not checked" in capsys.readouterr().out
    record = str(ROOT / "examples" / "readback" / "05-record.json")
    assert main(["check-rb", "--strict", "--ho", RESOLVED[0], "--rb", RESOLVED[1], "--record", record]) == 1
    assert "VOID" in capsys.readouterr().out  # the record holds another account: a fail, not an unchecked
