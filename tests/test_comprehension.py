"""The comprehension rules of D6, D13 and D15, one behaviour per test."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rogerwilco.checks import comprehension
from rogerwilco.checks.comprehension import (Comparator, CriteriaError, fold_plural, normalise, pair_one_to_one, parse_criteria,
                                       read_len, same_fact)
from rogerwilco.core.vocab import core_vocabulary

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


# --------------------------------------------------------------------------
# the comparison data is one file (profiles/compare.json)


PROFILES = Path(__file__).resolve().parent.parent / "profiles"
DATA = json.loads((PROFILES / "compare.json").read_text(encoding="utf-8"))


def test_the_comparison_data_file_is_valid_against_its_schema():
    schema = json.loads((PROFILES / "compare.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DATA)


def test_the_comparison_data_lives_only_in_the_data_file():
    core = json.loads((PROFILES / "rw1.json").read_text(encoding="utf-8"))
    assert "ckey" not in core["enums"] and "aliases" not in core and "set_valued_keys" not in core
    vocab = core_vocabulary()
    assert dict(vocab.constraint_keys) == DATA["constraint_keys"]
    assert vocab.set_valued_keys == frozenset(DATA["set_valued_keys"])
    assert vocab.aliases["british"] == "en-gb"
    assert comprehension.STOP_WORDS == frozenset(DATA["loose"]["stop_words"])
    assert comprehension.NEGATING_WORDS == frozenset(DATA["negation"]["words"])
    assert comprehension.NEGATING_PREFIXES == tuple(DATA["negation"]["prefixes"])
    assert comprehension.ES_PLURAL_ENDINGS == tuple(DATA["plural"]["es_endings"])
    assert dict(comprehension.LEN_UNITS) == DATA["len"]["units"]


def test_the_data_file_is_not_listed_as_a_profile():
    from rogerwilco.core.vocab import bundled_profile_names

    assert "compare" not in bundled_profile_names()


# --------------------------------------------------------------------------
# D13: a negation is a contradiction


def test_the_audit_reproducers_of_a_negated_readback_fail():
    assert kinds("tone:plain+must:monday-problem+aud:adults", "tone:not-plain+must:monday-problem+aud:adults") == {
        ("fail", "contradiction", "tone")}
    assert kinds("tone:plain+must:monday-problem+aud:adults", "tone:plain+must:not-monday-problem+aud:adults") == {
        ("fail", "contradiction", "must")}
    assert kinds("tone:plain+must:monday-problem+aud:adults", "tone:plain+must:monday-problem+aud:non-adults") == {
        ("fail", "contradiction", "aud")}


@pytest.mark.parametrize("sender, receiver", [
    ("tone:plain", "tone:unplain"), ("tone:plain", "tone:un-plain"), ("aud:adults", "aud:nonadults"),
    ("must:monday-problem", "must:never-monday-problem"), ("must:monday-problem", "must:without-monday-problem"),
    ("must:client-names", "must:avoid-client-names"), ("scope:uk-market", "scope:except-uk-market"),
    ("must:case-study", "must:case-study-forbidden"), ("tone:not-plain", "tone:plain"),
])
def test_a_negating_word_or_prefix_on_one_side_contradicts(sender, receiver):
    key = sender.split(":")[0]
    assert ("fail", "contradiction", key) in kinds(sender, receiver)


def test_a_negation_on_both_sides_is_compared_by_the_other_rules():
    assert kinds("no:not-tested", "no:not-tested") == set()
    assert kinds("must:never-monday", "must:not-monday") == {("note", "loose", "must")}
    assert kinds("tone:unplain", "tone:unplain") == set()


def test_a_prefix_negates_only_a_word_the_other_value_holds_bare():
    assert kinds("aud:unemployed-adults", "aud:unemployed") == set()  # word prefix, no negation between them
    assert kinds("must:united-front", "must:united-front-page") == set()


def test_a_negated_value_unrelated_to_the_missing_one_leaves_a_gap():
    found = CMP.compare(parse_criteria("must:monday-problem"), parse_criteria("must:not-video"))
    assert {(f.severity, f.kind, f.key) for f in found} == {("fail", "gap", "must"), ("note", "assumption", "must")}


def test_a_negated_receiver_value_beside_a_matched_one_is_a_contradiction():
    assert kinds("must:monday-problem", "must:monday-problem+must:no-monday-problem") == {("fail", "contradiction", "must")}


def test_a_negated_not_token_excludes_nothing():
    assert kinds("must:monday-problem", "must:monday-problem", not_tokens=["non-monday-problem"]) == {
        ("note", "assumption", "no")}


# --------------------------------------------------------------------------
# D15: canonical text, one-to-one matching, loose exclusions


def test_canonically_equivalent_text_is_the_same_fact():
    nfc, nfd = unicodedata.normalize("NFC", "crème-brûlée"), unicodedata.normalize("NFD", "crème-brûlée")
    assert nfc != nfd
    assert kinds(f"must:{nfc}", f"must:{nfd}") == set()
    assert normalise(nfd) == normalise(nfc) == ("crème", "brûlée")


def test_values_are_case_folded_not_only_lowercased():
    assert normalise("STRASSE") == normalise("straße") == ("strasse",)
    assert kinds("must:straße", "must:STRASSE") == set()


def test_a_loose_match_cannot_hide_a_gap():
    found = CMP.compare(parse_criteria("must:monday-problem+must:pricing-problem"), parse_criteria("must:monday-problem"))
    assert {(f.severity, f.kind, f.key) for f in found} == {("fail", "gap", "must")}
    assert [f.sender_value for f in found] == ["must:pricing-problem"]


def test_exact_pairs_are_made_before_same_fact_and_loose_ones():
    found = CMP.compare(parse_criteria("must:pricing-problem+must:monday-problem"), parse_criteria("must:monday-problem"))
    assert [(f.kind, f.sender_value) for f in found] == [("gap", "must:pricing-problem")]


def test_each_receiver_value_serves_one_sender_value():
    assert kinds("src:bank+src:bank-statement", "src:bank-statement") == {("fail", "gap", "src")}


def test_pairing_finds_a_partner_for_every_value_where_one_exists():
    # monday fits both receiver values, monday-problem only the first: the
    # pairing moves monday to the second rather than leave a loose pair.
    assert kinds("must:monday+must:monday-problem", "must:monday-problem-statement+must:monday-morning") == set()


def test_a_loose_not_token_is_a_note_not_an_exclusion():
    found = kinds("must:monday-problem+must:pricing-problem", "must:monday-problem+must:pricing-problem",
                  not_tokens=["problem-statement"])
    assert ("fail", "excluded", "must") not in found
    assert ("note", "loose", "must") in found
    assert not any(severity == "fail" for severity, _, _ in found)


relations = st.integers(1, 6).flatmap(lambda n: st.integers(1, 6).flatmap(lambda m: st.lists(
    st.lists(st.sampled_from([None, "exact", "same", "loose", "negated"]), min_size=m, max_size=m), min_size=n, max_size=n)))


@given(relations)
def test_the_pairing_is_one_to_one_and_leaves_no_pair_it_could_make(matrix):
    sparse = [{j: how for j, how in enumerate(row) if how is not None} for row in matrix]
    pairs = pair_one_to_one(sparse, len(matrix[0]))
    senders = [i for i, _, _ in pairs]
    receivers = [j for _, j, _ in pairs]
    assert len(set(senders)) == len(senders) and len(set(receivers)) == len(receivers)
    for i, j, how in pairs:
        assert matrix[i][j] == how and how in ("exact", "same", "loose")
    for i in set(range(len(matrix))) - set(senders):
        for j in set(range(len(matrix[0]))) - set(receivers):
            assert matrix[i][j] not in ("exact", "same", "loose")
    # exact first: no exact edge joins an exact-less pair's ends while both were free
    exact_pairs = sum(1 for _, _, how in pairs if how == "exact")
    assert exact_pairs == _maximum_matching(matrix, "exact")


def _maximum_matching(matrix, rank):
    from itertools import permutations

    n, m = len(matrix), len(matrix[0])
    best = 0
    for perm in permutations(range(m), min(n, m)):
        best = max(best, sum(1 for i, j in enumerate(perm) if i < n and matrix[i][j] == rank))
    if n > m:
        for perm in permutations(range(n), m):
            best = max(best, sum(1 for j, i in enumerate(perm) if matrix[i][j] == rank))
    return best


@pytest.mark.parametrize("criteria", [5, 1.5, True])
def test_criteria_that_are_neither_a_string_nor_a_list_raise_the_packages_error(criteria):
    with pytest.raises(CriteriaError, match="a key:value string or a list"):
        parse_criteria(criteria)
