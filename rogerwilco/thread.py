"""Threads: every handoff closes exactly once (spec 5 rule 1, 5.4).

Theory of operation
-------------------
:func:`check_thread` takes a conversation in the order it was sent and
rebuilds its threads from ``re=`` alone: position only orders events, it never
decides what a message answers. Each line is read with the never-guess pass; a
line that cannot be read is a ``form`` finding and takes no part. A message
whose id repeats an earlier message's id is one message delivered twice when
the two are equal, and a ``form`` finding when they differ (the thread cannot
be rebuilt from an ambiguous id). A ``re=`` naming no message in the stream is
``reply-to-unknown``.

**Handoffs and their issues.** An HO is one issue of a handoff. A later HO
from the same sender continues the same handoff when its ``re=`` names

* the earlier HO itself: a re-send after a silent receiver (rule 1), or
* an RB of the earlier HO: a re-issue after a void readback (rule 1).

The earlier issue is then ``reissued`` and the later one is live, except that
a re-send answered ``UN why=DUP`` by its receiver is a duplicate: the UN
closes that re-send alone, the original stays live, and no second owner and
no second close arise. An HO whose ``re=`` names anything else (a relay's HO
answering the HO it received comes from a different sender) starts a
handoff of its own.

**Closing.** A closing message names its HO with ``re=``, directly or through
the RB, the AN or the CX it answers. ``DN``, ``UN`` and ``FL`` close when they
come from the HO's receiver (from anyone else they close nothing). ``CX``
closes when it comes from the HO's sender to its receiver; any other CX is
``cancel-wrong-party`` and closes nothing. The closes of a handoff are walked
in stream order through :data:`CLOSE_TRANSITIONS`, a table of (state, event)
to (next state, finding kinds):

* the first close closes; after a DN, UN or FL any further close, a CX
  included, is ``closed-twice`` (a cancel cannot unsay an act);
* after a CX the receiver's first DN is the cancel's answer, not a second
  close: ``out=NOOP`` is the right answer, ``out=OK`` or ``PARTIAL`` is
  ``act-after-cancel``; a UN or FL, or any later close, is ``closed-twice``;
* a CX is acknowledged by an ``AN re=<CX id>`` from the receiver or by a
  close from the receiver after it; otherwise ``cancel-unacknowledged``
  (a note).

**Open handoffs.** A live HO still open at the end of the stream is compared
with ``now``: past its ``exp=`` it is ``open-past-exp``, on a day after its
``due=`` date it is ``open-past-due`` (both when both hold), and the handoff
is ``orphaned``; otherwise it is the note ``open``.

**Readback and ownership.** An HO's readback passed when any RB answering it
passes the sender's check, :func:`rogerwilco.readback.check_rb` (every tier
the HO asked for; the thread holds neither the sender's private criteria nor
its record, so tier 4 and resolved values are checked as far as the lines
allow). The owner of an item is the ``to`` of the most
recent HO (stream order) whose readback passed; before any such HO it is the
sender of the item's first HO. Every HO's state is one of
:data:`HANDOFF_STATES`.

**Keys.** Every thread finding about a handoff carries that handoff's live HO
id as ``key`` (for a CX from the wrong party, the HO its ``re=`` names);
findings about no handoff (``form``, ``reply-to-unknown``) carry ``key``
null. The contract compares ``(severity, kind, tier, key)``, so two handoffs
with the same fault are two findings.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable, Mapping

import attrs

from .findings import FAIL, NOTE, Finding, passed
from .handoff import is_duplicate_answer, issue_link
from .message import Message
from .readback import check_rb
from .semantics import LineResult, check_line
from .slottypes import parse_time
from .vocab import Receiver, as_receiver

CLOSERS = ("DN", "UN", "FL", "CX")
HANDOFF_STATES = ("awaiting-readback", "owned", "held", "orphaned", "closed", "reissued")
THREAD_KINDS = {
    "fail": ("open-past-exp", "open-past-due", "closed-twice", "act-after-cancel", "cancel-wrong-party",
             "reply-to-unknown", "form"),
    "note": ("cancel-unacknowledged", "open"),
}
_TIME_RE = re.compile(r"[0-9]{8}T[0-9]{4}Z")

# Close states: "open"; "closed" (by DN, UN or FL); "cancelled" (by a CX, not
# yet answered); "answered" (a CX answered by the receiver's DN).
# Events: "DN-act" (a DN with out=OK or PARTIAL), "DN-noop", "UN", "FL", "CX".
CLOSE_TRANSITIONS: Mapping[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("open", "DN-act"): ("closed", ()),
    ("open", "DN-noop"): ("closed", ()),
    ("open", "UN"): ("closed", ()),
    ("open", "FL"): ("closed", ()),
    ("open", "CX"): ("cancelled", ()),
    ("closed", "DN-act"): ("closed", ("closed-twice",)),
    ("closed", "DN-noop"): ("closed", ("closed-twice",)),
    ("closed", "UN"): ("closed", ("closed-twice",)),
    ("closed", "FL"): ("closed", ("closed-twice",)),
    ("closed", "CX"): ("late-cancel", ("closed-twice",)),
    # a cancel that crossed a DN: the receiver answers with the act's DN
    ("late-cancel", "DN-act"): ("closed", ()),
    ("late-cancel", "DN-noop"): ("closed", ()),
    ("late-cancel", "UN"): ("closed", ("closed-twice",)),
    ("late-cancel", "FL"): ("closed", ("closed-twice",)),
    ("late-cancel", "CX"): ("late-cancel", ("closed-twice",)),
    ("cancelled", "DN-act"): ("answered", ("act-after-cancel",)),
    ("cancelled", "DN-noop"): ("answered", ()),
    ("cancelled", "UN"): ("answered", ("closed-twice",)),
    ("cancelled", "FL"): ("answered", ("closed-twice",)),
    ("cancelled", "CX"): ("cancelled", ("closed-twice",)),
    ("answered", "DN-act"): ("answered", ("closed-twice", "act-after-cancel")),
    ("answered", "DN-noop"): ("answered", ("closed-twice",)),
    ("answered", "UN"): ("answered", ("closed-twice",)),
    ("answered", "FL"): ("answered", ("closed-twice",)),
    ("answered", "CX"): ("answered", ("closed-twice",)),
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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "item": self.item, "from": self.from_, "to": self.to, "ask": self.ask,
            "state": self.state, "readback": self.readback, "rb": self.rb, "by": self.by,
            "closer": self.closer, "next": self.next, "exp": self.exp, "due": self.due,
        }


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

    hos = [m for m in messages if m.type == "HO"]

    # readback of every HO
    readback: dict[str, tuple[str | None, str | None]] = {}
    for ho in hos:
        rbs = [m for m in messages if m.type == "RB" and m.re == ho.id]
        good = next((rb for rb in rbs if readback_passes(ho, rb, receiver)), None)
        if good is not None:
            readback[ho.id] = ("passed", good.id)
        elif rbs:
            readback[ho.id] = ("failed", rbs[-1].id)
        else:
            readback[ho.id] = (None, None)

    # which HO each message answers, through the RB, AN or CX it replies to
    def target(m: Message) -> Message | None:
        seen = {m.id}
        current = by_id.get(m.re) if m.re else None
        while current is not None and current.type in ("RB", "AN", "CX") and current.id not in seen:
            seen.add(current.id)
            current = by_id.get(current.re) if current.re else None
        return current if current is not None and current.type == "HO" else None

    # issues of one handoff: re-sends and re-issues (the rule is rogerwilco.handoff's)
    previous: dict[str, tuple[str, str]] = {}  # HO id -> (earlier HO id, "resend" | "reissue")
    for ho in hos:
        link = issue_link(ho, by_id.get)
        if link is not None:
            previous[ho.id] = link

    duplicate: dict[str, Message] = {}  # a re-send answered UN why=DUP -> that UN
    for m in messages:
        if m.type == "UN" and m.re in previous and m.re not in duplicate:
            if is_duplicate_answer(m, m.get("why"), by_id[m.re], previous[m.re]):
                duplicate[m.re] = m

    carried_to: dict[str, str] = {}  # HO id -> the later HO that carries it forward
    for ho in hos:
        if ho.id in previous and ho.id not in duplicate:
            carried_to[previous[ho.id][0]] = ho.id

    def root(ho_id: str) -> str:
        seen = set()
        while ho_id in previous and ho_id not in duplicate and ho_id not in seen:
            seen.add(ho_id)
            ho_id = previous[ho_id][0]
        return ho_id

    groups: dict[str, list[str]] = {}
    for ho in hos:
        groups.setdefault(root(ho.id), []).append(ho.id)

    # the closes of each handoff, in stream order
    events: dict[str, list[tuple[Message, Message]]] = {g: [] for g in groups}  # root -> [(closer, its HO)]
    acknowledged: set[str] = set()
    for m in messages:
        if m.type == "AN" and m.re in by_id and by_id[m.re].type == "CX":
            if m.from_ == by_id[m.re].to:
                acknowledged.add(m.re)
            continue
        if m.type not in CLOSERS:
            continue
        ho = target(m)
        if ho is None:
            continue
        if m.type == "CX":
            if m.from_ != ho.from_ or m.to != ho.to:
                findings.append(_fail("cancel-wrong-party", ho.id,
                                      f"CX {m.id} comes from {m.from_} to {m.to}; only {ho.id}'s sender "
                                      f"{ho.from_} can cancel it, to its receiver {ho.to}", token=m.id))
                continue
        elif m.from_ != ho.to:
            continue
        events[root(ho.id)].append((m, ho))

    states: dict[str, HandoffState] = {}
    for group_root, members in groups.items():
        live = [h for h in members if h not in carried_to]
        close_state, first_closer = "open", None
        cancels: list[Message] = []
        kinds: list[tuple[str, Message]] = []
        for closer, _ho in events[group_root]:
            if closer.type == "DN":
                event = "DN-noop" if closer.get("out") == "NOOP" else "DN-act"
            else:
                event = closer.type
            if closer.type != "CX":  # the receiver answered: every cancel before is acknowledged
                acknowledged.update(c.id for c in cancels)
            close_state, raised = CLOSE_TRANSITIONS[(close_state, event)]
            if first_closer is None:
                first_closer = closer
            if closer.type == "CX":
                cancels.append(closer)
            kinds.extend((kind, closer) for kind in raised)
        key = live[-1] if live else members[-1]
        for kind, closer in kinds:
            if kind == "closed-twice":
                findings.append(_fail(kind, key, f"{key} is closed more than once: {closer.type} {closer.id} "
                                                 f"after {first_closer.type} {first_closer.id}",  # type: ignore[union-attr]
                                      token=closer.id))
            else:
                findings.append(_fail(kind, key, f"DN {closer.id} reports out={closer.get('out')} after a "
                                                 f"cancel of {key}; out=NOOP is the answer to a cancel that "
                                                 "arrived first", token=closer.id))
        for cx in cancels:
            if cx.id not in acknowledged:
                findings.append(_note("cancel-unacknowledged", key, f"CX {cx.id} of {key} is not yet "
                                                                     f"answered by {cx.to}", token=cx.id))

        for ho_id in members:
            ho = by_id[ho_id]
            rb_state, rb_id = readback[ho_id]
            common = dict(id=ho.id, item=ho.item, from_=ho.from_, to=ho.to, ask=ho.get("ask"),
                          readback=rb_state, rb=rb_id, exp=ho.get("exp"), due=ho.get("due"))
            if ho_id in carried_to:
                states[ho_id] = HandoffState(state="reissued", next=carried_to[ho_id], **common)
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
            if late:
                findings.extend(late)
                state = "orphaned"
            else:
                findings.append(_note("open", ho.id, f"{ho.id} is open and in time"))
                state = {"passed": "owned", "failed": "held", None: "awaiting-readback"}[rb_state]
            states[ho_id] = HandoffState(state=state, **common)


    # the owner of each item
    owners: dict[str, ItemOwner] = {}
    for ho in hos:
        if ho.item is None:
            continue
        if ho.item not in owners:
            owners[ho.item] = ItemOwner(item=ho.item, owner=ho.from_, via=None)
        if readback[ho.id][0] == "passed":
            owners[ho.item] = ItemOwner(item=ho.item, owner=ho.to, via=ho.id)

    ledger = Ledger(items=tuple(owners.values()),
                    handoffs=tuple(states[ho.id] for ho in sorted(hos, key=lambda h: position[h.id])))
    ordered = tuple(findings)
    return ThreadReport(passed=passed(ordered), findings=ordered, ledger=ledger)
