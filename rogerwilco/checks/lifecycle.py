"""The lifecycle of a handoff: every rule and table of what a handoff is (spec 5, 5.1, 5.3, 5.4).

Theory of operation
-------------------
Like h11's ``_state.py``, this module holds the protocol's states as data and
the few functions that read a conversation; it does no I/O and keeps no
state of its own. Everything that asks what a handoff is reads it here: the
endpoint (:mod:`rogerwilco.checks.endpoint`, live and replayed), ``check_thread``
(:mod:`rogerwilco.checks.thread`), lint (``RW103``), the tool's statement store
(:mod:`rogerwilco.front.tool`) and the A2A task map (:mod:`rogerwilco.front.a2a`).

**Types.** The message types and the roles they play: :data:`CLOSERS` end a
handoff, :data:`THROUGH` are the replies a closer may answer on its way to
the HO (an RB, an AN, a CX).

**The conversation index.** :class:`Conversation` holds messages by id and
walks from any reply back to the HO it belongs to (:func:`handoff_of`):
following ``re=``, never position (spec 5 rule 3), bounded and cycle-safe.

**Which HOs are one handoff** (spec 5 rule 1), the one rule
(:func:`issue_link`). An HO is one *issue* of a handoff. A later HO carries
an earlier one forward when it goes between the same two agents about the
same item and its ``re=`` names

* the earlier HO itself: a **re-send** after a silent receiver, or
* an RB of the earlier HO, from that HO's receiver: a **re-issue** after a
  void readback.

An HO whose ``re=`` names anything else (a relay's HO answering the HO it
received comes from a different sender; an HO to the ``alt=`` a refusal
named, or to anyone else, goes to another receiver) starts a handoff of its
own, which neither reads back nor carries forward the earlier one. A re-send
answered ``UN why=DUP`` by its receiver is a **duplicate**
(:func:`is_duplicate_answer`): the UN closes that re-send alone and the
earlier issue stays live. Only the envelope of a message matters here, so a
caller may pass :class:`Envelope` records instead of whole messages.

**The tables** (h11 keeps its state machine as tables; so does this):

=================================  ============================================
table                              read by
=================================  ============================================
:data:`TRANSITIONS`                the endpoint, live and replayed by
                                   ``check_thread``: a handoff's readback,
                                   close and echo regions, (state, event) to
                                   (next state, findings, replies)
:data:`CLOSE_TRANSITIONS`          ``check_thread``'s close findings: the
                                   close region of the same table
:data:`HANDOFF_STATES`             ``check_thread``'s ledger: each HO's state
:data:`STATEMENT_TRANSITIONS`      the tool's store: a prepared statement's
                                   state, (state, event) to next state
:data:`A2A_TASK_TRANSITIONS`       the A2A task map: an HO's task state,
                                   (state, event) to next state
=================================  ============================================

**The handoff table.** A handoff holds one state in each of three regions,
and every message about it is one event:

* the **readback** region: ``offered`` (no readback yet), ``void`` (the
  readback failed the sender's check), ``read-back`` (it passed at a level
  whose act waits for the sender's verdict, :data:`VERDICT_LEVELS`:
  ownership moved, the act waits for ``AN val=Y``) and ``wilco`` (cleared
  to act). A passing readback is the event ``RB-pass`` at the levels the
  receiver can judge itself (``echo``, ``all``, slot names) and
  ``RB-pass-wait`` at the others;
* the **close** region: ``open``, ``done`` (closed by a DN that ran the
  act), ``closed`` (by a DN with ``out=NOOP``, a UN or an FL),
  ``cancelled`` (the sender's CX, not yet answered by a close),
  ``answered`` (a cancel answered by a DN), ``late-cancel`` (a CX after
  the act's DN: a cancel cannot unsay an act, and the act's DN answers it)
  and ``cancel-after-close`` (a CX after a UN, an FL or a NOOP: answered with
  ``AN val=Y``; no further close);
* the **echo** region (``rb=all``): ``echoed`` or ``unechoed`` (a change of
  the sender's waits for the receiver's echo before the act).

A finding is what the message breaks; a reply is what its receiver answers.
An event a region does not list leaves that region as it is.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Optional, Protocol

import attrs

__all__ = [
    "A2A_END_STATES", "A2A_TASK_STATES", "A2A_TASK_TRANSITIONS", "A2A_TERMINAL", "CLOSE_EVENTS", "CLOSE_STATES",
    "CLOSE_TRANSITIONS", "CLOSERS", "Conversation", "ECHO_STATES", "EVENTS", "Envelope", "Enveloped", "HANDOFF_STATES",
    "HO_TYPE", "Lookup", "READBACK_STATES", "REISSUE", "REPLIES", "RESEND", "RESUME", "STATEMENT_EVENTS",
    "STATEMENT_LIVE", "STATEMENT_START", "STATEMENT_STATES", "STATEMENT_TRANSITIONS", "Step", "THROUGH",
    "TRANSITIONS", "TYPES", "VERDICT_LEVELS", "handoff_of", "is_carried_forward", "is_duplicate_answer", "issue_link",
    "same_parties", "waits_for_verdict", "whole",
]

# --------------------------------------------------------------------------
# types

TYPES = ("HO", "RB", "AQ", "AN", "ST", "DN", "UN", "FL", "CX")
HO_TYPE = "HO"
#: the messages that close a handoff (spec 5.4)
CLOSERS = ("DN", "UN", "FL", "CX")
#: the replies a close may answer on its way back to the HO: the readback, an answer, a cancel
THROUGH = ("RB", "AN", "CX")


# --------------------------------------------------------------------------
# which HOs are one handoff (spec 5 rule 1)

RESEND = "resend"
REISSUE = "reissue"


class _Linked(Protocol):
    """What the walk to an HO reads of a message: its type, its id and the id it answers."""

    @property
    def type(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def re(self) -> Optional[str]: ...


class Enveloped(_Linked, Protocol):
    """What the rule reads of a message, read-only (a Message, an Envelope, a stored row)."""

    @property
    def from_(self) -> str: ...
    @property
    def to(self) -> str: ...
    @property
    def item(self) -> Optional[str]: ...


class Envelope(NamedTuple):
    """What the rule reads of a message."""

    type: str
    id: str
    re: Optional[str]
    from_: str
    to: str
    item: Optional[str]

    @classmethod
    def of(cls, message: Any) -> "Envelope":
        return cls(message.type, message.id, message.re, message.from_, message.to, message.item)


Lookup = Callable[[str], Optional[Enveloped]]


def same_parties(a: Enveloped, b: Enveloped) -> bool:
    """One handoff goes between the same two agents about the same item."""
    return (a.from_, a.to, a.item) == (b.from_, b.to, b.item)


def issue_link(ho: Enveloped, lookup: Lookup) -> tuple[str, str] | None:
    """``(earlier HO id, RESEND | REISSUE)`` when ``ho`` carries an earlier issue forward, else None.

    ``lookup`` maps an id to the message with that id (or None when it is not
    known).
    """
    if ho.type != "HO" or ho.re is None:
        return None
    named = lookup(ho.re)
    if named is None:
        return None
    if named.type == "HO" and same_parties(named, ho):
        return named.id, RESEND
    if named.type == "RB" and named.re is not None:
        earlier = lookup(named.re)
        if earlier is not None and earlier.type == "HO" and same_parties(earlier, ho) and named.from_ == earlier.to:
            return earlier.id, REISSUE
    return None


def is_duplicate_answer(answer: Enveloped, why: Optional[str], ho: Enveloped, link: tuple[str, str] | None) -> bool:
    """Whether ``answer`` (with its ``why=``) is the receiver's ``UN why=DUP`` to the re-send ``ho``.

    ``link`` is :func:`issue_link` of ``ho``.
    """
    return (answer.type == "UN" and why == "DUP" and answer.re == ho.id and link is not None
            and link[1] == RESEND and answer.from_ == ho.to)


# --------------------------------------------------------------------------
# the conversation index


def whole(message: Any) -> Any:
    """``message`` with every slot: a record kept small (one with a ``whole()`` method, as
    ``check_thread`` keeps the lines it reads) read again in whole; a message as it is."""
    read = getattr(type(message), "whole", None)
    return read(message) if read is not None else message




def handoff_of(message: _Linked, lookup: Callable[[str], Any], *, through: Iterable[str] | None = THROUGH) -> Any:
    """The HO ``message`` belongs to, following ``re=`` back through replies; None when there is none.

    ``through`` names the types the walk may pass (by default :data:`THROUGH`:
    an RB, an AN, a CX); ``None`` passes any type (an AN to an AQ to an HO).
    A ``re=`` naming no known message, a type the walk may not pass, or a
    cycle ends it with None.
    """
    seen = {message.id}
    current = lookup(message.re) if message.re else None
    while current is not None and current.type != HO_TYPE:
        if (through is not None and current.type not in through) or current.id in seen:
            return None
        seen.add(current.id)
        current = lookup(current.re) if current.re else None
    return current


class Conversation:
    """Messages by id, in the order they were added (the first of a repeated id is kept)."""

    def __init__(self, messages: Iterable[Any] = (), *, index: dict[str, Any] | None = None) -> None:
        """``index``: an index by id already built (each id once), shared rather than copied."""
        self.by_id: dict[str, Any] = index if index is not None else {}
        for message in messages:
            self.add(message)

    def add(self, message: Any) -> bool:
        """Index ``message``; False when its id is already taken."""
        if message.id in self.by_id:
            return False
        self.by_id[message.id] = message
        return True

    def get(self, ident: str | None) -> Any:
        return self.by_id.get(ident) if ident is not None else None

    def __contains__(self, ident: object) -> bool:
        return ident in self.by_id

    def __iter__(self) -> Iterator[Any]:
        return iter(self.by_id.values())

    def __len__(self) -> int:
        return len(self.by_id)

    def handoff_of(self, message: _Linked, *, through: Iterable[str] | None = THROUGH) -> Any:
        """:func:`handoff_of` over this conversation."""
        return handoff_of(message, self.by_id.get, through=through)

    def issue_link(self, ho: Enveloped) -> tuple[str, str] | None:
        """:func:`issue_link` over this conversation."""
        return issue_link(ho, self.by_id.get)


def is_carried_forward(earlier: Enveloped, later: Enveloped, lookup: Lookup) -> bool:
    """Whether the HO ``later`` carries the HO ``earlier`` forward (a re-send or a re-issue of it)."""
    link = issue_link(later, lookup)
    return link is not None and link[0] == earlier.id


# --------------------------------------------------------------------------
# the handoff table (the endpoint, live and replayed by check_thread)

READBACK_STATES = ("offered", "void", "read-back", "wilco")
#: The readback levels whose act waits for the sender's verdict, ``AN re=<RB> val=Y``: the sender checks them
#: against what the receiver does not hold (criteria kept back under ``acc`` and ``plan``, spec 5.2; its record
#: under ``exec``, 5.3), so the receiver cannot know that its readback passed until the sender says so.
VERDICT_LEVELS = frozenset({"acc", "plan", "exec"})


def waits_for_verdict(levels: Iterable[str]) -> bool:
    """Whether a handoff asking ``levels`` (:func:`rogerwilco.checks.readback.levels_of`) waits for ``AN val=Y``."""
    return not VERDICT_LEVELS.isdisjoint(levels)

CLOSE_STATES = ("open", "done", "closed", "cancelled", "answered", "late-cancel", "cancel-after-close")
#: under rb=all, every ST or AN of the sender's that the receiver will act on is echoed first (spec 5 rule 1)
ECHO_STATES = ("echoed", "unechoed")
EVENTS = ("resend", "reissue", "RB-pass", "RB-pass-wait", "RB-void", "confirm", "refuse",
          "DN-act", "DN-noop", "UN", "FL", "CX", "change", "echo")
#: what each automatic or composed reply is
REPLIES = {
    "UN-DUP": "UN why=DUP: the handoff was already read back, so a re-send cannot make a second owner",
    "AN-Y": "AN val=Y to the cancel, once what was prepared for the handoff is abandoned",
    "DN-again": "the act's DN again: a cancel cannot unsay an act",
    "RB-echo": "under rb=all, the echo of the sender's ST or AN, composed by code, before acting on it",
}


@attrs.frozen
class Step:
    """One row of the table: where an event leads, what it breaks, what its receiver answers."""

    next: str
    findings: tuple[str, ...] = ()
    replies: tuple[str, ...] = ()


def _table() -> dict[tuple[str, str], Step]:
    t: dict[tuple[str, str], Step] = {}
    # -- the readback region ---------------------------------------------------
    for state in READBACK_STATES:
        t[(state, "reissue")] = Step("offered")
        t[(state, "resend")] = Step(state) if state == "offered" else Step(state, replies=("UN-DUP",))
    t[("offered", "RB-pass")] = t[("void", "RB-pass")] = Step("wilco")
    t[("read-back", "RB-pass")] = Step("read-back")
    t[("wilco", "RB-pass")] = Step("wilco")
    t[("offered", "RB-pass-wait")] = t[("void", "RB-pass-wait")] = Step("read-back")
    t[("read-back", "RB-pass-wait")] = Step("read-back")
    t[("wilco", "RB-pass-wait")] = Step("wilco")
    t[("offered", "RB-void")] = t[("void", "RB-void")] = Step("void")
    t[("read-back", "RB-void")] = Step("read-back")  # one passing readback is enough
    t[("wilco", "RB-void")] = Step("wilco")
    t[("read-back", "confirm")] = t[("wilco", "confirm")] = Step("wilco")
    t[("offered", "confirm")] = Step("offered", ("confirm-without-readback",))
    t[("void", "confirm")] = Step("void", ("confirm-void",))
    t[("read-back", "refuse")] = t[("wilco", "refuse")] = Step("void")
    t[("offered", "refuse")] = Step("offered")
    t[("void", "refuse")] = Step("void")
    for state in ("offered", "void", "read-back"):
        t[(state, "DN-act")] = Step(state, ("act-before-wilco",))
    t[("wilco", "DN-act")] = Step("wilco")
    # -- the echo region (rb=all: a change is echoed before the act) -------------
    t[("echoed", "change")] = t[("unechoed", "change")] = Step("unechoed", replies=("RB-echo",))
    t[("unechoed", "echo")] = t[("echoed", "echo")] = Step("echoed")
    t[("unechoed", "DN-act")] = Step("unechoed", ("act-before-echo",))
    t[("echoed", "DN-act")] = Step("echoed")
    # -- the close region (spec 5.4) -------------------------------------------
    t[("open", "DN-act")] = Step("done")
    t[("open", "DN-noop")] = Step("closed")
    t[("open", "UN")] = t[("open", "FL")] = Step("closed")
    t[("open", "CX")] = Step("cancelled", replies=("AN-Y",))
    for state in ("done", "closed"):
        for event in ("DN-act", "DN-noop", "UN", "FL"):
            t[(state, event)] = Step(state, ("closed-twice",))
    t[("done", "CX")] = Step("late-cancel", ("closed-twice",), ("DN-again",))
    t[("closed", "CX")] = Step("cancel-after-close", ("closed-twice",), ("AN-Y",))
    # the act's DN crossed the cancel: the receiver answers with it
    t[("late-cancel", "DN-act")] = Step("done")
    t[("late-cancel", "DN-noop")] = Step("closed")
    t[("late-cancel", "UN")] = t[("late-cancel", "FL")] = Step("closed", ("closed-twice",))
    t[("late-cancel", "CX")] = Step("late-cancel", ("closed-twice",))
    # a cancel that came after a UN, an FL or a NOOP: it is answered with AN val=Y, and no close may follow
    for event in ("DN-act", "DN-noop", "UN", "FL", "CX"):
        t[("cancel-after-close", event)] = Step("cancel-after-close", ("closed-twice",))
    t[("cancelled", "DN-act")] = Step("answered", ("act-after-cancel",))
    t[("cancelled", "DN-noop")] = Step("answered")
    t[("cancelled", "UN")] = t[("cancelled", "FL")] = Step("answered", ("closed-twice",))
    t[("cancelled", "CX")] = Step("cancelled", ("closed-twice",))
    t[("answered", "DN-act")] = Step("answered", ("closed-twice", "act-after-cancel"))
    for event in ("DN-noop", "UN", "FL", "CX"):
        t[("answered", event)] = Step("answered", ("closed-twice",))
    return t


#: (state, event) -> Step, for both regions; state names are unique across them.
TRANSITIONS: Mapping[tuple[str, str], Step] = _table()

CLOSE_EVENTS = ("DN-act", "DN-noop", "UN", "FL", "CX")
HANDOFF_STATES = ("awaiting-readback", "owned", "held", "orphaned", "closed", "reissued")
#: The close region of the endpoint's table, (state, event) -> (next state, finding kinds): the one the
#: live endpoint enforces. Events: "DN-act" (a DN with out=OK or PARTIAL), "DN-noop", "UN", "FL", "CX".
CLOSE_TRANSITIONS: Mapping[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    (state, event): (step.next, step.findings)
    for (state, event), step in TRANSITIONS.items() if state in CLOSE_STATES and event in CLOSE_EVENTS
}


# --------------------------------------------------------------------------
# the tool's prepared statements (rogerwilco.front.tool)

#: A statement is prepared when its readback is written. Committing it starts the act, which is in doubt
#: until the executor reports: ``ran`` (committed), ``fail`` (exit status: failed), ``doubt`` (timed out,
#: killed, or a report that cannot be read: it stays in doubt, never run again by itself) or ``not-started``
#: (the executor could not start: prepared again). A prepared statement may be abandoned (by hand, or
#: superseded by another statement of the same handoff) or cancelled (the sender's CX); an in-doubt one is
#: settled by a person who found out whether the act ran.
STATEMENT_STATES = ("prepared", "in-doubt", "committed", "failed", "abandoned", "cancelled")
STATEMENT_START = "prepared"
#: the states in which a handoff's statement can still commit, or whose act ran: at most one per handoff
STATEMENT_LIVE = ("prepared", "in-doubt", "committed", "failed")
STATEMENT_TRANSITIONS: Mapping[tuple[str, str], str] = {
    ("prepared", "commit"): "in-doubt",
    ("prepared", "abandon"): "abandoned",
    ("prepared", "cancel"): "cancelled",
    ("in-doubt", "ran"): "committed",
    ("in-doubt", "fail"): "failed",
    ("in-doubt", "doubt"): "in-doubt",
    ("in-doubt", "not-started"): "prepared",
    ("in-doubt", "settle-ran"): "committed",
    ("in-doubt", "settle-not-ran"): "abandoned",
}
#: each event moves from one state only: event -> (from, to)
STATEMENT_EVENTS: Mapping[str, tuple[str, str]] = {event: (state, nxt)
                                                   for (state, event), nxt in STATEMENT_TRANSITIONS.items()}
assert len(STATEMENT_EVENTS) == len(STATEMENT_TRANSITIONS)


# --------------------------------------------------------------------------
# the A2A task map (rogerwilco.front.a2a)

A2A_TASK_STATES = ("submitted", "working", "input-required", "completed", "rejected", "failed", "canceled")
#: the closes that end a task, by type
A2A_END_STATES: Mapping[str, str] = {"DN": "completed", "UN": "rejected", "FL": "failed", "CX": "canceled"}
A2A_TERMINAL = frozenset(A2A_END_STATES.values())
#: the next state of an AN to an AQ: the state the task was in when the AQ came
RESUME = "resume"
#: Events: a close (DN UN FL from the receiver, CX from the sender, each ``re=`` the HO), ``RB-pass`` /
#: ``RB-void`` (the receiver's readback, by the sender's check), ``AQ`` (a question from the receiver),
#: ``AN`` (the sender's answer to an AQ). An event a state does not list changes nothing; an end state is final.
A2A_TASK_TRANSITIONS: Mapping[tuple[str, str], str] = {
    **{(state, event): A2A_END_STATES[event] for state in ("submitted", "working", "input-required")
       for event in CLOSERS},
    **{(state, "RB-pass"): "working" for state in ("submitted", "working", "input-required")},
    **{(state, "AQ"): "input-required" for state in ("submitted", "working", "input-required")},
    ("input-required", "AN"): RESUME,
}
