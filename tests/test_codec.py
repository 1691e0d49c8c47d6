"""The codec: one decode, one encode, one equality, one "write it, read it back"."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.core.codec import as_json, decode, encode, reread, same, shown
from rogerwilco.core.errors import EncodeError, RW1Error
from rogerwilco.core.findings import FAIL, NOTE, Finding, fail, note
from rogerwilco.core.message import Message
from rogerwilco.core.vocab import core_vocabulary

from .strategies import RECEIVER, messages, value_for

CORE = core_vocabulary()

# (a, b, equal?): both directions are checked.
SAME = [
    (True, True, True),
    (True, 1, False),
    (False, 0, False),
    (2, 2, True),
    (2, 2.0, False),
    ("2", 2, False),
    (None, None, True),
    (None, "x", False),
    (("a", "b"), ("a", "b"), True),
    (("a", "b"), ("b", "a"), False),
    (["a", "b"], ("a", "b"), True),
    ([True], [1], False),
    ([1], [1, 1], False),
    ({"x": 1, "y": 2}, {"y": 2, "x": 1}, True),
    ({"x": True}, {"x": 1}, False),
    ({"slots": {"a": 1, "b": 2}}, {"slots": {"b": 2, "a": 1}}, False),
    ({"slots": {"a": 1, "b": 2}}, {"slots": {"a": 1, "b": 2}}, True),
    ({"x": 1}, {"x": 1, "y": None}, False),
]


@pytest.mark.parametrize("a,b,equal", SAME)
def test_same_is_strict_about_type_and_order_and_symmetric(a, b, equal):
    assert same(a, b) is equal
    assert same(b, a) is equal


def test_same_ordered_compares_member_order_at_the_top():
    assert same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1}, ordered=True)


# (key, given, lenient decode, strict decode or the error)
DECODE = [
    ("pri", "02", 2, 2),
    ("pri", 3, 3, 3),
    ("pri", "x", "x", ValueError),
    ("retry", "Y", True, True),
    ("retry", True, True, True),
    ("keep", ["a", "b"], ("a", "b"), ("a", "b")),
    ("keep", "a+b", ("a", "b"), ("a", "b")),
    ("val", "12", "12", "12"),
    ("x_note", "hi", "hi", ValueError),  # no slot: kept as given, or refused when strict
    ("pri", 2.5, 2.5, ValueError),
]


@pytest.mark.parametrize("key,given,lenient,strict", DECODE)
def test_decode_lenient_keeps_what_does_not_decode_strict_refuses_it(key, given, lenient, strict):
    assert same(decode(CORE, key, given), lenient)
    if strict is ValueError:
        with pytest.raises(ValueError):
            decode(CORE, key, given, strict=True)
    else:
        assert same(decode(CORE, key, given, strict=True), strict)


@pytest.mark.parametrize("key,value,error", [("keep", (), "empty list"), ("pri", 1.5, "not an integer"),
                                              ("keep", ("a+b",), r"contains '\+'"), ("keep", (("a",),), "a list holds"),
                                              ("x", "", "empty value")])
def test_encode_refuses_what_no_line_holds(key, value, error):
    with pytest.raises(EncodeError, match=error):
        encode(key, value)


def test_shown_writes_a_value_as_a_line_would_else_as_json():
    assert shown("keep", ("a", "b")) == "a+b"
    assert shown("retry", False) == "N"
    assert shown("pri", None) is None
    assert shown("pri", 1.5) == "1.5"
    assert shown(None, None) == "null"
    assert shown(None, {"é": 1}) == '{"é": 1}'
    assert as_json(("a",)) == ["a"] and as_json("a") == "a"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_slot_value_decodes_back_from_its_encoding(data):
    """decode(encode(v)) == v for every value a slot type can hold (strict and lenient alike)."""
    key = data.draw(st.sampled_from(sorted(k for k in CORE.slots if not k.startswith("x_"))))
    raw = data.draw(value_for(CORE.slots[key].type.name, CORE))
    value = decode(CORE, key, raw, strict=True)
    assert same(decode(CORE, key, encode(key, value)), value)
    assert same(decode(CORE, key, encode(key, value), strict=True), value)


@settings(max_examples=40, deadline=None)
@given(messages())
def test_reread_gives_the_message_back_or_our_own_error(message):
    try:
        again = reread(message, RECEIVER)
    except RW1Error:
        return
    assert again == message and again.source is None


def test_fail_and_note_take_every_field_by_name_only():
    f = fail(kind="mismatch", message="m", tier=3, key="pri", sender_value="1", receiver_value="2")
    n = note(kind="digest", message="no h=", tier=2, key="h")
    assert f == Finding(severity=FAIL, kind="mismatch", message="m", tier=3, key="pri", sender_value="1",
                        receiver_value="2")
    assert n == Finding(severity=NOTE, kind="digest", message="no h=", tier=2, key="h")
    with pytest.raises(TypeError):
        fail("mismatch", "m")  # type: ignore[misc]
