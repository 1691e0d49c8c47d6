"""The lifecycle of a handoff: every rule and table of what a handoff is (spec 5, 5.1, 5.3, 5.4).

Theory of operation
-------------------
Like h11's ``_state.py``, this module holds the protocol's states as data and
the few functions that read a conversation; it does no I/O and keeps no
state of its own. Everything that asks what a handoff is reads it here: the
endpoint (:mod:`rogerwilco.endpoint`, live and replayed), ``check_thread``
(:mod:`rogerwilco.thread`), lint (``RW103``), the tool's statement store
(:mod:`rogerwilco.tool`) and the A2A task map (:mod:`rogerwilco.a2a`).

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

**The tables.**

=================================  ============================================
table                              read by
=================================  ============================================
:data:`STATEMENT_TRANSITIONS`      the tool's store: a prepared statement's
                                   state, (state, event) to next state
:data:`A2A_TASK_TRANSITIONS`       the A2A task map: an HO's task state,
                                   (state, event) to next state
=================================  ============================================
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Protocol

from .handoff import REISSUE, RESEND, Envelope, Enveloped, Lookup, is_duplicate_answer, issue_link, same_parties

__all__ = [
    "A2A_END_STATES", "A2A_TASK_STATES", "A2A_TASK_TRANSITIONS", "A2A_TERMINAL", "CLOSERS", "Conversation",
    "Envelope", "Enveloped", "HO_TYPE", "Lookup", "REISSUE", "RESEND", "RESUME", "STATEMENT_LIVE",
    "STATEMENT_EVENTS", "STATEMENT_START", "STATEMENT_STATES", "STATEMENT_TRANSITIONS", "THROUGH", "TYPES", "handoff_of", "is_duplicate_answer",
    "issue_link", "is_carried_forward", "same_parties",
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
# the conversation index


class _Linked(Protocol):
    type: str
    id: str
    re: Optional[str]


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

    def __init__(self, messages: Iterable[Any] = ()) -> None:
        self.by_id: dict[str, Any] = {}
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
# the tool's prepared statements (rogerwilco.tool)

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
# the A2A task map (rogerwilco.a2a)

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
