"""Profile patterns (D11): the portable subset is checked at load, and matching is linear in the value.

The issue's probes are here: ``(.|a)*Z`` (no nested quantifier, exponential
in a backtracking engine) and the ``\\d*`` x 6 shape, written ``[0-9]*`` x 6
(polynomial of degree 6 in one). The time bound is asserted as a count of
automaton states visited, never as wall-clock time.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.core import iregexp
from rogerwilco.front.adapter import handle
from rogerwilco.core.errors import ProfileError, RW1Error
from rogerwilco.core.iregexp import MAX_STATES, IRegexp, PatternError
from rogerwilco.front.mcp_server import call
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import BUNDLED_PROFILES, bundled_vocabulary, load_profile, profile_problems

EXPONENTIAL = "(.|a)*Z"
POLYNOMIAL = "[0-9]*[0-9]*[0-9]*[0-9]*[0-9]*[0-9]*x"


def profile_with(pattern: str, key: str = "item") -> dict:
    return {"profile": "t", "version": "1", "extends": "RW1",
            "translation": [{"id": "shape", "on": ["ST"], "match": {key: pattern}}]}


# ---------------------------------------------------------------- linear time

@pytest.mark.parametrize("pattern, char", [(EXPONENTIAL, "a"), (POLYNOMIAL, "1"), ("(a|aa)*b", "a"),
                                           ("(a|a|a|a)+c", "a"), ("[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*y", "q")])
def test_the_issue_probes_take_steps_linear_in_the_value(pattern, char):
    compiled = iregexp.compile(pattern)
    counts = {}
    for n in (100, 1000, 10_000):
        matched, counts[n] = compiled.count_steps(char * n)
        assert matched is False
        assert counts[n] <= (n + 1) * 2 * compiled.states  # at most every state, twice, per character
    # Ten times the value, at most ten times the work (plus the start): linear, not polynomial.
    assert counts[10_000] <= 10 * counts[1000] + compiled.states
    assert counts[1000] <= 10 * counts[100] + compiled.states


def test_a_forty_character_value_in_a_hostile_inline_profile_gets_an_answer_from_adapter_and_mcp():
    # The issue's hang: the adapter and MCP validate never answered. Each of these
    # is a bounded count of automaton steps now; the DFA cache answers the same.
    for pattern, char in ((EXPONENTIAL, "a"), (POLYNOMIAL, "1")):
        value = "x:" + char * 40
        line = f"RW1 ST a-1 from=a to=b item={value} p=t"
        got = handle({"op": "parse", "line": line, "profiles": [profile_with(pattern)]})
        assert got["ok"] is True and got["valid"] is False and got["token"] == f"item={value}"
        result, is_error = call("validate", {"lines": [line], "profiles": [profile_with(pattern)]})
        assert is_error is False and result["ok"] is True
        long_value = "x:" + char * 20_000
        assert iregexp.compile(pattern).count_steps(long_value)[1] <= 20_003 * 2 * iregexp.compile(pattern).states


def test_the_issue_digit_shorthand_probe_is_refused_at_load_with_its_json_path():
    with pytest.raises(ProfileError) as caught:
        load_profile(profile_with("\\d*\\d*\\d*\\d*\\d*\\d*x"))
    assert caught.value.path == "$.translation[0].match.item"
    assert "shorthand \\d" in caught.value.message


def test_nested_quantifiers_are_refused_as_before():
    with pytest.raises(ProfileError) as caught:
        load_profile(profile_with("(a+)+"))
    assert caught.value.path == "$.translation[0].match.item" and "nested quantifier" in caught.value.message


# ---------------------------------------------------------------- the subset

@pytest.mark.parametrize("pattern, reason", [
    ("\\d+", "shorthand \\d"), ("\\w", "shorthand \\w"), ("\\s", "shorthand \\s"), ("[\\d]", "shorthand \\d"),
    ("\\p{L}", "Unicode properties"), ("^a", "anchor '^'"), ("a$", "anchor '$'"), ("\\bx", "anchor \\b"),
    ("\\Z", "anchor \\Z"), ("(a)\\1", "backreferences"), ("(?:a)", "'(?'"), ("(?P<n>a)", "'(?'"),
    ("(?=a)", "'(?'"), ("(?i)a", "'(?'"), ("a*?", "lazy"), ("a+?", "lazy"), ("a{1,2}?", "lazy"),
    ("a*+", "possessive"), ("(a+)+", "nested quantifier"), ("(a*b)?", "nested quantifier"),
    ("(a{2})*", "nested quantifier"), ("((ab)+c)*", "nested quantifier"), ("a{2,}", "no upper bound"),
    ("a{1001}", "over the limit"), ("a{3,2}", "wrong way round"), ("(a", "unbalanced '('"),
    ("a)", "unbalanced ')'"), ("[a-", "unterminated"), ("[]", "empty bracket"), ("[z-a]", "backwards"),
    ("*a", "nothing to repeat"), ("a**", "follows a quantifier"), ("{", "nothing to repeat"),
    ("a{x}", "counted repeat"), ("]", "\\]"), ("}", "\\}"), ("[[a]", "nested classes"), ("a\\", "end with"),
    ("\\q", "unknown escape"), ("x" * 1001, "over the limit"), ("(abcdefghijk){1000}", "too large"),
    ("[a-c-e]", "'-' inside a class"),
])
def test_patterns_outside_the_portable_subset_are_refused_with_a_reason(pattern, reason):
    with pytest.raises(PatternError) as caught:
        iregexp.check(pattern)
    assert reason in caught.value.message
    assert isinstance(caught.value, RW1Error)
    problems = profile_problems(profile_with(pattern))
    assert [p for p, _ in problems] == ["$.translation[0].match.item"]


@pytest.mark.parametrize("pattern", [
    "[a-z][a-z0-9_-]*:[^ ]+", "doc:[^#]+#l[1-9][0-9]*", "(ab|c)+", "a{2}", "a{0,3}b?", ".", "[-a]", "[a-]",
    "\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\\\-\\^", "[\\]\\[]", "(|a)*", "()", "", "é+", "[^#]", "x{0,1000}",
    "(a|b|c)*", "inv:[0-9]{4}-[0-9]{1,6}",
])
def test_patterns_inside_the_subset_load(pattern):
    iregexp.check(pattern)
    assert profile_problems(profile_with(pattern)) == []


def test_a_pattern_that_is_not_a_string_is_refused_with_its_path():
    assert [p for p, _ in profile_problems(profile_with(5))] == ["$.translation[0].match.item"]  # type: ignore[arg-type]
    assert [p for p, _ in profile_problems(profile_with(["a"]))] == ["$.translation[0].match.item"]  # type: ignore[arg-type]


def test_every_bundled_profile_pattern_is_in_the_subset_and_compiled_for_linear_matching():
    for name in BUNDLED_PROFILES:
        vocab = bundled_vocabulary(name)
        for rule in vocab.rules:
            for pattern in rule.match.values():
                assert isinstance(pattern, IRegexp)
                iregexp.check(pattern.pattern)


def test_a_pattern_matches_the_whole_value():
    ok = "RW1 ST a-1 from=a to=b item=obs:bp p=t"
    assert check_line(ok, [profile_with("[a-z]+:[a-z]+")]).valid
    for value in ("Xobs:bp", "obs:bp1"):  # a search would find a match inside these
        result = check_line(ok.replace("obs:bp", value), [profile_with("[a-z]+:[a-z]+")])
        assert result.refusal.token == f"item={value}"


def test_the_clin_shapes_still_hold():
    base = ("RW1 ST extractor-1 from=extractor to=record item=dx:asthma p=clin act=ASSESS pol=POS cert=CERT subj=PT time=CUR "
            "src=doc:n1#l3 // wheeze")
    assert check_line(base, ["clin"]).valid
    assert check_line(base.replace("item=dx:asthma", "item=DX:asthma"), ["clin"]).refusal.token == "item=DX:asthma"
    assert check_line(base.replace("#l3", "#l0"), ["clin"]).refusal.token == "src=doc:n1#l0"


def test_the_automaton_size_limit_holds():
    iregexp.check("(abcdefgh){1000}")  # about 9,000 states
    assert iregexp.compile("(abcdefgh){1000}").states <= MAX_STATES


# ---------------------------------------------------------------- same answers as a regex engine

_ALPHABET = "ab.-^"


def _literal(ch: str) -> str:
    return "\\" + ch if ch in ".-^" else ch


@st.composite
def _pieces(draw, depth: int):
    kind = draw(st.sampled_from(["lit", "lit", "dot", "class", "group"] if depth < 2 else ["lit", "dot", "class"]))
    if kind == "lit":
        atom = _literal(draw(st.sampled_from(_ALPHABET)))
        inner_q = False
    elif kind == "dot":
        atom, inner_q = ".", False
    elif kind == "class":
        body = "".join(draw(st.lists(st.sampled_from(["a", "b", "a-b", "\\.", "\\-", "\\^"]), min_size=1, max_size=3)))
        atom, inner_q = "[" + ("^" if draw(st.booleans()) else "") + body + "]", False
    else:
        branches = draw(st.lists(_branch(depth + 1), min_size=1, max_size=3))
        atom = "(" + "|".join(b for b, _ in branches) + ")"
        inner_q = any(q for _, q in branches)
    quant = "" if inner_q else draw(st.sampled_from(["", "", "?", "*", "+", "{2}", "{0,2}", "{1,3}"]))
    return atom + quant, bool(quant) or inner_q


@st.composite
def _branch(draw, depth: int = 0):
    pieces = draw(st.lists(_pieces(depth), max_size=4))
    return "".join(p for p, _ in pieces), any(q for _, q in pieces)


@settings(max_examples=400, deadline=None)
@given(_branch(), st.lists(st.text(alphabet=_ALPHABET + "c", max_size=8), min_size=1, max_size=6))
def test_matching_agrees_with_a_backtracking_engine_on_small_inputs(generated, values):
    pattern, _ = generated
    compiled = IRegexp(pattern)
    for value in values:
        expected = re.fullmatch(pattern, value, re.DOTALL) is not None
        assert compiled.fullmatch(value) is expected, (pattern, value)
        assert compiled.count_steps(value)[0] is expected, (pattern, value)


def test_the_dfa_cache_stays_bounded_on_a_value_of_many_distinct_characters():
    compiled = IRegexp("(.|a)*Z")
    for start in range(0x4E00, 0x4E00 + 40_000, 2000):  # values within the step limit, 40,000 characters in all
        value = "".join(chr(start + i) for i in range(2000)) + "Z"
        assert compiled.fullmatch(value) is True
    assert sum(len(row) for row in compiled._dfa.values()) <= 512 * len(compiled._dfa)
    assert compiled._held <= iregexp._DFA_BUDGET + compiled.states


# ---------------------------------------------------------------- work per value

COSTLY = "[ab]*a[ab]{999}"  # within the pattern limits; every character is a new DFA state


def _refused_at(compiled: IRegexp, value: str) -> int:
    """The shortest prefix of ``value`` whose plain NFA simulation visits more than MAX_MATCH_STEPS states."""
    low, high = 0, len(value)
    while low < high:
        mid = (low + high) // 2
        if compiled.count_steps(value[:mid])[1] > iregexp.MAX_MATCH_STEPS:
            high = mid
        else:
            low = mid + 1
    return low


@pytest.mark.parametrize("length", [20_000, 100_000])
def test_a_value_costs_at_most_the_step_limit_whatever_its_length(length):
    value = "ab" * (length // 2)
    compiled = iregexp.compile(COSTLY)
    assert compiled.count_steps(value)[1] > 100 * iregexp.MAX_MATCH_STEPS  # what matching it whole would cost
    assert compiled.matches(value) is None and compiled.fullmatch(value) is False
    # the verdict is exactly the documented bound: a prefix within the limit is decided, one past it refused
    cut = _refused_at(compiled, value)
    assert cut < 1000  # far shorter than any value the pattern could match
    assert compiled.matches(value[:cut - 1]) is False and compiled.matches(value[:cut]) is None


def test_the_verdict_counts_the_same_work_warm_or_cold():
    compiled = iregexp.IRegexp("[a-z][a-z0-9_-]*:[^ ]+")
    fits = "a:" + "b" * 3000
    assert compiled.count_steps(fits)[1] <= iregexp.MAX_MATCH_STEPS
    too_long = "a:" + "b" * 5000
    assert compiled.count_steps(too_long)[1] > iregexp.MAX_MATCH_STEPS
    for _ in range(3):  # the DFA cache warms up; the verdicts do not move
        assert compiled.matches(fits) is True
        assert compiled.matches(too_long) is None


def test_a_value_past_the_work_limit_is_refused_naming_the_pattern():
    pattern, value = "x:" + COSTLY, "x:" + "ab" * 10_000
    line = f"RW1 ST a-1 from=a to=b item={value} p=t"
    got = handle({"op": "parse", "line": line, "profiles": [profile_with(pattern)]})
    assert got["ok"] is True and got["valid"] is False and got["token"] == f"item={value}"
    findings = check_line(line, [profile_with(pattern)]).findings
    assert any(pattern in f.message and "within 20,000 steps" in f.message for f in findings)
    short = "x:" + "ab" * 10
    assert not any("steps" in f.message for f in check_line(line.replace(value, short), [profile_with(pattern)]).findings)
