"""Only the package's own errors leave the API (issue 11 item 13, and D9 for JSON forms).

A JSON form (object or text) that cannot be a message is refused with an
RW1Error: an integer past the digit limit, a list nested in a list at any
depth, a float, a lone surrogate. The limits are documented in the README.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import Message, check_line
from rogerwilco.front.adapter import handle
from rogerwilco.core.errors import RW1Error
from rogerwilco.front.mcp_server import call
from rogerwilco.core.slottypes import MAX_INT_DIGITS

BASE = Message.from_line("RW1 HO a-1 from=a to=b item=x ask=FIX pri=2").to_json()


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def with_slot(key: str, value) -> dict:
    return {**BASE, "slots": {**BASE["slots"], key: value}}


@pytest.mark.parametrize("form, token", [
    (with_slot("pri", 10**5000), "pri"),  # past Python's 4,300-digit conversion limit
    (with_slot("x_k", 10**5000), "x_k"),
    (with_slot("keep", [10**5000]), "keep"),
    (with_slot("x_k", 10**MAX_INT_DIGITS), "x_k"),
    (with_slot("x_k", nested(100_000)), "x_k"),
    (with_slot("x_k", nested(900)), "x_k"),
    (with_slot("keep", ["a", ["b"]]), "keep"),
    (with_slot("x_k", {"a": {"b": 1}}), "x_k"),
    (with_slot("pri", 2.0), "pri"),  # D9: a number that is not an integer
    (with_slot("pri", 1e0), "pri"),
    (with_slot("pri", float("nan")), "pri"),
    (with_slot("x_k", "a\ud800b"), None),  # D9: a lone surrogate anywhere
    ({**BASE, "tail": "half \udc00"}, "tail"),
    ({**BASE, "item": "x\ud800"}, None),
    ({**BASE, "tail": nested(900)}, "tail"),
])
def test_an_unusable_json_form_is_refused_with_the_packages_error(form, token):
    with pytest.raises(RW1Error) as caught:
        Message.from_json(form)
    assert caught.value.why == "UNK"
    if token is not None:
        assert caught.value.token == token
    got = handle({"op": "encode", "json": form})
    assert got["ok"] is True and got["valid"] is False and got["why"] == "UNK"


@pytest.mark.parametrize("text", [
    '{"v": ' + "9" * 5000 + "}",
    "[" * 100_000 + "]" * 100_000,
    json.dumps(with_slot("pri", 1)).replace('"pri": 1', '"pri": 1e0'),
    json.dumps(with_slot("pri", 1)).replace('"pri": 1', '"pri": 2.0'),
    json.dumps(with_slot("x_k", "a")).replace('"a"', '"\\ud800"'),
    json.dumps(with_slot("x_k", 1)).replace(": 1", ": " + "1" * 200),
])
def test_unusable_json_text_is_refused_with_the_packages_error(text):
    with pytest.raises(RW1Error):
        Message.from_json(text)


def test_an_integer_at_the_limit_is_a_value_and_one_past_it_is_refused_in_a_line():
    ok = check_line("RW1 HO a-1 from=a to=b item=x ask=FIX x_k=1 due=20261001")
    assert ok.valid
    line = "RW1 ST a-1 from=a to=b item=x:1 pct=" + "9" * 5000
    result = check_line(line)
    assert result.refusal.token == "pct=" + "9" * 5000
    assert "digits" in result.refusal.message and "4300" not in result.refusal.message


def test_a_message_built_by_hand_around_the_checks_still_raises_only_package_errors():
    hand = Message(type="HO", id="a-1", from_="a", to="b", slots={"x_k": 10**5000})
    for method in (hand.to_line, hand.canonical, hand.digest):
        with pytest.raises(RW1Error):
            method()


def test_mcp_and_the_adapter_answer_a_deeply_nested_inline_profile_with_its_path():
    profile = {"profile": "t", "version": "1", "extends": "RW1", "asks_used": [nested(900)]}
    line = "RW1 HO a-1 from=a to=b item=x ask=FIX"
    result, is_error = call("validate", {"lines": [line], "profiles": [profile]})
    assert is_error is True and result["error"]["rule"] == "profile"
    assert result["error"]["message"].startswith("$.asks_used[0]: ")
    got = handle({"op": "parse", "line": line, "profiles": [profile]})
    assert got["ok"] is False and got["error"].startswith("ProfileError: $.asks_used[0]")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["pri", "keep", "x_k", "acc", "due", "rb", "h", "bad key"]), json_values,
                       max_size=3),
       st.sampled_from(["v", "type", "id", "re", "from", "to", "item", "tail"]), json_values)
def test_any_json_form_builds_a_message_or_raises_the_packages_error(slots, top, value):
    form = {**BASE, "slots": {**BASE["slots"], **slots}}
    if value is not None or top in ("re", "item", "tail"):
        form[top] = value
    try:
        message = Message.from_json(form)
    except RW1Error:
        return
    assert Message.from_line(message.to_line()) == message
