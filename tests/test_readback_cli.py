"""The readback commands, their rich reports and the adapter ops."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
import sys

import pytest

from rogerwilco.front.adapter import handle
from rogerwilco.front.cli import main
from rogerwilco.checks.readback import check_dn, check_rb
from rogerwilco.front.render import make_console
from rogerwilco.front.render.readback import report_renderable

from .test_readback import DNP, HOA, HOP, KEPT, RBA, RBP

HOF = "RW1 HO ops-03 from=ops to=builder item=jira:OPS-77 ask=FIX due=20261001"
RBF = "RW1 RB builder-05 re=ops-03 from=builder to=ops item=jira:OPS-77 ask=BUILD due=20261001"


def render(report, width=100) -> str:
    buf = io.StringIO()
    make_console(buf, width=width, color=False).print(report_renderable(report))
    return buf.getvalue()


def test_report_shows_tiers_and_sender_against_receiver_without_colour():
    text = render(check_rb(HOA, RBA.replace("len:120w", "len:150w"), expect_acc=KEPT))
    assert "\x1b[" not in text
    assert text.splitlines()[0].startswith("check-rb: VOID")
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in text.splitlines() if line.startswith("| ")]
    assert ["len", "contradiction", "len:120w", "len:150w"] in cells
    assert ["fmt", "assumption", "-", "fmt:md"] in cells
    assert ["4", "comprehension", "failed", "2"] in cells
    assert ["2", "integrity", "not checked", "1"] in cells
    assert ["5", "execution", "not asked", ""] in cells


def test_passing_report_says_wilco():
    text = render(check_rb(HOP, RBP, profiles=["pay"]))
    assert text.startswith("check-rb: WILCO") and "no findings" in text


def test_done_report_shows_plan_against_done():
    text = render(check_dn(HOP, DNP.replace("amt=5400.00", "amt=5100.00"), profiles=["pay"]))
    assert text.startswith("check-dn: FAIL")
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in text.splitlines() if line.startswith("| ")]
    assert ["key", "kind", "plan", "done report"] in cells
    assert ["amt", "mismatch", "5400.00", "5100.00"] in cells


def test_report_escapes_control_characters_from_the_wire():
    rb = RBA.replace("fmt:md", "fmt:md\x1b[31m")
    text = render(check_rb(HOA, RBA + "+x_k:v", expect_acc=KEPT))
    assert "\x1b" not in text
    assert "\x1b" not in render(check_rb(HOA, rb, expect_acc=KEPT))


def test_check_rb_exit_codes_and_json(capsys):
    assert main(["check-rb", "--ho", HOF, "--rb", RBF, "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"passed", "findings", "tiers", "unchecked"} and out["passed"] is False
    assert {"severity": "fail", "kind": "mismatch", "tier": 3, "key": "ask"} in [
        {k: f[k] for k in ("severity", "kind", "tier", "key")} for f in out["findings"]]
    assert main(["check-rb", "--ho", HOP, "--rb", RBP, "--profile", "pay"]) == 0
    assert "WILCO" in capsys.readouterr().out


def test_check_rb_expect_acc_and_record(tmp_path, capsys):
    assert main(["check-rb", "--ho", HOA, "--rb", RBA, "--expect-acc", KEPT]) == 0
    capsys.readouterr()
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"acct": "11-11-11/1"}))
    ho = HOP.replace(" acct=40-12-88/61102938", "")
    assert main(["check-rb", "--ho", ho, "--rb", RBP, "--record", str(record), "--format", "json"]) == 1
    assert "record" in [f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]]


def test_check_ho_and_relay(tmp_path, capsys):
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS", "acct": "40-12-88/61102938",
                                  "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}))
    assert main(["check-ho", "--line", HOP, "--record", str(record)]) == 0
    assert main(["check-ho", "--line", HOP.replace("5400.00", "5100.00"), "--record", str(record)]) == 1
    received = tmp_path / "received.rw1"
    received.write_text(HOP + "\n")
    fwd = HOP.replace("scheduler-1", "reconciler-1").replace("from=scheduler", "from=reconciler")
    assert main(["check-ho", "--line", fwd + " pri=1", "--record", str(received), "--relay-adds", "pri"]) == 0
    assert main(["check-ho", "--line", fwd + " pri=1", "--record", str(received), "--relay-adds", "due"]) == 1


def test_check_dn_and_make_rb(tmp_path, capsys):
    assert main(["check-dn", "--ho", HOP, "--dn", DNP]) == 0
    assert main(["check-dn", "--ho", HOP, "--dn", DNP.replace("5400.00", "5100.00")]) == 1
    capsys.readouterr()
    values = tmp_path / "values.json"
    values.write_text(json.dumps({"acct": "40-12-88/61102938"}))
    assert main(["make-rb", "--ho", HOP.replace(" acct=40-12-88/61102938", ""), "--n", "1", "--values", str(values), "--no-digest"]) == 0
    line = capsys.readouterr().out.strip()
    assert "acct=40-12-88/61102938" in line and "h=" not in line
    assert main(["make-rb", "--ho", HOA, "--n", "1", "--acc", "len:120w+tone:plain+must:monday-problem", "--do", "copy", "--not", "jargon"]) == 0
    made = capsys.readouterr().out.strip()
    assert main(["check-rb", "--ho", HOA, "--rb", made, "--format", "json"]) == 0


@pytest.mark.parametrize("argv", [
    ["check-rb", "--ho", "RW1 HO broken", "--rb", RBF],
    ["check-rb", "--ho", HOA, "--rb", RBA, "--expect-acc", "nokeyvalue"],
    ["check-rb", "--ho", HOF, "--rb", RBF, "--record", "/nonexistent/record.json"],
    ["check-ho", "--line", HOF, "--record", "/nonexistent/record.json"],
    ["check-dn", "--ho", "garbage", "--dn", DNP],
    ["make-rb", "--ho", HOA, "--n", "1"],
    ["make-rb", "--ho", HOF, "--n", "-1"],
])
def test_unusable_input_exits_2_without_traceback(argv):
    proc = subprocess.run([sys.executable, "-m", "rogerwilco", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("rogerwilco:")


def test_a_broken_readback_is_a_failed_check_not_unusable_input(capsys):
    assert main(["check-rb", "--ho", HOF, "--rb", "RW1 RB nonsense"]) == 1
    assert "form" in capsys.readouterr().out


def test_adapter_ops_follow_the_contract():
    made = handle({"op": "make-rb", "ho": HOF, "n": 6})
    assert made["ok"] and made["line"].startswith("RW1 RB builder-6 re=ops-03 ")
    checked = handle({"op": "check-rb", "ho": HOF, "rb": made["line"]})
    assert checked == {"ok": True, "passed": True, "findings": []}
    assert handle({"op": "check-ho", "line": HOF, "record": {"due": "20261001"}})["passed"] is True
    assert handle({"op": "check-dn", "ho": HOP, "dn": DNP, "profiles": ["pay"]})["passed"] is True
    assert handle({"op": "make-rb", "ho": HOA, "n": 1})["ok"] is False
    assert handle({"op": "check-ho", "line": HOF, "record": "not an object"})["ok"] is False


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "readback"


@pytest.mark.parametrize("name, argv, caught", [
    ("01-misread-envelope.rw1", ["check-rb"], ("mismatch", "ask")),
    ("02-wrong-length.rw1", ["check-rb", "--expect-acc", "len:120w+tone:plain+no:em-dash+must:monday-problem"], ("contradiction", "len")),
    ("03-dropped-constraint.rw1", ["check-rb", "--expect-acc", "len:800w+aud:finance-leads+must:cost-saving+no:client-names"], ("gap", "no")),
    ("04-wrong-amount.rw1", ["check-rb"], ("mismatch", "amt")),
    ("05-resolved-account.rw1", ["check-rb", "--record", str(EXAMPLES / "05-record.json")], ("record", "acct")),
    ("06-done-differs.rw1", ["check-dn"], ("mismatch", "amt")),
])
def test_each_example_catches_its_fault(name, argv, caught, capsys):
    first, second = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()[:2]
    other = "--dn" if argv[0] == "check-dn" else "--rb"
    assert main([*argv, "--ho", first, other, second, "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["findings"]
    assert caught in {(f["kind"], f["key"]) for f in found if f["severity"] == "fail"}


def test_check_rb_and_check_dn_take_now(capsys):
    ho = "RW1 HO s-1 from=s to=r item=x:1 ask=FIX exp=20261012T0900Z"
    rb = "RW1 RB r-1 re=s-1 from=r to=s item=x:1 ask=FIX"
    dn = "RW1 DN r-2 re=s-1 from=r to=s item=x:1 out=OK"
    assert main(["check-rb", "--ho", ho, "--rb", rb, "--now", "20261012T0859Z"]) == 0
    assert main(["check-rb", "--ho", ho, "--rb", rb, "--now", "20261012T0901Z", "--format", "json"]) == 1
    kinds = [f["kind"] for f in json.loads(capsys.readouterr().out.splitlines()[-1])["findings"]]
    assert "expired" in kinds
    assert main(["check-rb", "--ho", ho, "--rb", rb]) == 1  # the clock is past October
    assert main(["check-dn", "--ho", ho, "--dn", dn, "--now", "20261012T0900Z"]) == 0
    assert main(["check-dn", "--ho", ho, "--dn", dn, "--now", "20261012T0901Z"]) == 1
    capsys.readouterr()
    assert main(["check-rb", "--ho", ho, "--rb", rb, "--now", "tomorrow"]) == 2
    err = capsys.readouterr().err
    assert "now is a UTC time YYYYMMDDTHHMMZ, not 'tomorrow'" in err and "Traceback" not in err
