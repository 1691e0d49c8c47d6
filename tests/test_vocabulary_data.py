"""The core vocabulary describes itself (``profiles/rw1.json``).

It matches its schema (``profiles/rw1.schema.json``); every slot type it
uses is one of spec section 7's or the core's own, and its ``slot_types``
says what a value of each is (section 7's scalar types included, so a port
reads ``pri=+1`` and ``amt=.50`` off the data, not off this package); each
declared pattern is in the grammar's portable regex subset (decision D11)
and accepts exactly what the package's decoder accepts, on generated values
and on the edge inputs ports have guessed wrong; and every pattern the bundled vocabulary holds (declared types,
profile rules) matches the same values in Python's ``re``, JavaScript's
``RegExp`` (run with node) and the package's linear-time matcher, so a port
that reads the data gets the same answers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from rogerwilco import RW1SyntaxError
from rogerwilco.core import iregexp
from rogerwilco.core.abnf import regex_to_abnf
from rogerwilco.core.syntax import parse_raw
from rogerwilco.front.conformance import load_cases
from rogerwilco.core.slottypes import compile_type
from rogerwilco.front.testing import RequestGenerator
from rogerwilco.core.vocab import BUNDLED_PROFILES, bundled_vocabulary, core_vocabulary
from tests.jstools import run_node

ROOT = Path(__file__).resolve().parents[1]
CORE = json.loads((ROOT / "profiles" / "rw1.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((ROOT / "profiles" / "rw1.schema.json").read_text(encoding="utf-8"))
SECTION_7 = {"token", "ref", "date", "days", "bool", "money", "num", "msgid", "agent"}


def test_the_core_vocabulary_matches_its_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(CORE)]
    assert errors == []


def test_the_schema_refuses_an_undeclared_shape_of_type():
    broken = json.loads(json.dumps(CORE))
    broken["slots"]["pri"]["type"] = "int:1 to 5"
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(broken)
    broken = json.loads(json.dumps(CORE))
    broken["slot_types"]["digest"] = {"desc": "no pattern and no one_of"}
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(broken)


def test_every_slot_type_is_section_7s_or_declared_in_the_data():
    enums = core_vocabulary().enums
    declared = CORE["slot_types"]
    for key, slot in CORE["slots"].items():
        name = slot["type"].removeprefix("list:")
        if name.startswith("enum:"):
            assert name[5:] in enums, f"{key}: enum {name[5:]} is not defined"
        elif name.startswith("int:"):
            assert re.fullmatch(r"int:-?[0-9]+--?[0-9]+", name), key
        else:
            assert name in SECTION_7 or name in declared, f"{key}: type {name} is neither section 7's nor declared"
    used = {s["type"].removeprefix("list:") for s in CORE["slots"].values()}
    assert set(declared) - SECTION_7 - {"int"} <= used, "a declared core type no slot uses"
    assert SECTION_7 | {"int"} <= set(declared), "a type of spec section 7 without its pattern"


# The values of int:<lo>-<hi> are checked against the pattern and then the
# range; the widest range the package takes (a bound has at most 100
# characters) shows what the pattern alone says.
_WIDEST_INT = "int:-" + "9" * 99 + "-" + "9" * 100
# Inputs on which ports have guessed wrong: a sign, digit separators and
# non-ASCII digits that a language's number reader takes, a bare leading or
# trailing point, a digit count past the limit.
EDGE_INPUTS = {"+1", "1_0", "1 0", "\u0661", "\u0663\u0662", "\uff11", "\U0001d7d8", "0x1", "1e3", "1.", ".5",
               "3.", ".50", "-.50", "+5.00", "5.0", "5.000", "5,00", "1,000.00", "-0", "00", "02", "-3.00",
               "1/2", "1/", "/2", "1//2", "1.5/-2.25", "3.5", "14d", "14D", "d", "-14d", "14dd", "Y", "N", "y", "yes",
               "20261002", "2026-10-02", "20260230", "2026100", "a-1", "a-", "-1", "a.b-07", "writer",
               "1" * 100, "1" * 101, "-" + "1" * 99, "1" * 101 + "d", "1" * 100 + "d"}


def _decoder(name: str):
    vocab = core_vocabulary()
    return compile_type(_WIDEST_INT if name == "int" else name, vocab.enums).decode


@pytest.mark.parametrize("name", sorted(k for k, v in CORE["slot_types"].items() if "pattern" in v))
def test_a_declared_pattern_is_portable_and_means_what_the_decoder_does(name):
    declared = CORE["slot_types"][name]
    regex_to_abnf(declared["pattern"])  # refuses anything outside the grammar's portable subset
    iregexp.check(declared["pattern"])  # and outside D11's subset of I-Regexp
    pattern = re.compile(declared["pattern"])
    vocab = core_vocabulary()
    decode = _decoder(name)
    generator = RequestGenerator(seed=3)
    samples = {generator.value_of_type(vocab, _WIDEST_INT if name == "int" else name) for _ in range(300)}
    samples |= {s for s in (generator.value_of_type(vocab, t) for t in ("token", "ref", "date", "agent", "money",
                                                                          "num", "days", "msgid")
                            for _ in range(40))}
    samples |= {"", " ", "a b", "x:", ":x", "k:v+w", "20261002T2400Z", "20261301T1000Z", "20261002T1405Z",
                "C40BBA4360DC", "c40bba4360dc", "len:120w", "\u00a0", "a\u202eb", "\U0001f600", "x\ty"}
    samples |= EDGE_INPUTS
    for value in sorted(samples):
        if "+" in value and name not in ("int", "money", "num", "days"):
            continue  # these types are used only in lists, whose items hold no +
        try:
            parse_raw(f"RW1 HO a-1 k={value}")  # the decoder reads only what the grammar let through
            decode(value)
            decodes = True
        except (ValueError, RW1SyntaxError):
            decodes = False
        matches = pattern.fullmatch(value) is not None
        if declared.get("calendar"):
            assert decodes <= matches, value  # the calendar check only takes away
        else:
            assert decodes == matches, (name, value)


def test_the_rb_type_is_its_levels_and_the_slot_names():
    assert CORE["slot_types"]["rb"]["one_of"] == ["rb_levels", "slots"]
    vocab = core_vocabulary()
    rb = vocab.slots["rb"].type
    for code in [*CORE["rb_levels"], *CORE["slots"]]:
        assert rb.decode(code) == (code,)
    with pytest.raises(ValueError):
        rb.decode("ALL")


def _data_patterns() -> list[str]:
    patterns = [v["pattern"] for v in CORE["slot_types"].values() if "pattern" in v]
    for name in BUNDLED_PROFILES:
        for rule in bundled_vocabulary(name).rules:
            patterns += [p.pattern for p in rule.match.values()]
    return sorted(set(patterns))


def _pattern_cases() -> list[tuple[str, str, bool]]:
    """(pattern, value, matches) from the D11 cases: an inline profile's match rule on item, and the line's item."""
    found = []
    for case in load_cases():
        if not case.id.startswith("profiles/patterns:"):
            continue
        (profile,) = case.request["profiles"]
        (rule,) = profile["translation"]
        value = case.request["line"].rpartition(" item=")[2]
        found.append((rule["match"]["item"], value, case.expect["valid"]))
    return found


def test_the_pattern_cases_match_alike_in_python_javascript_and_the_package(tmp_path):
    found = _pattern_cases()
    assert len(found) >= 20 and any(ok for *_, ok in found) and not all(ok for *_, ok in found)
    cases = [{"pattern": p, "values": [v]} for p, v, _ in found]
    data = tmp_path / "cases.json"
    data.write_text(json.dumps(cases, ensure_ascii=True), encoding="utf-8")
    javascript = [verdicts[0] for verdicts in run_node("regex_match.js", str(data))]
    for (pattern, value, want), js in zip(found, javascript):
        iregexp.check(pattern)
        assert (re.fullmatch(pattern, value) is not None) == js == iregexp.compile(pattern).fullmatch(value) == want, (
            pattern, value)


def test_every_pattern_in_the_data_matches_alike_in_python_and_javascript(tmp_path):
    patterns = _data_patterns()
    assert len(patterns) >= 4
    generator = RequestGenerator(seed=9)
    vocab = core_vocabulary()
    pool = {generator.value_of_type(vocab, t) for t in ("token", "ref", "text", "date", "time", "constraint", "agent",
                                                          "msgid", "money", "num") for _ in range(30)}
    pool |= {"doc:12#l4", "doc:x#l", "obs:bp", "dx:asthma", "med:aspirin", "inv:MD-1", "\u0663", "\uff11",
             "A\u030a", "\U0001d7d8", "\u212a", "\u0130", "a.b", "[x]"}
    cases = [{"pattern": p, "values": sorted(pool)} for p in patterns]
    data = tmp_path / "cases.json"
    data.write_text(json.dumps(cases, ensure_ascii=True), encoding="utf-8")
    javascript = run_node("regex_match.js", str(data))
    for case, js in zip(cases, javascript):
        python = [re.fullmatch(case["pattern"], v) is not None for v in case["values"]]
        linear = iregexp.compile(case["pattern"])  # the matcher the package runs profile patterns on
        package = [linear.fullmatch(v) for v in case["values"]]
        differ = [v for v, a, b, c in zip(case["values"], python, js, package) if not a == b == c]
        assert differ == [], case["pattern"]
