"""The conformance suite: well-formed case files, and every case passing.

Every file under ``conformance/`` (all areas, whoever wrote them) is validated
against ``conformance/schema.json``; its case ids are unique and every case
names a spec section. Every case is then run in-process through
``rogerwilco.front.adapter.handle`` as its own test: a case passes when each field of
``expect`` matches the response (``ok: true`` implied unless stated), JSON
values strictly (``true`` is not ``1``), ``findings`` as the set of
``(severity, kind, tier, key)``, and ``reply`` by its head and the tail's first
word, the offending token (D4: the rest is wording). An ``unsupported``
response is a failure here, not a skip: this package implements every op of
the contract. Finally the harness runs once end to end as a subprocess.

The suite ships what its cases cite: every decision id (``D10``) a case
names is a heading of ``conformance/decisions.md``, and every parse or
encode refusal states its token.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from rogerwilco.core.codec import same
from rogerwilco.front.adapter import handle
from rogerwilco.front.conformance import finding_set, reply_signature
from rogerwilco.core.semantics import check_line
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "conformance"
SCHEMA_PATH = SUITE / "schema.json"


def _case_files() -> list[Path]:
    return sorted(p for p in SUITE.rglob("*.json")
                  if not p.name.endswith("schema.json") and "node_modules" not in p.parts)


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _file_id(path: Path) -> str:
    return path.relative_to(SUITE).with_suffix("").as_posix()


def _all_cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in _case_files():
        doc = _load(path)
        for case in doc.get("cases", []) if isinstance(doc, dict) else []:
            if isinstance(case, dict):
                out.append((f"{_file_id(path)}:{case.get('id')}", case))
    return out


CASE_FILES = _case_files()
CASES = _all_cases()


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = _load(SCHEMA_PATH)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


# --------------------------------------------------------------------------
# the case files


def test_suite_is_not_empty():
    assert CASE_FILES, "no case files under conformance/"
    assert len(CASES) >= 170


@pytest.mark.parametrize("path", CASE_FILES, ids=_file_id)
def test_case_file_matches_schema(path: Path, validator: Draft202012Validator):
    errors = sorted(validator.iter_errors(_load(path)), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


@pytest.mark.parametrize("path", CASE_FILES, ids=_file_id)
def test_case_ids_unique_and_spec_named(path: Path):
    cases = _load(path)["cases"]
    ids = [case["id"] for case in cases]
    assert len(ids) == len(set(ids)), f"repeated ids: {sorted({i for i in ids if ids.count(i) > 1})}"
    for case in cases:
        assert re.fullmatch(r"[1-9][0-9]*(\.[0-9]+)*", str(case.get("spec", ""))), f"{case['id']} names no spec section"


def _a_case() -> dict[str, Any]:
    return {"suite": "1.0.0", "description": "d", "cases": [{"id": "a", "description": "d", "spec": "2",
                                            "request": {"op": "parse", "line": "RW1"},
                                            "expect": {"valid": False, "why": "UNK"}}]}


@pytest.mark.parametrize(
    "breakage",
    [
        ("no spec section", lambda c: c.pop("spec")),
        ("spec that is not a section", lambda c: c.update(spec="D3")),
        ("no expect", lambda c: c.pop("expect")),
        ("unknown op", lambda c: c["request"].update(op="frobnicate")),
        ("parse without line", lambda c: c["request"].pop("line")),
        ("reply without as", lambda c: c.update(request={"op": "reply", "line": "RW1", "n": 1})),
        ("a why outside UNK and VER", lambda c: c["expect"].update(why="NOCAP")),
        ("a digest of 11 characters", lambda c: c.update(expect={"h": "c40bba4360d"})),
        ("a finding kind outside the contract", lambda c: c.update(
            expect={"findings": [{"severity": "fail", "kind": "oops", "tier": None, "key": None}]})),
        ("a JSON form missing a key", lambda c: c.update(expect={"valid": True, "json": {"v": "RW1"}})),
        ("an unknown expect field", lambda c: c["expect"].update(colour="blue")),
        ("make-rb n that is not an integer", lambda c: c.update(request={"op": "make-rb", "ho": "RW1", "n": 1.5})),
    ],
    ids=lambda b: b[0],
)
def test_schema_rejects_broken_cases(breakage, validator: Draft202012Validator):
    doc = _a_case()
    assert validator.is_valid(doc)
    broken = copy.deepcopy(doc)
    breakage[1](broken["cases"][0])
    assert not validator.is_valid(broken)
    # the harness's own checker (no JSON Schema library needed) refuses it too, with a path
    from rogerwilco.front.conformance import case_file_checker

    assert not list(case_file_checker().errors(doc))
    path, _ = next(iter(case_file_checker().errors(broken)))
    assert path.startswith("$.cases[0]")


def test_a_suite_version_that_is_not_semver_is_refused(validator: Draft202012Validator):
    doc = _a_case()
    for bad in ("1.0", "v1.0.0", "01.0.0", 1):
        doc["suite"] = bad
        assert not validator.is_valid(doc)


@pytest.mark.parametrize("path", CASE_FILES, ids=_file_id)
def test_the_harness_checker_agrees_with_jsonschema_on_every_case_file(path: Path, validator):
    from rogerwilco.front.conformance import case_file_checker

    doc = _load(path)
    assert validator.is_valid(doc) == (not list(case_file_checker().errors(doc)))


DECISION_ID = re.compile(r"\bD([0-9]+)\b")


def _shipped_decisions() -> set[str]:
    text = (SUITE / "decisions.md").read_text(encoding="utf-8")
    return {f"D{n}" for n in re.findall(r"^## D([0-9]+) ", text, re.M)}


def test_every_decision_a_case_cites_ships_with_the_suite():
    shipped = _shipped_decisions()
    assert {f"D{n}" for n in range(1, 18)} <= shipped
    cited = {(cid, f"D{n}") for cid, case in CASES for n in DECISION_ID.findall(case["description"])}
    assert len({d for _, d in cited}) >= 15
    assert sorted((cid, d) for cid, d in cited if d not in shipped) == []
    for path in CASE_FILES:
        described = {f"D{n}" for n in DECISION_ID.findall(_load(path)["description"])}
        assert described <= shipped, path


def test_every_parse_and_encode_refusal_states_its_token():
    """A refusal is pinned by its why and its token (D4, D10): a case that gives only why lets a port name any chunk."""
    unpinned = [cid for cid, case in CASES if case["request"].get("op") in ("parse", "encode")
                and case["expect"].get("valid") is False and "token" not in case["expect"]]
    assert unpinned == []


def test_the_spec_ships_with_the_suite():
    spec = (SUITE / "rw1-spec.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#+ ([0-9]+(?:\.[0-9]+)*)[ .]", spec, re.M))
    cited = {case["spec"] for _, case in CASES}
    assert cited and sorted(cited - sections) == []


@pytest.mark.parametrize(
    "case_id,case",
    [(cid, case) for cid, case in CASES if case["request"].get("op") == "reply" and case["expect"].get("reply")],
    ids=[cid for cid, case in CASES if case["request"].get("op") == "reply" and case["expect"].get("reply")],
)
def test_expected_reply_is_a_valid_refusal(case_id: str, case: dict[str, Any]):
    """An expected reply is itself a valid UN line of D4's shape, from the replier."""
    request, reply = case["request"], case["expect"]["reply"]
    result = check_line(reply)
    assert result.valid, f"{case_id}: expected reply is not a valid line: {result.refusal}"
    msg = result.message
    assert msg.type == "UN" and msg.from_ == request["as"] and msg.id == f"{request['as']}-{request['n']}"
    assert msg.get("why") in ("UNK", "VER")
    assert msg.tail is not None and f" to={msg.to} " in reply and f" re={msg.re} " in reply
    their_from = re.search(r"(?:^| )from=(\S+)", request["line"]).group(1)
    assert msg.to == their_from


# --------------------------------------------------------------------------
# running every case


def _mismatches(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    problems = []
    for key, want in expect.items():
        if key not in got:
            problems.append(f"{key}: missing from the response")
        elif key == "findings":
            if not isinstance(got[key], list) or finding_set(got[key]) != finding_set(want):
                problems.append(f"findings: expected {sorted(map(str, finding_set(want)))}, got {got[key]}")
        elif key == "reply":
            if reply_signature(got[key]) != reply_signature(want):
                problems.append(f"reply: expected {want!r}, got {got[key]!r}")
        elif not same(got[key], want):
            problems.append(f"{key}: expected {json.dumps(want, ensure_ascii=False)}, "
                            f"got {json.dumps(got[key], ensure_ascii=False)}")
    return problems


@pytest.mark.parametrize("case_id,case", CASES, ids=[cid for cid, _ in CASES])
def test_case(case_id: str, case: dict[str, Any]):
    got = handle(copy.deepcopy(case["request"]))
    assert isinstance(got, dict), f"{case_id}: response is not an object"
    assert not (got.get("ok") is False and got.get("error") == "unsupported"), \
        f"{case_id}: op {case['request'].get('op')!r} is unsupported"
    expect = case["expect"] if "ok" in case["expect"] else {"ok": True, **case["expect"]}
    problems = _mismatches(expect, got)
    assert not problems, f"{case_id} ({case['description']}):\n  " + "\n  ".join(problems) + f"\n  got: {got}"


def test_strict_comparison_tells_true_from_one():
    """The comparison the cases rely on does not let a port answer 1 for true."""
    assert _mismatches({"json": {"slots": {"retry": True}}}, {"json": {"slots": {"retry": 1}}})
    assert _mismatches({"valid": False}, {"valid": 0})
    assert not _mismatches({"json": {"slots": {"pri": 2}}}, {"json": {"slots": {"pri": 2}}})


# --------------------------------------------------------------------------
# the harness, end to end


def test_harness_runs_digest_cases_end_to_end():
    wanted = sum(1 for cid, _ in CASES if cid.startswith("digest/"))
    assert wanted >= 2
    proc = subprocess.run(
        [sys.executable, "-m", "rogerwilco", "conformance", "--run", "digest/*"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=HANG,
    )
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines and lines[-1] == f"{wanted} passed, 0 failed, 0 skipped", proc.stdout
