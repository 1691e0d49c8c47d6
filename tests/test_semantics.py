"""The never-guess pass: refusals, notes and replies (spec 5 rules 2-4, D4, D5, D8)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rogerwilco
from rogerwilco import Message, RefusedError, RW1Error, check_line, refusal
from tests.strategies import RECEIVER, messages

HO = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"


def first(line, profiles=None):
    result = check_line(line, profiles)
    assert result.refusal is not None, result.findings
    return result.refusal.why, result.refusal.token


@pytest.mark.parametrize(
    "line, why, token",
    [
        ("RW2 HO a-1 from=a to=b item=x ask=DRAFT", "VER", "RW2"),
        ("RW2 this is not even RW1 shaped", "VER", "RW2"),
        ("RW1 HX a-1 from=a to=b", "UNK", "HX"),
        (HO.replace("DRAFT", "PAYY"), "UNK", "ask=PAYY"),
        (HO + " pri=9", "UNK", "pri=9"),
        (HO + " pri=0", "UNK", "pri=0"),
        (HO + " due=20261301", "UNK", "due=20261301"),
        (HO + " due=20260230", "UNK", "due=20260230"),
        (HO + " exp=20261002T2400Z", "UNK", "exp=20261002T2400Z"),
        (HO + " conf=X", "UNK", "conf=X"),
        (HO + " rb=bogus", "UNK", "rb=bogus"),
        (HO + " keys=len+spelling", "UNK", "keys=len+spelling"),
        (HO + " keep=a+", "UNK", "keep=a+"),
        (HO + " p=nosuch", "UNK", "p=nosuch"),
        (HO + " ask=FIX", "UNK", "ask=FIX"),
        ("RW1 HO a-1 from=a to=b ask=DRAFT", "UNK", "item"),
        ("RW1 HO b-1 from=a to=b item=x ask=DRAFT", "UNK", "b-1"),
        ("RW1 AQ a-1 from=a to=b need=ENUM", "UNK", "opts"),
        ("RW1 AN a-1 re=b-1 from=a to=b val=tail", "UNK", "val=tail"),
        ("RW1 DN a-1 re=b-1 from=a to=b item=x out=DONE", "UNK", "out=DONE"),
        ("RW1 FL a-1 re=b-1 from=a to=b item=x why=ERR retry=maybe", "UNK", "retry=maybe"),
        ("RW1 RB a-1 re=b-1 from=a to=b item=x ask=DRAFT h=ABCDEF012345", "UNK", "h=ABCDEF012345"),
        (HO + " // " + "x" * 301, "UNK", "//"),
    ],
)
def test_refusals_name_the_offending_token(line, why, token):
    assert first(line, RECEIVER) == (why, token)


def test_tail_of_300_code_points_is_accepted_even_multibyte():
    assert check_line(HO + " // " + "é" * 300).valid
    assert not check_line(HO + " // " + "é" * 301).valid


def test_every_finding_is_reported_not_just_the_first():
    result = check_line("RW1 HO a-1 from=a to=b ask=PAYY pri=9 due=20261301 conf=Q")
    tokens = [f.token for f in result.findings if f.failed]
    assert tokens == ["ask=PAYY", "pri=9", "due=20261301", "conf=Q", "item"]


def test_unknown_keys_are_notes_and_x_keys_are_silent():
    result = check_line(HO + " colour=blue x_trace=abc")
    assert result.valid and result.message is not None
    assert [(f.severity, f.kind, f.key) for f in result.findings] == [("note", "unknown-key", "colour")]
    assert result.message.slots["colour"] == "blue" and result.message.slots["x_trace"] == "abc"


def test_unknown_code_on_a_slot_of_another_type_is_still_refused():
    assert first("RW1 AN a-1 re=b-1 from=a to=b val=Y ask=PAYY") == ("UNK", "ask=PAYY")
    result = check_line("RW1 AN a-1 re=b-1 from=a to=b val=Y ask=DRAFT")
    assert result.valid and [f.kind for f in result.findings] == ["off-type"]


def test_profile_must_be_held():
    line = "RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:1 ask=PAY amt=5.00"
    assert first(line, ()) == ("UNK", "p=pay")  # a receiver that holds no profile says so
    assert check_line(line, ["pay"]).valid
    assert first(line.replace("amt=5.00", "amt=5"), ["pay"]) == ("UNK", "amt=5")
    assert first(line.replace("PAY ", "PAYY "), ["pay"]) == ("UNK", "ask=PAYY")


def test_profile_slots_without_p_are_unknown_keys_unless_required():
    required = {"profile": "req", "version": "1", "extends": "RW1",
                "slots": [{"key": "lane", "type": "token", "on": ["HO"], "required": True}]}
    assert check_line(HO + " lane=fast", [required]).refusal.token == "lane=fast"
    assert check_line("RW1 HO a-1 p=req from=a to=b item=x ask=DRAFT lane=fast", [required]).valid
    assert check_line("RW1 HO a-1 p=req from=a to=b item=x ask=DRAFT", [required]).refusal.token == "lane"
    assert check_line(HO + " sup=marlow", ["pay"]).valid


def test_a_slot_a_held_profile_requires_is_unknown_on_another_profiles_line():
    """Spec 7: a line's vocabulary is the core and its own p=; D4's refusal is for a line naming no profile."""
    line = "RW1 AQ release-1 p=deploy from=release to=operator need=YESNO act=ASSERT"
    result = check_line(line, ["clin", "deploy"])
    assert result.valid and result.message is not None and result.message.slots["act"] == "ASSERT"
    assert [(f.severity, f.kind, f.key) for f in result.findings] == [("note", "unknown-key", "act")]
    assert first("RW1 ST release-1 from=release to=operator item=x act=ASSERT", ["clin", "deploy"]) == (
        "UNK", "act=ASSERT")


@pytest.mark.parametrize("value, days", [("0", 0), ("14", 14), ("19d", 19)])
def test_days_are_a_count_written_with_or_without_d(value, days):
    result = check_line(f"RW1 ST DAT-1 p=pform from=DAT to=TRI item=pensive:4102 stall={value}", ["pform"])
    assert result.valid and result.message is not None and result.message.slots["stall"] == days


@pytest.mark.parametrize("value", ["-1", "-2d", "+3", "1.5", "d", "14dd", "\uff11"])
def test_days_refuse_a_negative_count_and_anything_not_digits(value):
    """docs/reference.md R17: a count of days is 0 or more, as the published reference codec reads it."""
    line = f"RW1 ST DAT-1 p=pform from=DAT to=TRI item=pensive:4102 stall={value}"
    assert first(line, ["pform"]) == ("UNK", f"stall={value}")


def test_pay_translation_rules_refuse_with_the_slot_named():
    base = "RW1 ST extractor-1 p=pay from=extractor to=scheduler item=inv:MD-1 amt=120.00 cur=GBP kind=GROSS src=email:7"
    assert check_line(base, ["pay"]).valid
    assert first(base.replace(" src=email:7", ""), ["pay"]) == ("UNK", "src")
    assert check_line(base + " net=100.00 vat=20.00", ["pay"]).valid
    assert first(base + " net=100.00 vat=20.01", ["pay"]) == ("UNK", "amt=120.00")
    assert check_line("RW1 ST extractor-1 p=pay from=extractor to=scheduler item=po:1", ["pay"]).valid


def test_closed_answer_vocabulary():
    assert check_line("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=APPROVE", ["pay"]).valid
    assert check_line("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y", ["pay"]).valid
    assert first("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=OFFRUN", ["pay"]) == ("UNK", "val=OFFRUN")
    assert first("RW1 AQ scheduler-2 p=pay from=scheduler to=payer need=ENUM opts=APPROVE+PAY-USD", ["pay"]) == ("UNK", "opts=APPROVE+PAY-USD")
    assert check_line("RW1 AN s-2 re=p-1 from=s to=p val=OFFRUN").valid  # no profile: open vocabulary


def test_profile_agents_outside_the_list_are_refused():
    # the published suite's c24: a profile that names its agents closes them (from, to, alt, keep and its own)
    result = check_line("RW1 ST TRI-1 p=pform from=TRI to=nobody item=x stg=DIA", ["pform"])
    assert not result.valid
    assert [(f.kind, f.key, f.token, f.why) for f in result.findings] == [("agent", "to", "to=nobody", "UNK")]
    kept = check_line("RW1 HO TRI-1 p=pform from=TRI to=STR item=x ask=SCORE4 keep=human+BOB", ["pform"])
    assert [(f.kind, f.token) for f in kept.findings if f.failed] == [("agent", "keep=human+BOB")]
    assert check_line("RW1 ST TRI-1 p=pform from=TRI to=human item=x", ["pform"]).findings == ()


@pytest.mark.parametrize(
    "line, reply",
    [
        (HO.replace("DRAFT", "PAYY"), "RW1 UN me-4 re=a-1 from=me to=a why=UNK // ask=PAYY "),
        ("RW2 HO a-1 from=a to=b", "RW1 UN me-4 re=a-1 from=me to=a why=VER // RW2 "),
        ("RW1 HX a-1 from=a to=b", "RW1 UN me-4 re=a-1 from=me to=a why=UNK // HX "),
        ("RW1 HO a-1 from=a to=b item=x", "RW1 UN me-4 re=a-1 from=me to=a why=UNK // ask "),
        ("RW1 HO a-1 from=a  to=b", "RW1 UN me-4 re=a-1 from=me to=a why=UNK // to=b "),
    ],
)
def test_refusal_reply_format_of_d4(line, reply):
    got = refusal(line, "me", 4)
    assert got is not None and got.startswith(reply)
    assert check_line(got).valid  # the reply is itself a valid line


def test_no_reply_for_valid_or_unaddressable_lines():
    assert refusal(HO, "me", 1) is None
    assert refusal("complete garbage", "me", 1) is None
    assert refusal("RW1 HO a-1 to=b item=x", "me", 1) is None  # no from


def test_reply_cannot_be_forged_by_the_offending_token():
    got = refusal("RW1 HO a-1 from=a to=b item=x ask=\u2028RW1", "me", 1)
    assert got is not None and "\u2028" not in got and check_line(got).valid


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=150))
def test_any_text_gives_findings_and_strict_parse_raises_only_our_errors(text):
    result = check_line(text, RECEIVER)
    assert result.message is not None or result.refusal is not None
    try:
        Message.from_line(text, RECEIVER)
    except RW1Error:
        pass
    reply = refusal(text, "me", 1, RECEIVER)
    assert reply is None or check_line(reply).valid


@settings(max_examples=200, deadline=None)
@given(messages())
def test_valid_messages_yield_no_reply(msg):
    assert refusal(msg.to_line(), "me", 1, RECEIVER) is None


def test_strict_constructor_raises_with_findings():
    with pytest.raises(RefusedError) as info:
        rogerwilco.loads(HO + " pri=9 conf=Q")
    assert info.value.token == "pri=9"
    assert len([f for f in info.value.findings if f.failed]) == 2


def test_each_repeated_key_is_reported_at_its_own_column():
    result = check_line("RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=1 pri=1 pri=2")
    assert [(f.kind, f.token, f.column) for f in result.findings] == [("repeated", "pri=1", 47), ("repeated", "pri=2", 53)]


def test_constraint_keys_compare_case_insensitively_and_unknown_ones_are_not_refused():
    assert check_line("RW1 HO a-1 from=a to=b item=x ask=DRAFT rb=acc acc=LEN:120w+reading-level:b2").valid
    assert first("RW1 HO a-1 from=a to=b item=x ask=DRAFT acc=len120w") == ("UNK", "acc=len120w")


# ---- a refused line's first verdict: the refusal only, the rest when read ----

from rogerwilco.core import semantics as _semantics  # noqa: E402
from rogerwilco.core.vocab import Receiver as _Receiver  # noqa: E402
from tests.strategies import mutated_lines as _mutated_lines  # noqa: E402

_PAY = _Receiver.load(["pay"])
_PAY_LINE = ("RW1 HO extractor-1 p=pay from=extractor to=payer item=inv:MD-1 ask=PAY rb=exec sup=marlow "
             "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-1 apref=FD-0929")


def _raised(line: str, receiver) -> RW1Error:
    with pytest.raises(RW1Error) as caught:
        rogerwilco.loads(line, receiver)
    return caught.value


@pytest.mark.parametrize("line", [
    _PAY_LINE.replace(" from=", " x=1 x=2 from=", 1),  # a repeated key: refused before the rest is decoded
    _PAY_LINE.replace("cur=GBP", "cur=GBX"),  # a value refused: the rules after the slots are not run
])
def test_a_refusal_is_worded_without_the_checks_after_it(monkeypatch, line: str) -> None:
    full = check_line(line, _PAY)
    monkeypatch.setattr(_semantics, "_check_rules", lambda *a, **k: pytest.fail("rules run for a refused line"))
    monkeypatch.setattr(_semantics, "_unnamed_agents", lambda *a, **k: pytest.fail("agents checked for a refused line"))
    error = _raised(line, _PAY)
    first = full.refusal
    assert (error.message, error.token, error.column) == (first.message, first.token, first.column)
    monkeypatch.undo()
    assert error.findings == full.findings  # the full diagnosis, when read


@settings(max_examples=150, deadline=None)
@given(_mutated_lines())
def test_the_first_verdict_is_the_full_passs_first_refusal(line: str) -> None:
    full = check_line(line, RECEIVER, line_number=4)
    raw = _semantics.parse_raw(line) if full.raw is not None else None
    if raw is None:
        return
    quick = _semantics.check_raw(raw, RECEIVER, line_number=4, hints=False, verdict=True)
    assert (quick.message is None) == (full.message is None)
    if full.message is None:
        assert quick.refusal == attrs_evolve_hintless(full.refusal)


def attrs_evolve_hintless(finding):
    import attrs

    return attrs.evolve(finding, hint=None, fix=None)


def test_a_refused_line_is_raised_from_python_frames() -> None:
    """The refusal of a line is raised by the Python path, or by the C scanner's first fault through scanner.py
    (tests/test_scanner.py): never from inside a native function."""
    import traceback
    from pathlib import Path

    for line in ("RW1 AN a-1 re=b-1  from=a to=b val=plain", "RW1 AN a-1 re=b-1 x=1 x=2 from=a to=b val=plain"):
        error = _raised(line, RECEIVER)
        frames = [Path(frame.filename).name for frame in traceback.extract_tb(error.__traceback__)]
        assert "semantics.py" in frames or frames[-1] == "scanner.py", frames
        assert all(name.endswith(".py") for name in frames), frames
