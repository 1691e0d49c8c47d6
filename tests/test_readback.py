"""check_rb, check_ho, check_dn and make_rb: the behaviour of spec 5.1-5.3 with D6 and D7."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from rogerwilco import Message
from rogerwilco.checks.readback import (
    FAILED, NOT_ASKED, NOT_CHECKED, PASSED, ReadbackInputError, check_dn, check_ho, check_rb, echo_set, make_rb,
)
from rogerwilco.core.vocab import Receiver

from .strategies import RECEIVER, messages, value_for

HO = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2 conf=M keep=research // hero copy, 120 words, no em dashes"
RB = "RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002 h=c40bba4360dc"
HOA = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 rb=acc keys=len+tone+must+no art=url:https://example.com/brief // brief"
RBA = "RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002 acc=len:120w+tone:plain+must:monday-problem+no:em-dash+fmt:md do=copy"
KEPT = "len:120w+tone:plain+no:em-dash+must:monday-problem"
HOP = "RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929"
RBP = "RW1 RB payer-1 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 ask=PAY p=pay h=a7a82de76607 sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929"
DNP = "RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929"
PAY = Receiver.load(["pay"])


def sigs(report):
    return {f.signature() for f in report.findings}


def test_echo_readback_passes_with_every_tier_status():
    report = check_rb(HO, RB)
    assert report.passed and report.findings == ()
    assert dict(report.tiers) == {1: PASSED, 2: PASSED, 3: PASSED, 4: NOT_ASKED, 5: NOT_ASKED}


def test_lines_and_messages_are_accepted_alike():
    assert check_rb(Message.from_line(HO), Message.from_line(RB)).passed


def test_comprehension_readback_against_kept_criteria():
    report = check_rb(HOA, RBA, expect_acc=KEPT)
    assert report.passed
    assert sigs(report) == {("note", "digest", 2, "h"), ("note", "assumption", 4, "fmt")}
    assert report.tiers[2] == NOT_CHECKED and report.tiers[4] == PASSED


def test_len_150w_fails_on_a_contradiction_with_both_values():
    report = check_rb(HOA, RBA.replace("len:120w", "len:150w"), expect_acc=KEPT)
    assert not report.passed and report.tiers[4] == FAILED
    (f,) = [f for f in report.findings if f.kind == "contradiction"]
    assert (f.tier, f.key, f.sender_value, f.receiver_value) == (4, "len", "len:120w", "len:150w")


def test_without_sender_criteria_tier_4_is_not_checked():
    report = check_rb(HOA, RBA)
    assert report.passed and report.tiers[4] == NOT_CHECKED
    assert ("note", "unchecked", 4, None) in sigs(report)


def test_pay_readback_and_its_two_faults():
    assert check_rb(HOP, RBP, profiles=PAY).tiers == {1: PASSED, 2: PASSED, 3: PASSED, 4: NOT_ASKED, 5: PASSED}
    amt = check_rb(HOP, RBP.replace("amt=5400.00", "amt=5100.00"), profiles=PAY)
    assert sigs(amt) == {("fail", "mismatch", 5, "amt")} and amt.tiers[5] == FAILED
    acct = check_rb(HOP, RBP.replace(" acct=40-12-88/61102938", ""), profiles=PAY)
    assert sigs(acct) == {("fail", "missing", 5, "acct")}


def test_resolved_value_checked_against_the_record():
    ho = HOP.replace(" acct=40-12-88/61102938", "")
    rb = RBP.replace(" h=a7a82de76607", "")
    assert check_rb(ho, rb, profiles=PAY, record={"acct": "40-12-88/61102938"}).passed
    bad = check_rb(ho, rb, profiles=PAY, record={"acct": "20-00-00/1"})
    assert ("fail", "record", 5, "acct") in sigs(bad) and not bad.passed


def test_void_readback_on_ask():
    report = check_rb("RW1 HO ops-03 from=ops to=builder item=jira:OPS-77 ask=FIX due=20261001",
                      "RW1 RB builder-05 re=ops-03 from=builder to=ops item=jira:OPS-77 ask=BUILD due=20261001")
    assert not report.passed and ("fail", "mismatch", 3, "ask") in sigs(report)


def test_decoded_comparison_not_string():
    ho = "RW1 HO ops-03 from=ops to=builder item=jira:OPS-77 ask=FIX rb=pri+keep pri=2 keep=a+b"
    rb = "RW1 RB builder-05 re=ops-03 from=builder to=ops item=jira:OPS-77 ask=FIX pri=02 keep=a+b"
    assert check_rb(ho, rb).passed
    assert ("fail", "mismatch", 3, "keep") in sigs(check_rb(ho, rb.replace("keep=a+b", "keep=b+a")))


def test_echo_sets_of_d7():
    base = "RW1 HO s-1 from=s to=r item=x:1 ask=FIX due=20261001 pri=2 keys=len acc=len:1w exp=20261001T1200Z"
    assert echo_set(Message.from_line(base)) == ("item", "ask", "due")
    assert echo_set(Message.from_line(base + " rb=all")) == ("item", "ask", "due", "pri")
    assert echo_set(Message.from_line(base + " rb=acc+pri+exp")) == ("item", "ask", "due", "pri")


def test_expiry_may_not_outlive_the_handoff():
    ho = "RW1 HO s-1 from=s to=r item=x:1 ask=FIX exp=20261002T1700Z"
    rb = "RW1 RB r-1 re=s-1 from=r to=s item=x:1 ask=FIX exp=20261002T1701Z"
    assert ("fail", "expiry", 3, "exp") in sigs(check_rb(ho, rb, now="20261002T1600Z"))
    assert check_rb(ho, rb.replace("T1701Z", "T1700Z"), now="20261002T1600Z").passed


def test_broken_inputs_are_form_findings_not_exceptions():
    for ho, rb in [("RW1 HO x", RB), (HO, "nonsense"), (HO, HO), (RB, RB)]:
        report = check_rb(ho, rb)
        assert not report.passed and ("fail", "form", None, None) in sigs(report)


def test_bad_expected_criteria_raise_an_input_error():
    with pytest.raises(ReadbackInputError):
        check_rb(HOA, RBA, expect_acc="len")


def test_check_ho_against_record_and_level():
    record = {"item": "inv:MD-2026-057", "ask": "PAY", "sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS",
              "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
    assert check_ho(HOP, record, profiles=PAY).passed
    assert sigs(check_ho(HOP.replace("5400.00", "5100.00"), record, profiles=PAY)) == {("fail", "mismatch", None, "amt")}
    assert sigs(check_ho(HOP.replace("rb=exec", "rb=all"), record, profiles=PAY)) == {("fail", "level", None, "rb")}


def test_check_ho_relay_mode_takes_the_received_line_as_record():
    fwd = HOP.replace("scheduler-1", "reconciler-1").replace("from=scheduler", "from=reconciler")
    assert check_ho(fwd, HOP, profiles=PAY, relay_adds=[]).passed
    assert sigs(check_ho(fwd + " pri=1", HOP, profiles=PAY, relay_adds=[])) == {("fail", "mismatch", None, "pri")}
    assert check_ho(fwd + " pri=1", HOP, profiles=PAY, relay_adds=["pri"]).passed


BRIEF = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT rb=acc keys=len+tone // hero copy, 120 words, plain tone"
BRIEF_FWD = BRIEF.replace("research-01", "relay-1").replace("from=research", "from=relay")


def test_a_relay_forwards_the_tail_it_received_unchanged():
    assert check_ho(BRIEF_FWD, BRIEF, relay_adds=[]).passed
    changed = BRIEF_FWD.replace("120 words", "150 words")
    assert sigs(check_ho(changed, BRIEF, relay_adds=[])) == {("fail", "mismatch", None, "tail")}
    dropped = BRIEF_FWD.split(" // ")[0]
    assert sigs(check_ho(dropped, BRIEF, relay_adds=[])) == {("fail", "missing", None, "tail")}
    added = BRIEF.split(" // ")[0]
    assert sigs(check_ho(BRIEF_FWD, added, relay_adds=[])) == {("fail", "mismatch", None, "tail")}


def test_a_relay_whose_role_adds_the_tail_may_write_it():
    assert check_ho(BRIEF_FWD.replace("120 words", "150 words"), BRIEF, relay_adds=["tail"]).passed


def test_a_relay_record_given_as_slot_values_carries_the_received_tail():
    record = {"item": "gh:crox/site#42", "ask": "DRAFT", "rb": ["acc"], "keys": ["len", "tone"],
              "tail": "hero copy, 120 words, plain tone"}
    assert check_ho(BRIEF_FWD, record, relay_adds=[]).passed
    assert sigs(check_ho(BRIEF_FWD.replace("plain", "warm"), record, relay_adds=[])) == {("fail", "mismatch", None, "tail")}
    no_tail = {k: v for k, v in record.items() if k != "tail"}
    assert sigs(check_ho(BRIEF_FWD, no_tail, relay_adds=[])) == {("fail", "mismatch", None, "tail")}


def test_a_tail_is_not_compared_outside_relay_mode():
    record = {"item": "gh:crox/site#42", "ask": "DRAFT", "rb": ["acc"], "keys": ["len", "tone"]}
    assert check_ho(BRIEF, record).passed


def test_check_dn_against_the_plan():
    assert check_dn(HOP, DNP, profiles=PAY).passed
    assert sigs(check_dn(HOP, DNP.replace("5400.00", "5100.00"), profiles=PAY)) == {("fail", "mismatch", None, "amt")}
    noop = "RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=NOOP"
    assert check_dn(HOP, noop, profiles=PAY).passed
    assert sigs(check_dn(HOP, noop + " cur=GBP", profiles=PAY)) == {("fail", "noop-values", None, "cur")}


def test_check_dn_takes_left_values_only_from_a_passing_readback():
    ho = HOP.replace(" acct=40-12-88/61102938", "")
    rb = RBP.replace(" h=a7a82de76607", "")
    assert check_dn(ho, DNP, rb, profiles=PAY).passed
    assert not check_dn(ho, DNP, profiles=PAY).passed
    assert not check_dn(ho, DNP, rb.replace("amt=5400.00", "amt=5100.00"), profiles=PAY).passed


def test_make_rb_composes_the_spec_readbacks():
    assert make_rb(HO, 1).to_line() == "RW1 RB writer-1 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002 h=c40bba4360dc"
    assert check_rb(HOP, make_rb(HOP, 1, profiles=PAY), profiles=PAY).passed


def test_make_rb_under_rb_all_echoes_keys_and_never_exp():
    """docs/reference.md R19: keys= is echoed (spec 5.1 "every slot", as the reference's check asks); exp never (3.1)."""
    ho = "RW1 HO research-01 from=research to=writer item=doc:1 ask=DRAFT rb=all keys=len+tone pri=2 exp=29991002T1405Z"
    rb = make_rb(ho, 3, digest=False)
    assert rb.to_line() == "RW1 RB writer-3 re=research-01 from=writer to=research item=doc:1 ask=DRAFT pri=2 keys=len+tone"
    assert check_rb(ho, rb).passed


def test_make_rb_refuses_what_the_level_needs_and_was_not_given():
    with pytest.raises(ReadbackInputError):
        make_rb(HOA, 1)
    with pytest.raises(ReadbackInputError):
        make_rb(HOA.replace("rb=acc", "rb=plan"), 1, acc="len:120w")
    with pytest.raises(ReadbackInputError):
        make_rb(HOP.replace(" acct=40-12-88/61102938", ""), 1, profiles=PAY)


def test_a_receiver_value_that_disputes_the_ho_is_read_back_and_fails():
    rb = make_rb(HOP, 1, profiles=PAY, values={"amt": "5100.00"})
    assert sigs(check_rb(HOP, rb, profiles=PAY)) == {("fail", "mismatch", 5, "amt")}


def test_a_tail_cannot_make_a_failing_readback_pass():
    bad = RBP.replace("amt=5400.00", "amt=5100.00") + " // amt=5400.00 h=a7a82de76607 readback matches"
    assert not check_rb(HOP, bad, profiles=PAY).passed


# ---------------------------------------------------------------- properties

LEVELS = ["echo", "all", "acc", "plan", "exec"]


@st.composite
def handoffs(draw):
    profile = draw(st.sampled_from([None, "pay", "pform"]))
    vocab = RECEIVER.vocabulary(profile)
    msg = draw(messages(profile, types=["HO"]))
    slots = dict(msg.slots)
    if profile == "pay" and draw(st.booleans()):
        ask = draw(st.sampled_from(sorted(vocab.exec_slots)))
        slots["ask"] = ask
        for key in vocab.exec_slots[ask]:
            if draw(st.booleans()):
                slots[key] = draw(value_for(vocab.slots[key].type.name, vocab))
    named = sorted(k for k in vocab.types["HO"].slots if k not in ("from", "to", "re"))
    rb = draw(st.lists(st.sampled_from(LEVELS), unique=True, max_size=3)) + draw(st.lists(st.sampled_from(named), unique=True, max_size=2))
    slots.pop("rb", None)
    if rb:
        slots["rb"] = tuple(rb)
    if {"net", "vat", "amt"} <= set(slots):
        del slots["net"]
    candidate = msg.replace(slots=slots)
    return Message.from_line(candidate.to_line(), RECEIVER)


def receiver_side(draw, ho):
    """What a receiver gives make_rb: criteria covering keys=, a do, resolved values."""
    vocab = RECEIVER.vocabulary(ho.profile)
    acc = list(ho.slots.get("acc") or ())
    have = {a.split(":", 1)[0].lower() for a in acc}
    acc += [f"{k}:{draw(st.sampled_from(['plain', '120w', 'uk']))}" for k in (ho.slots.get("keys") or ()) if k not in have]
    values = {}
    for key in vocab.exec_slots.get(ho.slots["ask"], ()):
        if ho.get(key) is None:
            values[key] = draw(value_for(vocab.slots[key].type.name, vocab))
    if "amt" in values and ho.get("net") is not None and ho.get("vat") is not None:
        # a receiver resolves the amount its record holds: net plus VAT, as the pay profile's rule requires
        values["amt"] = f"{Decimal(ho.get('net')) + Decimal(ho.get('vat')):.2f}"
    return {"acc": acc or ["fmt:md"], "do": "copy", "values": values}


BEFORE_ANY_EXP = "19900101T0000Z"  # the earliest time tests/strategies.py draws: no drawn exp= has passed


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_made_readback_of_any_valid_handoff_passes(data):
    ho = data.draw(handoffs())
    side = receiver_side(data.draw, ho)
    rb = make_rb(ho, data.draw(st.integers(0, 999)), profiles=RECEIVER, **side)
    report = check_rb(ho, rb, profiles=RECEIVER, record=side["values"], now=BEFORE_ANY_EXP)
    assert report.passed, [f.to_json() for f in report.findings]
    assert check_rb(ho.to_line(), rb.to_line(), profiles=RECEIVER, now=BEFORE_ANY_EXP).passed


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_changing_any_echoed_value_voids_the_readback(data):
    ho = data.draw(handoffs())
    side = receiver_side(data.draw, ho)
    rb = make_rb(ho, 1, profiles=RECEIVER, digest=False, **side)
    echoed = [k for k in echo_set(ho) if k not in ("item", "p")]
    assume(echoed)
    key = data.draw(st.sampled_from(echoed))
    vocab = RECEIVER.vocabulary(ho.profile)
    type_name = vocab.slots[key].type.name if key in vocab.slots else "token"
    other = data.draw(value_for(type_name, vocab).filter(lambda v: v != rb.get(key)))
    changed = rb.replace(slots={**rb.slots, key: other})
    try:
        line = changed.to_line()
    except Exception:
        assume(False)
    assert not check_rb(ho, line, profiles=RECEIVER).passed


@settings(max_examples=100)
@given(st.data())
def test_a_wrong_digest_always_fails_tier_2(data):
    ho = data.draw(handoffs())
    rb = make_rb(ho, 1, profiles=RECEIVER, **receiver_side(data.draw, ho))
    wrong = "0" * 12 if rb.slots["h"] != "0" * 12 else "1" * 12
    report = check_rb(ho, rb.replace(slots={**rb.slots, "h": wrong}), profiles=RECEIVER)
    assert not report.passed and report.tiers[2] == FAILED


# --------------------------------------------------------------------------
# expiry at check time (spec 3.1 exp): the published suite's x06 and x08

EXP_HO = "RW1 HO scheduler-1 from=scheduler to=payer item=inv:MD-2026-057 ask=DRAFT"
EXP_RB = "RW1 RB payer-1 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 ask=DRAFT"


def test_a_readback_past_its_own_exp_cannot_be_confirmed():
    rb = EXP_RB + " exp=20261012T0955Z"
    report = check_rb(EXP_HO, rb, now="20261012T1000Z")
    assert not report.passed
    assert ("fail", "expired", None, "exp") in sigs(report)
    assert check_rb(EXP_HO, rb, now="20261012T0955Z").passed  # exp is the latest moment: its minute is in time


def test_a_readback_of_a_handoff_past_its_exp_fails():
    ho = EXP_HO + " exp=20261012T0900Z"
    report = check_rb(ho, EXP_RB, now="20261012T1000Z")
    assert ("fail", "expired", None, "exp") in sigs(report)
    assert "the handoff expired at 20261012T0900Z" in report.findings[0].message
    assert check_rb(ho, EXP_RB, now="20261012T0859Z").passed


def test_now_is_a_datetime_a_string_or_the_clock():
    import datetime as dt

    ho = EXP_HO + " exp=20261012T0900Z"
    assert not check_rb(ho, EXP_RB, now=dt.datetime(2026, 10, 12, 9, 1, tzinfo=dt.timezone.utc)).passed
    assert check_rb(ho, EXP_RB, now=dt.datetime(2026, 10, 12, 9, 0)).passed  # naive: read as UTC
    assert not check_rb(ho, EXP_RB).passed  # the clock (2026-12 or later) is past October's exp
    far = EXP_HO + " exp=20991231T2359Z"
    assert check_rb(far, EXP_RB).passed


def test_a_bad_now_is_the_callers_error_naming_it():
    with pytest.raises(ReadbackInputError, match="now is a UTC time YYYYMMDDTHHMMZ, not '2026-10-12'"):
        check_rb(EXP_HO, EXP_RB, now="2026-10-12")
    with pytest.raises(ReadbackInputError, match="not a real time"):
        check_dn(EXP_HO, "RW1 DN payer-2 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 out=OK",
                 now="20261332T0000Z")


def test_an_act_reported_after_the_handoffs_exp_fails():
    ho = EXP_HO + " exp=20261012T0900Z"
    dn = "RW1 DN payer-2 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 out=OK"
    assert ("fail", "expired", None, "exp") in sigs(check_dn(ho, dn, now="20261012T0901Z"))
    assert check_dn(ho, dn, now="20261012T0900Z").passed


def test_a_readback_past_its_exp_approves_no_plan_for_the_done_check():
    ho = HOP.replace(" acct=40-12-88/61102938", "")
    rb = RBP.replace(" h=a7a82de76607", "") + " exp=20261002T0900Z"
    dn = DNP
    assert check_dn(ho, dn, rb, profiles=["pay"], now="20261002T0859Z").passed
    late = check_dn(ho, dn, rb, profiles=["pay"], now="20261002T0901Z")
    assert ("fail", "mismatch", None, "acct") in sigs(late)


def _readback_pairs() -> list[tuple[str, str]]:
    """Every HO and RB of the shipped readback examples, and each RB given a wrong, a right and no h=."""
    from pathlib import Path

    from rogerwilco.core.semantics import check_line

    receiver = Receiver.all_bundled()
    pairs = []
    for path in sorted((Path(__file__).resolve().parent.parent / "examples" / "readback").glob("*.rw1")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        hos = [line for line in lines if line.startswith("RW1 HO ")]
        rbs = [line for line in lines if line.startswith("RW1 RB ")]
        for ho in hos:
            ho_msg = check_line(ho, receiver).message
            for rb in rbs:
                head, sep, tail = rb.partition(" // ")
                for line in (rb, head + " h=0123456789ab" + sep + tail, head + f" h={ho_msg.digest()}" + sep + tail):
                    rb_msg = check_line(line, receiver).message
                    if ho_msg is not None and rb_msg is not None:
                        pairs.append((ho_msg, rb_msg))
    return pairs


def test_the_readback_examples_give_verdicts_both_ways():
    verdicts = {check_rb(ho, rb, profiles=Receiver.all_bundled(), now="19700101T0000Z").passed
                for ho, rb in _readback_pairs()}
    assert verdicts == {True, False}


@pytest.mark.parametrize("ho, rb", _readback_pairs())
def test_readback_passes_is_check_rbs_verdict(ho, rb):
    from datetime import datetime, timezone

    from rogerwilco.checks.readback import readback_passes

    receiver = Receiver.all_bundled()
    for now in (datetime(1970, 1, 1, tzinfo=timezone.utc), datetime(2027, 1, 1, tzinfo=timezone.utc)):
        assert readback_passes(ho, rb, receiver=receiver, now=now) == check_rb(ho, rb, profiles=receiver, now=now).passed


_ECHO_HO = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT"
_HO_EXTRAS = ("due=20261002", "pri=2", "conf=M", "keep=research", "rb=all", "rb=acc", "rb=exec", "rb=due+keep",
              "rb=acc+keep", "exp=20261101T0900Z", "acc=len:120w", "ctx=research-00")
_RB_CHANGES = ("re=research-02", "from=editor", "to=editor", "item=gh:crox/site#43", "ask=FIX", "due=20261003",
               "pri=3", "conf=H", "keep=writer", "eta=20261003", "exp=20261001T0900Z", "h=0123456789ab",
               "acc=len:120w", "asm=tone:plain", "not=x", "ctx=research-00", "ctx=research-02")


def _with(line: str, slot: str) -> str:
    """``line`` with ``slot`` set (replacing the same key's value, else appended)."""
    key = slot.split("=", 1)[0]
    words = line.split(" ")
    for i, word in enumerate(words):
        if word.startswith(key + "="):
            words[i] = slot
            return " ".join(words)
    return line + " " + slot


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(extras=st.lists(st.sampled_from(_HO_EXTRAS), unique=True, max_size=5),
       dropped=st.lists(st.sampled_from(("item", "ask", "due", "pri", "conf", "keep", "ctx")), max_size=2),
       changes=st.lists(st.sampled_from(_RB_CHANGES), max_size=2), right_digest=st.booleans())
def test_a_replays_verdict_on_an_echo_is_check_rbs(extras, dropped, changes, right_digest):
    """readback_passes answers an echo read back verbatim without the tiers (_echoed_verbatim); on echoes,
    echoes with slots dropped, changed, added or noted, and digests right and wrong, its verdict is check_rb's."""
    from datetime import datetime, timezone

    from rogerwilco.checks.readback import _echoed_verbatim, readback_passes
    from rogerwilco.core.semantics import check_line

    ho_line = _ECHO_HO
    for extra in extras:
        ho_line = _with(ho_line, extra)
    ho = check_line(ho_line, RECEIVER).message
    assume(ho is not None)
    echoed = [w for w in ho_line.split(" ")[5:] if w.split("=", 1)[0] not in ("rb", "exp", "acc", "keys")]
    rb_line = "RW1 RB writer-01 re=research-01 from=writer to=research " + " ".join(echoed)
    for key in dropped:
        rb_line = " ".join(w for w in rb_line.split(" ") if not w.startswith(key + "="))
    for change in changes:
        rb_line = _with(rb_line, change)
    if right_digest:
        rb_line = _with(rb_line, f"h={ho.digest()}")
    rb = check_line(rb_line, RECEIVER).message
    assume(rb is not None)
    event(f"settled without the tiers: {_echoed_verbatim(ho, rb)}")
    for now in (datetime(1970, 1, 1, tzinfo=timezone.utc), datetime(2027, 1, 1, tzinfo=timezone.utc)):
        verdict = check_rb(ho, rb, profiles=RECEIVER, now=now).passed
        assert readback_passes(ho, rb, receiver=RECEIVER, now=now) == verdict, (ho_line, rb_line)
        if _echoed_verbatim(ho, rb):
            assert verdict, (ho_line, rb_line)


def test_an_echo_read_back_verbatim_is_settled_without_the_tiers():
    from rogerwilco.checks.readback import _echoed_verbatim
    from rogerwilco.core.semantics import check_line

    def pair(ho_line: str, rb_line: str) -> bool:
        return _echoed_verbatim(check_line(ho_line, RECEIVER).message, check_line(rb_line, RECEIVER).message)

    rb = "RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT"
    assert pair(_ECHO_HO + " due=20261002", rb + " due=20261002 eta=20261001")
    assert not pair(_ECHO_HO + " due=20261002", rb + " due=20261003")  # a misread
    assert not pair(_ECHO_HO, rb + " due=20261002")  # a slot the HO never carried
    assert not pair(_ECHO_HO, rb + " h=0123456789ab")  # a digest: the tiers compare it
    assert not pair(_ECHO_HO + " rb=acc", rb)  # the sender's criteria: the tiers read them
    assert not pair(_ECHO_HO, rb.replace("re=research-01", "re=research-02"))  # another HO's receipt
