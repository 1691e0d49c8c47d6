"""The comprehension rules of D6, one behaviour per test."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rogerwilco.comprehension import Comparator, CriteriaError, fold_plural, normalise, parse_criteria, read_len, same_fact
from rogerwilco.vocab import core_vocabulary

CMP = Comparator.for_vocabulary(core_vocabulary())


def kinds(sender, receiver, **kw):
    found = CMP.compare(parse_criteria(sender) if sender is not None else None, parse_criteria(receiver), **kw)
    return {(f.severity, f.kind, f.key) for f in found}


@pytest.mark.parametrize("word, singular", [
    ("dashes", "dash"), ("matches", "match"), ("boxes", "box"), ("classes", "class"), ("quizzes", "quizz"),
    ("words", "word"), ("glass", "glass"), ("bus", "bus"), ("is", "is"), ("pages", "page"),
])
def test_plural_folding_follows_the_rule(word, singular):
    assert fold_plural(word) == singular


def test_normalise_splits_lowercases_and_drops_punctuation():
    assert normalise("Em-Dashes") == ("em", "dash")
    assert normalise("gov.uk/stats_page") == ("gov", "uk", "stat", "page")
    assert normalise("monday's!") == ("monday",)


def test_aliases_map_a_whole_value():
    aliases = CMP.aliases
    assert normalise("UK", aliases) == normalise("en-gb", aliases) == normalise("British_English", aliases)
    assert normalise("md", aliases) == ("markdown",)
    assert normalise("uk-retail", aliases) == ("uk", "retail")  # not a whole-value alias


def test_word_prefix_is_by_word_not_character():
    assert same_fact(("monday",), ("monday", "problem"))
    assert not same_fact(("12",), ("120w",))
    assert not same_fact(("pla",), ("plain",))


def test_word_set_containment_either_way():
    assert same_fact(("problem", "monday"), ("monday", "problem"))
    assert same_fact(("owner", "of", "small", "business"), ("small", "business", "owner"))
    assert not same_fact(("warm", "friendly"), ("friendly", "formal"))


def test_empty_normalisation_is_no_prefix_of_anything():
    assert not same_fact((), ("monday",))
    assert same_fact((), ())


@pytest.mark.parametrize("text, parsed", [
    ("120w", ("120", "w")), ("120", ("120", "")), ("120-words", ("120", "w")), ("2pages", ("2", "p")),
    ("10-slides", ("10", "s")), ("800C", ("800", "c")), ("short", None), ("12x", None),
])
def test_len_reads_number_and_unit(text, parsed):
    got = read_len(text)
    assert (None if got is None else (str(got[0]), got[1])) == parsed


def test_len_compares_number_and_unit():
    assert kinds("len:120w", "len:150w") == {("fail", "contradiction", "len")}
    assert kinds("len:120w", "len:120c") == {("fail", "contradiction", "len")}
    assert kinds("len:120w", "len:120") == {("note", "loose", "len")}
    assert kinds("len:12", "len:120w") == {("fail", "contradiction", "len")}
    assert kinds("len:120w", "len:120-words") == set()


def test_loose_match_only_on_set_valued_keys():
    assert kinds("must:regulated-proof", "must:regulated-ai") == {("note", "loose", "must")}
    assert kinds("tone:regulated-proof", "tone:regulated-ai") == {("fail", "contradiction", "tone")}


def test_loose_match_needs_a_distinctive_word():
    assert ("fail", "gap", "must") in kinds("must:the-pricing", "must:the-monday")
    assert ("fail", "gap", "must") in kinds("must:ai-safety", "must:ai-ethics")


def test_gap_assumption_and_unknown_keys():
    assert kinds("tone:plain+lang:uk", "tone:plain+fmt:md+spelling:uk") == {
        ("fail", "gap", "lang"), ("note", "assumption", "fmt"), ("note", "unknown-key", "spelling")}


def test_not_tokens_are_no_values_and_exclusions():
    assert kinds("no:em-dash", "tone:plain", not_tokens=["em-dashes"]) == {("note", "assumption", "tone")}
    assert kinds("must:monday-problem", "must:monday-problem", not_tokens=["monday-problem"]) == {("fail", "excluded", "must")}


def test_required_keys_without_sender_criteria():
    assert kinds(None, "len:120w", required_keys=["len", "tone"]) == {("fail", "gap", "tone"), ("note", "unchecked", None)}
    assert kinds(None, "len:120w", required_keys=["len"]) == {("note", "unchecked", None)}


def test_a_single_valued_key_cannot_hedge():
    assert kinds("len:120w", "len:120w+len:150w") == {("fail", "contradiction", "len")}


def test_parse_criteria_refuses_what_is_not_key_value():
    assert [str(c) for c in parse_criteria("LEN:120w+tone:plain")] == ["len:120w", "tone:plain"]
    for bad in ("len", "len:", ":x", "a b:y"):
        with pytest.raises(CriteriaError):
            parse_criteria(bad)
    # A key outside the closed set is a key all the same (D6: noted, not compared).
    assert [str(c) for c in parse_criteria("9x:y+reading-level:b2")] == ["9x:y", "reading-level:b2"]


words = st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8), min_size=1, max_size=4)


@given(words)
def test_every_value_is_the_same_fact_as_itself(ws):
    value = "-".join(ws)
    assert kinds(f"must:{value}", f"must:{value}") == set()
    assert kinds(f"tone:{value}", f"tone:{value.upper()}") == set()


@given(words, words)
def test_same_fact_is_symmetric(a, b):
    assert same_fact(normalise("-".join(a)), normalise("-".join(b))) == same_fact(normalise("-".join(b)), normalise("-".join(a)))


@given(st.integers(1, 5000), st.integers(1, 5000), st.sampled_from(["w", "c", "p", "s"]))
def test_len_with_different_numbers_always_contradicts(a, b, unit):
    found = kinds(f"len:{a}{unit}", f"len:{b}{unit}")
    assert (found == set()) == (a == b)
