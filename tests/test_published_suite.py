"""The published reference codec's own suite, run against this package.

rogerwilco 0.3.0 (the reference codec this package succeeds) ships
``tests/conformance.jsonl``: 99 codec cases and 6 agent-behaviour cases. Every
codec case runs here, in-process, through this package's API
(``reference_dir`` in ``tests/conftest.py`` downloads the wheel):

* ``parse``: the verdict; the JSON form where the case gives one; a valid
  line written back from its JSON form reads back equal (the round trip);
  and for an invalid line, that a refusal names what the case's expected
  error names (the reference's wording is its own, so :data:`NAMES` says, per
  case, which finding kind and which slot or token this package reports).
* ``readback``, ``presend``, ``done``, ``thread``: the verdict, and each
  expected problem or note as the finding (severity, kind, tier, key) this
  package reports for it (:data:`FINDINGS`).
* ``digest``: the ``h=`` value.

A case without an entry in :data:`NAMES` or :data:`FINDINGS` that expects an
error fails: every published expectation is mapped, none is dropped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rogerwilco import Message, check_line
from rogerwilco.checks.readback import check_dn, check_ho, check_rb
from rogerwilco.checks.thread import check_thread

# Invalid parse cases: the finding kind and what its token names (the slot key
# of a key=value token, else the token itself) for the reference's expected error.
NAMES: dict[str, tuple[str, str]] = {
    "c13": ("enum", "ask"),            # not a known ask code
    "c14": ("syntax", "FC2"),          # version (FC2 is not RW<digits>: a syntax error, D10)
    "c15": ("type", "XX"),             # type
    "c16": ("missing", "item"),        # requires item
    "c17": ("missing", "re"),          # requires re
    "c18": ("rule", "opts"),           # requires opts
    "c19": ("value", "pri"),           # out of range
    "c20": ("value", "due"),           # YYYYMMDD
    "c21": ("repeated", "ask"),        # duplicate
    "c22": ("tail", "//"),             # tail
    "c24": ("agent", "to"),            # not an agent named in the profile
    "c25": ("enum", "out"),            # not a known out code
    "c26": ("enum", "why"),            # not a known why code
    "c27": ("syntax", "hello"),        # key=value
    "c28": ("rule", "val"),            # needs a tail
    "c29": ("syntax", "extractor"),    # <from>-<n>
    "c30": ("answer", "opts"),         # answer vocabulary
    "c33": ("answer", "val"),          # answer vocabulary
    "c37": ("enum", "pol"),            # not a known pol code
    "c38": ("value", "res"),           # num is a number as written
    "c39": ("missing", "cert"),        # cert
    "x02": ("missing", "re"),          # CX requires re
    "x03": ("value", "exp"),           # times are YYYYMMDDTHHMMZ
}

# Check cases: each expected problem (fail) or note as (severity, kind, tier, key).
FINDINGS: dict[str, set[tuple[str, str, int | None, str | None]]] = {
    "r02": {("fail", "mismatch", 3, "ask")},
    "r03": {("fail", "missing", 3, "due")},
    "r04": {("fail", "receipt", 1, "re")},
    "r05": {("fail", "mismatch", 3, "item")},
    "r06": {("fail", "receipt", 1, "from")},
    "r08": {("fail", "digest", 2, "h")},
    "r09": {("fail", "missing", 3, "pri")},
    "r11": {("fail", "missing", 3, "art")},
    "r13": {("fail", "mismatch", 3, "keep")},
    "r14": {("note", "assumption", 4, "fmt")},
    "r15": {("fail", "contradiction", 4, "len"), ("fail", "gap", 4, "must")},
    "r16": {("fail", "missing", 4, "acc")},
    "r17": {("fail", "excluded", 4, "must")},
    "r18": {("fail", "plan", 4, "do")},
    "r21": {("fail", "gap", 4, "lang")},
    "r22": {("fail", "gap", 4, "tone")},
    "r23": {("note", "loose", 4, "must"), ("note", "unknown-key", 4, "spelling")},
    "r24": {("fail", "contradiction", 4, "len")},
    "c74": {("fail", "missing", 5, "acct")},
    "c75": {("fail", "mismatch", 5, "amt")},
    "c79": {("fail", "mismatch", None, "acct")},
    "c80": {("fail", "level", None, "rb")},
    "c82": {("fail", "mismatch", None, "amt")},
    "c83": {("fail", "missing", None, "acct")},
    "c84": {("fail", "mismatch", None, "prev")},
    "c86": {("fail", "receipt", None, "re")},
    "x06": {("fail", "expired", None, "exp")},
    "x08": {("fail", "expired", None, "exp")},
    "x09": {("fail", "expiry", 3, "exp")},
    "x12": {("fail", "act-after-cancel", None, "scheduler-1")},
    "x13": {("fail", "open-past-exp", None, "scheduler-1")},
    "x14": {("note", "open", None, "scheduler-1")},
    "x15": {("fail", "closed-twice", None, "scheduler-1")},
    "x16": {("fail", "cancel-wrong-party", None, "scheduler-1")},
    "x17": {("fail", "open-past-due", None, "scheduler-1")},
    "x18": {("note", "cancel-unacknowledged", None, "scheduler-1")},
}

CODEC_KINDS = ("parse", "readback", "presend", "done", "thread", "digest")
PUBLISHED_CODEC_CASES = 99


def _published(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "tests" / "conformance.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def published(reference_dir: Path) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in _published(reference_dir) if c["kind"] != "agent"}


def _named(token: str | None) -> str | None:
    return token.split("=", 1)[0] if token and "=" in token else token


def _signatures(report: Any) -> set[tuple[str, str, int | None, str | None]]:
    return {(f.severity, f.kind, f.tier, f.key) for f in report.findings}


def _check_parse(case: dict[str, Any]) -> list[str]:
    result = check_line(case["line"])
    wrong: list[str] = []
    if result.valid != (case["expect"] == "valid"):
        return [f"expected {case['expect']}, got {[f.to_json() for f in result.findings if f.failed]}"]
    if case["expect"] == "valid":
        assert result.message is not None
        form = result.message.to_json()
        if "json" in case and form != case["json"]:
            wrong.append(f"JSON form differs: got {json.dumps(form)}, want {json.dumps(case['json'])}")
        back = Message.from_json(form).to_line()
        again = check_line(back)
        if not again.valid or again.message is None or again.message.to_json() != form:
            wrong.append(f"round trip failed: {back}")
    elif case.get("errors_contain"):
        if case["id"] not in NAMES:
            return [f"no entry in NAMES for the expected error {case['errors_contain']}"]
        kind, named = NAMES[case["id"]]
        fails = [(f.kind, _named(f.token)) for f in result.findings if f.failed]
        if (kind, named) not in fails:
            wrong.append(f"expected a refusal of kind {kind} naming {named}, got {fails}")
    return wrong


def _report(case: dict[str, Any]) -> Any:
    kind = case["kind"]
    if kind == "readback":
        return check_rb(case["ho"], case["rb"], expect_acc=case.get("expect_acc"), now=case.get("now"))
    if kind == "presend":
        return check_ho(case["ho"], case["record"])
    if kind == "done":
        return check_dn(case["ho"], case["dn"], case.get("rb"))
    return check_thread(case["lines"], now=case.get("now"))


def _check_report(case: dict[str, Any]) -> list[str]:
    report = _report(case)
    wrong: list[str] = []
    if report.passed != (case["expect"] == "match"):
        wrong.append(f"expected {case['expect']}, got {sorted(map(str, _signatures(report)))}")
    expected = case.get("problems_contain", []) + case.get("notes_contain", [])
    if expected:
        if case["id"] not in FINDINGS:
            return wrong + [f"no entry in FINDINGS for {expected}"]
        missing = FINDINGS[case["id"]] - _signatures(report)
        if missing:
            wrong.append(f"findings {sorted(map(str, missing))} not reported; got {sorted(map(str, _signatures(report)))}")
    return wrong


def _check(case: dict[str, Any]) -> list[str]:
    if case["kind"] == "parse":
        return _check_parse(case)
    if case["kind"] == "digest":
        got = Message.from_json(check_line(case["line"]).message.to_json()).digest()  # type: ignore[union-attr]
        return [] if got == case["expect"] else [f"digest {got}, want {case['expect']}"]
    return _check_report(case)


def test_the_published_suite_has_its_99_codec_cases(published: dict[str, dict[str, Any]]) -> None:
    assert len(published) == PUBLISHED_CODEC_CASES
    assert {c["kind"] for c in published.values()} <= set(CODEC_KINDS)


def test_every_mapped_case_is_in_the_published_suite(published: dict[str, dict[str, Any]]) -> None:
    # a mapping left behind by a newer suite would map nothing
    assert not (set(NAMES) | set(FINDINGS)) - set(published)


def test_every_published_codec_case_passes(published: dict[str, dict[str, Any]]) -> None:
    failures = {cid: wrong for cid, case in published.items() if (wrong := _check(case))}
    passed = len(published) - len(failures)
    assert not failures, f"{passed} of {len(published)} published cases pass; failing:\n" + "\n".join(
        f"{cid}: {'; '.join(wrong)}" for cid, wrong in sorted(failures.items()))
