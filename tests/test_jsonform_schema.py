"""The JSON Schema of the JSON form agrees with the package on the suite.

Every valid JSON form in the conformance suite (``parse`` results and
``encode`` inputs) validates against the schema of its vocabulary: the core
schema for a message without ``p=``, the profile's schema for one with it.
Every refused ``encode`` input is rejected too, except where the refusal
rests on something a schema cannot say (named in the schema's ``$comment``).
Mutations of valid forms (unknown enum code, missing required slot, wrong
JSON type) are rejected.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache

import jsonschema
import pytest
from hypothesis import given, settings

from rogerwilco.front.cli import main
from rogerwilco.front.conformance import load_cases
from rogerwilco.core.jsonform_schema import schema, schema_for, tail_pattern
from rogerwilco.core.vocab import BUNDLED_PROFILES, compile_vocabulary, load_profile
from tests.strategies import messages

Validator = jsonschema.Draft202012Validator


@lru_cache(maxsize=None)
def validator(profile: str | None) -> jsonschema.Draft202012Validator:
    doc = schema(profile)
    Validator.check_schema(doc)
    return Validator(doc)


def validator_for_case(form: dict, request: dict) -> jsonschema.Draft202012Validator:
    """The schema of the form's vocabulary, as the case's receiver holds it."""
    p = form.get("slots", {}).get("p") if isinstance(form.get("slots"), dict) else None
    for entry in request.get("profiles") or []:
        if isinstance(entry, dict) and entry.get("profile") == p:
            return Validator(schema_for(compile_vocabulary(load_profile(entry))))
        if entry == p:
            return validator(p)
    return validator(None)


def valid_forms():
    for case in load_cases():
        op, expect = case.request["op"], case.expect
        if op == "parse" and expect.get("valid") is True and "json" in expect:
            yield case.id, expect["json"], case.request
        if op == "encode" and expect.get("valid") is True:
            yield case.id, case.request["json"], case.request


def refused_encodes():
    for case in load_cases():
        if case.request["op"] == "encode" and case.expect.get("valid") is False and isinstance(case.request["json"], dict):
            yield case


def inexpressible(form: dict, request: dict) -> str | None:
    """Why a schema cannot see this refusal, or None if it should."""
    slots = form.get("slots") if isinstance(form.get("slots"), dict) else {}
    ident, sender = form.get("id"), form.get("from")
    if isinstance(ident, str) and isinstance(sender, str) and ident.rpartition("-")[0] != sender:
        return "the id's name equals from"
    if any(isinstance(v, float) for v in [*form.values(), *slots.values()]) or any(
            isinstance(x, float) for v in slots.values() if isinstance(v, list) for x in v):
        return "a number written with a fraction or an exponent (D9): JSON Schema reads 2.0 as 2"
    p = slots.get("p")
    held = [e if isinstance(e, str) else e.get("profile") for e in request.get("profiles") or []]
    if p is not None and p not in held:
        return "which profiles the receiver holds"
    return None


def test_the_schemas_are_valid_2020_12_schemas():
    for name in (None, *BUNDLED_PROFILES):
        Validator.check_schema(schema(name))


def test_there_are_valid_forms_in_the_suite():
    assert len(list(valid_forms())) > 50


@pytest.mark.parametrize("case_id,form,request_", list(valid_forms()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_valid_json_form_in_the_suite_validates(case_id, form, request_):
    errors = [e.message for e in validator_for_case(form, request_).iter_errors(form)]
    assert errors == [], case_id


def test_refused_encode_inputs_are_rejected_unless_a_schema_cannot_say_why():
    cases = list(refused_encodes())
    assert len(cases) > 20
    accepted = []
    unexplained = []
    for case in cases:
        form = case.request["json"]
        if validator_for_case(form, case.request).is_valid(form):
            reason = inexpressible(form, case.request)
            (accepted if reason else unexplained).append(case.id)
    assert unexplained == []
    # most refusals are the schema's business too
    assert len(accepted) <= len(cases) // 5


SPEC_HO = {"v": "RW1", "type": "HO", "id": "research-01", "re": None, "from": "research", "to": "writer",
           "item": "gh:crox/site#42",
           "slots": {"ask": "DRAFT", "due": "20261002", "pri": 2, "conf": "M", "keep": ["research"]},
           "tail": "hero copy, 120 words, no em dashes"}


def mutate(form: dict, path: tuple, value=..., delete: bool = False) -> dict:
    out = copy.deepcopy(form)
    target = out
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


@pytest.mark.parametrize("path,value,delete,what", [
    (("slots", "ask"), "PAYY", False, "unknown enum code"),
    (("slots", "conf"), "X", False, "unknown enum code"),
    (("slots", "ask"), None, True, "missing required slot"),
    (("item",), None, False, "missing required envelope slot"),
    (("slots", "pri"), "2", False, "integer as a string"),
    (("slots", "pri"), 9, False, "integer out of range"),
    (("slots", "pri"), True, False, "boolean for an integer"),
    (("slots", "keep"), "research", False, "string for a list"),
    (("slots", "keep"), [], False, "empty list"),
    (("slots", "keep"), ["a+b"], False, "list element with '+'"),
    (("slots", "due"), 20261002, False, "number for a date"),
    (("slots", "due"), "20261301", False, "month 13"),
    (("slots", "x_note"), 3, False, "extension key as a number"),
    (("slots", "from"), "research", False, "envelope key in slots"),
    (("slots", "Bad"), "x", False, "slot key not lowercase"),
    (("tail",), "two  spaces", False, "tail with two spaces"),
    (("tail",), "line\nbreak", False, "tail with a newline"),
    (("tail",), "x" * 301, False, "tail over 300"),
    (("tail",), "", False, "empty tail"),
    (("to",), "writer keep=x", False, "agent with a space"),
    (("v",), "RW2", False, "other version"),
    (("type",), "HX", False, "unknown type"),
    (("extra",), 1, False, "extra top-level key"),
    (("re",), None, True, "missing top-level key"),
])
def test_mutations_of_a_valid_form_are_rejected(path, value, delete, what):
    assert validator(None).is_valid(SPEC_HO)
    assert not validator(None).is_valid(mutate(SPEC_HO, path, value, delete)), what


def test_conditional_rules_from_the_data_are_in_the_schema():
    aq = {"v": "RW1", "type": "AQ", "id": "w-2", "re": None, "from": "w", "to": "r", "item": None,
          "slots": {"need": "ENUM", "opts": ["a", "b"]}, "tail": None}
    assert validator(None).is_valid(aq)
    assert not validator(None).is_valid(mutate(aq, ("slots", "opts"), delete=True))  # aq-enum-opts
    an = {"v": "RW1", "type": "AN", "id": "r-2", "re": "w-2", "from": "r", "to": "w", "item": None,
          "slots": {"val": "tail"}, "tail": "plain"}
    assert validator(None).is_valid(an)
    assert not validator(None).is_valid(mutate(an, ("tail",), None))  # an-tail
    assert not validator(None).is_valid(mutate(an, ("re",), None))  # AN requires re


def test_a_profile_schema_adds_its_slots_enums_and_answers():
    pay = {"v": "RW1", "type": "HO", "id": "scheduler-1", "re": None, "from": "scheduler", "to": "payer",
           "item": "inv:MD-2026-057",
           "slots": {"p": "pay", "ask": "PAY", "rb": ["exec"], "amt": "5400.00", "cur": "GBP"}, "tail": None}
    assert validator("pay").is_valid(pay)
    assert not validator(None).is_valid(pay)  # PAY is not a core ask
    assert not validator("pay").is_valid(mutate(pay, ("slots", "cur"), "XYZ"))
    assert not validator("pay").is_valid(mutate(pay, ("slots", "amt"), 5400))
    assert not validator("pay").is_valid(mutate(pay, ("slots", "p"), None, delete=True))
    an = {"v": "RW1", "type": "AN", "id": "s-2", "re": "p-1", "from": "s", "to": "p", "item": None,
          "slots": {"p": "pay", "val": "APPROVE"}, "tail": None}
    assert validator("pay").is_valid(an)
    assert not validator("pay").is_valid(mutate(an, ("slots", "val"), "OK-GO"))


@settings(max_examples=300, deadline=None)
@given(messages())
def test_every_generated_valid_message_validates(msg):
    form = json.loads(json.dumps(msg.to_json()))
    assert validator(msg.profile).is_valid(form), list(validator(msg.profile).iter_errors(form))[:3]


def test_tail_pattern_reads_the_same_as_a_code_point_and_a_utf16_engine():
    # An astral character passes whether the engine sees one code point or
    # two UTF-16 halves (the pair alternative); a lone half never does (D9).
    import re

    assert re.fullmatch(tail_pattern(), "ok \U0001f600 fine")
    halves = "ok " + chr(0xD83D) + chr(0xDE00) + " fine"  # what a UTF-16 engine sees
    assert re.fullmatch(tail_pattern(), halves)
    assert not re.fullmatch(tail_pattern(), "ok " + chr(0xD83D) + " fine")
    assert not re.fullmatch(tail_pattern(), "ok " + chr(0xDE00))
    assert re.fullmatch(tail_pattern(), "no\u00a0break")  # a no-break space is tail text (grammar TCHAR)
    assert not re.fullmatch(tail_pattern(), "line\u2028break")


def test_cli_prints_the_schema(capsys):
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema(None)
    assert main(["schema", "--profile", "clin"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["properties"]["slots"]["properties"]["p"] == {"const": "clin", "description": "the profile the message uses"}
