"""Every JSON Schema the package ships or generates compiles under ajv's strict mode, with no warning.

ajv (from npm, ``tests/js``) is the validator most JSON Schema users run;
its strict mode refuses schemas whose keywords could silently mean nothing
(a ``required`` without ``type: object``, union types, unknown formats).
The schemas: the JSON form's (core and every bundled profile), the
case-file and report schemas of the conformance suite, the profile schema,
the comparison data's schema and the core vocabulary's.

ajv must also judge JSON forms as Python's ``jsonschema`` does, on every
JSON form of the suite; refuse a lone surrogate in any string; and accept
a character outside the BMP.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from rogerwilco.front.conformance import load_cases
from rogerwilco.core.jsonform_schema import schema
from rogerwilco.core.vocab import BUNDLED_PROFILES
from tests.jstools import run_node

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [ROOT / "conformance" / "schema.json", ROOT / "conformance" / "report.schema.json",
           *sorted((ROOT / "profiles").glob("*.schema.json"))]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("schemas")
    paths = {}
    for name in (None, *BUNDLED_PROFILES):
        path = out / f"jsonform-{name or 'core'}.json"
        path.write_text(json.dumps(schema(name)), encoding="utf-8")
        paths[name or "core"] = path
    return paths


def test_every_schema_compiles_in_strict_mode_without_a_warning(generated):
    files = [*map(str, SHIPPED), *map(str, generated.values())]
    assert len(SHIPPED) >= 5
    report = run_node("ajv_check.js", *files)
    problems = {f: (r["errors"], r["warnings"]) for f, r in report.items() if not r["compiled"] or r["errors"]
                or r["warnings"]}
    assert problems == {}
    assert set(report) == set(files)


def _forms() -> list[tuple[str, dict]]:
    forms = []
    for case in load_cases():
        if case.request["op"] == "parse" and case.expect.get("valid") and "json" in case.expect:
            forms.append((case.id, case.expect["json"]))
        if case.request["op"] == "encode" and isinstance(case.request["json"], dict):
            forms.append((case.id, case.request["json"]))
    return forms


def test_ajv_and_python_jsonschema_judge_every_form_of_the_suite_alike(generated, tmp_path):
    forms = _forms()
    assert len(forms) > 100
    for name in ("core", *BUNDLED_PROFILES):
        doc = json.loads(generated[name].read_text(encoding="utf-8"))
        python = jsonschema.Draft202012Validator(doc)
        data = tmp_path / f"{name}.json"
        data.write_text(json.dumps([form for _, form in forms], ensure_ascii=True), encoding="utf-8")
        verdicts = run_node("ajv_check.js", "--validate", str(generated[name]), str(data))
        differ = [cid for (cid, form), got in zip(forms, verdicts) if python.is_valid(form) != got]
        assert differ == [], name


def test_strings_refuse_lone_surrogates_and_accept_characters_outside_the_bmp(generated, tmp_path):
    base = {"v": "RW1", "type": "HO", "id": "a-1", "re": None, "from": "a", "to": "b", "item": "x",
            "slots": {"ask": "DRAFT", "art": ["file:ok"]}, "tail": "fine"}
    variants = []
    for tail, item, art in (("fine", "x", "file:ok"), ("ok \U0001f600", "x\U0001f600", "file:\U0001f600"),
                            ("\ud800", "x", "file:ok"), ("fine", "x\udc00", "file:ok"), ("fine", "x", "file:\ud83d"),
                            ("a\ud83d b", "x", "file:ok")):
        form = json.loads(json.dumps(base))
        form["tail"], form["item"], form["slots"]["art"] = tail, item, [art]
        variants.append(form)
    data = tmp_path / "forms.json"
    data.write_text(json.dumps(variants, ensure_ascii=True), encoding="utf-8")
    assert run_node("ajv_check.js", "--validate", str(generated["core"]), str(data)) == [
        True, True, False, False, False, False]
    python = jsonschema.Draft202012Validator(json.loads(generated["core"].read_text(encoding="utf-8")))
    assert [python.is_valid(f) for f in variants] == [True, True, False, False, False, False]


def test_integer_slots_are_integers(generated, tmp_path):
    base = {"v": "RW1", "type": "HO", "id": "a-1", "re": None, "from": "a", "to": "b", "item": "x",
            "slots": {"ask": "DRAFT"}, "tail": None}
    forms = [{**base, "slots": {"ask": "DRAFT", "pri": value}} for value in (2, "2", 2.5, True, 9, [2])]
    data = tmp_path / "forms.json"
    data.write_text(json.dumps(forms), encoding="utf-8")
    assert run_node("ajv_check.js", "--validate", str(generated["core"]), str(data)) == [
        True, False, False, False, False, False]
    assert schema(None)["properties"]["slots"]["properties"]["pri"]["type"] == "integer"
