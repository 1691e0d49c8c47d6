"""The spec's section 8 exchanges and section 5.4's cancel, run live between endpoints.

Two (or three) :class:`rogerwilco.Endpoint` objects are joined by an
in-memory queue. Every line on the wire was accepted by its sender's
endpoint and taken by its receiver's; the protocol's own replies travel the
same way. Run it::

    python examples/endpoint/exchanges.py

It prints each exchange's lines as they went over the wire: exactly the lines
the spec shows, digests included. The last two exchanges are faulty
receivers the endpoints stop.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from rogerwilco.endpoint import (
    Cancelled, DoneReport, Endpoint, HandoffOffered, ProtocolError, ReadbackPassed, ReadbackVoid, Reply,
)

PAY_RECORD = {"item": "inv:MD-2026-057", "sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS",
              "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
PAY_HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
PAY_EXEC = ("sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 "
            "apref=FD-0929")


class Wire:
    """An in-memory queue between endpoints: a line one sends, its ``to`` receives, in order."""

    def __init__(self, *ends: Endpoint) -> None:
        self.ends = {end.me: end for end in ends}
        self.queue: deque[str] = deque()
        self.lines: list[str] = []
        self.events: list[tuple[str, Any]] = []  # (who, event) for every event delivered

    def put(self, line: str) -> str:
        self.lines.append(line)
        self.queue.append(line)
        return line

    def send(self, who: str, message: Any, **kwargs: Any) -> str:
        return self.put(self.ends[who].send(message, **kwargs))

    def deliver(self) -> list[Any]:
        """Deliver the oldest line; the protocol's automatic replies join the queue."""
        line = self.queue.popleft()
        to = next(t[3:] for t in line.split(" // ")[0].split(" ") if t.startswith("to="))
        events = self.ends[to].receive(line)
        self.events.extend((to, e) for e in events)
        for event in events:
            if isinstance(event, Reply):
                self.put(event.line)
        return events

    def drain(self) -> list[Any]:
        out = []
        while self.queue:
            out.extend(self.deliver())
        return out


def first(events: list[Any], kind: type) -> Any:
    return next(e for e in events if isinstance(e, kind))


def handoff_question_completion() -> list[str]:
    research, writer = Endpoint("research", id_width=2), Endpoint("writer", id_width=2)
    wire = Wire(research, writer)
    wire.send("research", "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 "
                          "pri=2 conf=M keep=research // hero copy, 120 words, no em dashes")
    offered = first(wire.deliver(), HandoffOffered)
    wire.send("writer", offered.readback, number=True)  # composed by code, digest included
    first(wire.deliver(), ReadbackPassed)
    wire.send("writer", "RW1 AQ writer-02 re=research-01 from=writer to=research item=gh:crox/site#42 need=ENUM "
                        "opts=formal+plain+punchy // tone?")
    wire.deliver()
    assert [q.id for q in research.pending_questions()] == ["writer-02"]
    wire.send("research", "RW1 AN research-02 re=writer-02 from=research to=writer val=plain")
    wire.deliver()
    assert writer.may_act("research-01")
    wire.send("writer", "RW1 DN writer-03 re=research-01 from=writer to=research item=gh:crox/site#42 out=OK "
                        "art=sha256:9f3e1c // v1, 118 words")
    assert first(wire.deliver(), DoneReport).report.passed
    assert research.open_handoffs() == [] and research.owner("gh:crox/site#42") == "writer"
    return wire.lines


def comprehension_readback() -> list[str]:
    research, writer = Endpoint("research", id_width=2), Endpoint("writer", id_width=2)
    wire = Wire(research, writer)
    wire.send("research", "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 "
                          "rb=acc keys=len+tone+must+no art=url:https://example.com/brief // hero copy for the landing "
                          "page, 120 words, plain tone, no em dashes, must name the reader's Monday problem",
              expect_acc="len:120w+tone:plain+no:em-dash+must:monday-problem")  # kept back: the challenge
    offered = first(wire.deliver(), HandoffOffered)
    assert offered.readback is None and "acc" in (offered.needs or "")  # only the writer can derive the criteria
    wire.send("writer", "RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT "
                        "due=20261002 acc=len:120w+tone:plain+must:monday-problem+no:em-dash+fmt:md do=copy // landing "
                        "hero, 120 words, plain, no em dashes, lead with the Monday problem")
    passed = first(wire.deliver(), ReadbackPassed)
    assert ("assumption", "fmt") in [(f.kind, f.key) for f in passed.report.findings if f.severity == "note"]
    return wire.lines


def pay_exchange() -> list[str]:
    scheduler = Endpoint("scheduler", profiles=["pay"])
    payer = Endpoint("payer", profiles=["pay"], composed_only=True)
    wire = Wire(scheduler, payer)
    wire.send("scheduler", PAY_HO, record=PAY_RECORD)  # checked against the approval record before it goes
    wire.deliver()
    # The spec writes the readback's slots in another order; the values are the composed readback's.
    wire.send("payer", "RW1 RB payer-1 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 ask=PAY p=pay "
                       f"h=a7a82de76607 {PAY_EXEC}")
    assert not payer.may_act("scheduler-1")  # rb=exec: the act waits for AN val=Y
    passed = first(wire.deliver(), ReadbackPassed)
    assert passed.report.passed and passed.confirm is not None
    wire.send("scheduler", "RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y // readback matches "
                           "the approved run; proceed")
    wire.deliver()
    assert payer.may_act("scheduler-1")
    wire.send("payer", f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK "
                       f"{PAY_EXEC} // as executed, from the payment tool")
    assert first(wire.deliver(), DoneReport).report.passed
    return wire.lines


def refusal_with_alternative() -> list[str]:
    research, writer = Endpoint("research", id_width=2), Endpoint("writer", id_width=2)
    wire = Wire(research, writer)
    research.send("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002")
    writer.receive("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002")
    wire.send("writer", "RW1 UN writer-04 re=research-01 from=writer to=research item=gh:crox/site#42 why=NOCTX "
                        "alt=copywriter // no style guide on file")
    wire.drain()
    assert research.open_handoffs() == []
    return wire.lines


def escalation() -> list[str]:
    triage, human = Endpoint("triage"), Endpoint("human")
    wire = Wire(triage, human)
    wire.send("triage", "RW1 AQ triage-09 from=triage to=human item=pensive:4664 need=ENUM opts=RETIRE+ACTIVATE+PARK "
                        "by=20261005 // stale 15d, no owner active; default PARK")
    wire.drain()
    assert [q.id for q in human.pending_questions()] == ["triage-09"]
    return wire.lines


def void_readback_and_reissue() -> list[str]:
    ops, builder = Endpoint("ops", id_width=2), Endpoint("builder", id_width=2)
    wire = Wire(ops, builder)
    wire.send("ops", "RW1 HO ops-03 from=ops to=builder item=jira:OPS-77 ask=FIX due=20261001")
    wire.deliver()
    wire.send("builder", "RW1 RB builder-05 re=ops-03 from=builder to=ops item=jira:OPS-77 ask=BUILD due=20261001")
    void = first(wire.deliver(), ReadbackVoid)  # misread of the ask: nothing moves
    assert ops.owner("jira:OPS-77") == "ops"
    wire.send("ops", void.reissue, number=True)  # re= the void readback, the reason in the tail
    offered = first(wire.deliver(), HandoffOffered)
    assert offered.reissue_of == "ops-03"
    wire.send("builder", builder.readback(offered.message.id, digest=False), number=True)
    first(wire.deliver(), ReadbackPassed)
    assert ops.owner("jira:OPS-77") == "builder"
    return wire.lines


def cancel() -> list[str]:
    scheduler, payer = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
    wire = Wire(scheduler, payer)
    wire.send("scheduler", PAY_HO + " exp=20261002T1700Z")
    offered = first(wire.deliver(), HandoffOffered)
    wire.send("scheduler", "RW1 CX scheduler-2 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 "
                           "why=REVOKED // FD-0929 withdrawn")
    cancelled = first(wire.deliver(), Cancelled)
    assert cancelled.abandon == ("scheduler-1",) and cancelled.reply is not None and cancelled.reply.type == "AN"
    assert not payer.may_act(offered.message.id)
    wire.send("payer", "RW1 AN payer-3 re=scheduler-2 p=pay from=payer to=scheduler val=Y // statement abandoned; "
                       "nothing paid")
    wire.deliver()
    assert scheduler.open_handoffs() == []
    return wire.lines


def cancel_crossing_done() -> list[str]:
    """The payer's DN and the scheduler's CX cross on the wire: the payer answers the cancel with the act's DN."""
    scheduler, payer = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
    wire = Wire(scheduler, payer)
    wire.send("scheduler", PAY_HO)
    offered = first(wire.deliver(), HandoffOffered)
    wire.send("payer", offered.readback, number=True)
    wire.send("scheduler", first(wire.deliver(), ReadbackPassed).confirm, number=True)
    wire.deliver()
    dn = wire.send("payer", f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 "
                            f"out=OK {PAY_EXEC} // as executed, from the payment tool")
    wire.send("scheduler", "RW1 CX scheduler-3 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 "
                           "why=REVOKED // FD-0929 withdrawn")
    done = first(wire.deliver(), DoneReport)  # the DN reaches the scheduler after its CX went
    assert done.after_cancel and done.report.passed
    cancelled = first(wire.deliver(), Cancelled)  # the CX reaches the payer after its DN went
    assert cancelled.reply is not None and cancelled.reply.id == "payer-2"  # the act's DN answers the cancel
    assert wire.send("payer", cancelled.reply) == dn  # sent again as it first went
    wire.drain()
    assert scheduler.open_handoffs() == [] and payer.open_handoffs() == []
    return wire.lines


def faulty_receiver_misread() -> list[str]:
    """The payer reads back the wrong amount: the readback is void, and the payer cannot act."""
    scheduler, payer = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
    wire = Wire(scheduler, payer)
    wire.send("scheduler", PAY_HO, record=PAY_RECORD)
    wire.deliver()
    wire.send("payer", "RW1 RB payer-1 re=scheduler-1 from=payer to=scheduler item=inv:MD-2026-057 ask=PAY p=pay "
                       f"h=a7a82de76607 {PAY_EXEC.replace('amt=5400.00', 'amt=5100.00')}")
    void = first(wire.deliver(), ReadbackVoid)
    assert [(f.kind, f.tier, f.key) for f in void.report.failures()] == [("mismatch", 5, "amt")]
    assert scheduler.owner("inv:MD-2026-057") == "scheduler"
    refused = []
    try:
        scheduler.send("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y")
    except ProtocolError as exc:
        refused.append(exc.kind)
    try:
        payer.send(f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK "
                   f"{PAY_EXEC.replace('amt=5400.00', 'amt=5100.00')}")
    except ProtocolError as exc:
        refused.append(exc.kind)
    assert refused == ["confirm-void", "act-before-wilco"]
    wire.send("scheduler", void.reissue, number=True)
    wire.drain()
    return wire.lines


def faulty_receiver_acts_early() -> list[str]:
    """A payer without an endpoint writes its DN before the scheduler's AN val=Y: the scheduler's endpoint says so."""
    scheduler = Endpoint("scheduler", profiles=["pay"])
    wire = Wire(scheduler)
    wire.send("scheduler", PAY_HO, record=PAY_RECORD)
    wire.queue.clear()  # the faulty payer reads it off the wire by itself
    wire.put("RW1 DN payer-1 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK "
             f"{PAY_EXEC} // paid at once")
    done = first(wire.deliver(), DoneReport)
    assert [(f.severity, f.kind) for f in done.findings] == [("fail", "act-before-wilco")]
    return wire.lines


EXCHANGES: dict[str, Callable[[], list[str]]] = {
    "handoff, question, completion": handoff_question_completion,
    "comprehension readback": comprehension_readback,
    "before an irreversible act (pay)": pay_exchange,
    "refusal with an alternative": refusal_with_alternative,
    "escalation to the human principal": escalation,
    "void readback and re-issue": void_readback_and_reissue,
    "cancel (section 5.4)": cancel,
    "a cancel crossing a done report": cancel_crossing_done,
    "faulty receiver: a misread amount": faulty_receiver_misread,
    "faulty receiver: an act before wilco": faulty_receiver_acts_early,
}


def main() -> None:
    for name, run in EXCHANGES.items():
        print(f"# {name}")
        for line in run():
            print(line)
        print()


if __name__ == "__main__":
    main()
