"""The bundled profiles, their translation rules, closed answers, the profile schema and `profile check`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from rogerwilco import check_line
from rogerwilco.front.cli import main
from rogerwilco.front.commands.profiles import profile_report
from rogerwilco.core.errors import ProfileError
from rogerwilco.core.vocab import bundled_vocabulary, compile_vocabulary, load_profile, profile_problems

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "profiles"
SCHEMA = json.loads((PROFILES / "profile.schema.json").read_text(encoding="utf-8"))
PROFILE_FILES = sorted(p for p in PROFILES.glob("*.json") if p.stem not in ("rw1", "compare", "additions") and not p.stem.endswith(".schema"))
HELD = ["pay", "clin", "pform"]

# Spec section 7 prints the pform profile; the bundled file is exactly it.
SPEC_PFORM = {
    "profile": "pform", "version": "0.1", "extends": "RW1",
    "enums": {"stage": {"DIA": "diagnose", "REV": "review", "OPT": "options", "DEC": "decide", "ACT": "action", "DONE": "done"}},
    "asks": {"SCORE4": "run 4-axis scoring", "ENRICH": "fill missing fields", "PRUNE": "retire or merge"},
    "slots": [{"key": "stg", "type": "enum:stage", "on": ["HO", "ST"], "required": False}],
    "agents": ["TRI", "STR", "ARC", "BLD", "QAR", "CPY", "GRD", "DAT", "MKT", "SCT", "IDE"],
}


def spec_lines_with(profile: str) -> list[str]:
    lines = (ROOT / "examples" / "spec-section8.rw1").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if f" p={profile} " in line]


def refusal(line: str, profiles=HELD) -> tuple[str | None, str | None]:
    result = check_line(line, profiles)
    first = result.refusal
    return (first.why, first.token) if first else (None, None)


# ---------------------------------------------------------------- the spec's lines


def test_every_pay_line_of_the_spec_validates():
    lines = spec_lines_with("pay")
    assert len(lines) == 6
    for line in lines:
        result = check_line(line, ["pay"])
        assert result.valid, (line, [f.message for f in result.findings])


def test_pform_holds_the_spec_example():
    # the bundled pform is the published one (docs/reference.md), which extends the spec's example of section 7
    bundled = json.loads((PROFILES / "pform.json").read_text(encoding="utf-8"))
    for enum, codes in SPEC_PFORM["enums"].items():
        assert set(codes) <= set(bundled["enums"][enum]), enum
    assert set(SPEC_PFORM["asks"]) <= set(bundled["asks"])
    assert set(SPEC_PFORM["agents"]) <= set(bundled["agents"])
    slots = {s["key"]: s for s in bundled["slots"]}
    for slot in SPEC_PFORM["slots"]:
        assert slots[slot["key"]] == slot


def test_pay_profile_as_section_7_describes_it():
    vocab = bundled_vocabulary("pay")
    assert dict(vocab.exec_slots) == {
        "PAY": ("sup", "amt", "cur", "kind", "acct", "paid", "ref", "apref"),
        "CHGBANK": ("sup", "acct", "eff", "apref", "prev"),
        "SEND": ("sup", "addr", "amt", "cur", "paid", "ref"),
        # the reversal of a wrong act (spec 5.4) asks rb=exec with the values of the payment it reverses
        "UNDO": ("sup", "amt", "cur", "kind", "acct", "paid", "ref", "apref"),
    }
    assert set(vocab.enums["ans"]) == {"APPROVE", "DECLINE", "HOLD", "REJECT", "CALLBACK"}
    assert "prev" in vocab.types["RB"].slots and "prev" in vocab.types["DN"].slots
    assert vocab.slots["src"].type.name == "list:token"
    assert {"net", "vat"} <= set(vocab.slots)
    assert set(vocab.asks_used or ()) <= set(vocab.enums["ask"])
    for slot in load_profile("pay")["slots"]:
        assert slot.get("desc"), f"pay slot {slot['key']} has no desc"


def test_pay_currencies_are_a_closed_iso_enum():
    codes = bundled_vocabulary("pay").enums["cur"]
    assert "GBP" in codes and all(len(c) == 3 and c.isupper() for c in codes)
    assert refusal("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:1 ask=PAY cur=XYZ") == ("UNK", "cur=XYZ")


def test_clin_statement_slots_are_required_closed_enums():
    vocab = bundled_vocabulary("clin")
    for key in ("act", "pol", "cert", "subj", "time"):
        assert key in vocab.types["ST"].required
    # src is optional on the slot, as published, and required on a statement by the profile's rule
    assert any("src" in rule.require for rule in vocab.types["ST"].rules)
    for key in ("act", "pol", "cert", "subj", "time"):
        assert vocab.slots[key].type.enum is not None


# ---------------------------------------------------------------- translation rules

INVOICE = "RW1 ST extractor-1 p=pay from=extractor to=reconciler item=inv:A-1 amt=120.00 net=100.00 vat=20.00 cur=GBP kind=GROSS src=email:7"
STATEMENT = ("RW1 ST extractor-1 p=clin from=extractor to=record item=dx:nstemi act=ASSESS pol=POS cert=CERT subj=PT time=CUR "
             "src=doc:dc-0412#l9 // Diagnosis: NSTEMI.")


def drop(line: str, key: str) -> str:
    return " ".join(t for t in line.split(" ") if not t.startswith(f"{key}="))


def test_the_complete_lines_pass_every_rule():
    assert check_line(INVOICE, HELD).valid
    assert check_line(STATEMENT, HELD).valid


@pytest.mark.parametrize("key", ["amt", "cur", "kind", "src"])
def test_invoice_line_refuses_each_missing_slot_by_name(key):
    line = drop(INVOICE, key)
    if key == "amt":
        line = drop(line, "net")
    assert refusal(line) == ("UNK", key)


def test_invoice_rule_applies_only_to_invoices_on_st():
    assert check_line(drop(INVOICE.replace("item=inv:A-1", "item=po:A-1"), "src"), HELD).valid
    dn = "RW1 DN extractor-2 re=reconciler-1 p=pay from=extractor to=reconciler item=inv:A-1 out=OK"
    assert check_line(dn, HELD).valid


@pytest.mark.parametrize("net,vat,amt,ok", [
    ("100.00", "20.00", "120.00", True),
    ("0.10", "0.20", "0.30", True),  # float arithmetic would say 0.30000000000000004
    ("100.00", "20.00", "120.01", False),
    ("-80.00", "-20.00", "-100.00", True),
])
def test_net_plus_vat_equals_amount_exactly(net, vat, amt, ok):
    line = INVOICE.replace("amt=120.00", f"amt={amt}").replace("net=100.00", f"net={net}").replace("vat=20.00", f"vat={vat}")
    assert refusal(line) == ((None, None) if ok else ("UNK", f"amt={amt}"))


@pytest.mark.parametrize("key", ["act", "pol", "cert", "subj", "time", "src"])
def test_clin_statement_refuses_each_missing_slot_by_name(key):
    assert refusal(drop(STATEMENT, key)) == ("UNK", key)


@pytest.mark.parametrize("old,new,token", [
    ("item=dx:nstemi", "item=nstemi", "item=nstemi"),
    ("src=doc:dc-0412#l9", "src=dc-0412", "src=dc-0412"),
    ("src=doc:dc-0412#l9", "src=doc:dc-0412#l0", "src=doc:dc-0412#l0"),
    (" // Diagnosis: NSTEMI.", "", "//"),
])
def test_clin_statement_refuses_each_shape_breach(old, new, token):
    assert refusal(STATEMENT.replace(old, new)) == ("UNK", token)


def test_rules_are_data_a_new_profile_gets_them_without_code():
    doc = {"profile": "lab", "version": "1", "extends": "RW1",
           "slots": [{"key": "a", "type": "num"}, {"key": "b", "type": "num"}, {"key": "t", "type": "num"}],
           "translation": [{"id": "s", "on": ["ST"], "sum": {"parts": ["a", "b"], "total": "t"}}]}
    assert refusal("RW1 ST x-1 p=lab from=x to=y item=k:1 a=1.5 b=2 t=3.5", [doc]) == (None, None)
    assert refusal("RW1 ST x-1 p=lab from=x to=y item=k:1 a=1.5 b=2 t=4", [doc]) == ("UNK", "t=4")


# ---------------------------------------------------------------- closed answers

AN = "RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val={}"


@pytest.mark.parametrize("val", ["APPROVE", "DECLINE", "HOLD", "REJECT", "CALLBACK", "Y", "N", "12", "5400.00", "20261002"])
def test_answers_from_the_closed_vocabulary_pass(val):
    assert check_line(AN.format(val), HELD).valid


@pytest.mark.parametrize("val", ["OFFRUN", "KEEPFILE", "PAY-USD", "approve"])
def test_invented_answers_are_refused_as_unknown_codes(val):
    assert refusal(AN.format(val)) == ("UNK", f"val={val}")


def test_enum_questions_draw_options_from_ans():
    aq = "RW1 AQ payer-3 p=pay from=payer to=human need=ENUM opts={}"
    assert check_line(aq.format("APPROVE+HOLD"), HELD).valid
    assert refusal(aq.format("APPROVE+OFFRUN")) == ("UNK", "opts=APPROVE+OFFRUN")
    assert check_line(aq.format("OFFRUN+KEEPFILE").replace(" p=pay", ""), HELD).valid  # no profile, open answers


# ---------------------------------------------------------------- schema and profile check


@pytest.mark.parametrize("path", PROFILE_FILES, ids=lambda p: p.stem)
def test_every_bundled_profile_validates_against_the_schema(path):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    doc = json.loads(path.read_text(encoding="utf-8"))
    errors = [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc)]
    assert errors == []
    assert profile_problems(doc) == []
    compile_vocabulary(doc)


def test_the_schema_refuses_a_malformed_profile():
    bad = {"profile": "Shop", "version": 1, "extends": "RW2", "slots": [{"key": "qty", "type": "integer"}]}
    paths = {e.json_path for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(bad)}
    assert {"$.profile", "$.version", "$.extends", "$.slots[0].type"} <= paths


BAD_PROFILE = {
    "profile": "shop", "version": "0.1", "extends": "RW1",
    "asks": {"REVIEW": "look again", "SHIP": "ship it"},
    "enums": {"ans": {"OK": "fine", "YES": "yes"}},
    "slots": [{"key": "qty", "type": "integer"}, {"key": "sku", "type": "token"}],
    "exec": {"SHIP": ["sku", "addr"]},
    "translation": [{"id": "r1", "on": ["ST"], "require": ["qty", "colour"]}],
}


def test_profile_check_reports_every_problem_with_its_json_path(tmp_path):
    path = tmp_path / "shop.json"
    path.write_text(json.dumps(BAD_PROFILE), encoding="utf-8")
    _, problems = profile_report(str(path))
    assert {p for p, _, _ in problems} == {
        "$.asks.REVIEW", "$.enums.ans.OK", "$.slots[0].type", "$.exec.SHIP[1]", "$.translation[0].require[1]",
    }


def test_profile_check_command_exit_codes_and_json(tmp_path, capsys):
    bad = tmp_path / "shop.json"
    bad.write_text(json.dumps(BAD_PROFILE), encoding="utf-8")
    assert main(["profile", "check", str(bad), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and len(report["problems"]) == 5
    assert main(["profile", "check", str(PROFILES / "pay.json")]) == 0
    assert "no problems" in capsys.readouterr().out
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert main(["profile", "check", str(broken), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["problems"][0]["path"] == "$"


def test_profile_check_and_the_loader_are_one_check(tmp_path):
    doc = {"profile": "shop", "version": "0.1", "extends": "RW1", "agents": ["a", "a"]}
    path = tmp_path / "shop.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _, problems = profile_report(str(path))
    assert [(p, c) for p, c, _ in problems] == [("$.agents[1]", "core")]
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert caught.value.path == "$.agents[1]" and caught.value.message == problems[0][2]


def test_profile_check_of_a_missing_file_is_unreadable_input_exit_2(tmp_path, capsys):
    assert main(["profile", "check", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


SLOT_TYPE_NAMES = ["token", "ref", "agent", "msgid", "date", "days", "bool", "money", "num", "int:1-5", "enum:sev",
                   "list:token", "list:date", "time", "list:time", "text", "digest", "constraint", "rb", "int", "list"]


@pytest.mark.parametrize("type_name", SLOT_TYPE_NAMES)
def test_the_profile_schema_allows_a_slot_type_exactly_when_the_loader_does(type_name):
    """A profile slot's type: the schema and the loader agree (the core's own types, time among them, are the core's)."""
    profile = {"profile": "demo", "version": "1", "extends": "RW1", "enums": {"sev": ["S1", "S2"]},
               "slots": [{"key": "thing", "type": type_name, "on": ["ST"]}]}
    schema_allows = jsonschema.Draft202012Validator(SCHEMA).is_valid(profile)
    try:
        compile_vocabulary(load_profile(profile))
        loader_allows = True
    except ProfileError:
        loader_allows = False
    assert schema_allows == loader_allows, (type_name, schema_allows, loader_allows)
