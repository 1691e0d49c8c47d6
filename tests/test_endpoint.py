"""The sans-IO endpoint: events in, lines out, the protocol's duties done by code."""

from __future__ import annotations

import datetime as _dt
import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from rogerwilco import Endpoint, ProtocolError
from rogerwilco.checks.endpoint import (
    CLOSE_STATES, READBACK_STATES, TRANSITIONS, Cancelled, ChangeToEcho, Confirmed, DoneReport, Duplicate, HandoffClosed,
    HandoffOffered, Orphaned, ReadbackOverdue, ReadbackPassed, ReadbackVoid, Redelivered, Reply, Unreadable,
    mermaid, replies, table_rows,
)
from tests.bounds import HANG
from tests.pg import engine, locate, pg_cluster, pg_database  # noqa: F401 - fixtures: on each engine

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "examples" / "spec-section8.rw1").read_text().splitlines()

HO = "RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"
RB = "RW1 RB dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 ask=FIX due=20261010"
BAD_RB = "RW1 RB dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 ask=TEST due=20261010"
DN = "RW1 DN dev-2 re=lead-1 from=dev to=lead item=gh:org/app#7 out=OK"
CX = "RW1 CX lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 why=REVOKED"


def exchanges():
    spec = importlib.util.spec_from_file_location("endpoint_exchanges", ROOT / "examples" / "endpoint" / "exchanges.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pair(**kw):
    return Endpoint("lead", **kw), Endpoint("dev", **kw)


def kinds(events):
    return [type(e).__name__ for e in events]


# ---- the spec's exchanges, end to end ---------------------------------------------------


def test_section8_exchanges_go_over_the_wire_exactly_as_the_spec_writes_them():
    ex = exchanges()
    assert ex.handoff_question_completion() == SPEC[0:5]
    assert ex.comprehension_readback() == SPEC[5:7]
    assert ex.pay_exchange() == SPEC[7:11]
    assert ex.refusal_with_alternative() == SPEC[11:12]
    assert ex.escalation() == SPEC[12:13]
    assert ex.void_readback_and_reissue() == SPEC[13:17]
    assert ex.cancel()[1:] == SPEC[17:19]  # section 5.4's cancel and its answer


def test_the_composed_readback_carries_the_spec_digest():
    research, writer = Endpoint("research", id_width=2), Endpoint("writer", id_width=2)
    research.send(SPEC[0])
    offered = writer.receive(SPEC[0])[0]
    assert writer.send(offered.readback, number=True) == SPEC[1]  # h=c40bba4360dc, by code


def test_a_cancel_crossing_a_done_report_is_answered_with_the_acts_dn():
    lines = exchanges().cancel_crossing_done()
    assert lines[-1] == lines[3] and lines[3].startswith("RW1 DN payer-2")


def test_faulty_receivers_are_stopped():
    ex = exchanges()
    assert ex.faulty_receiver_misread()[-1].endswith("// readback mismatch on amt")
    assert len(ex.faulty_receiver_acts_early()) == 2


def test_the_example_script_runs():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "examples" / "endpoint" / "exchanges.py")],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    for line in SPEC[:17]:
        assert line in done.stdout.splitlines()


# ---- the table -------------------------------------------------------------------------


def test_every_reachable_state_answers_every_close_event():
    close_events = ("DN-act", "DN-noop", "UN", "FL", "CX")
    for state in CLOSE_STATES:
        for event in close_events:
            assert (state, event) in TRANSITIONS, (state, event)
    for state in READBACK_STATES:
        for event in ("resend", "reissue", "RB-pass", "RB-pass-wait", "RB-void", "confirm", "refuse", "DN-act"):
            assert (state, event) in TRANSITIONS, (state, event)
    assert {s.next for (state, _), s in TRANSITIONS.items() if state in CLOSE_STATES} <= set(CLOSE_STATES)
    assert {s.next for (state, _), s in TRANSITIONS.items() if state in READBACK_STATES} <= set(READBACK_STATES)


def test_the_docs_diagram_is_the_one_the_table_generates():
    doc = (ROOT / "docs" / "endpoint.md").read_text()
    block = re.search(r"```mermaid\n(.*?)```", doc, re.S)
    assert block is not None and block.group(1) == mermaid()
    assert table_rows() in doc
    for state, event in TRANSITIONS:
        assert f"| {state} | {event} |" in doc


# ---- receive -----------------------------------------------------------------------------


@given(st.text(max_size=200) | st.binary(max_size=100))
def test_receive_never_raises(line):
    events = Endpoint("dev").receive(line)
    assert events and all(hasattr(e, "findings") for e in events)


def test_an_unknown_code_is_answered_un_unk_naming_it():
    dev = Endpoint("dev")
    events = dev.receive("RW1 HO lead-1 from=lead to=dev item=x ask=FIXX")
    assert kinds(events) == ["Unreadable", "Reply"]
    assert replies(events) == ["RW1 UN dev-1 re=lead-1 from=dev to=lead why=UNK // ask=FIXX unknown ask code"]
    version = dev.receive("RW2 HO lead-2 from=lead to=dev item=x ask=FIX")
    assert replies(version)[0].startswith("RW1 UN dev-2 re=lead-2 from=dev to=lead why=VER // RW2")
    assert dev.receive("garbage") [0].reply is None and len(dev.receive("garbage")) == 1  # cannot be addressed


def test_a_line_received_twice_is_answered_once():
    dev = Endpoint("dev")
    first = dev.receive("RW1 HO lead-1 from=lead to=dev item=x ask=FIXX")
    again = dev.receive("RW1 HO lead-1 from=lead to=dev item=x ask=FIXX")
    assert isinstance(again[0], Redelivered) and replies(again) == replies(first)
    assert [d for d, _ in dev.journal()] == ["out"]  # one UN, not two


def test_a_resend_after_my_readback_is_answered_un_dup_and_makes_no_second_owner():
    lead, dev = pair()
    lead.send(HO)
    dev.receive(HO)
    lead.receive(dev.send(dev.readback("lead-1"), number=True))
    resend = lead.send("RW1 HO lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010")
    events = dev.receive(resend)
    assert kinds(events) == ["Duplicate", "Reply"]
    assert events[0].readback.startswith("RW1 RB dev-1 ")
    assert replies(events) == ["RW1 UN dev-2 re=lead-2 from=dev to=lead item=gh:org/app#7 why=DUP // already read back lead-1"]
    closed = lead.receive(replies(events)[0])
    assert isinstance(closed[0], HandoffClosed) and closed[0].handoff == "lead-2"
    assert lead.handoff("lead-1").issues == ("lead-1",) and lead.handoff("lead-1").close == "open"
    assert dev.may_act("lead-1") and not dev.may_act("lead-2")
    assert lead.owner("gh:org/app#7") == "dev"


def test_a_resend_before_any_readback_is_the_live_issue():
    lead, dev = pair()
    lead.send(HO)
    dev.receive(HO)
    resend = "RW1 HO lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"
    lead.send(resend)
    offered = dev.receive(resend)[0]
    assert isinstance(offered, HandoffOffered) and offered.resend_of == "lead-1"
    assert offered.readback.re == "lead-2"
    with pytest.raises(ProtocolError) as stale:
        dev.send(RB)
    assert stale.value.kind == "stale"


@pytest.mark.parametrize("close", ["RW1 CX lead-3 re=lead-1 from=lead to=dev item=gh:org/app#7 why=REVOKED",
                                   "RW1 UN dev-1 re=lead-1 from=dev to=lead why=BUSY"])
def test_a_resend_of_a_handoff_closed_without_a_readback_is_offered_nothing(close):
    """The re-send (sent before the close, delivered after it) joins the closed handoff: no readback is offered
    that send would refuse, and nothing may be acted on."""
    lead, dev = pair()
    lead.send(HO)
    resend = lead.send("RW1 HO lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010")
    dev.receive(HO)
    if close.startswith("RW1 CX"):
        lead.send(close)
        dev.receive(close)
    else:
        lead.receive(dev.send(close))
    events = dev.receive(resend)
    assert kinds(events) == ["Redelivered"] and events[0].message.id == "lead-2"
    assert dev.handoff("lead-2").issues == ("lead-1", "lead-2") and not dev.handoff("lead-2").open
    assert not dev.may_act("lead-1") and not dev.may_act("lead-2")
    with pytest.raises(ProtocolError) as refused:
        dev.send(dev.readback("lead-2"), number=True)
    assert refused.value.kind == "closed"


def test_void_readback_gives_the_reissue_and_nothing_moves():
    lead, dev = pair()
    lead.send(HO)
    dev.receive(HO)
    dev.send(BAD_RB)
    assert not dev.may_act("lead-1")  # its own check fails too
    events = lead.receive(BAD_RB)
    assert kinds(events) == ["ReadbackVoid"]
    assert events[0].reissue.re == "dev-1" and events[0].reissue.tail == "readback mismatch on ask"
    assert lead.owner("gh:org/app#7") == "lead"


def test_ownership_moves_on_a_passing_readback():
    lead, dev = pair()
    lead.send(HO)
    dev.receive(HO)
    events = lead.receive(dev.send(RB))
    assert kinds(events) == ["ReadbackPassed", "OwnershipTransferred"]
    assert events[1].to == "dev" and lead.owner("gh:org/app#7") == "dev" and dev.owner("gh:org/app#7") == "dev"
    assert lead.owner("elsewhere") is None


def test_questions_wait_until_answered():
    lead, dev = pair()
    aq = dev.send("RW1 AQ dev-1 from=dev to=lead need=YESNO // ship it?")
    assert kinds(lead.receive(aq)) == ["QuestionAsked"]
    assert [q.id for q in lead.pending_questions()] == ["dev-1"]
    answer = lead.send("RW1 AN lead-1 re=dev-1 from=lead to=dev val=Y")
    assert lead.pending_questions() == [] and kinds(dev.receive(answer)) == ["Answered"]
    with pytest.raises(ProtocolError) as twice:
        lead.send("RW1 AN lead-2 re=dev-1 from=lead to=dev val=N")
    assert twice.value.kind == "answered-twice"


def test_a_done_report_is_checked_against_the_plan():
    ex = exchanges()
    scheduler, payer = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
    scheduler.send(ex.PAY_HO)
    rb = payer.send(payer.receive(ex.PAY_HO)[0].readback, number=True)
    confirm = scheduler.receive(rb)[0].confirm
    assert isinstance(payer.receive(scheduler.send(confirm, number=True))[0], Confirmed)
    dn = payer.send(f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK "
                    f"{ex.PAY_EXEC.replace('amt=5400.00', 'amt=5100.00')}")
    report = scheduler.receive(dn)[0]
    assert isinstance(report, DoneReport) and not report.report.passed
    assert [(f.kind, f.key) for f in report.report.failures()] == [("mismatch", "amt")]


def test_a_cancel_says_what_to_abandon_and_the_answer():
    lead, dev = pair()
    lead.send(HO)
    dev.receive(HO)
    events = dev.receive(lead.send(CX))
    assert isinstance(events[0], Cancelled) and events[0].abandon == ("lead-1",)
    assert events[0].reply.to_line() == "RW1 AN dev-1 re=lead-2 from=dev to=lead val=Y // abandoned; nothing executed"
    assert not dev.may_act("lead-1")
    with pytest.raises(ProtocolError) as after:
        dev.send("RW1 DN dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 out=OK")
    assert after.value.kind in ("act-before-wilco", "act-after-cancel")
    assert dev.send("RW1 DN dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 out=NOOP")  # nothing ran


def test_message_not_for_me_changes_nothing():
    assert kinds(Endpoint("qa").receive(HO)) == ["NotForMe"]


# ---- send: what this end may not say --------------------------------------------------


def refused(endpoint, line, **kw):
    with pytest.raises(ProtocolError) as exc:
        endpoint.send(line, **kw)
    return exc.value.kind


def test_no_act_before_wilco():
    lead, dev = pair()
    lead.send(HO)
    dev.receive(HO)
    assert refused(dev, DN) == "act-before-wilco"
    dev.send(RB)
    assert dev.may_act("lead-1")
    dev.send(DN)


def test_no_act_before_an_val_y_under_rb_exec():
    ex = exchanges()
    payer = Endpoint("payer", profiles=["pay"])
    payer.receive(ex.PAY_HO)
    payer.send(SPEC[8])
    dn = (f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK {ex.PAY_EXEC}")
    assert refused(payer, dn) == "act-before-wilco"
    payer.receive(SPEC[9])
    assert payer.may_act("scheduler-1")
    assert payer.send(dn) == dn


def test_dn_ok_after_a_cancel_is_refused():
    lead, dev = pair()
    dev.receive(HO)
    dev.send(RB)
    dev.receive(CX)
    assert refused(dev, DN) == "act-after-cancel"
    dev.send("RW1 AN dev-2 re=lead-2 from=dev to=lead val=Y")


def test_second_close_is_refused():
    lead, dev = pair()
    dev.receive(HO)
    dev.send(RB)
    dev.send(DN)
    assert refused(dev, "RW1 FL dev-3 re=lead-1 from=dev to=lead item=gh:org/app#7 why=ERR") == "closed-twice"
    lead.send(HO)
    lead.send(CX)
    assert refused(lead, "RW1 CX lead-3 re=lead-1 from=lead to=dev item=gh:org/app#7 why=REVOKED") == "closed-twice"


def test_cancel_of_a_handoff_i_did_not_send_is_refused():
    lead, dev = pair()
    dev.receive(HO)
    assert refused(dev, "RW1 CX dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 why=REVOKED") == "cancel-wrong-party"
    assert refused(dev, "RW1 CX dev-1 re=nobody-1 from=dev to=lead item=gh:org/app#7") == "cancel-wrong-party"


def test_after_the_act_a_cancel_is_answered_with_its_dn_not_an_an():
    lead, dev = pair()
    dev.receive(HO)
    dev.send(RB)
    dev.send(DN)
    events = dev.receive(CX)
    assert events[0].reply.id == "dev-2"
    assert [f.severity for f in events[0].findings] == ["note"]  # the cancel may have crossed the DN
    assert refused(dev, "RW1 AN dev-3 re=lead-2 from=dev to=lead val=Y") == "act-ran"
    assert dev.send(events[0].reply) == DN  # the same DN, again


def test_hand_written_readback_refused_when_composed_only():
    dev = Endpoint("dev", composed_only=True)
    dev.receive(HO)
    assert refused(dev, "RW1 RB dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 ask=FIX due=20261010 h=000000000000") \
        == "hand-written"
    assert refused(dev, RB) == "hand-written"  # the right values, but typed: no digest
    assert dev.send(dev.readback("lead-1"), number=True) == RB + " h=9546da2ae59a"
    assert dev.may_act("lead-1")


def test_other_refusals():
    lead, dev = pair()
    assert refused(dev, HO) == "not-mine"
    assert refused(dev, "RW1 HO dev-1 from=dev to=qa item=x ask=FIXX") == "form"
    dev.send("RW1 ST dev-1 from=dev to=lead item=x pct=5")
    assert refused(dev, "RW1 ST dev-1 from=dev to=lead item=x pct=6") == "id-reused"
    assert refused(dev, RB.replace("dev-1", "dev-2")) == "not-offered"
    ex = exchanges()
    scheduler = Endpoint("scheduler", profiles=["pay"])
    assert refused(scheduler, ex.PAY_HO.replace("amt=5400.00", "amt=5100.00"), record=ex.PAY_RECORD) == "check-ho"


def test_numbering_and_padding():
    dev = Endpoint("dev", id_width=3)
    assert dev.send({"v": "RW1", "type": "ST", "from": "dev", "to": "lead", "item": "x", "re": None,
                     "slots": {"pct": 5}, "tail": None}, number=True) == "RW1 ST dev-001 from=dev to=lead item=x pct=5"
    assert dev.send("RW1 ST dev-7 from=dev to=lead item=x pct=6") == "RW1 ST dev-7 from=dev to=lead item=x pct=6"
    assert dev.send("RW1 ST dev-0 from=dev to=lead item=x pct=7", number=True).startswith("RW1 ST dev-008 ")


# ---- time --------------------------------------------------------------------------------


def test_tick_offers_the_cancel_for_an_orphan_and_the_resend_for_a_silent_receiver():
    clock = [_dt.datetime(2026, 10, 3, 9, 0, tzinfo=_dt.timezone.utc)]
    lead = Endpoint("lead", clock=lambda: clock[0], readback_within=_dt.timedelta(minutes=10))
    lead.send(HO)
    assert lead.tick(clock[0] + _dt.timedelta(minutes=5)) == []
    overdue = lead.tick(clock[0] + _dt.timedelta(minutes=11))
    assert kinds(overdue) == ["ReadbackOverdue"]
    assert overdue[0].resend.to_line() == "RW1 HO lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"
    orphan = lead.tick("20261011T0000Z")
    assert isinstance(orphan[0], Orphaned) and orphan[0].cancel.get("why") == "TIMEOUT"
    assert "due=20261010" in orphan[0].reason
    lead.send(orphan[0].cancel, number=True)
    assert lead.tick("20261011T0000Z") == [] and lead.open_handoffs() == []


def test_tick_never_leaves_a_hold_or_a_question():
    clock = [_dt.datetime(2026, 10, 3, 9, 0, tzinfo=_dt.timezone.utc)]
    lead = Endpoint("lead", clock=lambda: clock[0], readback_within=_dt.timedelta(minutes=10),
                    answer_within=_dt.timedelta(minutes=30))
    lead.send(HO)
    lead.receive(BAD_RB)
    assert lead.tick(clock[0] + _dt.timedelta(minutes=5)) == []
    held = lead.tick(clock[0] + _dt.timedelta(minutes=11))
    assert kinds(held) == ["Held"]
    assert held[0].reissue.to_line() == ("RW1 HO lead-2 re=dev-1 from=lead to=dev item=gh:org/app#7 ask=FIX "
                                         "due=20261010 // readback did not pass")
    assert held[0].cancel.get("why") == "TIMEOUT" and held[0].cancel.re == "lead-1"
    clock[0] += _dt.timedelta(minutes=11)
    lead.send(held[0].reissue, number=True)
    assert lead.tick(clock[0]) == []
    lead.receive("RW1 AQ dev-2 from=dev to=lead need=YESNO // ok?")
    lead.receive("RW1 AQ dev-3 from=dev to=lead need=YESNO by=20261004 // ok by tomorrow?")
    late = [e for e in lead.tick(clock[0] + _dt.timedelta(minutes=31)) if type(e).__name__ == "QuestionUnanswered"]
    assert [(type(e).__name__, e.message.id) for e in late] == [("QuestionUnanswered", "dev-2")]
    assert late[0].refuse.to_line() == "RW1 UN lead-3 re=dev-2 from=lead to=dev why=TIMEOUT // cannot answer in time"
    assert [e.message.id for e in lead.tick("20261005T0000Z") if type(e).__name__ == "QuestionUnanswered"] \
        == ["dev-2", "dev-3"]


class Refusing(Endpoint):
    """An endpoint whose ``send`` refuses every line of the types in ``refusing`` (as a rule it holds would)."""

    refusing: frozenset[str] = frozenset()

    def _guard(self, msg, now=None):
        if msg.type in self.refusing:
            raise ProtocolError(f"{msg.type} {msg.id} is refused here", kind="closed", token=msg.id)
        super()._guard(msg, now)


def test_every_offer_is_held_to_what_send_takes_then():
    """Each line an event offers (tick's cancel, re-send, re-issue and refusal; a cancel's answer; a change's
    echo) is None, with the refusal's words, where ``send`` would refuse it at that moment."""
    clock = [_dt.datetime(2026, 10, 3, 9, 0, tzinfo=_dt.timezone.utc)]
    lead = Refusing("lead", clock=lambda: clock[0], readback_within=_dt.timedelta(minutes=10),
                    answer_within=_dt.timedelta(minutes=30))
    lead.send(HO)
    lead.receive("RW1 AQ dev-2 from=dev to=lead need=YESNO // ok?")
    lead.refusing = frozenset({"HO", "CX", "UN"})
    overdue, unanswered = lead.tick(clock[0] + _dt.timedelta(minutes=31))
    assert isinstance(overdue, ReadbackOverdue) and overdue.resend is None
    assert overdue.refused == "HO lead-2 is refused here"
    assert unanswered.refuse is None and unanswered.refused == "UN lead-2 is refused here"
    (orphan, _) = lead.tick("20261011T0000Z")
    assert isinstance(orphan, Orphaned) and orphan.cancel is None and orphan.refused == "CX lead-2 is refused here"
    lead.refusing = frozenset()
    (orphan, _) = lead.tick("20261011T0000Z")
    assert orphan.cancel is not None and orphan.refused is None

    lead = Refusing("lead", clock=lambda: clock[0], readback_within=_dt.timedelta(minutes=10))
    lead.send(HO)
    lead.receive(BAD_RB)
    lead.refusing = frozenset({"HO", "CX"})
    (held,) = lead.tick(clock[0] + _dt.timedelta(minutes=11))
    assert held.reissue is None and held.cancel is None
    assert held.refused == "HO lead-2 is refused here; CX lead-2 is refused here"

    lead, dev = Endpoint("lead"), Refusing("dev")
    dev.receive(lead.send(HO))
    dev.refusing = frozenset({"AN"})
    (cancelled,) = dev.receive(lead.send(CX))
    assert isinstance(cancelled, Cancelled) and cancelled.reply is None
    assert cancelled.refused == "AN dev-1 is refused here"

    lead, dev = Endpoint("lead"), Refusing("dev")
    dev.receive(lead.send(HO))
    lead.receive(dev.send(dev.readback("lead-1"), number=True))
    act = dev.send(DN)
    dev.refusing = frozenset({"DN"})
    (cancelled,) = dev.receive(lead.send(CX))  # answered with the act's DN, sent already: nothing to refuse
    assert cancelled.reply is not None and cancelled.reply.to_line() == act and cancelled.refused is None

    lead, dev = Endpoint("lead"), Refusing("dev")
    dev.receive(lead.send(ALL_HO))
    lead.receive(dev.send(dev.readback("lead-1"), number=True))
    dev.refusing = frozenset({"RB"})
    (change,) = dev.receive(lead.send(CHANGE))
    assert isinstance(change, ChangeToEcho) and change.echo is None and change.refused == "RB dev-2 is refused here"


# ---- rb=all: a change is echoed before the act ---------------------------------------------

ALL_HO = "RW1 HO lead-1 from=lead to=dev item=gh:o/r#1 ask=FIX due=20261010 rb=all"
CHANGE = "RW1 ST lead-2 re=lead-1 from=lead to=dev item=gh:o/r#1 eta=20261008 // sooner"


def test_under_rb_all_a_change_is_echoed_before_the_act():
    lead, dev = pair()
    dev.receive(lead.send(ALL_HO))
    lead.receive(dev.send(dev.readback("lead-1"), number=True))
    assert dev.may_act("lead-1")
    events = dev.receive(lead.send(CHANGE))
    assert kinds(events) == ["ChangeToEcho"] and not dev.may_act("lead-1")
    assert refused(dev, "RW1 DN dev-9 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK") == "act-before-echo"
    echo = dev.send(events[0].echo, number=True)
    assert echo == "RW1 RB dev-2 re=lead-2 from=dev to=lead item=gh:o/r#1 ask=FIX eta=20261008 h=" + \
        rogerwilco_digest(CHANGE)
    checked = lead.receive(echo)
    assert kinds(checked) == ["EchoChecked"] and checked[0].report.passed
    assert dev.may_act("lead-1")


def acts_of(end):
    """What the thread check says of an end's journal, by kind and token."""
    from rogerwilco.checks.thread import check_thread

    return [(f.kind, f.token) for f in check_thread([line for _, line in end.journal()], now="20261002T1200Z").findings]


def test_under_rb_all_a_change_that_comes_before_its_handoff_is_echoed_before_the_act():
    """A transport that reorders: the sender's change overtakes the HO it names. It is held, and taken as the
    change it is when the HO comes; the act waits for its echo, as the sender's check and the thread check
    (which read the change after the HO) require."""
    lead, dev = pair()
    ho, change = lead.send(ALL_HO), lead.send(CHANGE)
    assert kinds(dev.receive(change)) == ["StatusReport"]
    events = dev.receive(ho)
    assert kinds(events) == ["HandoffOffered", "ChangeToEcho"] and events[1].handoff == "lead-1"
    lead.receive(dev.send(events[0].readback, number=True))
    assert not dev.may_act("lead-1")
    assert refused(dev, "RW1 DN dev-9 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK") == "act-before-echo"
    assert lead.receive(dev.send(events[1].echo, number=True))[0].report.passed
    assert dev.may_act("lead-1")
    done = lead.receive(dev.send("RW1 DN dev-9 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK"))
    assert kinds(done) == ["DoneReport"] and not done[0].findings
    assert acts_of(dev) == [] and acts_of(lead) == []


def test_a_change_naming_a_resend_of_a_resend_answered_dup_is_echoed_before_the_act():
    """The sender re-sends twice (lead-3 re-sends lead-2, which the receiver answered UN why=DUP before lead-3
    came) and changes its live issue, lead-3. At the sender lead-3 carries lead-1's handoff forward, so the
    change is a change to lead-1's handoff, echoed before the act (the receiver took lead-3 into lead-2's
    closed handoff, lost the change, and acted without the echo its sender's end required)."""
    lead, dev = pair()
    dev.receive(lead.send(ALL_HO))
    lead.receive(dev.send(dev.readback("lead-1"), number=True))
    resend = "RW1 HO lead-{n} re=lead-{r} from=lead to=dev item=gh:o/r#1 ask=FIX due=20261010 rb=all"
    dev.receive(lead.send(resend.format(n=2, r=1)))
    assert kinds(dev.receive(lead.send(resend.format(n=3, r=2)))) == ["Duplicate", "Reply"]
    changed = dev.receive(lead.send("RW1 ST lead-4 re=lead-3 from=lead to=dev item=gh:o/r#1 eta=20261008 // sooner"))
    assert kinds(changed) == ["ChangeToEcho"] and changed[0].handoff == "lead-1"
    assert not dev.may_act("lead-1")
    assert refused(dev, "RW1 DN dev-9 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK") == "act-before-echo"
    assert lead.receive(dev.send(changed[0].echo, number=True))[0].report.passed
    lead.receive(dev.send("RW1 DN dev-9 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK"))
    assert acts_of(dev) == [] and acts_of(lead) == []


def test_a_wrong_echo_fails_the_senders_check():
    from rogerwilco.checks.endpoint import check_echo

    report = check_echo(CHANGE, "RW1 RB dev-5 re=lead-2 from=dev to=lead item=gh:o/r#1 ask=FIX eta=20261009")
    assert not report.passed and ("mismatch", "eta") in [(f.kind, f.key) for f in report.failures()]


def test_without_rb_all_a_status_changes_nothing():
    lead, dev = pair()
    dev.receive(lead.send(HO))
    dev.send(RB)
    assert kinds(dev.receive(lead.send("RW1 ST lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 pct=5"))) \
        == ["StatusReport"]
    assert dev.may_act("lead-1")


def rogerwilco_digest(line):
    from rogerwilco import loads

    return loads(line).digest()


def test_a_done_report_that_contradicts_the_plan_comes_with_its_undo():
    ex = exchanges()
    scheduler, payer = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
    scheduler.send(ex.PAY_HO)
    rb = payer.send(payer.receive(ex.PAY_HO)[0].readback, number=True)
    payer.receive(scheduler.send(scheduler.receive(rb)[0].confirm, number=True))
    executed = ex.PAY_EXEC.replace("amt=5400.00", "amt=5100.00")
    dn = payer.send(f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK {executed}")
    report = scheduler.receive(dn)[0]
    assert report.undo.to_line() == (
        f"RW1 HO scheduler-3 from=scheduler to=payer item=inv:MD-2026-057 p=pay ask=UNDO ctx=payer-2 rb=exec "
        f"{executed} // reverse payer-2: the act differs from the plan")
    from rogerwilco.checks.readback import check_ho

    assert check_ho(report.undo, dict(report.undo.slots, item=report.undo.item), profiles=["pay"]).passed
    undo = scheduler.send(report.undo, number=True)  # its own readback and checks follow
    offered = payer.receive(undo)[0]
    assert offered.readback is not None and offered.readback.get("amt") == "5100.00"


def test_a_reversal_send_would_refuse_is_offered_as_none_and_composed_again_later():
    """The act of auditor's handoff to payer differs from the plan, but when its DN comes the item has come back
    round to auditor, offered by scheduler and not read back yet: send refuses the reversal (not-owner), so
    the event offers none and says why; once auditor has read the item back, ``undo`` composes it and send
    takes it."""
    values = exchanges().PAY_EXEC
    item = "inv:MD-2026-057"
    ends = {name: Endpoint(name, profiles=["pay"]) for name in ("scheduler", "auditor", "payer")}

    def hand(sender, to, *, read=True):
        line = ends[sender].send(f"RW1 HO {sender}-0 p=pay from={sender} to={to} item={item} ask=PAY rb=exec {values}",
                                 number=True)
        offered = ends[to].receive(line)[0]
        if read:
            rb = ends[to].send(offered.readback, number=True)
            ends[to].receive(ends[sender].send(ends[sender].receive(rb)[0].confirm, number=True))
        return line.split(" ")[2]

    first = hand("scheduler", "auditor")
    noop = ends["auditor"].send(f"RW1 DN auditor-0 re={first} p=pay from=auditor to=scheduler item={item} out=NOOP",
                                number=True)
    ends["scheduler"].receive(noop)
    paid = hand("auditor", "payer")
    hand("payer", "scheduler")
    back = hand("scheduler", "auditor", read=False)
    dn = ends["payer"].send(f"RW1 DN payer-0 re={paid} p=pay from=payer to=auditor item={item} out=OK "
                            + values.replace("amt=5400.00", "amt=5100.00"), number=True)
    auditor = ends["auditor"]
    report = auditor.receive(dn)[0]
    assert isinstance(report, DoneReport) and not report.report.passed
    assert report.undo is None and f"{back} offered it to auditor" in report.refused
    with pytest.raises(ProtocolError) as exc:
        auditor.send(auditor.undo(dn.split(" ")[2]), number=True)
    assert exc.value.kind == "not-owner"
    rb = auditor.send(auditor.readback(back), number=True)
    auditor.receive(ends["scheduler"].send(ends["scheduler"].receive(rb)[0].confirm, number=True))
    undo = auditor.send(auditor.undo(dn.split(" ")[2]), number=True)
    assert " ask=UNDO ctx=" + dn.split(" ")[2] + " " in undo and " amt=5100.00 " in undo
    assert ends["scheduler"].undo(noop.split(" ")[2]) is None  # a DN out=NOOP reports no act to reverse
    with pytest.raises(ProtocolError):
        auditor.undo(noop.split(" ")[2])  # a DN auditor sent is no done report of a handoff of its own


def test_a_done_report_that_matches_needs_no_undo():
    lines = exchanges().pay_exchange()
    scheduler = Endpoint("scheduler", profiles=["pay"])
    reports = []
    for line in lines:
        if " from=scheduler " in line:
            scheduler.send(line)
        else:
            reports += [e for e in scheduler.receive(line) if isinstance(e, DoneReport)]
    assert [(r.report.passed, r.undo) for r in reports] == [(True, None)]


# ---- a line claiming to be mine that I never sent (id squatting) ---------------------------------

SQUAT = "RW1 ST dev-1 from=dev to=qa item=gh:org/app#7 pct=90 // not sent by dev"


def test_a_line_claiming_to_be_mine_is_refused_as_forged_and_never_blocks_numbering(locate):
    from rogerwilco.checks.endpoint import Forged

    dev = Endpoint("dev", ledger=locate("dev.ledger"))
    events = dev.receive(SQUAT)
    assert [type(e).__name__ for e in events] == ["Forged"] and events[0].findings[0].kind == "forged"
    assert isinstance(events[0], Unreadable) and events[0].reply is None
    assert dev.journal() == []  # never recorded as a message of this end
    assert isinstance(dev.receive(SQUAT)[0], Forged)  # delivered again: refused again
    dev.receive(HO)
    sent = dev.send(dev.readback("lead-1"), number=True)
    assert sent.startswith("RW1 RB dev-2 ")  # the squatted number is skipped, not refused for ever
    with pytest.raises(ProtocolError) as taken:
        dev.send(SQUAT)
    assert taken.value.kind == "id-reused"
    again = Endpoint("dev", ledger=locate("dev.ledger"))  # the same after a restart
    assert again.journal() == dev.journal()
    assert again.send("RW1 ST dev-0 from=dev to=lead item=gh:org/app#7 pct=5", number=True).startswith("RW1 ST dev-3 ")


def test_an_automatic_reply_never_reuses_a_squatted_id():
    dev = Endpoint("dev")
    dev.receive(SQUAT.replace("dev-1", "dev-2"))  # the number after the first reply
    first = replies(dev.receive("RW1 HO lead-1 from=lead to=dev item=x ask=FIXX"))
    second = replies(dev.receive("RW1 HO lead-2 from=lead to=dev item=y ask=FIXX"))
    assert [line.split(" ")[2] for line in first + second] == ["dev-1", "dev-3"]


ACC_HO = "RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=DRAFT rb=acc keys=len+tone exp={exp} // 120 words"


@pytest.mark.parametrize("late", [False, True])
def test_a_readback_that_passes_is_offered_no_confirm_where_none_may_go(late):
    """Under rb=acc the sender's ReadbackPassed carries the AN val=Y that clears the act, unless its own cancel
    went first (the handoff is closed) or the handoff's exp passed before the RB came (spec 3.1): then ``confirm``
    is None, ``refused`` says why, and send refuses the AN the event would have offered, for that reason."""
    clock = [_dt.datetime(2026, 10, 1, 9, 0, tzinfo=_dt.timezone.utc)]
    lead, dev = Endpoint("lead", clock=lambda: clock[0]), Endpoint("dev", clock=lambda: clock[0])
    dev.receive(lead.send(ACC_HO.format(exp="20261001T1000Z"), expect_acc="len:120w+tone:plain"))
    rb = dev.send(dev.readback("lead-1", acc="len:120w+tone:plain"), number=True)
    if late:
        clock[0] += _dt.timedelta(hours=2)
    else:
        dev.receive(lead.send(CX))
    passed = [e for e in lead.receive(rb) if isinstance(e, ReadbackPassed)]
    assert len(passed) == 1 and passed[0].confirm is None
    with pytest.raises(ProtocolError) as refused:
        lead.send("RW1 AN lead-9 re=dev-1 from=lead to=dev val=Y")
    assert refused.value.kind == ("expired" if late else "closed")
    assert passed[0].refused == refused.value.message
    assert ("expired at exp=20261001T1000Z" if late else "lead-1 is cancelled") in passed[0].refused
    assert not dev.may_act("lead-1")


def test_a_readback_that_passes_in_time_is_offered_its_confirm():
    clock = [_dt.datetime(2026, 10, 1, 9, 0, tzinfo=_dt.timezone.utc)]
    lead, dev = Endpoint("lead", clock=lambda: clock[0]), Endpoint("dev", clock=lambda: clock[0])
    dev.receive(lead.send(ACC_HO.format(exp="20261001T1000Z"), expect_acc="len:120w+tone:plain"))
    rb = dev.send(dev.readback("lead-1", acc="len:120w+tone:plain"), number=True)
    passed = [e for e in lead.receive(rb) if isinstance(e, ReadbackPassed)]
    assert passed[0].refused is None and passed[0].confirm is not None
    dev.receive(lead.send(passed[0].confirm, number=True))
    assert dev.may_act("lead-1")


def test_an_ho_that_comes_after_its_exp_is_offered_no_readback_and_says_why():
    clock = [_dt.datetime(2026, 10, 1, 11, 0, tzinfo=_dt.timezone.utc)]
    dev = Endpoint("dev", clock=lambda: clock[0])
    events = dev.receive("RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX exp=20261001T1000Z")
    assert kinds(events) == ["HandoffOffered"] and events[0].readback is None
    with pytest.raises(ProtocolError) as refused:
        dev.send(dev.readback("lead-1"), number=True)
    assert refused.value.kind == "expired" and events[0].refused == refused.value.message
    clock[0] = _dt.datetime(2026, 10, 1, 9, 0, tzinfo=_dt.timezone.utc)  # the same line in time
    fresh = Endpoint("dev", clock=lambda: clock[0]).receive(
        "RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX exp=20261001T1000Z")
    assert fresh[0].readback is not None and fresh[0].refused is None


def test_a_void_readback_of_a_handoff_i_cancelled_offers_no_reissue_and_says_why():
    lead, dev = pair()
    dev.receive(lead.send(HO))
    bad = dev.send(BAD_RB)
    lead.send(CX)
    events = lead.receive(bad)
    assert kinds(events) == ["ReadbackVoid"] and events[0].reissue is None
    with pytest.raises(ProtocolError) as refused:
        lead.send("RW1 HO lead-3 re=dev-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010")
    assert events[0].refused == refused.value.message and "cancelled" in events[0].refused


def test_tick_holds_a_handoff_voided_by_a_readback_of_the_issue_its_resend_carried_forward():
    """lead re-sends lead-1 as lead-2; dev's void readback of lead-1 comes after: the handoff is void, and tick
    holds it (it used to look for a readback of lead-2 and raise KeyError). The re-issue of that readback would
    carry forward lead-1, which lead-2 carried forward already: send refuses it, so tick offers the cancel alone
    and says why."""
    clock = [_dt.datetime(2026, 10, 1, 9, 0, tzinfo=_dt.timezone.utc)]
    lead = Endpoint("lead", clock=lambda: clock[0], readback_within=_dt.timedelta(minutes=10))
    dev = Endpoint("dev", clock=lambda: clock[0])
    dev.receive(lead.send(HO))
    lead.send("RW1 HO lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010")
    assert kinds(lead.receive(dev.send(BAD_RB))) == ["ReadbackVoid"]
    clock[0] += _dt.timedelta(minutes=30)
    (held,) = lead.tick()
    assert type(held).__name__ == "Held" and held.reissue is None and held.cancel.re == "lead-2"
    with pytest.raises(ProtocolError) as refused:
        lead.send("RW1 HO lead-3 re=dev-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010")
    assert refused.value.kind == "stale" and held.refused.split(" ", 1)[1] == refused.value.message.split(" ", 1)[1]
    lead.send(held.cancel, number=True)
