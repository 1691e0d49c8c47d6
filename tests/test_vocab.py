"""Vocabulary data and the profile loader (spec 7, D5)."""

from __future__ import annotations

import json

import pytest

from rogerwilco import ProfileError, Receiver
from rogerwilco.vocab import load_profile
from rogerwilco.core.vocab import compile_vocabulary, core_vocabulary, profile_problems

BASE = {"profile": "mine", "version": "1", "extends": "RW1"}


def test_core_tables_follow_the_spec_table():
    vocab = core_vocabulary()
    assert set(vocab.types) == {"HO", "RB", "AQ", "AN", "ST", "DN", "UN", "FL", "CX"}
    assert vocab.types["HO"].required == ("from", "to", "item", "ask")
    assert vocab.types["RB"].required == ("re", "from", "to", "item", "ask")
    assert vocab.types["DN"].required == ("re", "from", "to", "item", "out")
    assert set(vocab.enums["need"]) == {"ENUM", "TEXT", "NUM", "DATE", "YESNO"}
    assert "UNDO" in vocab.enums["ask"] and "EXPIRED" in vocab.enums["why"]


def test_profile_extends_the_tables():
    vocab = Receiver.load(["pay"]).vocabulary("pay")
    assert "PAY" in vocab.enums["ask"]
    assert "sup" in vocab.types["HO"].slots and "prev" in vocab.types["DN"].slots
    assert vocab.exec_slots["PAY"] == ("sup", "amt", "cur", "kind", "acct", "paid", "ref", "apref")
    assert "PAY" not in core_vocabulary().enums["ask"]


@pytest.mark.parametrize(
    "extra, path",
    [
        ({"asks": {"DRAFT": "mine"}}, "$.asks.DRAFT"),
        ({"why": {"UNK": "x"}}, "$.why.UNK"),
        ({"enums": {"out": {"OK": "fine"}}}, "$.enums.out.OK"),
        ({"slots": [{"key": "pri", "type": "token", "on": ["HO"]}]}, "$.slots[0].key"),
        ({"slots": [{"key": "lane", "type": "colour", "on": ["HO"]}]}, "$.slots[0].type"),
        ({"slots": [{"key": "lane", "type": "enum:nope", "on": ["HO"]}]}, "$.slots[0].type"),
        ({"slots": [{"key": "lane", "type": "token", "on": ["XX"]}]}, "$.slots[0].on[0]"),
        ({"exec": {"DRAFT": ["nosuch"]}}, "$.exec.DRAFT[0]"),
        ({"enums": {"ans": {"OK": "x"}}}, "$.enums.ans.OK"),
        ({"translation": [{"id": "r", "on": ["ST"], "require": ["nosuch"]}]}, "$.translation[0].require[0]"),
        ({"bogus": 1}, "$.bogus"),
    ],
)
def test_profile_problems_are_refused_with_their_json_path(extra, path):
    doc = BASE | extra
    assert path in [p for p, _ in profile_problems(doc)]
    with pytest.raises(ProfileError):
        load_profile(doc)


def test_malformed_profile_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ProfileError, match="not valid JSON"):
        load_profile(bad)
    with pytest.raises(ProfileError):
        load_profile(tmp_path / "missing.json")
    with pytest.raises(ProfileError, match="extends"):
        load_profile(BASE | {"extends": "RW2"})


def test_a_profile_from_a_file_is_held(tmp_path):
    path = tmp_path / "lanes.json"
    path.write_text(json.dumps(BASE | {"profile": "lanes", "asks": {"SHIP": "ship it"}}))
    receiver = Receiver.load([str(path)])
    assert receiver.holds("lanes") and "SHIP" in receiver.vocabulary("lanes").enums["ask"]


def test_bundled_profiles_load_clean():
    for name in ("pay", "clin", "pform"):
        assert profile_problems(load_profile(name)) == []
        compile_vocabulary(load_profile(name))


@pytest.mark.parametrize("pattern", ["^(a+)+$", "(x*)*y", "(?:a{2,3})+", "(x)\\1"])
def test_rule_patterns_that_could_run_for_ever_are_refused(pattern):
    doc = BASE | {"slots": [{"key": "sup", "type": "token", "on": ["ST"]}],
                  "translation": [{"id": "r", "on": ["ST"], "match": {"sup": pattern}}]}
    assert "$.translation[0].match.sup" in [p for p, _ in profile_problems(doc)]


@pytest.mark.parametrize("type_name", ["text", "digest", "constraint", "rb", "time", "list:rb"])
def test_a_profile_slot_uses_only_the_slot_types_of_spec_section_7(type_name):
    doc = BASE | {"slots": [{"key": "sig", "type": type_name, "on": ["ST"]}]}
    assert "$.slots[0].type" in [p for p, _ in profile_problems(doc)]


def test_enum_names_are_lowercase_keys():
    assert "$.enums.Bad Name" in [p for p, _ in profile_problems(BASE | {"enums": {"Bad Name": ["A"]}})]
