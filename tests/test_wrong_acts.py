"""The ways to a wrong act: each reproducer stopped live, and reported the same by ``check_thread``.

The property at the end runs hypothesis-generated conversations between three endpoints, every line
delivered at once but the HOs a transport holds back (delivered by a later step, or at the end; meanwhile
their receivers may refuse, close or act on what they have not received): what an end refuses of a kind
the thread check knows, the thread check reports on the same lines, and what its receiver finds in it is
among what the thread check reports; what the ends let out passes the thread check. ``RW_WRONG_ACTS_EXAMPLES`` raises the number of conversations (default 60).
"""

from __future__ import annotations

import pytest

from rogerwilco import Endpoint, ProtocolError
from rogerwilco.checks.endpoint import Cancelled, HandoffOffered, Redelivered, Reply
from rogerwilco.checks.thread import check_thread

HO = "RW1 HO a-1 from=a to=b item=x:1 ask=FIX"
CX = "RW1 CX a-2 re=a-1 from=a to=b item=x:1 why=REVOKED"
RB = "RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=FIX"
DN = "RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK"


def refused(endpoint: Endpoint, line: str, **kw) -> str:
    with pytest.raises(ProtocolError) as exc:
        endpoint.send(line, **kw)
    return exc.value.kind


def refused_offer(endpoint: Endpoint, event, *, since: bool = False) -> str:
    """An event that offers no readback because send would refuse one (``refused`` says why): the readback
    composed by hand for the live issue is refused, for the reason the event gave (``since``: for the reason
    a line received since gives)."""
    assert event.readback is None and event.refused, event
    with pytest.raises(ProtocolError) as exc:
        endpoint.send(endpoint.readback(endpoint.handoff(event.handoff).id), number=True)
    if not since:
        assert exc.value.message.split(" ", 1)[1] == event.refused.split(" ", 1)[1]  # (the same words but the id)
    return exc.value.kind


def failed_kinds(lines: list[str], now: str = "20261001T0000Z") -> set[tuple[str, str | None]]:
    return {(f.kind, f.token) for f in check_thread(lines, now=now).findings if f.failed}


# ---- 1. a cancel that arrives before its handoff --------------------------------------------


def test_a_cancel_that_arrives_before_its_handoff_cancels_it_on_arrival():
    b = Endpoint("b")
    b.receive(CX)
    assert isinstance(b.receive(CX)[0], Redelivered)  # the transport delivers it again: still held
    events = b.receive(HO)
    assert not any(isinstance(e, HandoffOffered) for e in events)  # no readback offered
    cancelled = next(e for e in events if isinstance(e, Cancelled))
    assert cancelled.handoff == "a-1" and cancelled.abandon == ("a-1",)
    assert cancelled.reply.to_line() == "RW1 AN b-1 re=a-2 from=b to=a val=Y // abandoned; nothing executed"
    assert not b.may_act("a-1")
    assert refused(b, RB) == "closed"
    assert refused(b, DN) in ("act-before-wilco", "act-after-cancel")
    assert b.send(cancelled.reply, number=True).startswith("RW1 AN b-1 re=a-2 ")
    # the thread check says the same of the lines the receiver would have let out before
    assert ("act-after-cancel", "b-2") in failed_kinds([HO, CX, RB, DN])


def test_a_cancel_held_for_its_handoff_survives_a_restart(tmp_path):
    path = tmp_path / "b.ledger"
    Endpoint("b", ledger=path).receive(CX)
    b = Endpoint("b", ledger=path)
    events = b.receive(HO)
    assert [type(e).__name__ for e in events] == ["Cancelled"]
    assert not b.may_act("a-1")


def test_a_cancel_from_a_third_party_held_for_a_handoff_cancels_nothing():
    b = Endpoint("b")
    b.receive("RW1 CX c-1 re=a-1 from=c to=b item=x:1 why=REVOKED")
    events = b.receive(HO)
    offered = next(e for e in events if isinstance(e, HandoffOffered))
    assert offered.readback is not None
    assert b.send(offered.readback, number=True)
    assert b.may_act("a-1")


# ---- an answer or a close of a line this end has not received --------------------------------

UN = "RW1 UN b-1 re=a-1 from=b to=a why=BUSY"


@pytest.mark.parametrize("line", [UN, "RW1 FL b-1 re=a-1 from=b to=a item=x:1 why=BUSY",
                                  "RW1 DN b-1 re=a-1 from=b to=a item=x:1 out=NOOP"])
def test_a_handoff_is_not_closed_before_it_arrives(line):
    """(it learned the id some other way, or the transport holds the HO back): a close sent then may, when the HO
    comes, close again a handoff that HO re-sends; and the handoff it closed would be offered for a readback"""
    b = Endpoint("b")
    assert refused(b, line) == "not-received"
    offered = next(e for e in b.receive(HO) if isinstance(e, HandoffOffered))  # nothing was said: it is open
    assert b.send(line) == line  # now it may be closed
    assert offered.readback is not None and refused(b, RB.replace("b-1", "b-2")) == "closed"
    assert not b.may_act("a-1")


def test_a_resend_whose_original_this_end_closed_unread_is_not_closed_again_before_it_arrives():
    """The reproducer: a re-sent; b refused a-1 and, before a-2 came, a-2 too (a second close of one handoff)."""
    a, b = Endpoint("a"), Endpoint("b")
    b.receive(a.send(HO))
    a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    b.send(UN)
    assert refused(b, "RW1 UN b-2 re=a-2 from=b to=a why=BUSY") == "not-received"
    assert ("closed-twice", "b-2") in failed_kinds([HO, "RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX", UN,
                                                    "RW1 UN b-2 re=a-2 from=b to=a why=BUSY"])


def test_no_act_is_reported_on_a_handoff_this_end_has_not_received():
    b = Endpoint("b")
    assert refused(b, DN) == "act-before-wilco"
    # the thread check fails that act, in either order of the lines
    assert ("act-before-wilco", "b-2") in failed_kinds([DN, HO])
    assert ("act-before-wilco", "b-2") in failed_kinds([HO, DN])


def test_no_go_ahead_or_answer_is_sent_for_a_line_this_end_has_not_received():
    a = Endpoint("a")
    a.send(HO)
    assert refused(a, "RW1 AN a-2 re=b-1 from=a to=b val=Y") == "confirm-without-readback"
    assert ("confirm-without-readback", "a-2") in failed_kinds([HO, "RW1 AN a-2 re=b-1 from=a to=b val=Y", RB])
    assert refused(a, "RW1 AN a-2 re=b-1 from=a to=b val=N") == "not-received"
    lead = Endpoint("lead")
    assert refused(lead, "RW1 UN lead-1 re=dev-1 from=lead to=dev why=BUSY") == "not-received"
    # a line received and not taken was received: it may be refused again in the agent's own words
    (unreadable, reply) = lead.receive("RW1 AQ dev-2 from=dev to=lead need=ZORK // ship it?")
    assert reply.line.startswith("RW1 UN lead-1 re=dev-2 ")
    assert lead.send("RW1 UN lead-2 re=dev-2 from=lead to=dev why=UNK // ZORK is no need code I know")


def test_an_act_on_a_handoff_not_read_back_is_act_before_wilco_though_a_held_cancel_may_name_it():
    """A cancel held for an HO not yet received may name this handoff (:meth:`Endpoint._held_cancel`); an act
    before the readback is refused as the thread check names it, act-before-wilco."""
    b = Endpoint("b")
    b.receive(HO)
    b.receive("RW1 CX a-3 re=a-2 from=a to=b item=x:1")  # a-2, not received: a re-send of a-1, it may be
    assert refused(b, DN) == "act-before-wilco"
    assert ("act-before-wilco", "b-2") in failed_kinds([HO, "RW1 HO a-2 from=a to=b item=x:1 ask=FIX",
                                                        "RW1 CX a-3 re=a-2 from=a to=b item=x:1", DN])


# ---- 3. no act on a readback the sender has not accepted -------------------------------------

KEPT = "len:120w+tone:plain+no:em-dash+must:monday-problem"
HO_ACC = ("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 rb=acc "
          "keys=len+tone+must+no // hero copy for the landing page, 120 words, plain tone, no em dashes")
ACC_DN = "RW1 DN writer-09 re=research-01 from=writer to=research item=gh:crox/site#42 out=OK"


def acc_pair(acc: str):
    research, writer = Endpoint("research"), Endpoint("writer")
    writer.receive(research.send(HO_ACC, expect_acc=KEPT))
    rb = writer.send(writer.readback("research-01", acc=acc, do="copy"), number=True)
    return research, writer, rb


def test_under_rb_acc_the_receiver_waits_for_the_senders_verdict():
    research, writer, rb = acc_pair("len:150w+tone:plain+must:monday-problem+no:em-dash")  # a contradiction
    assert not writer.may_act("research-01")
    assert refused(writer, ACC_DN) == "act-before-wilco"
    events = research.receive(rb)
    assert type(events[0]).__name__ == "ReadbackVoid"
    assert refused(research, f"RW1 AN research-02 re={rb.split()[2]} from=research to=writer val=Y") == "confirm-void"
    # the thread holds no criteria: it reports the act before the sender's verdict all the same
    assert ("act-before-wilco", "writer-09") in failed_kinds([HO_ACC, rb, ACC_DN])


def test_under_rb_acc_the_senders_an_val_y_clears_the_act():
    research, writer, rb = acc_pair("len:120w+tone:plain+must:monday-problem+no:em-dash")
    passed = research.receive(rb)[0]
    assert type(passed).__name__ == "ReadbackPassed" and passed.confirm is not None
    confirm = research.send(passed.confirm, number=True)
    assert type(writer.receive(confirm)[0]).__name__ == "Confirmed"
    assert writer.may_act("research-01")
    assert writer.send(ACC_DN) == ACC_DN
    report = check_thread([HO_ACC, rb, confirm, ACC_DN], now="20261001T0000Z")
    assert [f for f in report.findings if f.failed] == []


def test_criteria_kept_back_need_a_level_that_waits_for_the_verdict():
    research = Endpoint("research")
    echo = HO_ACC.replace(" rb=acc keys=len+tone+must+no", "")
    assert refused(research, echo, expect_acc=KEPT) == "criteria-not-asked"


def test_an_act_with_no_readback_at_all_is_reported_by_the_thread_check():
    assert ("act-before-wilco", "b-2") in failed_kinds([HO, DN])
    assert ("act-before-wilco", "b-2") not in failed_kinds([HO, RB, DN])


def test_a_confirmation_of_a_void_readback_is_reported_by_the_thread_check():
    bad = RB.replace("ask=FIX", "ask=TEST")
    assert ("confirm-void", "a-2") in failed_kinds([HO, bad, "RW1 AN a-2 re=b-1 from=a to=b val=Y"])


# ---- spec 3.1 exp, live -------------------------------------------------------------------------

HO_EXP = "RW1 HO a-1 from=a to=b item=x:1 ask=FIX exp=20261002T1700Z"


class Clock:
    """The caller's clock, moved by hand."""

    def __init__(self, text: str) -> None:
        self.set(text)

    def set(self, text: str) -> None:
        from rogerwilco.core.slottypes import parse_time

        self.at = parse_time(text)

    def __call__(self):
        return self.at


def test_nothing_is_done_on_a_handoff_after_its_exp():
    clock = Clock("20261002T1600Z")
    a, b = Endpoint("a", clock=clock), Endpoint("b", clock=clock)
    b.receive(a.send(HO_EXP))
    clock.set("20261002T1701Z")
    assert refused(b, RB) == "expired"
    clock.set("20261002T1700Z")  # the exp minute itself is still in time
    a.receive(b.send(RB))
    assert b.may_act("a-1")
    clock.set("20261002T1701Z")
    assert not b.may_act("a-1")
    assert b.may_act("a-1", now="20261002T1659Z")  # the caller's own time, when it gives one
    assert refused(b, DN) == "expired"
    assert b.send(DN.replace("out=OK", "out=NOOP"))  # closing it is no act


def test_a_statement_cannot_be_confirmed_after_its_exp_nor_after_the_handoffs():
    clock = Clock("20261002T1200Z")
    pay = ("RW1 HO a-1 from=a to=b item=x:1 ask=FIX rb=exec exp=20261002T1700Z")
    rb = "RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=FIX exp=20261002T1230Z"
    a, b = Endpoint("a", clock=clock), Endpoint("b", clock=clock)
    b.receive(a.send(pay))
    a.receive(b.send(rb))
    confirm = "RW1 AN a-2 re=b-1 from=a to=b val=Y"
    clock.set("20261002T1231Z")
    assert refused(a, confirm) == "expired"  # past the RB's own exp
    clock.set("20261002T1230Z")
    assert a.send(confirm) == confirm
    b.receive(confirm)
    assert b.may_act("a-1")


def test_a_confirmation_after_the_handoffs_exp_is_refused():
    clock = Clock("20261002T1200Z")
    a, b = Endpoint("a", clock=clock), Endpoint("b", clock=clock)
    b.receive(a.send(HO_EXP.replace(" exp=", " rb=exec exp=")))
    a.receive(b.send(RB))
    clock.set("20261002T1800Z")
    assert refused(a, "RW1 AN a-2 re=b-1 from=a to=b val=Y") == "expired"


# ---- 2. two owners of one item -----------------------------------------------------------------

TO_C = "RW1 HO a-3 from=a to=c item=x:1 ask=FIX"


def test_an_end_cannot_hand_on_an_item_its_open_handoff_gave_away():
    a, b, c = Endpoint("a"), Endpoint("b"), Endpoint("c")
    b.receive(a.send(HO))
    a.receive(b.send(RB))
    assert b.may_act("a-1")
    with pytest.raises(ProtocolError) as exc:
        a.send(TO_C)
    assert exc.value.kind == "two-owners" and "CX re=a-1" in str(exc.value)
    assert ("two-owners", "a-3") in failed_kinds([HO, RB, TO_C])
    # withdrawn first, and the withdrawal answered, the item may go to another agent
    cx = a.send(CX)
    answer = b.send([e for e in b.receive(cx) if isinstance(e, Cancelled)][0].reply, number=True)
    assert not b.may_act("a-1")
    assert refused(a, TO_C) == "two-owners"  # b may yet act before the cancel reaches it: its answer says
    a.receive(answer)
    offered = c.receive(a.send(TO_C))[0]
    a.receive(c.send(offered.readback, number=True))
    assert c.may_act("a-3")
    assert [f for f in check_thread([HO, RB, cx, answer, TO_C, offered.readback.replace(id="c-1").to_line()],
                                    now="20261001T0000Z").findings if f.failed] == []


def test_a_handoff_not_yet_read_back_stands_too():
    a = Endpoint("a")
    a.send(HO)
    assert refused(a, TO_C) == "two-owners"  # b's readback may still pass: two owners then
    assert ("two-owners", "a-3") in failed_kinds([HO, TO_C])


def test_after_the_close_the_item_may_be_handed_on_and_to_the_same_receiver_always():
    a = Endpoint("a")
    a.send(HO)
    a.send("RW1 HO a-2 from=a to=b item=x:1 ask=TEST")  # the same receiver: one end owns it
    a.receive(RB)
    a.receive(DN)
    a.receive("RW1 UN b-3 re=a-2 from=b to=a why=BUSY")
    assert a.send(TO_C) == TO_C
    assert [f for f in check_thread([HO, "RW1 HO a-2 from=a to=b item=x:1 ask=TEST", RB, DN,
                                     "RW1 UN b-3 re=a-2 from=b to=a why=BUSY", TO_C],
                                    now="20261001T0000Z").findings if f.failed] == []


def test_an_owner_that_hands_the_item_on_no_longer_acts_on_it():
    a, b, c = Endpoint("a"), Endpoint("b"), Endpoint("c")
    b.receive(a.send(HO))
    a.receive(b.send(RB))
    assert b.may_act("a-1")
    offered = c.receive(b.send("RW1 HO b-2 from=b to=c item=x:1 ask=FIX"))[0]
    assert not b.may_act("a-1")  # c's readback may pass before b hears of it: c would own x:1 too
    b.receive(c.send(offered.readback, number=True))
    assert c.may_act("b-2") and not b.may_act("a-1")


def test_handoffs_of_one_item_that_cross_leave_one_owner():
    a, b = Endpoint("a"), Endpoint("b")
    b.receive(a.send(HO))
    a.receive(b.send(RB))
    again = a.send("RW1 HO a-2 from=a to=b item=x:1 ask=FIX")  # the same receiver: allowed
    back = b.send("RW1 HO b-2 from=b to=a item=x:1 ask=FIX")  # b owns x:1 and hands it back; the two cross
    offered = b.receive(again)[0]
    a_offered = a.receive(back)[0]
    # each end holds an open handoff of x:1 to the other: neither reads back (each would own the item by its
    # own order of the two HOs), nor acts, until one of them closes its own
    assert refused_offer(b, offered) == "two-owners"
    assert refused_offer(a, a_offered) == "two-owners"
    assert [end.me for end, ho in ((a, "b-2"), (b, "a-2")) if end.may_act(ho)] == []


def test_an_original_handoff_arriving_after_its_resend_is_the_same_handoff():
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    resend = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    offered = b.receive(resend)[0]
    a.receive(b.send(offered.readback, number=True))
    late = b.receive(ho)  # the transport reordered them
    assert not [e for e in late if isinstance(e, HandoffOffered)]  # no second readback
    assert b.handoff("a-1").issues == ("a-1", "a-2")
    a.receive(b.send("RW1 DN b-2 re=a-2 from=b to=a item=x:1 out=OK"))
    assert not b.may_act("a-1") and not b.may_act("a-2")  # one act per handoff


def test_a_cancel_of_a_resend_answered_dup_withdraws_the_handoff():
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    resend = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    cx = a.send("RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED")
    offered = b.receive(ho)[0]
    rb = b.send(offered.readback, number=True)
    dup = [e.line for e in b.receive(resend) if hasattr(e, "line")]
    events = b.receive(cx)
    answer = [e.line for e in events if hasattr(e, "line")] + [
        b.send([e for e in events if isinstance(e, Cancelled)][0].reply, number=True)]
    assert not b.may_act("a-1")  # a withdrew the handoff: once b answers, a may hand x:1 to another agent
    for line in (rb, *dup, *answer):
        a.receive(line)
    to_c = a.send("RW1 HO a-4 from=a to=c item=x:1 ask=FIX")
    assert failed_kinds([ho, resend, cx, rb, *dup, *answer, to_c]) == set()  # the thread check reads it the same


def test_a_cancel_of_a_resend_of_a_duplicate_withdraws_the_handoff():
    a, b = Endpoint("a"), Endpoint("b")
    lines = [a.send(HO), a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX"),
             a.send("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX"),
             a.send("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")]
    offered = b.receive(lines[0])[0]
    rb = b.send(offered.readback, number=True)
    dup = [e.line for e in b.receive(lines[1]) if hasattr(e, "line")]
    for line in lines[2:]:
        b.receive(line)
    assert not b.may_act("a-1")
    assert refused(b, "RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK") == "act-after-cancel"
    assert failed_kinds([lines[0], rb, *dup, *lines[1:]]) == set()


def test_the_sender_does_not_confirm_a_readback_of_a_handoff_it_cancelled():
    s, p = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
    ho = s.send("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
                "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
    offered = p.receive(ho)[0]
    s.send("RW1 CX scheduler-2 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 why=REVOKED")  # lost
    s.receive(p.send(offered.readback, number=True))
    # the payer would pay a cancelled handoff
    assert refused(s, "RW1 AN scheduler-3 re=payer-1 p=pay from=scheduler to=payer val=Y") == "closed"
    assert not p.may_act("scheduler-1")


def test_a_readback_that_crossed_a_resend_answered_dup_still_clears_the_act():
    """The RB of the original reaches the sender after it re-sent; the receiver answers the re-send UN why=DUP.
    The original is the live issue again and its readback passed: the receiver's act is no act before wilco."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    resend = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    rb = b.send(b.receive(ho)[0].readback, number=True)
    dup = [e.line for e in b.receive(resend) if hasattr(e, "line")]
    a.receive(rb)  # while a-2 is a's live issue
    a.receive(dup[0])
    assert a.handoff("a-1").readback == "wilco"
    dn = b.send("RW1 DN b-3 re=a-1 from=b to=a item=x:1 out=OK")
    assert [f.kind for f in a.receive(dn)[0].findings] == []
    assert not [f for f in a.findings if f.kind == "act-before-wilco"]
    assert failed_kinds([ho, resend, rb, *dup, dn]) == set()


def test_an_end_does_not_hand_on_an_item_offered_to_it_before_it_reads_it_back():
    """Until its readback passes, the sender owns the item (spec 5 rule 1): the receiver cannot hand it on, so
    the third agent's readback cannot make a second owner beside the receiver's own later one."""
    a, b = Endpoint("a"), Endpoint("b")
    offered = b.receive(a.send(HO))[0]
    assert refused(b, "RW1 HO b-1 from=b to=c item=x:1 ask=FIX") == "not-owner"
    a.receive(b.send(offered.readback, number=True))
    assert b.send("RW1 HO b-2 from=b to=c item=x:1 ask=FIX")  # read back: b owns x:1, and hands it on


def test_a_readback_of_a_handoff_its_sender_withdrew_does_not_let_the_receiver_hand_the_item_on():
    """b read a-1 back, a cancelled it, and a offered x:1 to b again: b does not hold x:1 (a does, spec 5.4), so
    it cannot hand it to c before it reads the new handoff back."""
    a, b = Endpoint("a"), Endpoint("b")
    offered = b.receive(a.send(HO))[0]
    a.receive(b.send(offered.readback, number=True))
    b.receive(a.send(CX))
    b.receive(a.send("RW1 HO a-3 from=a to=b item=x:1 ask=FIX"))
    assert refused(b, "RW1 HO b-2 from=b to=c item=x:1 ask=FIX") == "not-owner"


def table_findings(end: Endpoint, lines: list[str]) -> tuple[set, set]:
    """The table's findings ``end`` raised on the lines it received, and check_thread's on its journal."""
    kinds = {"act-before-wilco", "act-after-cancel", "closed-twice", "act-before-echo", "confirm-void",
             "confirm-without-readback", "cancel-wrong-party"}
    for line in lines:
        end.receive(line)
    journal = [line for _, line in end.journal()]
    raised = {(f.kind, f.token) for f in end.findings if f.kind in kinds}
    replayed = {(f.kind, f.token) for f in check_thread(journal, now="20261001T0000Z").findings if f.kind in kinds}
    return raised, replayed


def test_a_handoff_cancelled_through_its_duplicate_resend_stands_no_more_in_the_thread_check():
    """a cancels its re-send (its live issue) and hands x:1 to c; then b's readback of the original and its UN
    why=DUP to the re-send come in. The re-send repeated the handoff the cancel withdrew: no two owners."""
    a = Endpoint("a")
    sent = [a.send(HO), a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX"),
            a.send("RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED")]
    sent.append("RW1 AN b-3 re=a-3 from=b to=a val=Y")  # b answered the cancel
    a.receive(sent[-1])
    sent.append(a.send("RW1 HO a-4 from=a to=c item=x:1 ask=FIX"))
    received = [RB, "RW1 UN b-2 re=a-2 from=b to=a item=x:1 why=DUP"]
    raised, replayed = table_findings(a, received)
    assert failed_kinds(sent + received) == set()
    assert replayed == raised


def test_a_close_naming_a_resend_before_its_dup_answer_closes_the_handoff_in_the_thread_check_too():
    """A DN naming the re-send comes before the receiver's UN why=DUP to it: the live end applies it to the
    handoff the re-send was then part of, and the thread check does the same (the UN closes the re-send alone)."""
    a = Endpoint("a")
    a.send(HO)
    a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    a.send("RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED")
    raised, replayed = table_findings(a, ["RW1 DN b-9 re=a-2 from=b to=a item=x:1 out=OK", RB,
                                          "RW1 UN b-2 re=a-2 from=b to=a item=x:1 why=DUP",
                                          "RW1 DN b-10 re=a-1 from=b to=a item=x:1 out=OK"])
    assert ("act-after-cancel", "b-9") in raised and ("closed-twice", "b-10") in raised
    assert replayed == raised


def test_a_resend_of_a_resend_answered_dup_carries_the_handoff_forward_in_the_thread_check_too():
    """a re-sends twice (a-3 re=a-2 before b's UN why=DUP to a-2 came); b acts naming a-3. The live end holds a-3
    as the live issue of the handoff b read back; the thread check must too (no act before wilco, no second close)."""
    a = Endpoint("a")
    a.send(HO)
    a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    a.send("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    raised, replayed = table_findings(a, [RB, "RW1 UN b-2 re=a-2 from=b to=a item=x:1 why=DUP",
                                          "RW1 DN b-3 re=a-3 from=b to=a item=x:1 out=OK"])
    assert raised == set()
    assert replayed == raised


def test_the_spooled_check_finds_two_owners_across_batches():
    from rogerwilco.checks.thread import check_thread_spooled

    lines = [HO, "RW1 HO q-1 from=q to=r item=y:1 ask=FIX", RB, "RW1 RB r-1 re=q-1 from=r to=q item=y:1 ask=FIX",
             TO_C]
    whole = check_thread(lines, now="20261001T0000Z")
    assert ("two-owners", "a-3") in {(f.kind, f.token) for f in whole.findings}
    with check_thread_spooled(lines, now="20261001T0000Z", batch_lines=1) as spooled:
        assert spooled.report() == whole


# ---- the live endpoints and the thread check agree ------------------------------------------------

import os  # noqa: E402

from hypothesis import example, given, settings, strategies as st  # noqa: E402

#: ``RW_WRONG_ACTS_EXAMPLES`` raises the number of conversations (default 60)
EXAMPLES = int(os.environ.get("RW_WRONG_ACTS_EXAMPLES", "60"))
#: what a live end refuses that the thread check reports from the lines alone
SHARED_KINDS = {"act-before-wilco", "act-after-cancel", "closed-twice", "cancel-wrong-party", "confirm-void",
                "confirm-without-readback", "two-owners"}
STEPS = st.lists(st.one_of(
    st.tuples(st.just("HO"), st.sampled_from("bc"), st.sampled_from(["x:1", "x:2"]), st.sampled_from(["echo", "exec"])),
    st.tuples(st.just("RB"), st.integers(0, 5), st.sampled_from(["FIX", "TEST"])),  # TEST: a misread
    st.tuples(st.just("AN"), st.integers(0, 5)),
    st.tuples(st.just("DN"), st.integers(0, 5), st.sampled_from(["OK", "NOOP"])),
    st.tuples(st.just("UN"), st.integers(0, 5)),
    st.tuples(st.just("CX"), st.integers(0, 5), st.sampled_from("ab")),
    st.tuples(st.just("FL"), st.integers(0, 5)),
    # an HO its receiver gets late (a transport that holds it back), and the step that delivers one held back:
    # meanwhile the receiver may answer, close or act on what it has not received
    st.tuples(st.just("HO-late"), st.sampled_from("bc"), st.sampled_from(["x:1", "x:2"]),
              st.sampled_from(["echo", "exec"])),
    st.tuples(st.just("ARRIVE"), st.integers(0, 5)),
), max_size=14)


def _line(step, hos: list[tuple[str, str, str]], ends: dict[str, Endpoint]) -> tuple[str, str] | None:
    """The line a step writes (with the id its author's end gives next), and its author; None for no HO yet."""
    if step[0] in ("HO", "HO-late"):
        _, to, item, level = step
        return f"RW1 HO {ends['a']._peek_id()} from=a to={to} item={item} ask=FIX rb={level}", "a"
    if not hos:
        return None
    ho, to, item = hos[step[1] % len(hos)]
    if step[0] == "RB":
        return f"RW1 RB {ends[to]._peek_id()} re={ho} from={to} to=a item={item} ask={step[2]}", to
    if step[0] == "AN":
        rb = next((m for m in reversed(list(ends["a"]._messages.values())) if m.type == "RB" and m.re == ho), None)
        return (f"RW1 AN {ends['a']._peek_id()} re={rb.id} from=a to={to} val=Y", "a") if rb is not None else None
    if step[0] == "DN":
        return f"RW1 DN {ends[to]._peek_id()} re={ho} from={to} to=a item={item} out={step[2]}", to
    if step[0] == "UN":
        return f"RW1 UN {ends[to]._peek_id()} re={ho} from={to} to=a why=BUSY", to
    if step[0] == "FL":
        return f"RW1 FL {ends[to]._peek_id()} re={ho} from={to} to=a item={item} why=BUSY", to
    author = "a" if step[2] == "a" else to  # a CX from the receiver is from the wrong party
    addressee = "a" if author != "a" else to
    return f"RW1 CX {ends[author]._peek_id()} re={ho} from={author} to={addressee} item={item}", author


def _rebuilt(line: str, log: list[str]) -> Endpoint:
    """The end ``line`` is addressed to, as the log left it (a fresh end, so the forced line changes nothing)."""
    me = line.split(" to=")[1].split(" ")[0]
    end = Endpoint(me)
    for earlier in log:
        if f" from={me} " in earlier:
            end.send(earlier)
        elif f" to={me} " in earlier:
            end.receive(earlier)
    return end



@settings(max_examples=EXAMPLES, deadline=None)
@given(STEPS)
# each refusal the two share, reached at least once whatever the generator draws
@example([("HO", "b", "x:1", "echo"), ("DN", 0, "OK")])  # act-before-wilco
@example([("HO", "b", "x:1", "exec"), ("RB", 0, "FIX"), ("DN", 0, "OK")])  # the same, before AN val=Y
@example([("HO", "b", "x:1", "echo"), ("RB", 0, "FIX"), ("CX", 0, "a"), ("DN", 0, "OK")])  # act-after-cancel
@example([("HO", "b", "x:1", "echo"), ("UN", 0), ("DN", 0, "NOOP")])  # closed-twice
@example([("HO", "b", "x:1", "echo"), ("CX", 0, "b")])  # cancel-wrong-party
@example([("HO", "b", "x:1", "exec"), ("RB", 0, "TEST"), ("AN", 0)])  # confirm-void
@example([("HO", "b", "x:1", "echo"), ("RB", 0, "FIX"), ("HO", "c", "x:1", "echo")])  # two-owners
# an act on a handoff refused, while a cancel held for an HO not received may name it: act-before-wilco
@example([("HO", "b", "x:1", "echo"), ("UN", 0), ("HO-late", "b", "x:1", "echo"), ("CX", 1, "a"), ("DN", 0, "OK")])
def test_what_the_endpoints_refuse_the_thread_check_reports_and_what_they_let_out_it_passes(steps):
    ends = {name: Endpoint(name) for name in "abc"}
    log: list[str] = []
    hos: list[tuple[str, str, str]] = []
    late: list[str] = []  # HOs sent and not yet delivered
    for step in [*steps, *[("ARRIVE", 0)] * len(steps)]:  # (at the end, every HO held back arrives)
        if step[0] == "ARRIVE":
            if late:
                line = late.pop(step[1] % len(late))
                to = line.split(" to=")[1].split(" ")[0]
                for event in ends[to].receive(line):
                    assert not [f for f in event.findings if f.failed], (log, line, event)
            continue
        made = _line(step, hos, ends)
        if made is None:
            continue
        line, author = made
        token = line.split(" ")[2]
        try:
            ends[author].send(line)
        except ProtocolError as exc:
            if exc.kind in SHARED_KINDS:  # the same line, let through, is reported by the thread check
                forced = check_thread(log + [line], now="20261001T0000Z")
                reported = {(f.kind, f.token) for f in forced.findings if f.failed}
                assert (exc.kind, token) in reported, (log, line)
                # and what its receiver finds in it (a fault of order may be a note there: it may have crossed)
                received = {(f.kind, f.token) for e in _rebuilt(line, log).receive(line) for f in e.findings}
                assert received <= reported, (log, line, received)
            continue
        log.append(line)
        to = line.split(" to=")[1].split(" ")[0]
        if step[0] == "HO-late":
            late.append(line)
        else:
            for event in ends[to].receive(line):  # delivered at once: the log's order is everyone's order
                assert not [f for f in event.findings if f.failed], (log, event)
        if step[0] in ("HO", "HO-late"):
            hos.append((token, step[1], step[2]))
        report = check_thread(log, now="20261001T0000Z")
        assert [f for f in report.findings if f.failed] == [], log



def test_a_cancel_of_an_act_the_tool_holds_in_doubt_is_not_answered_nothing_ran(tmp_path):
    """The tool's executor ran but its report cannot be read: the act is in doubt. The cancel that comes then is
    answered with the act's DN once it is known, never with AN val=Y ("nothing executed")."""
    import sys

    from rogerwilco.checks.endpoint import Cancelled
    from rogerwilco.front.tool import ToolRefused, ToolStore

    pay_ho = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
              "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
    ledger = tmp_path / "payer.ledger"
    s = Endpoint("scheduler", profiles=["pay"])
    payer = Endpoint("payer", profiles=["pay"], ledger=ledger)
    store = ToolStore.open(ledger, profiles=["pay"], endpoint=payer)
    payer.receive(s.send(pay_ho))
    prepared = store.prepare(pay_ho)
    confirm = s.receive(payer.send(prepared.rb, number=True))[0].confirm
    payer.receive(s.send(confirm, number=True))
    with pytest.raises(ToolRefused):
        store.commit(prepared.token, [sys.executable, "-c", "print('not a report')"])
    cx = s.send("RW1 CX scheduler-3 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 why=REVOKED")
    (cancelled,) = [e for e in payer.receive(cx) if isinstance(e, Cancelled)]
    assert cancelled.reply is None
    assert refused(payer, "RW1 AN payer-9 re=scheduler-3 p=pay from=payer to=scheduler val=Y") == "act-ran"


def test_a_cancel_of_a_resend_not_yet_received_stops_the_act_on_the_handoff():
    """a re-sends a-1 as a-2 and cancels a-2; the cancel reaches b before a-2 does. b cannot yet tell a-2 from a
    new handoff, but a cancel from a-1's sender about its item, naming an HO b has not seen, stops the act on a-1
    until that HO comes (spec 5.4: a cancel received before the act prevents it)."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    resend = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    cx = a.send("RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED")
    a.receive(b.send(b.receive(ho)[0].readback, number=True))
    assert b.may_act("a-1")
    b.receive(cx)
    assert not b.may_act("a-1")
    assert refused(b, "RW1 DN b-5 re=a-1 from=b to=a item=x:1 out=OK") == "act-after-cancel"
    b.receive(resend)  # the re-send comes: the cancel applies to the handoff
    assert not b.may_act("a-1")


def test_a_handoff_withdrawn_but_not_yet_answered_still_stands():
    """a hands x:1 to b (read back), then cancels. Until b answers the cancel, b may have acted or may yet (the
    cancel may cross its act): a neither reads back nor hands on x:1 meanwhile."""
    a, b, c = Endpoint("a"), Endpoint("b"), Endpoint("c")
    a.receive(b.send(b.receive(a.send(HO))[0].readback, number=True))
    cancelled = [e for e in b.receive(a.send(CX)) if isinstance(e, Cancelled)][0]
    assert refused(a, "RW1 HO a-3 from=a to=c item=x:1 ask=FIX") == "two-owners"
    offered = a.receive(c.send("RW1 HO c-1 from=c to=a item=x:1 ask=FIX"))[0]
    assert refused_offer(a, offered) == "two-owners"
    a.receive(b.send(cancelled.reply, number=True))  # b abandoned it: the item is a's to hand on
    assert a.send("RW1 HO a-4 from=a to=c item=x:1 ask=FIX")


def test_an_original_arriving_after_a_resend_of_a_lost_resend_is_held_apart_until_the_link_comes():
    """a sends a-1, re-sends it as a-2 (lost in transit) and again as a-3 re=a-2. b gets a-3, reads it back, then
    gets a-1: a-3's re= names an HO of a's that b never saw, so a-1 may be its original, or another handoff of the
    same slots (its sender may have cancelled a-1 and sent a new one, which a-3 re-sends). b offers a-1 apart,
    but refuses its readback (read-back) and every close (dup-only): one act, whichever a-3 re-sends. When a-2
    comes, the three are one handoff, read back once (spec 5 rule 1: a retry cannot create two owners)."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    lost = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    resend = a.send("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    offered = b.receive(resend)[0]
    rb = b.send(offered.readback, number=True)
    late = [e for e in b.receive(ho) if isinstance(e, HandoffOffered)]
    assert [e.handoff for e in late] == ["a-1"] and b.handoff("a-1").issues == ("a-1",)
    assert refused_offer(b, late[0]) == "read-back"
    assert refused(b, "RW1 UN b-7 re=a-1 from=b to=a item=x:1 why=DUP") == "dup-only"
    assert b.may_act("a-3") and not b.may_act("a-1")
    dn = b.send("RW1 DN b-2 re=a-3 from=b to=a item=x:1 out=OK")
    assert not b.may_act("a-1") and not b.may_act("a-3")  # one act per handoff
    assert refused(b, "RW1 DN b-3 re=a-1 from=b to=a item=x:1 out=OK") == "dup-only"
    late_lost = b.receive(lost)  # the lost re-send comes after all: one handoff, read back and closed
    assert not [e for e in late_lost if isinstance(e, HandoffOffered)]
    assert [e.line.split(" // ")[0] for e in late_lost if isinstance(e, Reply)] == \
        ["RW1 UN b-3 re=a-2 from=b to=a item=x:1 why=DUP"]  # a re-send of a handoff read back, split off
    assert b.handoff("a-1").issues == b.handoff("a-3").issues == ("a-1", "a-3")
    assert b.handoff("a-1").close != "open" and not b.may_act("a-2")
    assert refused(b, "RW1 DN b-4 re=a-1 from=b to=a item=x:1 out=NOOP") == "closed-twice"
    journal = [line for _, line in b.journal()]
    assert failed_kinds(journal) == set()
    unseen = ("reply-to-unknown", None)  # a-3 names a-2, which these lines lack: no act is wrong for it
    assert failed_kinds([resend, rb, ho, dn]) == {unseen}
    assert a.receive(rb) and a.receive(dn) and a.handoff("a-1").close != "open"


def test_a_resend_of_a_lost_resend_after_its_original_was_read_back_is_not_read_back_again():
    """The other order: b gets a-1 and reads it back, then a-3 re=a-2 (a-2 lost). b cannot follow a-3 to a-1, so
    it is offered as a handoff; its readback is refused (a re-send of the handoff read back, it may be), so one
    act at most."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    resend = a.send("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    b.send(b.receive(ho)[0].readback, number=True)
    offered = [e for e in b.receive(resend) if isinstance(e, HandoffOffered)]
    for event in offered:
        assert refused_offer(b, event) == "read-back"
    assert b.may_act("a-1") and not b.may_act("a-3")
    assert b.send("RW1 UN b-3 re=a-3 from=b to=a item=x:1 why=DUP")


def test_two_ends_of_one_agent_on_one_ledger_read_a_handoff_back_once(tmp_path):
    """Two processes of one agent share its ledger and both receive the same HO. The second receive is a
    redelivery; whichever readback goes out first is the one: the other, the same readback again under a new
    number, is refused, and one DN at most reports the act."""
    path = tmp_path / "dev.ledger"
    first, second = Endpoint("dev", ledger=path), Endpoint("dev", ledger=path)
    ho = "RW1 HO a-1 from=a to=dev item=x:1 ask=FIX"
    offered = first.receive(ho)[0]
    again = second.receive(ho)
    assert isinstance(again[0], Redelivered)
    sent = first.send(offered.readback, number=True)
    owed = [e.readback for e in again if isinstance(e, HandoffOffered)]
    for readback in owed:
        assert refused(second, readback, number=True) == "read-back"
    assert [line for _, line in second.journal() if " RB " in line] == [sent]
    second.send("RW1 DN dev-5 re=a-1 from=dev to=a item=x:1 out=OK")
    assert refused(first, "RW1 DN dev-6 re=a-1 from=dev to=a item=x:1 out=OK") in ("closed", "closed-twice")
    assert not first.may_act("a-1") and not second.may_act("a-1")


def test_two_processes_of_one_agent_on_one_ledger_send_one_readback(tmp_path):
    """The same across processes: each receives the HO before either sends its readback (one step each)."""
    import os
    import subprocess
    import sys

    path = tmp_path / "dev.ledger"
    script = ("import sys\nfrom rogerwilco import Endpoint, ProtocolError\n"
              "e = Endpoint('dev', ledger=sys.argv[1])\n"
              "if sys.argv[2] == 'receive':\n"
              "    got = e.receive('RW1 HO a-1 from=a to=dev item=x:1 ask=FIX')\n"
              "    print([x.readback for x in got if getattr(x, 'readback', None)][0])\n"
              "else:\n"
              "    try:\n        print(e.send(sys.argv[2], number=True))\n"
              "    except ProtocolError as exc:\n        print(exc.kind)\n")

    def step(arg: str) -> str:
        return subprocess.run([sys.executable, "-c", script, str(path), arg], capture_output=True, text=True,
                              check=True, env={**os.environ, "RW1_PURE": "1"}).stdout.strip()

    offered = [step("receive"), step("receive")]
    assert [step(readback) for readback in offered][1] == "read-back"
    assert len([line for _, line in Endpoint("dev", ledger=path).journal() if " RB " in line]) == 1


def _closed_then_a_resend_of_a_lost_resend() -> tuple[Endpoint, Endpoint, str, list[HandoffOffered]]:
    """b has read a-1 back and closed it out=NOOP; a-3 re=a-2 has come, a-2 not yet: (a, b, a-2's line, a-3's
    offers)."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    lost = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    resend = a.send("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    b.send(b.receive(ho)[0].readback, number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=NOOP")
    return a, b, lost, [e for e in b.receive(resend) if isinstance(e, HandoffOffered)]


def test_a_resend_of_a_lost_resend_that_arrives_before_it_joins_the_closed_handoff():
    """b reads a-1 back and closes it. Then a-3 re=a-2 comes, before a-2: b cannot yet follow it. When a-2 re=a-1
    comes (answered UN why=DUP), a-3, its re-send, belongs to a-1's handoff too: no readback of it, no second
    close (spec 5 rule 1: a retry cannot create two owners); the thread check reads b's journal the same way."""
    a, b, lost, offered = _closed_then_a_resend_of_a_lost_resend()
    b.receive(lost)
    assert "a-3" in b.handoff("a-1").issues
    for event in offered:
        assert refused_offer(b, event, since=True) in ("read-back", "closed")
    assert not b.may_act("a-3")
    assert refused(b, "RW1 DN b-9 re=a-3 from=b to=a item=x:1 out=OK") in ("closed", "closed-twice")
    assert failed_kinds([line for _, line in b.journal()]) == set()


def test_a_resend_of_a_lost_resend_after_its_original_was_closed_is_not_read_back_again():
    """b reads a-1 back and closes it (out=NOOP). a-3 re=a-2 comes (a-2 lost, and it may stay lost): nothing links
    it to a-1, but it repeats a-1, which b read back, so reading it back would make two acts of one handoff if a-2
    never comes (spec 5 rule 1: a retry cannot make a second act). b's endpoint refuses the RB (read-back), as it
    does while a-1 is open; b answers a-3 UN why=DUP, and a-2, when it comes, UN why=DUP too. No act may follow."""
    a, b, lost, offered = _closed_then_a_resend_of_a_lost_resend()
    assert refused_offer(b, offered[0]) == "read-back"
    assert not b.may_act("a-3")
    b.send("RW1 UN b-3 re=a-3 from=b to=a item=x:1 why=DUP // re-sends a-1, already closed")
    replies = [e.line for e in b.receive(lost) if isinstance(e, Reply)]
    assert [(line.split()[1], line.split()[3]) for line in replies] == [("UN", "re=a-2")]
    assert not b.may_act("a-3") and not b.may_act("a-1")
    act = "RW1 DN b-9 re=a-3 from=b to=a item=x:1 out=OK"
    assert refused(b, act) in ("act-before-wilco", "closed", "closed-twice")  # never read back, and closed
    journal = [line for _, line in b.journal()]
    assert failed_kinds(journal) == set()
    for line in journal:  # the sender's end, on the same lines, raises nothing either
        a.receive(line)
    assert not [f for f in a.findings if f.failed]


def test_a_cancel_of_a_resend_of_a_lost_resend_withdraws_the_handoff_it_may_repeat():
    """b reads a-1 back. a, not having b's RB yet, re-sends a-1 as a-2 (lost) and a-3 re=a-2, then cancels its
    handoff: CX a-4 re=a-3, its live issue. At b, a-3 is offered as a handoff of its own (nothing links it to a-1),
    but it repeats a-1, which b read back: the cancel withdraws a-1's handoff too (spec 5.4: the receiver abandons
    what the cancel names; the sender meant its handoff). Acting on a-1 after it is the act the cancel forbids;
    the thread check reads b's journal the same way."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    assert b.may_act("a-1")
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    events = b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")
    assert [e.handoff for e in events if isinstance(e, Cancelled)] == ["a-1"]
    assert not b.may_act("a-1") and not b.may_act("a-3")
    act = "RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK"
    assert refused(b, act) == "act-after-cancel"
    journal = [line for _, line in b.journal()]
    assert not {kind for kind, _ in failed_kinds(journal)} - {"reply-to-unknown"}
    assert ("act-after-cancel", "b-9") in failed_kinds(journal + [act])


def test_a_cancel_held_for_an_original_that_joins_its_resend_applies_to_that_handoff():
    """a-2 re-sends a-1 and comes first; a's CX a-9 names a-1, not yet received: held. When a-1 comes it joins
    a-2's handoff, and the held cancel applies to it there (the handoff is cancelled: no readback, no act), as
    the thread check reads the same lines; a cancel already applied makes the held one a second close."""
    b = Endpoint("b")
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-9 re=a-1 from=a to=b item=x:1 why=REVOKED")
    events = b.receive(HO)
    assert [type(e) for e in events] == [Redelivered, Cancelled]
    assert b.handoff("a-2").close == "cancelled" and not b.may_act("a-2")
    assert refused(b, "RW1 RB b-1 re=a-2 from=b to=a item=x:1 ask=FIX") == "closed"
    twice = Endpoint("b")
    lines = ["RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX", "RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED",
             "RW1 CX a-9 re=a-1 from=a to=b item=x:1 why=REVOKED", HO]
    for line in lines:
        twice.receive(line)
    assert {(f.kind, f.token) for f in twice.findings} == {("closed-twice", "a-9")} == failed_kinds(lines)


def test_a_resend_of_a_lost_resend_of_an_open_handoff_is_answered_dup_only():
    """a-1 comes; a-3 re=a-2 (a-2 lost) comes before b reads a-1 back. At a, a-3 is the live issue of a-1's
    handoff: reading back both would make two acts, and any close of a-3 but UN why=DUP closes a-1's handoff at a
    while b could still act on a-1 (an act after a close). So a-3 is refused its readback (read-back) and every
    close but UN why=DUP (dup-only); b reads a-1 back and acts once."""
    b = Endpoint("b")
    offered = b.receive(HO)[0]
    resend = [e for e in b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX") if isinstance(e, HandoffOffered)]
    assert refused_offer(b, resend[0]) == "read-back"
    assert refused(b, "RW1 DN b-7 re=a-3 from=b to=a item=x:1 out=NOOP") == "dup-only"
    assert refused(b, "RW1 UN b-7 re=a-3 from=b to=a item=x:1 why=BUSY") == "dup-only"
    assert refused(b, "RW1 FL b-7 re=a-3 from=b to=a item=x:1 why=ERR") == "dup-only"
    b.send("RW1 UN b-7 re=a-3 from=b to=a item=x:1 why=DUP")
    b.send(offered.readback, number=True)
    assert b.may_act("a-1") and not b.may_act("a-3")
    b.send("RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK")
    assert failed_kinds([line for _, line in b.journal()]) == {("reply-to-unknown", None)}  # a-3's re=a-2


def test_a_handoff_read_back_then_closed_by_a_noop_on_its_untraced_resend_is_refused():
    """The case a longer stateful run found: b reads a-1 back; a-4 re=a-3 comes (a-3 lost on the way), and b
    closes it DN out=NOOP. At a that closes a-1's handoff (a-4 is its live issue); when a-3 comes, b's DN re=a-1
    is a second close. The NOOP is refused (dup-only): UN why=DUP is the answer."""
    b = Endpoint("b")
    offered = b.receive(HO)[0]
    b.send(offered.readback, number=True)
    b.receive("RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX")
    assert refused(b, "RW1 DN b-7 re=a-4 from=b to=a item=x:1 out=NOOP") == "dup-only"
    b.send("RW1 UN b-7 re=a-4 from=b to=a item=x:1 why=DUP")
    b.receive("RW1 HO a-3 re=a-1 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=NOOP")
    lines = [line for _, line in b.journal()]
    assert not {kind for kind, token in failed_kinds(lines) if token in ("b-7", "b-9")}


def test_a_resend_of_a_lost_resend_of_a_cancelled_handoff_is_not_read_back():
    """a-1 comes and a cancels it (CX a-9) before b reads it back; a-3 re=a-2 (a-2 lost) comes after, sent before
    the cancel, it may be: the cancel withdraws it too, and b may not read it back (closed) nor act on it."""
    b = Endpoint("b")
    b.receive(HO)
    b.receive("RW1 CX a-9 re=a-1 from=a to=b item=x:1 why=REVOKED")
    resend = [e for e in b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX") if isinstance(e, HandoffOffered)]
    assert refused_offer(b, resend[0]) == "closed"
    assert not b.may_act("a-3")


def test_the_lost_link_is_looked_for_at_the_first_issue_of_a_chain_of_resends():
    """As the two tests above, where the re-send is a chain: a-4 re=a-3 comes, then a-3 re=a-2 (a-2 lost), which
    a-4 continues. The chain's first issue, a-3, is the one whose re= names an HO b never saw: a-4 is refused its
    readback, and b reads a-1 back; where a-1 was cancelled first, a-4 is refused its own."""
    b = Endpoint("b")
    offered = b.receive(HO)[0]
    b.receive("RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    assert b.handoff("a-4").issues == ("a-3", "a-4")
    assert refused(b, b.readback("a-4"), number=True) == "read-back"
    b.send(offered.readback, number=True)
    assert b.may_act("a-1") and not b.may_act("a-4")
    c = Endpoint("b")
    c.receive(HO)
    c.receive("RW1 CX a-9 re=a-1 from=a to=b item=x:1 why=REVOKED")
    c.receive("RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX")
    c.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    assert refused(c, c.readback("a-4"), number=True) == "closed"
    assert not c.may_act("a-4")


def test_a_chain_of_resends_that_links_late_to_a_cancelled_handoff_joins_it():
    """a-1 is cancelled (CX a-9). a-4 re=a-3 comes, then a-3 re=a-2 (a chain whose first issue is a-3, its key
    a-4), then a-2 re=a-1: the chain re-sends the cancelled handoff and joins it, whichever issue started it, so
    b may not read a-4 back nor act on it (spec 5.4: no act after a cancel its receiver holds)."""
    b = Endpoint("b")
    for line in (HO, "RW1 CX a-9 re=a-1 from=a to=b item=x:1 why=REVOKED", "RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX",
                 "RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX", "RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX"):
        b.receive(line)
    assert b.handoff("a-4").issues == ("a-1", "a-2", "a-3", "a-4") and b.handoff("a-4").close == "cancelled"
    assert refused(b, b.readback("a-4"), number=True) == "closed"
    assert not b.may_act("a-4")


def test_a_resend_of_ones_own_handoff_is_not_a_hand_on_in_the_thread_check():
    """The scheduler's s-1 was read back (the payer owns x:1), and the payer hands x:1 back (payer-2, not read back
    yet). The scheduler's endpoint lets out s-2, a re-send of s-1 (the payer answers it UN why=DUP): it hands
    nothing on anew, so the thread check does not report it not-owner, as it does a new HO of x:1 to another."""
    b = Endpoint("scheduler")
    b.send("RW1 HO scheduler-1 from=scheduler to=payer item=x:1 ask=FIX")
    b.receive("RW1 RB payer-1 re=scheduler-1 from=payer to=scheduler item=x:1 ask=FIX h=bf60c2047954")
    b.receive("RW1 HO payer-2 from=payer to=scheduler item=x:1 ask=FIX")
    resend = b.send("RW1 HO scheduler-2 re=scheduler-1 from=scheduler to=payer item=x:1 ask=FIX")
    assert refused(b, "RW1 HO scheduler-3 from=scheduler to=auditor item=x:1 ask=FIX") == "not-owner"
    lines = [line for _, line in b.journal()] + [
        "RW1 UN payer-3 re=scheduler-2 from=payer to=scheduler item=x:1 why=DUP // already read back scheduler-1"]
    assert resend in lines and failed_kinds(lines) == set()
    assert failed_kinds(lines + ["RW1 HO scheduler-3 from=scheduler to=auditor item=x:1 ask=FIX"]) == {
        ("not-owner", "scheduler-3")}


def test_an_original_joins_the_resend_that_names_it_before_a_resend_of_a_lost_resend():
    """a-33 re-sends a-34 by name, a-31 re-sends a-32 (lost), all of one item and slots; a-34 comes last. It joins
    a-33, which names it, wherever a-31 came (a re-send of a lost re-send is the original's only where nothing
    re-sends it by name): live, whatever the order of arrival, and in the thread check, whose replay takes every
    HO first (found by the JavaScript port's agreement test, whose port joins them so)."""
    lines = ["RW1 HO a-33 re=a-34 from=a to=b item=x ask=DRAFT", "RW1 HO a-4 re=a-1 from=a to=b item=x ask=DRAFT due=20261010",
             "RW1 HO a-31 re=a-32 from=a to=b item=x ask=DRAFT", "RW1 HO a-34 from=a to=b item=x ask=DRAFT"]
    report = check_thread(lines, now="20260930T0000Z")
    assert [f.key for f in report.findings if f.kind == "open"] == ["a-33", "a-4", "a-31"]
    for order in (lines, [lines[2], lines[1], lines[0], lines[3]]):
        b = Endpoint("b")
        for line in order:
            b.receive(line)
        assert b.handoff("a-34").issues == ("a-34", "a-33") and b.handoff("a-31").issues == ("a-31",)


def test_a_resend_read_back_before_the_link_to_its_closed_handoff_is_answered_dup_when_the_link_comes():
    """Another implementation read a-3 back anyway (b-3), a-1 being closed, and a-2 re=a-1 comes after: a-3
    re-sends a handoff already closed. b's endpoint, holding those lines, answers a-2 and a-3 UN why=DUP and may
    not report an act on a-3; the thread check reads the lines the same way: the RB is not reported once a-2
    links a-3 to a-1 (the readback of the handoff's issue came before the link), a DN after the UN is closed-twice."""
    lines = ["RW1 HO a-1 from=a to=b item=x:1 ask=FIX", "RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=FIX",
             "RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=NOOP", "RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX",
             "RW1 RB b-3 re=a-3 from=b to=a item=x:1 ask=FIX", "RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX",
             "RW1 UN b-4 re=a-2 from=b to=a item=x:1 why=DUP // already read back a-1",
             "RW1 UN b-5 re=a-3 from=b to=a item=x:1 why=DUP // re-sends a-1, already closed"]
    assert failed_kinds(lines) == set()
    assert failed_kinds(lines + ["RW1 DN b-9 re=a-3 from=b to=a item=x:1 out=OK"]) == {("closed-twice", "b-9")}
    assert ("read-back", "b-3") in failed_kinds(lines[:5])  # while nothing links a-3 to a-1: a re-send, it may be


def test_the_thread_check_reports_an_item_handed_on_before_its_readback_as_the_live_end_refuses_it():
    """b is offered x:1 and hands it on to c before reading it back: b's endpoint refuses the HO (not-owner);
    check_thread reports the same HO the same way, and nothing once b's readback passed first."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    offered = b.receive(ho)[0]
    onward = "RW1 HO b-1 from=b to=c item=x:1 ask=FIX"
    assert refused(b, onward) == "not-owner"
    assert failed_kinds([ho, onward]) == {("not-owner", "b-1")}
    rb = b.send(offered.readback, number=True)
    assert b.send("RW1 HO b-3 from=b to=c item=x:1 ask=FIX")
    assert failed_kinds([ho, rb, "RW1 HO b-3 from=b to=c item=x:1 ask=FIX"]) == set()


def test_the_thread_check_reports_a_readback_of_a_resend_it_cannot_trace_to_its_read_back_original():
    """b reads a-1 back, then gets a-3 re=a-2 (a-2 lost) and reads it back too. b's endpoint refuses that RB
    (read-back: a re-send of the handoff read back, it may be); check_thread reports it on the same lines."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    resend = a.send("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    rb = b.send(b.receive(ho)[0].readback, number=True)
    offered = [e for e in b.receive(resend) if isinstance(e, HandoffOffered)][0]
    assert refused_offer(b, offered) == "read-back"
    again = b.readback("a-3").replace(id="b-2").to_line()
    unseen = ("reply-to-unknown", None)
    assert failed_kinds([ho, rb, resend, again]) - {unseen} == {("read-back", again.split()[2])}
    closed = "RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=NOOP"  # closed or open, a-3 may re-send it: not again
    assert failed_kinds([ho, rb, closed, resend, again]) - {unseen} == {("read-back", again.split()[2])}


def test_a_cancel_held_for_a_resend_applies_where_the_resend_arrives_in_the_thread_check_too():
    """a's CX a-3 names a-2, which b has not received: b holds it, reads a-1 back and closes it out=NOOP. Then a-2
    re=a-1 comes: the held cancel applies to a-1's handoff, already closed (closed-twice, crossed b's close). The
    thread check reads b's journal the same way: the cancel takes the place of the HO it names."""
    b = Endpoint("b")
    b.receive(HO)
    b.receive("RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED")
    b.send(b.readback("a-1"), number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=NOOP")
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    journal = [line for _, line in b.journal()]
    raised = {(f.kind, f.token) for f in b.findings if f.kind == "closed-twice"}
    assert raised == {("closed-twice", "a-3")}
    assert {(f.kind, f.token) for f in check_thread(journal, now="20261001T0000Z").findings
            if f.kind == "closed-twice"} == raised


def test_a_cancelled_resend_of_a_lost_resend_joins_the_closed_handoff_and_its_cancel_with_it():
    """b reads a-1 back and closes it. a-3 re=a-2 comes before a-2, is offered, and a cancels it (CX a-4). When a-2
    re=a-1 comes, a-3 is known to re-send a-1: it joins a-1's handoff, and the cancel with it, which closes that
    closed handoff a second time; the thread check reads b's journal the same way."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=NOOP")
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    assert b.handoff("a-3").issues == b.handoff("a-1").issues
    raised = {(f.kind, f.token) for f in b.findings if f.kind == "closed-twice"}
    assert raised == {("closed-twice", "a-4")}
    journal = [line for _, line in b.journal()]
    assert {(f.kind, f.token) for f in check_thread(journal, now="20261001T0000Z").findings
            if f.kind == "closed-twice"} == raised


def test_a_cancel_of_an_untraced_resend_withdraws_the_open_handoff_it_may_repeat():
    """a-1 comes and is not read back yet; a-3 re=a-2 (a-2 lost) comes; a cancels its live issue, a-3. At a that
    withdraws a-1's handoff: b may not read a-1 back nor act on it after (spec 5.4), as where a-1 was read back."""
    b = Endpoint("b")
    offered = b.receive(HO)[0]
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")
    assert refused(b, offered.readback, number=True) == "closed"  # offered while a-1 was open: refused now
    assert not b.may_act("a-1")
    b.send("RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=NOOP")  # the answer to the cancel


def test_an_original_numbered_after_the_lost_resend_is_a_new_handoff():
    """b reads a-1 back; a-3 re=a-2 comes (a-2 lost), then a cancels a-3 (which withdraws a-1's handoff), then
    hands the item to b again, a-6, with the same slots. a-6 was sent after a-2 (a's ids go forward): a new
    handoff, offered, not the original a-3 carries forward. Its cancel is its first close, live and in the
    thread check (found by a longer run of the stateful test: the replay joined a-6 to a-3 and reported the
    cancel of a-6 as closed-twice, where the live end had not)."""
    b = Endpoint("b")
    offered = b.receive(HO)[0]
    b.send(offered.readback, number=True)
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    assert any(isinstance(e, Cancelled) for e in b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED"))
    again = b.receive("RW1 HO a-6 from=a to=b item=x:1 ask=FIX")
    assert [type(e) for e in again] == [HandoffOffered] and b.handoff("a-6").issues == ("a-6",)
    b.receive("RW1 CX a-7 re=a-6 from=a to=b item=x:1 why=REVOKED")
    assert not [f for f in b.findings if f.kind == "closed-twice"]
    lines = [line for _, line in b.journal()]
    assert ("closed-twice", "a-7") not in failed_kinds(lines)
    # numbered before the lost link, it may be the original the re-sends carry forward: held apart from a-3,
    # the readback of one refused while the other is held
    c = Endpoint("b")
    c.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    original = [e for e in c.receive(HO) if isinstance(e, HandoffOffered)][0]
    assert refused(c, c.readback("a-3"), number=True) == "read-back"
    c.send(original.readback, number=True)


def test_a_cancel_of_an_untraced_resend_stops_the_act_on_every_handoff_it_may_repeat():
    """a hands x:1 to b twice with the same slots (a-1, a-2), then re-sends one of them as a-4 re=a-3 (a-3 lost)
    and cancels a-4. b cannot tell which handoff a-4 carries forward: the cancel withdraws a-1 (the first it may
    repeat), and b may act on neither until the link comes (found by a longer run of the stateful test: b acted on
    the other one, which was the one a-4 re-sent)."""
    b = Endpoint("b")
    b.receive(HO)
    second = b.receive("RW1 HO a-2 from=a to=b item=x:1 ask=FIX")[0]
    b.receive("RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-5 re=a-4 from=a to=b item=x:1 why=REVOKED")
    b.send(second.readback, number=True)
    assert not b.may_act("a-2")
    assert refused(b, "RW1 DN b-9 re=a-2 from=b to=a item=x:1 out=OK") == "act-after-cancel"
    # when the lost link comes and shows a-4 to re-send a-1, a-2 is b's to act on
    b.receive("RW1 HO a-3 re=a-1 from=a to=b item=x:1 ask=FIX")
    assert b.may_act("a-2")


def test_a_cancel_of_an_original_does_not_withdraw_the_untraced_resend_of_another_handoff():
    """a hands x:1 to b as a-3, cancels it (a-4), hands it over again as a-5 (lost) and re-sends that as a-6.
    b gets a-6 first, then a-3 and its cancel: a-3 may be a-6's original, or not (here it is not). Taking a-3
    as a-6's original, the cancel withdrew a-6 too, and b handed x:1 on while a still owned it through a-5 (found
    by a longer run of the stateful test). Held apart, a-6 stays offered: b may not hand x:1 on (not-owner)
    until it reads a-6 back, which it may once a-5 comes and shows the link."""
    b = Endpoint("b")
    b.receive("RW1 HO a-6 re=a-5 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-3 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")
    assert b.handoff("a-6").close == "open" and b.handoff("a-3").close == "cancelled"
    assert refused(b, "RW1 HO b-1 from=b to=c item=x:1 ask=FIX") == "not-owner"
    assert refused(b, b.readback("a-6"), number=True) == "closed"  # a re-send of the cancelled a-3, it may be
    b.receive("RW1 HO a-5 from=a to=b item=x:1 ask=FIX")
    assert b.handoff("a-6").issues == ("a-5", "a-6")
    b.send(b.readback("a-6"), number=True)
    assert b.may_act("a-6")


def test_an_untraced_resend_of_a_handoff_whose_resend_came_first_is_not_read_back():
    """a-2 re=a-1 comes before a-1, which joins it; b reads the handoff back. Then a-5 re=a-4 comes (a-4 lost): it
    may re-send that handoff, whose first issue is the original a-1 though its key is a-2, so its readback is
    refused (found by a longer run of the stateful test: b read a-5 back and acted twice)."""
    b = Endpoint("b")
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    b.receive(HO)
    b.send(b.readback("a-2"), number=True)
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    assert refused(b, b.readback("a-5"), number=True) == "read-back"
    assert b.may_act("a-2") and not b.may_act("a-5")


def test_two_untraced_resends_of_one_handoff_are_read_back_and_acted_on_once():
    """a-1 and a-3 are lost; b gets a-4 re=a-3, then a-2 re=a-1: two re-sends whose re= names an HO b never saw,
    of one item and slots, which may be one handoff (a-1, a-2, a-3, a-4). b reads a-2 back; a-5 re=a-4 may not be
    read back too; a cancel of a-5 withdraws a-2's handoff (found by a longer run of the stateful test: b read
    back both, and acted on a-2 after the cancel of a-5)."""
    b = Endpoint("b")
    b.receive("RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    assert refused(b, b.readback("a-5"), number=True) == "read-back"
    b.send(b.readback("a-2"), number=True)
    assert b.may_act("a-2")
    b.receive("RW1 CX a-9 re=a-5 from=a to=b item=x:1 why=REVOKED")
    assert not b.may_act("a-2")
    assert refused(b, "RW1 DN b-7 re=a-2 from=b to=a item=x:1 out=OK") == "act-after-cancel"


def test_a_resend_of_a_lost_resend_whose_readback_failed_joins_the_original_read_back_when_the_link_comes():
    """a-3 re=a-2 comes first and b's readback of it fails (void); a-1 comes and b reads it back; then a-2 re=a-1
    comes and shows a-3 to re-send a-1. One handoff: b acts once (found by a longer run of the stateful test with
    processes: a-3 stayed a handoff of its own, and b read it back again and acted twice)."""
    b = Endpoint("b")
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 RB b-1 re=a-3 from=b to=a item=x:1 ask=TEST")  # wrong: the readback fails
    first = [e for e in b.receive(HO) if isinstance(e, HandoffOffered)][0]
    b.send(first.readback, number=True)
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    assert b.handoff("a-3").key == b.handoff("a-1").key
    b.send("RW1 DN b-8 re=a-1 from=b to=a item=x:1 out=OK")
    assert not b.may_act("a-3") and not b.may_act("a-1")


def test_an_original_arriving_after_its_untraced_resend_was_closed_unread_is_neither_read_back_nor_closed():
    """The case a longer stateful run found: a-4 re=a-2 comes first (a-2 lost on the way) and b closes it DN
    out=NOOP, nothing it may repeat being there yet; at a that closes a-1's handoff, whose live issue a-4 is. Then
    a-1 comes: a-4 may re-send it, so reading it back (closed) or closing it (dup-only) would be an act or a close
    after that close. When a-2 comes, the three are one handoff, closed: no act follows (spec 5 rule 1)."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send(HO)
    lost = a.send("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    b.receive(a.send("RW1 HO a-4 re=a-2 from=a to=b item=x:1 ask=FIX"))
    a.receive(b.send("RW1 DN b-1 re=a-4 from=b to=a item=x:1 out=NOOP"))
    assert a.handoff("a-1").close == "closed"
    offered = [e for e in b.receive(ho) if isinstance(e, HandoffOffered)]
    assert [e.handoff for e in offered] == ["a-1"]
    assert refused_offer(b, offered[0]) == "closed"
    for close in ("UN b-9 re=a-1 from=b to=a item=x:1 why=DUP", "DN b-9 re=a-1 from=b to=a item=x:1 out=NOOP",
                  "FL b-9 re=a-1 from=b to=a item=x:1 why=ERR"):
        assert refused(b, f"RW1 {close}") == "dup-only"
    assert not b.may_act("a-1")
    b.receive(lost)
    assert b.handoff("a-1").issues == ("a-1", "a-2", "a-4") and b.handoff("a-1").close == "closed"
    assert refused(b, "RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK") in ("act-before-wilco", "closed-twice")
    journal = [line for _, line in b.journal()]
    assert failed_kinds(journal) == set()
    read_back = journal[:3] + ["RW1 RB b-2 re=a-1 from=b to=a item=x:1 ask=FIX", lost,
                               "RW1 DN b-3 re=a-1 from=b to=a item=x:1 out=OK"]
    assert ("closed-twice", "b-3") in failed_kinds(read_back)  # what the end let out before: the thread check's word


def test_an_item_is_not_handed_on_while_a_held_cancel_may_withdraw_the_handoff_that_gave_it():
    """The case a longer stateful run found: b reads a-1 back (it owns x:1); a-2, a second handoff of x:1, comes
    and is not read back; a CX names a-3, not yet received. a-3 may re-send a-1, so the cancel may withdraw the
    handoff by which b holds x:1, and then a owns it and a-2 is a's offer. b may not hand x:1 on until a-3
    comes (not-owner), as the thread check reads the lines once a-3 shows what the cancel named."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.receive("RW1 HO a-2 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")
    on = "RW1 HO b-5 from=b to=c item=x:1 ask=FIX"
    assert refused(b, on) == "not-owner"
    lines = [line for _, line in b.journal()]
    assert ("not-owner", "b-5") in failed_kinds(lines + [on, "RW1 HO a-3 re=a-1 from=a to=b item=x:1 ask=FIX"])
    b.receive("RW1 HO a-3 re=a-1 from=a to=b item=x:1 ask=FIX")  # the cancel withdraws a-1's handoff
    assert refused(b, on) == "not-owner"


def test_a_cancel_of_an_untraced_resend_goes_to_the_handoff_its_link_shows_when_the_link_comes():
    """The case seeds 101 and 203 found: b acted on a-1; CX a-6 names a-5, not yet received; a-5 comes, a
    re-send of a-4, never seen. a-5 may re-send a-1, so the cancel goes to a-1's handoff, done: b answers with
    its DN again. Then a-4 comes, a new handoff: the cancel was its sender's cancel of that one. b may not
    read it back or act on it, answers the cancel AN val=Y, and takes back the close-twice it found on a-1
    (the cancel never named a-1): the thread check reads the same lines the same way."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK")
    b.receive("RW1 CX a-6 re=a-5 from=a to=b item=x:1 why=REVOKED")
    guessed = next(e for e in b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX") if isinstance(e, Cancelled))
    assert guessed.handoff == "a-1" and guessed.reply.id == "b-2"  # the act's DN again
    assert [(f.kind, f.token) for f in b.findings] == [("closed-twice", "a-6")]
    cancelled = next(e for e in b.receive("RW1 HO a-4 from=a to=b item=x:1 ask=FIX") if isinstance(e, Cancelled))
    assert cancelled.handoff == "a-5" and set(cancelled.abandon) == {"a-4", "a-5"}
    assert cancelled.reply.to_line() == "RW1 AN b-3 re=a-6 from=b to=a val=Y // abandoned; nothing executed"
    assert not b.may_act("a-4") and not b.may_act("a-5")
    assert refused(b, "RW1 RB b-3 re=a-5 from=b to=a item=x:1 ask=FIX") == "closed"
    assert refused(b, "RW1 DN b-3 re=a-4 from=b to=a item=x:1 out=OK") in ("act-before-wilco", "act-after-cancel")
    assert b.findings == [] and b.handoff("a-1").close == "done"
    b.send(cancelled.reply, number=True)
    lines = [line for _, line in b.journal()]
    assert failed_kinds(lines) == set()
    # what the end would have let out before: a readback and an act after the cancel
    acted = lines + ["RW1 RB b-4 re=a-5 from=b to=a item=x:1 ask=FIX", "RW1 DN b-5 re=a-5 from=b to=a item=x:1 out=OK"]
    assert ("act-after-cancel", "b-5") in failed_kinds(acted)


def test_a_cancel_of_an_untraced_resend_guessed_onto_an_open_handoff_withdraws_both():
    """The same, with a-1 open and read back when the cancel comes: the guess withdrew it, and b abandoned it,
    so it stays withdrawn (no act on a guess undone); a-4, when it comes, is withdrawn too, and a, which never
    cancelled a-1, is told with a DN out=NOOP. A cancel of a-1 that crossed it closes a-1 twice, at the live
    end as in the thread check."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.receive("RW1 CX a-6 re=a-5 from=a to=b item=x:1 why=REVOKED")
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    events = b.receive("RW1 HO a-4 from=a to=b item=x:1 ask=FIX")
    assert any(isinstance(e, Cancelled) and e.handoff == "a-5" for e in events)
    told = [e.line for e in events if isinstance(e, Reply)]
    assert told == ["RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=NOOP // abandoned on a-6, which named another "
                    "handoff; nothing executed"]
    assert not b.may_act("a-1") and not b.may_act("a-4")
    assert b.handoff("a-4").close == "cancelled"
    b.receive("RW1 CX a-7 re=a-1 from=a to=b item=x:1 why=REVOKED")
    lines = [line for _, line in b.journal()]
    assert [(f.kind, f.token) for f in b.findings] == [("closed-twice", "a-7")]
    assert failed_kinds(lines) == {("closed-twice", "a-7")}


def test_a_resend_that_came_before_its_reissue_joins_it_when_it_comes_one_act():
    """The case seed 416 found: b's readback of a-1 fails; a-5 comes, a re-send of a-4, never seen, and is
    offered as a handoff of its own; then a-4 comes, a re-issue of a-1 (re= b's failed readback). a-5 carries a-4
    forward, so the two are one handoff with a-5 live: one readback (of a-5; a-4's is stale), one act."""
    b = Endpoint("b")
    b.receive(HO)
    b.send("RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=TEST", number=True)  # fails: ask differs
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    offered = next(e for e in b.receive("RW1 HO a-4 re=b-1 from=a to=b item=x:1 ask=FIX")
                   if isinstance(e, HandoffOffered))
    assert offered.reissue_of == "a-1" and offered.readback.re == "a-5"  # the live issue's readback
    assert b.handoff("a-4").issues == ("a-1", "a-4", "a-5") and b.handoff("a-5").id == "a-5"
    assert refused(b, "RW1 RB b-2 re=a-4 from=b to=a item=x:1 ask=FIX") == "stale"
    b.send(offered.readback, number=True)
    assert b.may_act("a-5")
    b.send("RW1 DN b-3 re=a-4 from=b to=a item=x:1 out=OK")
    assert refused(b, "RW1 DN b-4 re=a-5 from=b to=a item=x:1 out=OK") == "closed-twice"
    # the second act the end let out before, and the thread check on it
    lines = [line for _, line in b.journal()]
    assert failed_kinds(lines) == set()
    assert ("closed-twice", "b-4") in failed_kinds(lines + ["RW1 DN b-4 re=a-5 from=b to=a item=x:1 out=OK"])


def test_an_act_that_crossed_a_reissue_whose_resend_came_first_passes_the_thread_check():
    """The same, with b's second readback of a-1 passing before a-5 comes, and b acting on a-1 before a-4 comes:
    the live end lets the act out (the re-issue crossed it), and the thread check of its lines agrees."""
    b = Endpoint("b")
    b.receive(HO)
    b.send("RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=TEST", number=True)
    b.send(RB.replace("b-1", "b-2"))
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 DN b-3 re=a-1 from=b to=a item=x:1 out=OK")
    b.receive("RW1 HO a-4 re=b-1 from=a to=b item=x:1 ask=FIX")
    assert not b.may_act("a-5")
    assert failed_kinds([line for _, line in b.journal()]) == set()


def test_a_readback_offered_when_untraced_resends_join_their_original_is_of_the_live_issue():
    """a-3 (re=a-2, never seen) comes, then a-2 (re=a-1): a-3 joins a-1's handoff after a-2 and is live, so the
    readback the end offers names a-3, not a-2, which is stale."""
    b = Endpoint("b")
    b.receive(HO)
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    offered = next(e for e in b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
                   if isinstance(e, HandoffOffered))
    assert offered.readback.re == "a-3"
    assert b.send(offered.readback, number=True).startswith("RW1 RB ")
    assert b.may_act("a-3")


def test_an_end_that_handed_an_item_on_may_not_act_on_it_when_the_done_report_overtakes_the_readback():
    """The case seed 416 found (there through a DN forged in the receiver's name; a transport that reorders
    does the same): b read a-1 back and owns x:1, hands it on to c, and c's DN reporting the act arrives before
    c's readback. c acted, so x:1 went on: b may not act on a-1."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    assert b.may_act("a-1")
    b.send("RW1 HO b-2 from=b to=c item=x:1 ask=FIX")
    b.receive("RW1 DN c-2 re=b-2 from=c to=b item=x:1 out=OK")
    assert not b.may_act("a-1")
    assert b.owner("x:1") == "b"  # rule 1's text: no readback of b-2 has passed here yet
    b.receive("RW1 RB c-1 re=b-2 from=c to=b item=x:1 ask=FIX")
    assert b.owner("x:1") == "c" and not b.may_act("a-1")


def test_an_untraced_resend_answered_dup_stays_apart_when_its_link_shows_a_new_handoff():
    """b acted on a-1; CX a-6 names a-5, then a-5 comes (re=a-4, never seen): b answers it UN why=DUP. a-4 comes,
    a new handoff: the UN closed a-5 alone, as a reads it, so a-4 is a handoff of its own, and the cancel of its
    re-send withdraws it (no readback offered, AN val=Y); the live end and the thread check report nothing."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK")
    b.receive("RW1 CX a-6 re=a-5 from=a to=b item=x:1 why=REVOKED")
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 UN b-3 re=a-5 from=b to=a item=x:1 why=DUP")
    events = b.receive("RW1 HO a-4 from=a to=b item=x:1 ask=FIX")
    assert not any(isinstance(e, HandoffOffered) for e in events)
    cancelled = next(e for e in events if isinstance(e, Cancelled))
    assert cancelled.handoff == "a-4" and cancelled.reply.get("val") == "Y"
    b.send(cancelled.reply, number=True)
    assert b.handoff("a-4").issues == ("a-4",) and not b.may_act("a-4")
    assert b.findings == []
    assert failed_kinds([line for _, line in b.journal()]) == set()
    assert {f.kind for f in check_thread([line for _, line in b.journal()], now="20261001T0000Z").findings} == set()


def test_a_guessed_cancel_on_a_handoff_cancelled_late_already_is_taken_back_when_the_link_comes():
    """Seed 478: as in the test above, with a late cancel of a-1 (after its act) before the cancel of the
    untraced re-send: the guess closes a-1 a third time, and the link takes that back; the first late cancel
    stays a close-twice, at the live end as in the thread check."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK")
    b.receive("RW1 CX a-2 re=a-1 from=a to=b item=x:1 why=REVOKED")
    b.receive("RW1 CX a-6 re=a-5 from=a to=b item=x:1 why=REVOKED")
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    assert {(f.kind, f.token) for f in b.findings} == {("closed-twice", "a-2"), ("closed-twice", "a-6")}
    cancelled = next(e for e in b.receive("RW1 HO a-4 from=a to=b item=x:1 ask=FIX") if isinstance(e, Cancelled))
    assert cancelled.handoff == "a-5"
    b.send(cancelled.reply, number=True)
    assert [(f.kind, f.token) for f in b.findings] == [("closed-twice", "a-2")]
    assert {(f.kind, f.token) for f in check_thread([line for _, line in b.journal()], now="20261001T0000Z").findings
            if f.kind == "closed-twice"} == {("closed-twice", "a-2")}


def test_a_sender_whose_kept_back_criteria_voided_a_readback_may_hand_the_item_on_and_the_thread_check_agrees():
    """Seed 541: a hands x:1 to b under rb=acc, keeping its criteria back; b's readback contradicts them, so
    it is void at a, and a never answers it val=Y. b hands x:1 back to a (which b holds by its own record, its
    readback waiting for the verdict) and a hands x:1 to b again: a holds the item, and the thread check, which
    cannot judge the readback, does not call that hand-on not-owner. Once a answers val=Y, it would be."""
    a = Endpoint("a")
    a.send("RW1 HO a-1 from=a to=b item=x:1 ask=DRAFT rb=acc keys=len+tone // 120 words, plain tone",
           expect_acc="len:120w+tone:plain")
    a.receive("RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=DRAFT acc=len:150w+tone:plain")
    assert a.owner("x:1") == "a"
    a.receive("RW1 HO b-2 from=b to=a item=x:1 ask=FIX")
    a.send("RW1 HO a-2 from=a to=b item=x:1 ask=FIX")
    lines = [line for _, line in a.journal()]
    assert not failed_kinds(lines)
    # the same lines with the val=Y the sender did not send: the item went to b, and a's hand-on is not-owner
    confirmed = lines[:2] + ["RW1 AN a-3 re=b-1 from=a to=b val=Y"] + lines[2:]
    assert failed_kinds(confirmed) == {("not-owner", "a-2")}
    # a val=Y from anyone but a is no verdict on a's readback: b answering its own readback, or a third
    # agent, leaves the item a's (the thread check must not let b make a's hand-on look like not-owner)
    for who in ("b", "c"):
        answered = lines[:2] + [f"RW1 AN {who}-3 re=b-1 from={who} to=a val=Y"] + lines[2:]
        assert not failed_kinds(answered), who


def test_a_restarted_end_applies_a_resends_dup_answer_before_the_cancel_held_for_it_as_the_live_step_did():
    """Found by the machine across restarts: b acted on a-1; a cancel of a-2 (a re-send of a-1, not yet
    received) is held; a-2 comes and is answered UN why=DUP, then the held cancel closes a-1 a second time.
    Live, the UN went before the cancel, so the finding is a-1's, as the thread check says; an end rebuilt from
    the journal, which holds the UN after the HO, applied the cancel first and keyed it a-2."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.send("RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK")
    b.receive("RW1 CX a-3 re=a-2 from=a to=b item=x:1 why=REVOKED")
    events = b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    assert [type(e).__name__ for e in events] == ["Duplicate", "Reply", "Cancelled"]
    live = [(f.kind, f.key, f.token) for f in b.findings]
    assert live == [("closed-twice", "a-1", "a-3")]
    again = Endpoint("b", ledger=b.ledger)
    assert [(f.kind, f.key, f.token) for f in again.findings] == live
    assert again.journal() == b.journal()
    report = check_thread([line for _, line in b.journal()], now="20261001T0000Z")
    assert [(f.kind, f.key, f.token) for f in report.findings if f.failed] == live


def test_a_guessed_cancel_on_an_open_handoff_its_sender_then_cancelled_is_taken_back_without_a_close_twice():
    """Seed 645: a cancel of a-5 (an untraced re-send, re=a-4) is guessed onto a-1, open; a then cancels a-1
    itself, which the guess made a close-twice; a-4 comes and shows a-5 carries it: a-1 was closed once, by its
    sender's own cancel, as the thread check reads the same lines, and stays withdrawn."""
    b = Endpoint("b")
    b.receive(HO)
    b.receive("RW1 CX a-6 re=a-5 from=a to=b item=x:1 why=REVOKED")
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    b.receive(CX)
    assert [(f.kind, f.token) for f in b.findings] == [("closed-twice", "a-2")]
    b.receive("RW1 HO a-4 from=a to=b item=x:1 ask=FIX")
    assert b.findings == [] and b.handoff("a-1").close == "cancelled" and not b.may_act("a-1")
    assert b.handoff("a-4").close == "cancelled" and not b.may_act("a-4")
    lines = [line for _, line in b.journal()]
    assert not [f for f in check_thread(lines, now="20261001T0000Z").findings if f.kind == "closed-twice"]
    assert Endpoint("b", ledger=b.ledger).findings == []


def test_a_guessed_cancel_that_the_link_shows_was_right_through_a_duplicate_stands_once():
    """Seed 699: a cancel of a-5 (an untraced re-send, re=a-4) went by guess to a-1, read back, and withdrew
    it; a-2, a re-send of a-1, was answered UN why=DUP, and a-3 and a-4 re-send a-2: a-5 carries a-1's
    handoff forward after all. The guess was right, so the cancel stands as the one close it made: not
    applied a second time (no close-twice by the same cancel, no DN out=NOOP for a cancel that named
    another handoff); a's own later cancel of a-1 is the second close, at the live end as in the thread
    check."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    assert [type(e).__name__ for e in b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")] == [
        "Duplicate", "Reply"]
    b.receive("RW1 HO a-5 re=a-4 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 CX a-9 re=a-5 from=a to=b item=x:1 why=REVOKED")
    assert not b.may_act("a-1")
    b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    events = b.receive("RW1 HO a-4 re=a-3 from=a to=b item=x:1 ask=FIX")
    # no DN out=NOOP: the cancel named a-1's handoff, which a-4 re-sends (through a-3 and a-2, a re-send answered
    # as a duplicate): a-4 is answered as one too
    assert [e.line for e in events if isinstance(e, Reply)] == [
        "RW1 UN b-4 re=a-4 from=b to=a item=x:1 why=DUP // already read back a-1"], events
    assert b.findings == []
    b.receive("RW1 CX a-10 re=a-1 from=a to=b item=x:1 why=REVOKED")
    live = {(f.kind, f.token) for f in b.findings}
    assert live == {("closed-twice", "a-10")}
    report = check_thread([line for _, line in b.journal()], now="20261001T0000Z")
    assert {(f.kind, f.token) for f in report.findings if f.failed} == live
    assert not b.may_act("a-1") and not b.may_act("a-5")


def test_a_resend_of_a_resend_answered_dup_is_answered_dup_and_a_cancel_of_it_withdraws_the_handoff():
    """a-3 re-sends a-2, which b answered UN why=DUP before a-3 came (a sent a-3 before that UN reached it): at
    a, a-3 carries a-1's handoff forward. b answers it as a duplicate too (it took a-3 into a-2's closed
    handoff, offered nothing), and a cancel naming a-3 withdraws a-1's handoff, at the live end and in the
    thread check of its journal alike (which read it as a second close of a-2, and the act after it as none)."""
    b = Endpoint("b")
    b.send(b.receive(HO)[0].readback, number=True)
    b.receive("RW1 HO a-2 re=a-1 from=a to=b item=x:1 ask=FIX")
    events = b.receive("RW1 HO a-3 re=a-2 from=a to=b item=x:1 ask=FIX")
    assert [e.line for e in events if isinstance(e, Reply)] == [
        "RW1 UN b-3 re=a-3 from=b to=a item=x:1 why=DUP // already read back a-1"]
    cancelled = b.receive("RW1 CX a-4 re=a-3 from=a to=b item=x:1 why=REVOKED")
    assert [(type(e).__name__, e.handoff) for e in cancelled] == [("Cancelled", "a-1")]
    b.send(cancelled[0].reply, number=True)
    assert not b.may_act("a-1")
    assert refused(b, "RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK") == "act-after-cancel"
    report = check_thread([line for _, line in b.journal()] + ["RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK"],
                          now="20261001T0000Z")
    assert [(f.kind, f.token) for f in report.findings if f.failed] == [("act-after-cancel", "b-9")]


def test_a_resend_of_an_untraced_resend_answered_dup_stays_in_the_handoff_that_un_closed_in_the_thread_check():
    """b's readback of a-1 failed; a-24 re-sends a-5 (not seen yet) and a-35 re-sends a-24; b answers a-24
    UN why=DUP, which closes a-24's handoff, a-35 with it; then the re-issue a-5 comes and carries a-1's handoff
    forward. The live end keeps a-35 closed; the thread check read a-35 as an open handoff of its own (it
    followed a-24 to a-5, not taken yet), so a readback of a-35 and an act on it, beside the act on a-5, passed
    there: one handoff acted on twice."""
    b = Endpoint("b")
    b.receive(HO)
    b.send("RW1 RB b-3 re=a-1 from=b to=a item=x:1 ask=TEST")
    b.receive("RW1 HO a-24 re=a-5 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-35 re=a-24 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 UN b-32 re=a-24 from=b to=a item=x:1 why=DUP")
    b.receive("RW1 HO a-5 re=b-3 from=a to=b item=x:1 ask=FIX")
    assert b.handoff("a-35").close == "closed" and b.handoff("a-5").close == "open"
    with pytest.raises(ProtocolError):
        b.send("RW1 RB b-40 re=a-35 from=b to=a item=x:1 ask=FIX")
    lines = [line for _, line in b.journal()]
    report = check_thread(lines, now="20261001T0000Z")
    assert {(f.kind, f.key) for f in report.findings} == {("open", "a-5")}
    acted = lines + ["RW1 RB b-40 re=a-35 from=b to=a item=x:1 ask=FIX", "RW1 DN b-41 re=a-35 from=b to=a item=x:1 out=OK",
                     "RW1 RB b-42 re=a-5 from=b to=a item=x:1 ask=FIX", "RW1 DN b-43 re=a-5 from=b to=a item=x:1 out=OK"]
    assert ("closed-twice", "b-41") in {(f.kind, f.token) for f in check_thread(acted, now="20261001T0000Z").findings}


def test_a_resend_of_an_untraced_resend_answered_dup_stays_with_it_when_what_it_names_comes_later():
    """As the test above, where a-5 (re= a readback the log lacks) is a handoff of its own that comes after
    a-24 and a-35: the replay took a-5 first (a-24 waits for what it names) and followed a-35 through a-24 to
    it; live, a-35 came when a-24 was a handoff of its own, and stays in it, closed by the UN."""
    b = Endpoint("b")
    b.receive("RW1 HO a-24 re=a-5 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-35 re=a-24 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 UN b-32 re=a-24 from=b to=a item=x:1 why=DUP")
    b.receive("RW1 HO a-5 re=b-3 from=a to=b item=x:1 ask=FIX")
    assert b.handoff("a-35").close == "closed" and b.handoff("a-5").close == "open"
    report = check_thread([line for _, line in b.journal()], now="20261001T0000Z")
    assert {(f.kind, f.key) for f in report.findings if not f.failed} == {("open", "a-5")}


def _reissued_then_resent_before(*, chain: bool) -> list[str]:
    """b's journal: a-1 read back wrong, a-35 (a re-send of a-24, or with ``chain`` of a-30) comes first, the
    re-issue a-5, its re-send a-24 answered UN why=DUP, and with ``chain`` a-30 (a re-send of a-24) answered so
    too; live, a-35 is the open issue of a-1's handoff, which a-5 re-issued."""
    b = Endpoint("b")
    b.receive(HO)
    b.send("RW1 RB b-3 re=a-1 from=b to=a item=x:1 ask=TEST")
    b.receive(f"RW1 HO a-35 re={'a-30' if chain else 'a-24'} from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-5 re=b-3 from=a to=b item=x:1 ask=FIX")
    b.receive("RW1 HO a-24 re=a-5 from=a to=b item=x:1 ask=FIX")
    b.send("RW1 UN b-32 re=a-24 from=b to=a item=x:1 why=DUP")
    if chain:
        b.receive("RW1 HO a-30 re=a-24 from=a to=b item=x:1 ask=FIX")
        b.send("RW1 UN b-33 re=a-30 from=b to=a item=x:1 why=DUP")
    assert b.handoff("a-35").key == b.handoff("a-5").key == "a-1" and b.handoff("a-1").issues[-1] == "a-35"
    return [line for _, line in b.journal()]


def test_a_resend_that_came_before_a_resend_answered_dup_of_the_reissue_stays_in_the_reissued_handoff():
    """a-35 re-sends a-24 and comes first; the re-issue a-5 comes, then a-24 (a re-send of a-5), which takes
    a-35 into a-1's handoff; b answers a-24 UN why=DUP, which splits a-24 off: a-35 stays the live issue of
    a-1's handoff, live and in the thread check, so acts on a-5 and on a-35 are one handoff's two closes."""
    lines = _reissued_then_resent_before(chain=False)
    assert {(f.kind, f.key) for f in check_thread(lines, now="20261001T0000Z").findings} == {("open", "a-35")}
    acted = lines + ["RW1 RB b-42 re=a-5 from=b to=a item=x:1 ask=FIX", "RW1 DN b-43 re=a-5 from=b to=a item=x:1 out=OK",
                     "RW1 RB b-40 re=a-35 from=b to=a item=x:1 ask=FIX", "RW1 DN b-41 re=a-35 from=b to=a item=x:1 out=OK"]
    assert ("closed-twice", "b-41") in {(f.kind, f.token) for f in check_thread(acted, now="20261001T0000Z").findings}


def test_a_resend_that_came_before_a_chain_of_resends_answered_dup_stays_in_the_reissued_handoff():
    """As above, with a-35 re-sending a-30, itself a re-send of a-24 that came after b answered a-24 UN
    why=DUP, and answered so in turn: live, a-35 is the open issue of a-1's handoff. The thread check of
    b's journal reads it so too (it once followed the chain one step only, to a-24's own handoff, and
    read a-35 as closed by the UN that answered a-24, and a-5 as the open issue)."""
    lines = _reissued_then_resent_before(chain=True)
    report = check_thread(lines, now="20261001T0000Z")
    assert {(f.kind, f.key) for f in report.findings} == {("open", "a-35")}
    rows = {row["id"]: row for row in report.ledger.to_json()["handoffs"]}
    assert rows["a-35"]["state"] == "awaiting-readback" and rows["a-5"]["next"] == "a-35"
    assert (rows["a-24"]["by"], rows["a-24"]["closer"]) == ("UN", "b-32")


def test_a_later_handoff_to_me_read_back_then_cancelled_does_not_give_back_an_item_i_handed_on():
    """p holds x:1 by s-1 and hands it on to a (a reads it back and acts). s hands x:1 to p again (s-2), p reads
    it back, and s cancels it: the item stays where it was before s-2 (spec 5.4), with a, so p may not act on
    s-1 again (it could, while the cancelled readback counted)."""
    s, p, a = Endpoint("s"), Endpoint("p"), Endpoint("a")
    p.receive(s.send("RW1 HO s-1 from=s to=p item=x:1 ask=FIX"))
    s.receive(p.send(p.readback("s-1"), number=True))
    assert p.may_act("s-1")
    a.receive(p.send("RW1 HO p-5 from=p to=a item=x:1 ask=FIX"))
    p.receive(a.send(a.readback("p-5"), number=True))
    p.receive(a.send("RW1 DN a-9 re=p-5 from=a to=p item=x:1 out=OK"))
    assert not p.may_act("s-1")
    p.receive(s.send("RW1 HO s-2 from=s to=p item=x:1 ask=FIX"))
    s.receive(p.send(p.readback("s-2"), number=True))
    assert p.may_act("s-1") and p.may_act("s-2")  # the item is p's again, by s-2's readback
    cancelled = p.receive(s.send("RW1 CX s-3 re=s-2 from=s to=p item=x:1 why=REVOKED"))
    s.receive(p.send(cancelled[0].reply, number=True))
    assert not p.may_act("s-2") and not p.may_act("s-1")
