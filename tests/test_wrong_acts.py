"""The ways to a wrong act: each reproducer stopped live, and reported the same by ``check_thread``."""

from __future__ import annotations

import pytest

from rogerwilco import Endpoint, ProtocolError
from rogerwilco.checks.endpoint import Cancelled, HandoffOffered, Redelivered
from rogerwilco.checks.thread import check_thread

HO = "RW1 HO a-1 from=a to=b item=x:1 ask=FIX"
CX = "RW1 CX a-2 re=a-1 from=a to=b item=x:1 why=REVOKED"
RB = "RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=FIX"
DN = "RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK"


def refused(endpoint: Endpoint, line: str, **kw) -> str:
    with pytest.raises(ProtocolError) as exc:
        endpoint.send(line, **kw)
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
