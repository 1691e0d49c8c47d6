"""Threads: every handoff closes exactly once (spec 5 rule 1, 5.4).

Theory of operation
-------------------
:func:`check_thread` takes a conversation in the order it was sent and
replays it through one :class:`rogerwilco.checks.endpoint.Endpoint` per party
(:func:`rogerwilco.checks.endpoint.replay`): each message is recorded as sent by its
``from`` and taken by its ``to``. The endpoints walk the same transition
table the live endpoint enforces (:data:`rogerwilco.checks.endpoint.TRANSITIONS`),
so what a live endpoint refuses to send, this check reports, by construction.

Threads are rebuilt from ``re=`` alone: position only orders events, it never
decides what a message answers (a reply listed before the message it answers
waits for it in the replay). Each line is read with the never-guess pass; a
line that cannot be read is a ``form`` finding and takes no part. A message
whose id repeats an earlier message's id is one message delivered twice when
the two are equal, and a ``form`` finding when they differ. A ``re=`` naming
no message in the stream is ``reply-to-unknown``.

**Handoffs and their issues.** An HO is one issue of a handoff. A re-send
(``re=`` an earlier issue) and a re-issue (``re=`` the receiver's RB of one)
carry the handoff forward between the same two agents about the same item;
the earlier issue is then ``reissued``. A re-send answered ``UN why=DUP`` by
its receiver is a duplicate: the UN closes that re-send alone and the earlier
issue stays live. Anything else (a relay's HO, an HO to the ``alt=`` a
refusal named) is a handoff of its own.

**Closing.** ``DN``, ``UN`` and ``FL`` close when they come from the HO's
receiver, reaching it directly or through the RB, AN or CX they answer;
``CX`` when it comes from the HO's sender to its receiver, any other CX being
``cancel-wrong-party``. The table's close region gives ``closed-twice`` and
``act-after-cancel``; a CX is acknowledged by an ``AN re=<CX id>`` from the
receiver or a close from it afterwards, otherwise ``cancel-unacknowledged``
(a note). The table's echo region gives ``act-before-echo``: under ``rb=all``
an ST or AN of the handoff's sender to its receiver about the open handoff
changes what the receiver will do, and a DN reporting the act (``out=OK`` or
``PARTIAL``) while such a change waits for an echo that passes the sender's
check (:func:`rogerwilco.checks.endpoint.check_echo`) acted on an un-echoed change
(spec 5 rule 1). The table's other findings (an act before wilco, a
confirmation of a void readback) are the live endpoint's, not this check's
contract.

**Undo.** An HO ``ask=UNDO`` whose ``ctx=`` names a DN is linked in the
ledger to the act it reverses (spec 5.4): ``undoes`` is the HO that DN
answers, ``reverses`` the DN. It is a link, not a finding: the reversal is a
handoff of its own, with its own readback and close.

**Open handoffs.** A live HO still open at the end is compared with ``now``:
past its ``exp=`` it is ``open-past-exp``, on a day after its ``due=`` date
``open-past-due`` (both when both hold), and the handoff is ``orphaned``;
otherwise it is the note ``open``. One whose readback failed and that was
neither re-issued nor cancelled is also ``held`` (a note: its sender closes
it, never leaves it, 5.4).

**Questions.** An AQ neither answered (AN) nor refused (UN) by the agent it
asked is ``unanswered`` (spec 5 rule 2): a fail once its ``by=`` has passed, a
note before (or with no ``by=``).

**Readback and ownership.** An HO's readback passed when an RB answering it
passes the sender's check, :func:`rogerwilco.checks.readback.check_rb` (the thread
holds neither the sender's private criteria nor its record). The owner of an
item is the ``to`` of the most recent HO (stream order) whose readback
passed; before any, the sender of the item's first HO. Every HO's state is
one of :data:`HANDOFF_STATES`.

**Keys.** Every finding about a handoff carries that handoff's live HO id as
``key`` (for a CX from the wrong party, the HO its ``re=`` names); findings
about no handoff (``form``, ``reply-to-unknown``) carry ``key`` null.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable, Mapping

import attrs

from ..core.findings import FAIL, NOTE, Finding, passed
from ..core.message import Message
from .endpoint import CLOSE_STATES, TRANSITIONS, Handoff, finding_text, replay
from .readback import check_rb
from ..core.semantics import LineResult, check_line
from ..core.slottypes import parse_time
from ..core.vocab import Receiver, as_receiver

CLOSERS = ("DN", "UN", "FL", "CX")
CLOSE_EVENTS = ("DN-act", "DN-noop", "UN", "FL", "CX")
HANDOFF_STATES = ("awaiting-readback", "owned", "held", "orphaned", "closed", "reissued")
THREAD_KINDS = {
    "fail": ("open-past-exp", "open-past-due", "closed-twice", "act-after-cancel", "cancel-wrong-party",
             "reply-to-unknown", "form", "unanswered", "act-before-echo"),
    "note": ("cancel-unacknowledged", "open", "held", "unanswered"),
}
#: the table's finding kinds that are this check's (the others are the live endpoint's alone)
_TABLE_KINDS = frozenset({"closed-twice", "act-after-cancel", "act-before-echo"})
_TIME_RE = re.compile(r"[0-9]{8}T[0-9]{4}Z")

#: The close region of the endpoint's table, (state, event) -> (next state, finding kinds): the one the
#: live endpoint enforces. Events: "DN-act" (a DN with out=OK or PARTIAL), "DN-noop", "UN", "FL", "CX".
CLOSE_TRANSITIONS: Mapping[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    (state, event): (step.next, step.findings)
    for (state, event), step in TRANSITIONS.items() if state in CLOSE_STATES and event in CLOSE_EVENTS
}


@attrs.frozen(kw_only=True)
class HandoffState:
    """One HO in the ledger."""

    id: str
    item: str | None
    from_: str
    to: str
    ask: str | None
    state: str  # one of HANDOFF_STATES
    readback: str | None = None  # "passed", "failed", or None (no RB)
    rb: str | None = None  # the RB that decided ``readback``
    by: str | None = None  # closed: the closing type, DN UN FL or CX
    closer: str | None = None  # closed: the closing message's id
    next: str | None = None  # reissued: the HO that carries it forward
    exp: str | None = None
    due: str | None = None
    undoes: str | None = None  # an ask=UNDO: the HO whose act it reverses (through the DN its ctx= names)
    reverses: str | None = None  # an ask=UNDO: that DN

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id, "item": self.item, "from": self.from_, "to": self.to, "ask": self.ask,
            "state": self.state, "readback": self.readback, "rb": self.rb, "by": self.by,
            "closer": self.closer, "next": self.next, "exp": self.exp, "due": self.due,
        }
        if self.undoes is not None:
            out["undoes"], out["reverses"] = self.undoes, self.reverses
        return out


@attrs.frozen(kw_only=True)
class ItemOwner:
    """Who owns an item now, and through which HO (None: no readback has passed)."""

    item: str
    owner: str
    via: str | None

    def to_json(self) -> dict[str, Any]:
        return {"item": self.item, "owner": self.owner, "via": self.via}


@attrs.frozen(kw_only=True)
class Ledger:
    items: tuple[ItemOwner, ...]
    handoffs: tuple[HandoffState, ...]

    def owner(self, item: str) -> str | None:
        return next((entry.owner for entry in self.items if entry.item == item), None)

    def handoff(self, ho_id: str) -> HandoffState | None:
        return next((entry for entry in self.handoffs if entry.id == ho_id), None)

    def to_json(self) -> dict[str, Any]:
        return {"items": [e.to_json() for e in self.items], "handoffs": [h.to_json() for h in self.handoffs]}


@attrs.frozen(kw_only=True)
class ThreadReport:
    passed: bool
    findings: tuple[Finding, ...]
    ledger: Ledger

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "findings": [f.to_json() for f in self.findings],
                "ledger": self.ledger.to_json()}


def parse_now(now: str | _dt.datetime | None) -> _dt.datetime:
    """``now`` as an aware UTC datetime: a ``YYYYMMDDTHHMMZ`` string, a datetime, or the clock."""
    if now is None:
        return _dt.datetime.now(_dt.timezone.utc)
    if isinstance(now, _dt.datetime):
        return now if now.tzinfo is not None else now.replace(tzinfo=_dt.timezone.utc)
    if not isinstance(now, str) or _TIME_RE.fullmatch(now) is None:
        raise ValueError(f"now is a UTC time YYYYMMDDTHHMMZ, not {now!r}")
    try:
        return parse_time(now)
    except ValueError:
        raise ValueError(f"now {now!r} is not a real time") from None


def _date(text: str) -> _dt.date:
    return _dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))


def readback_passes(ho: Message, rb: Message, receiver: Receiver) -> bool:
    """The sender's check of one RB (every tier the HO asked for)."""
    return bool(check_rb(ho, rb, profiles=receiver).passed)


def _fail(kind: str, key: str | None, message: str, token: str | None = None) -> Finding:
    """``key`` is the handoff; ``token`` the id of the message that breaks the rule, where one does."""
    return Finding(severity=FAIL, kind=kind, key=key, message=message, token=token)


def _note(kind: str, key: str | None, message: str, token: str | None = None) -> Finding:
    return Finding(severity=NOTE, kind=kind, key=key, message=message, token=token)


def _read(lines: Iterable[Any], receiver: Receiver) -> tuple[list[Message], list[Finding]]:
    """The stream's messages in order, each id once; ``form`` findings for the rest."""
    messages: list[Message] = []
    findings: list[Finding] = []
    by_id: dict[str, Message] = {}
    for number, entry in enumerate(lines, start=1):
        if isinstance(entry, Message):
            result = LineResult(text=entry.to_line(), message=entry, findings=(), line_number=number)
        elif isinstance(entry, LineResult):
            result = entry
        elif isinstance(entry, str):
            text = entry[:-1] if entry.endswith("\n") else entry
            text = text[:-1] if text.endswith("\r") else text
            if text == "":
                continue
            result = check_line(text, receiver, line_number=number)
        else:
            raise TypeError(f"a thread line is a str, a Message or a LineResult, not {type(entry).__name__}")
        where = f"line {result.line_number or number}"
        message = result.message
        if message is None:
            problem = result.refusal
            if problem is None:  # a blank line read from a stream
                continue
            findings.append(_fail("form", None, f"{where}: not a valid message ({problem.token or problem.kind}: "
                                                f"{problem.message}); left out of the thread"))
            continue
        earlier = by_id.get(message.id)
        if earlier is not None:
            if earlier != message:
                findings.append(_fail("form", None, f"{where}: id {message.id} is already used by a different "
                                                    "message; this one is left out of the thread"))
            continue
        by_id[message.id] = message
        messages.append(message)
    return messages, findings


def _reversal(ho: Message, by_id: Mapping[str, Message], ends: Mapping[str, Any]) -> dict[str, str]:
    """For an ``ask=UNDO``: the act it reverses, followed back from the DN its ``ctx=`` names (spec 5.4)."""
    if ho.get("ask") != "UNDO":
        return {}
    for ref in ho.get("ctx") or ():
        dn = by_id.get(ref)
        if dn is None or dn.type != "DN":
            continue
        target = ends[dn.from_]._target(dn)
        if target is not None:
            return {"undoes": target.id, "reverses": dn.id}
    return {}


def check_thread(
    lines: Iterable[str | Message | LineResult],
    *,
    now: str | _dt.datetime | None = None,
    profiles: Receiver | Iterable | None = None,
) -> ThreadReport:
    """Rebuild the threads of a conversation and report what did not close right.

    ``lines`` are in the order they were sent; ``now`` (default: the clock) is
    when the conversation is read, for ``exp=`` and ``due=``.
    """
    at = parse_now(now)
    receiver = as_receiver(profiles)
    messages, findings = _read(lines, receiver)
    position = {m.id: i for i, m in enumerate(messages)}
    by_id = {m.id: m for m in messages}

    for m in messages:
        if m.re is not None and m.re not in by_id:
            findings.append(_fail("reply-to-unknown", None, f"{m.type} {m.id} answers re={m.re}, "
                                                            "which names no message in the stream"))

    ends = replay(messages, receiver)

    # a cancel from the wrong party: whichever end saw it (a third agent's CX is seen by its receiver alone)
    wrong: dict[str | None, Finding] = {}
    for end in ends.values():
        for f in end.findings:
            if f.kind == "cancel-wrong-party" and f.token not in wrong:
                wrong[f.token] = f
    findings.extend(sorted(wrong.values(), key=lambda f: position[f.token or ""]))

    hos = [m for m in messages if m.type == "HO"]
    # every handoff as its sender's end saw it: it saw every message between the two parties
    groups: list[Handoff] = []
    seen: set[int] = set()
    for ho in hos:
        handoff = ends[ho.from_]._handoffs[ho.id]
        if id(handoff) not in seen:
            seen.add(id(handoff))
            groups.append(handoff)

    states: dict[str, HandoffState] = {}
    for handoff in groups:
        members = sorted(handoff.issues, key=lambda i: position[i])
        live = [i for i in members if i not in handoff.carried]
        key = live[-1] if live else members[-1]
        first = by_id.get(handoff.first_closer) if handoff.first_closer else None
        for f in handoff.findings:
            if f.kind in _TABLE_KINDS:
                m = by_id[f.token or ""]
                text = finding_text(f.kind, m, key, first)
                findings.append(attrs.evolve(f, key=key, message=text))
        for cx in handoff.cancels:
            if cx not in handoff.acknowledged:
                findings.append(_note("cancel-unacknowledged", key, f"CX {cx} of {key} is not yet answered by "
                                                                     f"{handoff.receiver}", token=cx))
        first_closer = by_id.get(handoff.first_closer) if handoff.first_closer else None
        for ho_id in members:
            ho = by_id[ho_id]
            rb_state, rb_id = handoff.readbacks.get(ho_id, (None, None))
            common = dict(id=ho.id, item=ho.item, from_=ho.from_, to=ho.to, ask=ho.get("ask"),
                          readback=rb_state, rb=rb_id, exp=ho.get("exp"), due=ho.get("due"),
                          **_reversal(ho, by_id, ends))
            if ho_id in handoff.carried:
                states[ho_id] = HandoffState(state="reissued", next=handoff.carried[ho_id], **common)
                continue
            if first_closer is not None:
                states[ho_id] = HandoffState(state="closed", by=first_closer.type, closer=first_closer.id, **common)
                continue
            late = []
            exp = ho.get("exp")
            if exp is not None and at > parse_time(exp):
                late.append(_fail("open-past-exp", ho.id, f"{ho.id} is still open past its exp={exp}"))
            due = ho.get("due")
            if due is not None and at.date() > _date(due):
                late.append(_fail("open-past-due", ho.id, f"{ho.id} is still open after its due={due}"))
            if rb_state == "failed":  # a held handoff: re-issue it or cancel it, never leave it (5.4)
                late.append(_note("held", ho.id, f"{ho.id}'s readback {rb_id} did not pass and it was neither "
                                                 "re-issued nor cancelled", token=rb_id))
            if any(f.failed for f in late):
                findings.extend(late)
                state = "orphaned"
            elif late:
                findings.extend(late)
                findings.append(_note("open", ho.id, f"{ho.id} is open and in time"))
                state = "held"
            else:
                findings.append(_note("open", ho.id, f"{ho.id} is open and in time"))
                state = {"passed": "owned", "failed": "held", None: "awaiting-readback"}[rb_state]
            states[ho_id] = HandoffState(state=state, **common)

    # every question answered or refused by the agent it asked, never left (spec 5 rule 2)
    for aq in (m for m in messages if m.type == "AQ"):
        if ends[aq.to]._questions.get(aq.id) is not None:
            continue
        by = aq.get("by")
        if by is not None and at.date() > _date(by):
            findings.append(_fail("unanswered", None, f"AQ {aq.id} to {aq.to} is not answered, and its by={by} "
                                                      "has passed", token=aq.id))
        else:
            findings.append(_note("unanswered", None, f"AQ {aq.id} to {aq.to} is not answered yet"
                                                      + (f" (by={by})" if by else ""), token=aq.id))

    # the owner of each item
    owners: dict[str, ItemOwner] = {}
    for ho in hos:
        if ho.item is None:
            continue
        if ho.item not in owners:
            owners[ho.item] = ItemOwner(item=ho.item, owner=ho.from_, via=None)
        if ends[ho.from_]._handoffs[ho.id].readbacks.get(ho.id, ("", ""))[0] == "passed":
            owners[ho.item] = ItemOwner(item=ho.item, owner=ho.to, via=ho.id)

    ledger = Ledger(items=tuple(owners.values()), handoffs=tuple(states[ho.id] for ho in hos))
    ordered = tuple(findings)
    return ThreadReport(passed=passed(ordered), findings=ordered, ledger=ledger)


__all__ = [
    "ThreadReport",
    "check_thread",
    "parse_now",
]
