"""The message model: both forms, round trips, digests (D1, D2, D3)."""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rogerwilco
from rogerwilco import EncodeError, Message, RefusedError, RW1Error
from rogerwilco.core.message import Source
from tests.strategies import RECEIVER, messages

SPEC_HO = ("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 "
           "pri=2 conf=M keep=research // hero copy, 120 words, no em dashes")
SPEC_PAY = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
            "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")


def test_spec_digests_come_out_exactly():
    assert rogerwilco.loads(SPEC_HO).digest() == "c40bba4360dc"
    assert rogerwilco.loads(SPEC_PAY, ["pay"]).digest() == "a7a82de76607"


def test_json_form_matches_spec_section_6():
    assert rogerwilco.loads(SPEC_HO).to_json() == {
        "v": "RW1", "type": "HO", "id": "research-01", "re": None,
        "from": "research", "to": "writer", "item": "gh:crox/site#42",
        "slots": {"ask": "DRAFT", "due": "20261002", "pri": 2, "conf": "M", "keep": ["research"]},
        "tail": "hero copy, 120 words, no em dashes",
    }


def test_canonical_form_is_sorted_compact_utf8():
    msg = rogerwilco.loads("RW1 ST a-1 from=a to=b item=x // café 中")
    text = msg.canonical()
    assert " " not in text.replace("café 中", "")
    assert "café 中" in text  # kept as UTF-8, not \\u escapes
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_decoded_comparison_pri_02_equals_pri_2_and_writes_back_as_2():
    a = rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=02")
    b = rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=2")
    assert a == b
    assert "pri=2" in a.to_line() and "pri=02" not in a.to_line()


def test_ids_compare_exactly():
    assert rogerwilco.loads("RW1 ST writer-07 from=writer to=b item=x") != rogerwilco.loads("RW1 ST writer-7 from=writer to=b item=x")


def test_value_types_of_d2():
    m = rogerwilco.loads("RW1 FL a-1 re=b-2 from=a to=b item=x why=ERR retry=Y art=file:a+file:b")
    assert m.slots["retry"] is True and m.slots["art"] == ("file:a", "file:b")
    an = rogerwilco.loads("RW1 AN a-2 re=b-1 from=a to=b val=12")
    assert an.to_json()["slots"]["val"] == "12"


def test_line_order_is_envelope_then_slots_as_held():
    m = rogerwilco.loads("RW1 HO a-1 ask=DRAFT item=x to=b from=a pri=3")
    assert m.to_line() == "RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=3"


@settings(max_examples=300, deadline=None)
@given(messages())
def test_json_round_trip(msg: Message):
    assert Message.from_json(msg.to_json(), RECEIVER) == msg


@settings(max_examples=300, deadline=None)
@given(messages())
def test_line_round_trip(msg: Message):
    line = msg.to_line()
    again = Message.from_line(line, RECEIVER)
    assert again == msg
    assert again.to_line() == line
    assert again.digest() == msg.digest()


@pytest.mark.parametrize("tail", ["two\nlines", "cr\rhere", "tab\there", "nel\x85here", "ls\u2028here", " lead", "trail ", "a  b"])
def test_encoding_refuses_a_tail_that_would_forge_or_break_a_line(tail):
    msg = rogerwilco.loads("RW1 ST a-1 from=a to=b item=x")
    with pytest.raises(EncodeError):
        msg.replace(tail=tail).to_line()
    form = msg.to_json() | {"tail": tail}
    with pytest.raises(EncodeError) as info:
        Message.from_json(form)
    assert info.value.token == "tail"


@pytest.mark.parametrize("value", ["a b", "a\nb", "", "x\x00"])
def test_encoding_refuses_a_value_the_grammar_would_refuse(value):
    form = rogerwilco.loads("RW1 ST a-1 from=a to=b item=x").to_json()
    form["slots"]["x_note"] = value
    with pytest.raises(RW1Error):
        Message.from_json(form)


def test_from_json_refuses_wrong_json_types_and_shapes():
    form = rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=2").to_json()
    with pytest.raises(EncodeError) as info:
        Message.from_json(form | {"slots": {"ask": "DRAFT", "pri": "2"}})
    assert info.value.token == "pri"
    with pytest.raises(EncodeError):
        Message.from_json({k: v for k, v in form.items() if k != "tail"})
    with pytest.raises(EncodeError):
        Message.from_json(form | {"extra": 1})
    with pytest.raises(RefusedError) as ver:
        Message.from_json(form | {"v": "RW2"})
    assert ver.value.why == "VER"
    with pytest.raises(EncodeError):
        Message.from_json(form | {"slots": {"ask": "DRAFT", "from": "a"}})


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_from_json_of_any_text_gives_a_message_or_our_error(text):
    try:
        Message.from_json(text)
    except RW1Error:
        pass


def test_equal_messages_hash_alike_whatever_the_slot_order():
    a = rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=02")
    b = rogerwilco.loads("RW1 HO a-1 to=b from=a pri=2 item=x ask=DRAFT")
    assert a == b and len({a, b}) == 1
    assert a != a.replace(tail="note")


@settings(max_examples=100, deadline=None)
@given(messages(), st.sampled_from([None, Source("RW1 HO a-1 from=a to=b", 3, "f.rw1", 2)]))
def test_replacing_the_source_alone_keeps_every_field_as_evolve_does(message, source):
    message = attrs.evolve(message, source=Source(message.to_line(), 1))
    got = message.replace(source=source)
    want = attrs.evolve(message, source=source)
    assert got is not message and type(got) is Message
    assert attrs.asdict(got, recurse=False) == attrs.asdict(want, recurse=False)
    assert [type(getattr(got, f.name)) for f in attrs.fields(Message)] == [
        type(getattr(want, f.name)) for f in attrs.fields(Message)]
    assert got == want and hash(got) == hash(want) and got.source is source
    assert message.replace().source is None  # the source left out: none
    changed = message.replace(tail="changed")  # more than the source: through the constructor, as before
    assert changed.tail == "changed" and changed.source is None and changed.id == message.id
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        got.id = "x-1"  # a copy is as frozen as the original
