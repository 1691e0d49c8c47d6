"""The endpoint: RW1 run live for one agent, with no I/O (spec 5, 5.1, 5.3, 5.4).

Theory of operation
-------------------
An :class:`Endpoint` is one agent's end of every conversation it takes part
in. It reads lines (:meth:`Endpoint.receive`) and writes them
(:meth:`Endpoint.send`), and that is all it does with the world: the caller
owns the transport, the clock and the act. Like h11's ``Connection`` it turns
what arrives into typed events, answers what the protocol answers by itself,
and refuses with :class:`ProtocolError` what this end may not say.

**Handoffs.** Every HO starts a handoff or continues one: a re-send (``re=``
an earlier issue, after a silent receiver) and a re-issue (``re=`` the
receiver's readback of an earlier issue, after a void readback) carry the
handoff forward when they go between the same two agents about the same
item; anything else is a handoff of its own (the rule is
:func:`rogerwilco.checks.lifecycle.issue_link`). A handoff holds one state in each
of the readback, close and echo regions of :data:`TRANSITIONS`, the table
:mod:`rogerwilco.checks.lifecycle` holds, and every message about it is one event.

:data:`TRANSITIONS` is the whole protocol: (state, event) to (next state,
findings, replies). A finding is what the message breaks; a reply is what its
receiver answers. An event a region does not list leaves that region as it
is. The live endpoint and :func:`rogerwilco.checks.thread.check_thread` walk the
same table, so what one refuses the other reports.

**Receiving** never raises on what a peer sent. A line that cannot be taken
yields :class:`Unreadable` and, where it names who sent it, the
``UN why=UNK|VER`` reply; a line claiming ``from=<me>`` that this end never
sent yields :class:`Forged`, is never recorded as mine, and takes no number
(numbering skips the number it carried, so a squatted id neither goes out
again nor blocks). A re-send of a handoff this end already read back
yields :class:`Duplicate` and the ``UN why=DUP`` reply. Those replies are the
protocol's alone, so the endpoint records them as sent in the same step and
returns them as :class:`Reply` events for the caller to deliver. Replies that
wait on the caller are carried by their event and sent with :meth:`send`:
the readback composed by code for an offered handoff, the ``AN val=Y`` that
clears an execution readback, the re-issue after a void readback, the answer
to a cancel once what it names is abandoned. A cancel that arrives before the
HO it names (a transport that reorders) is held and applied when that HO
arrives: the handoff is cancelled on arrival, and no readback is offered.

**Sending** validates the line, numbers it ``<me>-<n>`` when asked, and runs
the same table: a transition that would raise a finding against this end is a
:class:`ProtocolError`, and nothing is recorded. Besides the table, an RB
must answer the live issue of a handoff offered to this end (and, with
``composed_only``, equal the readback :func:`~rogerwilco.readback.make_rb`
composed), an answer may not repeat, a cancel is answered with the act's DN
when the act ran, and a handoff sent with a record is checked against it
first (``check_ho``). An HO may not start a handoff of an item while one this
end sent of it to another agent is still open (``two-owners``: withdraw that
one first). Under ``rb=acc``, ``plan`` and ``exec`` the act waits for the
sender's ``AN val=Y`` (the receiver cannot judge the tiers the sender checks
against what it keeps back). After an HO's ``exp=`` (by the endpoint's clock)
nothing is done on it: no readback, no act, no confirmation; after an RB's,
no confirmation of it (``expired``).

**Durability.** Every step is one ledger transaction (:mod:`rogerwilco.checks.ledger`):
the endpoint first reads what other processes sharing the ledger recorded,
then handles the line and appends it with its automatic replies. A line
received twice (a redelivery after a restart) is recognised by its id and
answered with the replies recorded the first time, so a restart neither loses
nor doubles a message. A refused line is journalled cut short, with its hash
and size (:func:`rogerwilco.checks.ledger.refused_entry`), and never parsed again.

**One counter.** The next number (:meth:`Endpoint._next_number`) is past every
number this end used and the ledger's counter, which the agent's tool moves
too (:meth:`Endpoint.reserve_number`): the tool keeps its statements in the
same ledger, asks :meth:`Endpoint.may_act` inside its own transaction, and
journals the act's report with :meth:`Endpoint.record_act`.
"""

from __future__ import annotations

import datetime as _dt
import heapq
import os
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Mapping

import attrs

from ..core.codec import reread
from ..core.errors import RW1Error
from ..core.findings import NOTE, Finding, fail
# the table and the rule are the lifecycle's; the names stay importable from here
from .lifecycle import (CLOSE_STATES, CLOSERS, ECHO_STATES, EVENTS, READBACK_STATES, REPLIES, TRANSITIONS,  # noqa: F401
                        Step, handoff_of, is_duplicate_answer, issue_link, waits_for_verdict, whole)
from .ledger import Entry, MemoryLedger, SQLiteLedger, Transaction, open_ledger, refused_entry
from ..core.message import Message
from .readback import (ReadbackInputError, ReadbackReport, check_dn, check_ho, check_rb, levels_of, make_rb,
                       readback_passes)
from ..core.semantics import LineResult, check_line, refusal_for
from ..core.slottypes import AGENT_RE, MSGID_RE, parse_time
from ..core.vocab import Receiver, as_receiver


def mermaid(table: Mapping[tuple[str, str], Step] = TRANSITIONS) -> str:
    """The table as a mermaid state diagram: one handoff, its two regions side by side.

    One arrow per (state, event) that moves, labelled ``event / findings``;
    an event that leaves a state as it is has no arrow (:func:`table_rows`
    lists every row).
    """
    lines = ["stateDiagram-v2", "    state handoff {"]
    for i, (states, first) in enumerate(((READBACK_STATES, "offered"), (CLOSE_STATES, "open"),
                                         (ECHO_STATES, "echoed"))):
        if i:
            lines.append("        --")
        for state in states:
            if _node(state) != state:
                lines.append(f'        state "{state}" as {_node(state)}')
        lines.append(f"        [*] --> {_node(first)}")
        for (state, event), step in table.items():
            if state in states and step.next != state:
                label = event + (" / " + ", ".join(step.findings) if step.findings else "")
                lines.append(f"        {_node(state)} --> {_node(step.next)} : {label}")
    lines.append("    }")
    return "\n".join(lines) + "\n"


def _node(state: str) -> str:
    return state.replace("-", "_")


def table_rows(table: Mapping[tuple[str, str], Step] = TRANSITIONS) -> str:
    """The table as Markdown rows: state, event, next state, findings, replies."""
    out = ["| state | event | next | findings | replies |", "|---|---|---|---|---|"]
    for (state, event), step in table.items():
        out.append(f"| {state} | {event} | {step.next} | {', '.join(step.findings)} | {', '.join(step.replies)} |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# errors and events


class ProtocolError(RW1Error):
    """What this end may not send (h11's LocalProtocolError). ``kind`` names the rule."""

    def __init__(self, message: str, *, kind: str, findings: tuple = (), **kw: Any) -> None:
        super().__init__(message, findings=findings, **kw)
        self.kind = kind


@attrs.frozen(kw_only=True)
class Event:
    """Something a received line (or the clock) means for this end."""

    message: Message | None = None
    findings: tuple[Finding, ...] = ()


@attrs.frozen(kw_only=True)
class Reply(Event):
    """An automatic reply, recorded as sent: deliver ``line`` to its ``to``."""

    line: str = ""


@attrs.frozen(kw_only=True)
class Unreadable(Event):
    """A line that cannot be taken (never guessed at); ``reply`` is its UN, or None when it cannot be addressed."""

    text: str = ""
    reply: str | None = None


@attrs.frozen(kw_only=True)
class Forged(Unreadable):
    """A line claiming to come from this end that this end never sent: refused, never recorded as mine. Its
    number is never given to a line of mine (numbering skips it), and it takes none."""


@attrs.frozen(kw_only=True)
class Redelivered(Event):
    """A line this end already handled; ``replies`` are the ones it caused, to deliver again."""

    replies: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class NotForMe(Event):
    """A valid line addressed to another agent: recorded, changes nothing here."""


@attrs.frozen(kw_only=True)
class HandoffOffered(Event):
    """An HO to me. ``readback`` is composed by code from the line as delivered (send it with
    ``number=True``), or None with ``needs`` saying what the level asks that only I can give, or with
    ``refused`` saying why ``send`` would refuse any readback now (the handoff's ``exp`` has passed, the
    item is handed on by this end...)."""

    handoff: str = ""
    readback: Message | None = None
    needs: str | None = None
    refused: str | None = None
    reissue_of: str | None = None
    resend_of: str | None = None


@attrs.frozen(kw_only=True)
class Duplicate(Event):
    """A re-send of a handoff I already read back: answered ``UN why=DUP`` (the Reply event follows)."""

    handoff: str = ""
    readback: str | None = None  # my readback, to deliver again if it was lost


@attrs.frozen(kw_only=True)
class ReadbackPassed(Event):
    """My handoff's readback passed every tier asked. ``confirm`` is the ``AN val=Y`` that clears the act
    under ``rb=acc``, ``plan`` or ``exec`` (None where the level needs none, and where ``send`` would refuse
    it now: ``refused`` says why, as the handoff closed by my cancel, or an ``exp`` passed)."""

    handoff: str = ""
    report: ReadbackReport | None = None
    confirm: Message | None = None
    refused: str | None = None


@attrs.frozen(kw_only=True)
class ReadbackVoid(Event):
    """My handoff's readback failed: nothing moved. ``reissue`` is the HO to send again (``re=`` the RB), or
    None with ``refused`` saying why ``send`` would refuse it now (the handoff is cancelled, or a later issue
    carried it forward)."""

    handoff: str = ""
    report: ReadbackReport | None = None
    reissue: Message | None = None
    refused: str | None = None


@attrs.frozen(kw_only=True)
class OwnershipTransferred(Event):
    item: str | None = None
    from_: str = ""
    to: str = ""
    via: str = ""


@attrs.frozen(kw_only=True)
class Confirmed(Event):
    """The sender answered my readback ``val=Y`` (``rb=acc``, ``plan``, ``exec``): I may act."""

    handoff: str = ""


@attrs.frozen(kw_only=True)
class ConfirmRefused(Event):
    """The sender answered my readback ``val=N``: the readback is void."""

    handoff: str = ""


@attrs.frozen(kw_only=True)
class QuestionAsked(Event):
    """An AQ to me: answer it with an AN or refuse it with a UN, never leave it."""


@attrs.frozen(kw_only=True)
class Answered(Event):
    """An answer (AN or UN) to a question of mine."""

    question: str = ""


@attrs.frozen(kw_only=True)
class DoneReport(Event):
    """A DN for my handoff, checked against the plan (``check_dn``); ``after_cancel`` when my CX went first;
    ``undo`` the reversal to send when the act differs from the plan, or None with ``refused`` saying why
    ``send`` would refuse it now (this end's own handoff of the item is open, say)."""

    handoff: str = ""
    report: ReadbackReport | None = None
    after_cancel: bool = False
    undo: Message | None = None  # where the act differs from the plan: the HO ask=UNDO that reverses it
    refused: str | None = None


@attrs.frozen(kw_only=True)
class HandoffClosed(Event):
    """A UN or FL closing my handoff (or a DN out=NOOP with nothing to check)."""

    handoff: str = ""


@attrs.frozen(kw_only=True)
class Cancelled(Event):
    """The sender withdrew a handoff to me. Abandon what ``abandon`` names, then send ``reply``:
    ``AN val=Y``, or the act's DN where the act already ran (None, with ``refused`` saying why, where ``send``
    would refuse it now)."""

    handoff: str = ""
    abandon: tuple[str, ...] = ()
    reply: Message | None = None
    refused: str | None = None


@attrs.frozen(kw_only=True)
class CancelAnswered(Event):
    handoff: str = ""


@attrs.frozen(kw_only=True)
class Refused(Event):
    """A UN answering a message of mine that is not a handoff (a question, a reply I sent)."""


@attrs.frozen(kw_only=True)
class StatusReport(Event):
    """An ST: state changed on an item, nothing handed over."""


@attrs.frozen(kw_only=True)
class Noted(Event):
    """A valid message that changes no handoff here (an answer to someone else's message, say)."""


@attrs.frozen(kw_only=True)
class Orphaned(Event):
    """(tick) My handoff is open past its ``exp=`` or ``due=``: ``cancel`` is the CX to send (None, with
    ``refused`` saying why, where ``send`` would refuse it now)."""

    handoff: str = ""
    reason: str = ""
    cancel: Message | None = None
    refused: str | None = None


@attrs.frozen(kw_only=True)
class ReadbackOverdue(Event):
    """(tick) No readback came within the deadline: ``resend`` is the same HO, ``re=`` the original (None, with
    ``refused`` saying why, where ``send`` would refuse it now)."""

    handoff: str = ""
    resend: Message | None = None
    refused: str | None = None


@attrs.frozen(kw_only=True)
class ChangeToEcho(Event):
    """Under ``rb=all``, the sender's ST or AN changes what I will do: send ``echo`` (composed by code,
    ``number=True``) before acting on it (None, with ``refused`` saying why, where ``send`` would refuse it
    now)."""

    handoff: str = ""
    echo: Message | None = None
    refused: str | None = None


@attrs.frozen(kw_only=True)
class EchoChecked(Event):
    """The receiver's echo of my change, checked like a readback: ``report.passed`` or not."""

    handoff: str = ""
    report: ReadbackReport | None = None


@attrs.frozen(kw_only=True)
class Held(Event):
    """(tick) My handoff's readback failed and was not re-issued: send ``reissue`` or ``cancel``, never leave it
    (either None, with ``refused`` saying why, where send would refuse it: the void readback is of an issue
    a re-send carried forward, say)."""

    handoff: str = ""
    reissue: Message | None = None
    cancel: Message | None = None
    refused: str | None = None




@attrs.frozen(kw_only=True)
class QuestionUnanswered(Event):
    """(tick) An AQ to me still unanswered past its ``by=`` (or the wait): answer it, or send ``refuse``."""

    by: str | None = None
    refuse: Message | None = None  # None, with ``refused`` saying why, where ``send`` would refuse it now
    refused: str | None = None


#: every event that offers a line to send, and the fields that hold it (each None, with the event's ``refused``
#: saying why, where send would refuse it: :meth:`Endpoint._sendable`)
_OFFERS: dict[type, tuple[str, ...]] = {
    HandoffOffered: ("readback",), ReadbackPassed: ("confirm",), ReadbackVoid: ("reissue",), DoneReport: ("undo",),
    Cancelled: ("reply",), ChangeToEcho: ("echo",), Held: ("reissue", "cancel"), Orphaned: ("cancel",),
    ReadbackOverdue: ("resend",), QuestionUnanswered: ("refuse",)}


# --------------------------------------------------------------------------
# handoffs


@attrs.define
class Handoff:
    """One handoff as this end knows it (a mutable record; read it through :class:`HandoffView`)."""

    key: str  # the first issue's id
    sender: str
    receiver: str
    item: str | None
    issues: list[str] = attrs.Factory(list)
    rb: str = "offered"
    close: str = "open"
    passing_rb: str | None = None  # the RB that passed for the live issue (for the done check)
    first_closer: str | None = None
    act_dn: str | None = None
    # the collections below are immutable and replaced when they grow: most handoffs never fill them, and
    # an empty tuple or frozenset costs nothing where an empty list or set does (a replay holds a handoff
    # at both ends of each HO)
    cancels: tuple[str, ...] = ()
    acknowledged: frozenset[str] = frozenset()
    findings: tuple[Finding, ...] = ()
    offered_at: str = ""  # when the live issue was sent or received
    void_at: str = ""
    resent_dup: frozenset[str] = frozenset()  # re-sends answered UN why=DUP
    echo: str = "echoed"
    pending: tuple[str, ...] = ()  # under rb=all: the sender's changes not yet echoed
    answered_by: str | None = None  # the receiver's first answer to a cancel (AN, or a close after it)

    @property
    def live(self) -> str:
        return self.issues[-1]


@attrs.frozen(kw_only=True)
class HandoffView:
    id: str  # the live issue
    key: str
    issues: tuple[str, ...]
    item: str | None
    sender: str
    receiver: str
    readback: str
    close: str

    @property
    def open(self) -> bool:
        return self.close == "open"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "key": self.key, "issues": list(self.issues), "item": self.item,
                "from": self.sender, "to": self.receiver, "readback": self.readback, "close": self.close}


def _stamp(at: _dt.datetime) -> str:
    return at.astimezone(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _unstamp(text: str) -> _dt.datetime:
    return _dt.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=_dt.timezone.utc)


def _utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


#: the time a readback is judged at here: before any ``exp=``. Expiry is this end's own rule, at its own clock
#: (``_guard_expiry``, ``may_act``, ``tick``) and check_thread's at its ``now`` (``open-past-exp``); the day the
#: check happens to run on must not void a readback in a journal or a replay
_BEFORE_ANY_EXP = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _past_exp(message: Message, at: _dt.datetime) -> str | None:
    """``message``'s ``exp=`` when ``at`` is past it (the ``exp`` minute itself is still in time), else None."""
    exp = message.get("exp")
    return exp if exp is not None and at > parse_time(exp) else None


_FINDING_TEXT = {
    "act-before-wilco": "{t} {m} reports an act on {k} before its readback passed (and, under rb=acc, plan or exec, "
                        "before AN val=Y)",
    "act-after-cancel": "DN {m} reports out={out} after a cancel of {k}; out=NOOP is the answer to a cancel that "
                        "arrived first",
    "closed-twice": "{k} is closed more than once: {t} {m} after {first}",
    "confirm-void": "AN {m} confirms a readback of {k} that did not pass",
    "act-before-echo": "{t} {m} reports an act on {k} before the sender's change to it was echoed (rb=all)",
    "confirm-without-readback": "AN {m} confirms {k} before any readback",
}


def check_echo(change: Message | str, rb: Message | str, *, profiles: Receiver | Iterable | None = None
               ) -> ReadbackReport:
    """The sender's check of an echo (rb=all) of its ST or AN: receipt, digest, and every slot the change
    carries read back equal (tiers 1 to 3, as for a readback)."""
    from .readback import compare_slot, coerce, tier_digest, tier_receipt, vocabulary_of

    receiver = as_receiver(profiles)
    if isinstance(change, str):
        change = Message.from_line(change, receiver)
    echo, problem = coerce(rb, receiver, "RB", "echo")
    if echo is None:
        return ReadbackReport(passed=False, findings=(problem,) if problem else (), check="check-echo", ho=change)
    vocab = vocabulary_of(change, receiver)
    findings: list[Finding] = tier_receipt(change, echo) + tier_digest(change, echo)
    for key, value in change.slots.items():
        if key != "p":
            findings += compare_slot(key, value, echo, vocab, 3, require=True)
    return ReadbackReport(passed=not any(f.failed for f in findings), findings=tuple(findings), check="check-echo",
                          ho=change, other=echo)


def finding_text(kind: str, message: Message, key: str, first: Message | None) -> str:
    """The words of a table finding: ``message`` breaks ``kind`` on handoff ``key``, ``first`` closed it."""
    return _FINDING_TEXT[kind].format(t=message.type, m=message.id, k=key, out=message.get("out"),
                                      first=f"{first.type} {first.id}" if first else "")


# --------------------------------------------------------------------------
# the endpoint


class Endpoint:
    """One agent's end of RW1 conversations: ``receive`` lines, ``send`` lines, ask what is true now.

    ``profiles`` are the profiles this agent holds; ``ledger`` a ledger (or a
    path to a SQLite one; default in memory); ``clock`` returns the time now
    (an aware datetime); ``id_width`` pads the numbers this end gives
    (``writer-01``); ``composed_only`` refuses readbacks not composed by code;
    ``readback_within`` is how long ``tick`` waits for a readback before
    offering the re-send.
    """

    _item_hos: dict[str, list[str]]  # item -> HO ids in order

    def __init__(self, me: str, *, profiles: Receiver | Iterable | None = None,
                 ledger: MemoryLedger | SQLiteLedger | Any = None, clock: Callable[[], _dt.datetime] | None = None,
                 id_width: int = 0, composed_only: bool = False,
                 readback_within: _dt.timedelta = _dt.timedelta(minutes=15),
                 answer_within: _dt.timedelta = _dt.timedelta(hours=1)) -> None:
        if not isinstance(me, str) or AGENT_RE.fullmatch(me) is None:
            raise ValueError(f"an agent name matches [A-Za-z0-9._-]+, not {me!r}")
        self.me = me
        self.receiver = as_receiver(profiles)
        if ledger is None or isinstance(ledger, (str, bytes)) or hasattr(ledger, "__fspath__"):
            ledger = open_ledger(os.fsdecode(ledger) if ledger is not None else None)
        self.ledger = ledger
        self.clock = clock or _utcnow
        self.id_width = id_width
        self.composed_only = composed_only
        self.readback_within = readback_within
        self.answer_within = answer_within
        #: judge a peer's fault of order as a possible crossing (live); False: the order seen is the order sent
        self.crossings = True
        self._observer = False  # a replay's endpoint also takes the messages about its handoffs sent to others
        self._peers: dict[str, Endpoint] | None = None  # a replay's endpoints, each keeping what it sent alone
        self._duplicates: set = set()  # a replay's re-sends answered UN why=DUP somewhere in the log
        self._places: Mapping[str, int] | None = None  # a replay's messages -> their place in the log
        #: compose readbacks for offered handoffs and check done reports (off while replaying a thread)
        self.compose = True
        self._rb_cache: dict[str, tuple[str, ReadbackReport | None]] = {}  # RB id -> its outcome (and report)
        self._tx: Transaction | None = None  # the ledger transaction of the step under way
        self._reset()
        with self.ledger.transaction(agent=self.me) as tx:
            self._catch_up(tx)

    def _init_replay(self, me: str, receiver: Receiver, cache: dict, shared: dict, duplicates: set,
                     peers: dict[str, Endpoint] | None = None, items: dict[str, list[str]] | None = None,
                     places: Mapping[str, int] | None = None) -> None:
        """An endpoint for :func:`replay`: no ledger, nothing composed, the order given is the order sent.

        ``peers``: the replay's endpoints, when each keeps the handoffs it sent alone (see
        :func:`replay_indexed`)."""
        self.me = me
        self.receiver = receiver
        self.ledger = None
        self.clock = _utcnow
        self.id_width = 0
        self.composed_only = False
        self.readback_within = _dt.timedelta(minutes=15)
        self.answer_within = _dt.timedelta(hours=1)
        self.crossings = False
        self.compose = False
        self._tx = None
        self._rb_cache = cache
        self._reset()
        self._messages = shared
        self._observer = True
        self._duplicates = duplicates
        self._places = places
        self._peers = peers
        if peers is not None and items is not None:  # one index of HOs by item for the whole replay
            self._item_hos = items  # (each end reads its own HOs in it)

    # ---- state --------------------------------------------------------------

    def _reset(self) -> None:
        self._seen = 0
        self._messages = {}
        self._dir: dict[str, str] = {}  # id -> "in" | "out"
        self._text: dict[str, str] = {}  # id -> the line as it went over the wire
        self._extra: dict[str, Mapping[str, Any]] = {}
        self._at: dict[str, str] = {}
        self._replies: dict[str, tuple[str, ...]] = {}  # received id -> ids of the replies it caused
        # rebuilding from the journal: its replies not yet applied (id -> entry), and those a step applied early
        self._ahead: dict[str, Entry] = {}
        self._early: set[str] = set()
        self._unreadable: dict[str, tuple[str, ...]] = {}  # a line that could not be taken -> its replies
        self._handoffs: dict[str, Handoff] = {}  # every issue id -> its handoff
        # of each issue (an HO id belongs to one handoff at this end, so these are kept here, by HO id: one
        # entry for each issue read back or carried forward, not two dicts for every handoff)
        self._readbacks: dict[str, tuple[str, str]] = {}  # HO id -> ("passed"|"failed", RB id)
        self._carried: dict[str, str] = {}  # an issue -> the later HO that carried it forward
        self._dup_of: dict[str, Handoff] = {}  # a re-send answered UN why=DUP -> the handoff it repeated
        self._item_hos = {}  # item -> HO ids in order
        self._ho_index: dict[str, int] = {}  # HO id -> its place in its item's list
        self._rb_of: dict[str, list[str]] = {}  # HO id -> the RBs that answer it
        self._changes: dict[str, Handoff] = {}  # under rb=all: a sender's ST or AN -> the handoff it changes
        self._item_passed: dict[str, int] = {}  # item -> the place of its latest HO whose readback passed
        self._item_acted: dict[str, int] = {}  # item -> the place of its latest HO whose receiver reported the act
        self._questions: dict[str, str | None] = {}  # AQ id -> the AN/UN that answered it
        # a CX that came before what it names (a transport that reorders): the id it names -> the CXs, applied
        # when that HO arrives, so a cancel received before the act stops it whatever the order of arrival
        self._early_cancels: dict[str, tuple[str, ...]] = {}
        # an ST or AN that came before what it names: the id it names -> those lines, applied as changes when that
        # HO arrives (rb=all), so a change received before the act is echoed before it whatever the order
        self._early_changes: dict[str, tuple[str, ...]] = {}
        # a CX that named an HO whose re= names an HO this end never saw -> that HO: while the link stays
        # lost, every handoff that HO may re-send is withdrawn for the act (:meth:`_held_cancel`)
        self._untraced_cancels: dict[str, str] = {}
        # such a CX -> the handoff it went to, as a guess, and that handoff's close state before it
        self._guessed: dict[str, tuple[Handoff, str]] = {}
        self._composed: dict[str, list[Message]] = {}  # HO id -> readbacks composed for it
        self._used: set[int] = set()
        self._taken: set[int] = set()  # numbers forged lines carried under my name: never given
        self._last_number = 0  # the ledger's counter for me (the tool's lines take numbers there too)
        self.findings: list[Finding] = []

    def _catch_up(self, tx: Transaction) -> None:
        entries = tx.entries(self.me, self._seen)
        # a step's replies are journalled after the line that caused it; a step that applied one before what it
        # did next (a UN why=DUP before the cancels held for the HO) takes it from here (:meth:`_journalled_reply`)
        self._ahead = {entry.msg_id: entry for entry in entries
                       if entry.dir == "out" and entry.msg_id is not None and "refused" not in entry.extra}
        try:
            for entry in entries:
                self._seen = max(self._seen, entry.seq)
                if entry.dir == "out" and entry.msg_id in self._early:
                    continue  # applied where the step that made it applied it
                try:  # a refused line is journalled cut short: it is never parsed again
                    message = None if "refused" in entry.extra else \
                        Message.from_line(entry.line, self.receiver).replace(source=None)
                except RW1Error:
                    message = None
                if entry.dir == "out":
                    if message is not None:
                        self._record(message, "out", entry.extra, entry.at, entry.line)
                        self._apply(message, outgoing=True, at=entry.at, live=False)
                else:
                    self._take(entry.line, message, entry.at, live=False, extra=entry.extra)
        finally:
            self._ahead = {}
            self._early = set()
        self._last_number = tx.last_number(self.me)

    def _journalled_reply(self, cause: str, kind: str, re: str) -> Message | None:
        """Rebuilding from the journal: the reply of type ``kind`` naming ``re`` that the live step taking
        ``cause`` composed and applied at this point, recorded here as it was then (None if the journal has
        none), so the rebuilt end applies what came after it in the same order as the live one."""
        for reply_id in self._replies.get(cause, ()):
            entry = self._ahead.get(reply_id)
            if entry is None:
                continue
            try:
                message = Message.from_line(entry.line, self.receiver).replace(source=None)
            except RW1Error:
                continue
            if message.type == kind and message.re == re:
                del self._ahead[reply_id]
                self._early.add(reply_id)
                self._record(message, "out", entry.extra, entry.at, entry.line)
                return message
        return None

    def _record(self, message: Message, direction: str, extra: Mapping[str, Any], at: str,
                text: str | None = None) -> None:
        self._messages[message.id] = message
        self._text[message.id] = text if text is not None else message.to_line()
        self._dir[message.id] = direction
        self._extra[message.id] = dict(extra)
        self._at[message.id] = at
        if direction == "out":
            number = MSGID_RE.fullmatch(message.id)
            if number is not None:
                self._used.add(int(number.group(2)))

    def _format_id(self, n: int) -> str:
        return f"{self.me}-{n:0{self.id_width}d}" if self.id_width else f"{self.me}-{n}"

    def _peek_id(self) -> str:
        return self._format_id(self._next_number())

    def _next_number(self) -> int:
        """The number this end gives next: past every number it used and the ledger's counter, skipping the
        numbers forged lines carried (so a squatted id never goes out again, and never blocks)."""
        n = max(max(self._used, default=0), self._last_number) + 1
        while n in self._taken:
            n += 1
        return n

    def reserve_number(self, n: int | None = None) -> int:
        """Take a message number for a line composed outside :meth:`send` (the tool's readback, its done
        report): the next this end would give, or ``n`` where it is past every number used. The ledger's
        counter moves past it, so no other line takes it. Inside a ledger transaction (the tool's step),
        it is that transaction's. Raises ValueError for an ``n`` that is not free."""
        try:
            with self.ledger.transaction(agent=self.me) as tx:
                self._catch_up(tx)
                if n is None:
                    n = self._next_number()
                elif n <= max(max(self._used, default=0), self._last_number) or n in self._taken:
                    raise ValueError(f"{self._format_id(n)} is not free: {self.me}'s lines are numbered from its "
                                     f"ledger (next {self._peek_id()}); leave the number out")
                tx.use_number(self.me, n)
                self._last_number = max(self._last_number, n)
                return n
        except ValueError:
            raise
        except BaseException:
            self._reset()
            raise

    def record_act(self, line: str) -> None:
        """Journal the report of an act that ran (the tool's DN, or its FL, numbered by
        :meth:`reserve_number`) as sent by this end. :meth:`send`'s checks are not run: the act happened,
        and the journal says so whatever arrived while it ran. Recording it again changes nothing."""
        message = Message.from_line(line, self.receiver).replace(source=None)
        try:
            with self.ledger.transaction(agent=self.me) as tx:
                self._catch_up(tx)
                if self._dir.get(message.id) != "out":
                    self._journal_out(tx, message, line, {})
        except BaseException:
            self._reset()
            raise

    # ---- queries ------------------------------------------------------------

    def refresh(self) -> None:
        """Read what other processes sharing the ledger recorded since this end's last step."""
        if self.ledger is None:  # a replay's endpoint
            return
        try:
            with self.ledger.transaction(agent=self.me) as tx:
                self._catch_up(tx)
        except BaseException:
            self._reset()
            raise

    def handoff(self, ho_id: str) -> HandoffView | None:
        self.refresh()
        h = self._handoffs.get(ho_id)
        return None if h is None else self._view(h)

    def _view(self, h: Handoff) -> HandoffView:
        return HandoffView(id=h.live, key=h.key, issues=tuple(h.issues), item=h.item, sender=h.sender,
                           receiver=h.receiver, readback=h.rb, close=h.close)

    def _unique(self) -> list[Handoff]:
        seen, out = set(), []
        for h in self._handoffs.values():
            if id(h) not in seen:
                seen.add(id(h))
                out.append(h)
        return out

    def open_handoffs(self) -> list[HandoffView]:
        """Handoffs this end sent or received that no close has ended yet."""
        self.refresh()
        return [self._view(h) for h in self._unique() if h.close == "open"]

    def owner(self, item: str) -> str | None:
        """The ``to`` of the most recent HO (as this end saw them) whose readback passed; before any,
        the sender of the item's first HO; None for an item this end never saw handed off."""
        self.refresh()
        return self._owner(item)

    def _owner(self, item: str) -> str | None:
        hos = self._item_hos.get(item)
        if not hos:
            return None
        latest = self._item_passed.get(item)
        if latest is not None:
            return self._messages[hos[latest]].to
        return self._messages[hos[0]].from_

    def may_act(self, ho_id: str, now: _dt.datetime | str | None = None) -> bool:
        """True when this end received the handoff, its readback passed (and, under ``rb=acc``, ``plan`` or
        ``exec``, the sender's ``AN val=Y`` came), nobody closed or cancelled it, its live HO's ``exp=`` has
        not passed (``now``, by default the endpoint's clock), and the item is still mine."""
        from .thread import parse_now

        self.refresh()
        h = self._handoffs.get(ho_id)
        if h is None or h.receiver != self.me or h.rb != "wilco" or h.close != "open" or h.echo != "echoed":
            return False
        if _past_exp(self._messages[h.live], parse_now(now) if now is not None else self.clock()):
            return False
        if self._held_cancel(h) is not None:
            return False
        # the item mine by the latest readback, and by the latest one its sender did not withdraw: a later
        # handoff to me read back and then cancelled leaves the item where it was before it (spec 5.4), which
        # may be with an agent I handed it on to since an earlier handoff to me
        return h.item is None or (self._acting_owner(h.item) == self.me and self._holder(h.item) == self.me
                                  and not self._handing_on(h.item))

    def _acting_owner(self, item: str) -> str | None:
        """:meth:`_owner`, where a handoff whose receiver reported the act (a DN; it may have overtaken the RB
        on the way) counts as read back: that receiver acted on the item, so it went on (spec 5 rule 1, one
        owner), whether or not this end saw the readback."""
        acted = self._item_acted.get(item)
        if acted is None or acted <= self._item_passed.get(item, -1):
            return self._owner(item)
        return self._messages[self._item_hos[item][acted]].to

    def _held_cancel(self, h: Handoff) -> str | None:
        """A cancel held for an HO not yet received (a transport that reorders) that may name an issue of ``h``:
        from its sender, to this end, about its item. Until that HO comes, this end cannot tell a re-send of
        ``h`` from a new handoff, and a cancel received before the act must stop it (spec 5.4)."""
        for held in self._early_cancels.values():
            for cx_id in held:
                cx = self._messages[cx_id]
                if (cx.from_, cx.to, cx.item) == (h.sender, self.me, h.item):
                    return cx_id
        # a cancel of the handoff ``h``, a re-send whose link was lost, may re-send: its sender withdrew the
        # handoff it holds, whose live issue ``h`` may be
        first = self._messages.get(h.issues[0])
        if first is None:
            return None
        if self._untraced(first):
            cancelled = self._cancelled_original_of(first, h)
            if cancelled is not None and cancelled.cancels:
                return cancelled.cancels[0]
        # a cancel of a re-send whose link was lost, which may re-send ``h``: its sender withdrew the handoff it
        # holds, whichever of the handoffs that re-send may repeat it is (the cancel was applied to one)
        for cx_id, resend_id in self._untraced_cancels.items():
            cx, resend = self._messages[cx_id], self._messages[resend_id]
            if ((cx.from_, cx.to) == (h.sender, self.me) and resend_id not in h.issues
                    and self._untraced(resend) and self._may_repeat(resend, first)):
                return cx_id
        return None

    def _untraced(self, ho: Message) -> bool:
        """Whether ``ho`` is an HO whose ``re=`` names an HO of its sender's this end never saw."""
        return (ho.type == "HO" and ho.re is not None and ho.re not in self._messages
                and ho.re.startswith(f"{ho.from_}-"))

    def _stands(self, h: Handoff) -> bool:
        """A handoff this end sent that still stands: open, or withdrawn by its cancel and not yet answered (its
        receiver may have acted, or may yet, before the cancel reaches it: spec 5.4, the answer says which)."""
        return h.close == "open" or (h.close == "cancelled" and h.answered_by is None)

    def _handing_on(self, item: str) -> bool:
        """This end sent a handoff of ``item`` that is still open: once its readback passes, the new holder
        owns the item (spec 5 rule 1), and this end hears of that only when the readback arrives; so from
        the HO on, this end no longer acts on the item (unless it withdraws the HO, or it closes)."""
        for ho_id in self._item_hos.get(item, ()):
            h = self._handoffs.get(ho_id)
            if h is not None and h.sender == self.me and h.receiver != self.me and self._stands(h):
                return True
        return False

    def pending_questions(self) -> list[Message]:
        """AQs to me that no AN or UN of mine has answered."""
        self.refresh()
        return [self._messages[q] for q, answer in self._questions.items()
                if answer is None and self._messages[q].to == self.me]

    def journal(self) -> list[tuple[str, str]]:
        """(direction, line) of every message this end handled, in order."""
        self.refresh()
        return [(self._dir[i], self._text[i]) for i in self._messages]

    def line_of(self, msg_id: str) -> str | None:
        """A message this end handled, as it went over the wire."""
        return self._text.get(msg_id)

    # ---- receive ----------------------------------------------------------------

    def receive(self, line: str | bytes) -> list[Any]:
        """Every event one incoming line means; never raises for what the line says."""
        if isinstance(line, bytes):
            raw = line
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                return [Unreadable(text=raw.decode("utf-8", "replace"),
                                   findings=(fail(kind="form", key=None, message="the line is not UTF-8"),))]
        if not isinstance(line, str):
            return [Unreadable(text=repr(line), findings=(fail(kind="form", key=None, message="a line is text"),))]
        text = line[:-1] if line.endswith("\n") else line
        text = text[:-1] if text.endswith("\r") else text
        try:
            with self.ledger.transaction(agent=self.me) as tx, self._in(tx):
                self._catch_up(tx)
                at = _stamp(self.clock())
                result = check_line(text, self.receiver)
                message = result.message.replace(source=None) if result.message is not None and result.valid else None
                if message is not None and message.id in self._messages:
                    return self._redelivered(message)
                refused = message is None or message.from_ == self.me
                journalled, extra = refused_entry(text) if message is None else (text, {})
                key = extra["refused"]["sha256"] if message is None else text
                if refused and key in self._unreadable:
                    if message is not None:
                        return [self._forged(message, text)]
                    again = tuple(self._text[r] for r in self._unreadable[key] if r in self._messages)
                    return [Redelivered(replies=again)] + [Reply(line=r) for r in again]
                events = self._sendable(self._take(text, message, at, live=True, result=result))
                replies = [e.line for e in events if isinstance(e, Reply)]
                extra["replies"] = [r.split(" ", 3)[2] for r in replies]
                self._seen = tx.append(self.me, "in", journalled, msg_id=message.id if message else None,
                                       extra=extra, at=at)
                for reply in replies:
                    self._seen = tx.append(self.me, "out", reply, msg_id=reply.split(" ", 3)[2], extra={}, at=at)
                    tx.use_number(self.me, int(MSGID_RE.fullmatch(reply.split(" ", 3)[2]).group(2)))  # type: ignore[union-attr]
                return events
        except BaseException:
            self._reset()  # memory may be ahead of the ledger: rebuild from it on the next step
            raise

    @contextmanager
    def _in(self, tx: Transaction) -> Iterator[None]:
        """The step's ledger transaction, for what the table's replies read of the agent's tool (``_tool_acts``)."""
        self._tx = tx
        try:
            yield
        finally:
            self._tx = None

    def _forged(self, message: Message, text: str) -> Forged:
        finding = fail(kind="forged", key=None, token=message.id,
                       message=f"{message.id} claims to come from {self.me}, which never sent it: refused as forged; "
                               "its number is never given to a line of this end")
        return Forged(text=text, message=message, findings=(finding,))

    def _redelivered(self, message: Message) -> list[Any]:
        if self._messages[message.id] != message:
            finding = fail(kind="form", key=None, token=message.id,
                           message=f"id {message.id} is already used by a different message; this one is left out")
            return [Unreadable(text=message.to_line(), message=message, findings=(finding,))]
        replies = tuple(self._text[r] for r in self._replies.get(message.id, ()) if r in self._messages)
        events: list[Any] = [Redelivered(message=message, replies=replies)]
        if message.type == "HO" and message.to == self.me:
            h = self._handoffs.get(message.id)
            if h is not None and h.live == message.id and h.close == "open" and h.rb == "offered" \
                    and not any(self._messages[rb].from_ == self.me for rb in self._rb_of.get(message.id, ())):
                events += self._sendable([self._offered(message, h)])  # still owed: a restart lost the readback
        ho = self._target(message) if message.type == "DN" else None
        h = self._handoffs.get(ho.id) if ho is not None else None
        if h is not None and h.sender == self.me and h.cancels and h.act_dn == message.id:
            # the act's DN again, after my cancel: the receiver's answer to it (spec 5.4)
            h.acknowledged = h.acknowledged.union(h.cancels)
            events.append(CancelAnswered(message=message, handoff=h.live))
        return events + [Reply(line=r) for r in replies]

    def _sendable(self, events: list[Any]) -> list[Any]:
        """The events, with what they offer to send held to what :meth:`send` takes now: a readback, a
        confirmation or a re-issue it would refuse (:meth:`_guard`, the same rules at the same clock) is offered
        as None, with the refusal's words in ``refused``."""
        out = []
        for e in events:
            withheld: dict[str, Any] = {}
            reasons: list[str] = []
            for field in _OFFERS.get(type(e), ()):
                offer = getattr(e, field)
                if offer is None or (self._dir.get(offer.id) == "out" and self._messages[offer.id] == offer):
                    continue  # (a line sent already, offered again as it went: the act's DN answering a cancel)
                try:
                    self._guard(offer, self.clock())
                except ProtocolError as exc:
                    withheld[field] = None
                    reasons.append(exc.message)
            out.append(attrs.evolve(e, **withheld, refused="; ".join(reasons)) if reasons else e)
        return out

    def _take(self, text: str, message: Message | None, at: str, *, live: bool,
              result: LineResult | None = None, extra: Mapping[str, Any] | None = None) -> list[Any]:
        """Handle an incoming line (live: make replies; replay: the journal holds them)."""
        if message is None:
            if not live:  # the journal holds its replies; the line is not parsed again
                kept = (extra or {}).get("refused")
                key = kept["sha256"] if isinstance(kept, dict) else refused_entry(text)[1]["refused"]["sha256"]
                self._unreadable[key] = tuple((extra or {}).get("replies", ()))
                return []
            if result is None:
                result = check_line(text, self.receiver)
            problem = result.refusal
            reply = None
            if problem is not None:
                n = self._next_number()
                reply = refusal_for(result, self.me, n)
                if reply is not None:
                    head = reply.split(" ", 3)
                    reply = " ".join(head[:2] + [self._format_id(n), head[3]])
            finding = fail(kind="form", key=None,
                           message=f"not a valid message ({problem.token or problem.kind}: {problem.message})"
                           if problem else "not a valid message")
            events: list[Any] = [Unreadable(text=text, findings=(finding,), reply=reply)]
            if reply is not None:
                self._record(Message.from_line(reply, self.receiver).replace(source=None), "out", {}, at, reply)
                events.append(Reply(line=reply))
            key = refused_entry(text)[1]["refused"]["sha256"]
            self._unreadable[key] = tuple(r.split(" ", 3)[2] for r in (reply,) if r is not None)
            return events
        if message.id in self._messages:
            return []
        if message.from_ == self.me:
            self._unreadable[text] = ()
            number = MSGID_RE.fullmatch(message.id)
            if number is not None:
                self._taken.add(int(number.group(2)))
            return [self._forged(message, text)]
        self._record(message, "in", {}, at, text)
        if extra is not None:
            self._replies[message.id] = tuple(extra.get("replies", ()))
        events = self._apply(message, outgoing=False, at=at, live=live)
        replies = [e.line for e in events if isinstance(e, Reply)]
        self._replies[message.id] = tuple(r.split(" ", 3)[2] for r in replies) if live else self._replies.get(message.id, ())
        return events

    # ---- the one place state changes -------------------------------------------------

    def _target(self, message: Message) -> Message | None:
        """The HO a message answers, through the RB, AN or CX it replies to (:func:`~rogerwilco.checks.lifecycle.handoff_of`)."""
        return handoff_of(message, self._messages.get)

    def continues(self, ho: Message) -> tuple[str, str] | None:
        """(earlier HO id, "resend" | "reissue") where ``ho`` carries an earlier handoff forward
        (:func:`rogerwilco.checks.lifecycle.issue_link`: the one rule for which HOs are one handoff)."""
        return issue_link(ho, self._messages.get)

    def _step(self, h: Handoff, event: str, message: Message) -> tuple[list[Finding], list[str]]:
        findings: list[Finding] = []
        replies: list[str] = []
        first = self._messages.get(h.first_closer) if h.first_closer else None
        for region in ("rb", "close", "echo"):
            state = getattr(h, region)
            step = TRANSITIONS.get((state, event))
            if step is None:
                continue
            setattr(h, region, step.next)
            for kind in step.findings:
                findings.append(fail(kind=kind, key=h.live, message=finding_text(kind, message, h.live, first),
                                     token=message.id))
            replies.extend(step.replies)
        return findings, replies

    def _evaluate(self, h: Handoff, event: str, message: Message) -> list[Finding]:
        """The findings an event would raise, without changing anything."""
        saved = (h.rb, h.close, h.echo)
        try:
            findings, _ = self._step(h, event, message)
        finally:
            h.rb, h.close, h.echo = saved
        return findings

    def _rb_event(self, ho: Message, rb: Message) -> tuple[str, ReadbackReport | None]:
        """The event an RB is, and the sender's check of it (a replay keeps the event alone: None)."""
        extra = self._extra.get(ho.id, {})
        private = bool(extra.get("expect_acc") or extra.get("record"))
        cached = None if private else self._rb_cache.get(rb.id)  # an RB answers one HO, the one its re= names
        if cached is not None:
            return cached
        whole_ho = whole(ho)
        # expiry is judged where the time is known, by the guards on what this end sends (an RB, the AN val=Y, the
        # act: docs/endpoint.md, "Expiry"); the verdict on the lines themselves is the same live and in a replay,
        # which has no time of sending for a line, so the RB is checked as of a moment before any exp
        report: ReadbackReport | None = None
        if self._observer:  # a replay reads the verdict alone (its events are not composed)
            passed = readback_passes(whole_ho, whole(rb), receiver=self.receiver, expect_acc=extra.get("expect_acc"),
                                     record=extra.get("record"), now=_BEFORE_ANY_EXP)
        else:
            report = check_rb(whole_ho, whole(rb), profiles=self.receiver, expect_acc=extra.get("expect_acc"),
                              record=extra.get("record"), now=_BEFORE_ANY_EXP)
            passed = report.passed
        if not passed:
            event = "RB-void"
        else:
            event = "RB-pass-wait" if waits_for_verdict(levels_of(whole_ho)) else "RB-pass"
        if not private and self._peers is None:  # (with its senders' ends alone, a replay checks each RB once)
            # a replay keeps the outcome alone: the report holds both messages whole, and nobody reads it
            self._rb_cache[rb.id] = (event, report)
        return event, report

    def _apply(self, message: Message, *, outgoing: bool, at: str, live: bool) -> list[Any]:
        """Run one message through the table and update every record; the events it means here."""
        mine = outgoing
        events: list[Any] = []
        if not outgoing and message.to != self.me and not self._observer:
            return [NotForMe(message=message)]
        kind = message.type
        if kind == "HO":
            return self._apply_ho(message, at, live=live, mine=mine)
        if kind == "AQ":
            self._questions.setdefault(message.id, None)
            return [] if mine else [QuestionAsked(message=message)]
        named = self._messages.get(message.re) if message.re else None
        if kind in ("ST", "AN") and named is None and message.re is not None and not mine and not self._observer:
            self._early_changes[message.re] = self._early_changes.get(message.re, ()) + (message.id,)
        if kind in ("ST", "AN"):
            changed = self._change_of(message, named)
            if changed is not None:
                return self._apply_change(message, changed, mine=mine)
        if kind in ("AN", "UN") and named is not None and named.type == "AQ":
            if self._questions.get(named.id) is None and message.from_ == named.to:
                self._questions[named.id] = message.id
            return [] if mine else [Answered(message=message, question=named.id)]
        if kind == "ST":
            return [] if mine else [StatusReport(message=message)]
        if kind == "RB":
            return self._apply_rb(message, named, mine=mine)
        if kind == "AN":
            return self._apply_an(message, named, mine=mine)
        ho = self._target(message)
        h = self._handoffs.get(ho.id) if ho is not None else None
        if ho is None or h is None:  # no handoff this end took part in
            if kind == "UN" and named is not None and not mine:
                return [Refused(message=message)]
            if kind == "CX" and named is None and message.re is not None and not mine and not self._observer:
                self._early_cancels[message.re] = self._early_cancels.get(message.re, ()) + (message.id,)
            return [] if mine else [Noted(message=message)]
        if kind == "UN" and message.get("why") == "DUP" and named is not None and named.type == "HO":
            split = self._split_dup(h, named, message)
            if split is not None:
                return [] if mine else [HandoffClosed(message=message, handoff=named.id)]
            if not self._observer and named.id == h.key and message.from_ == named.to and self._untraced(named):
                # a re-send whose link was lost, answered as a duplicate: when the link comes, the UN has closed
                # that re-send alone, as its sender reads it (and as a replay reads the log): the HO it names is
                # no issue of the re-send's closed handoff, and a cancel of the re-send withdraws that HO's
                self._duplicates.add(named.id)
        if kind == "CX" or (h.close == "open" and not is_duplicate_answer(message, message.get("why"), named or ho,
                                                                            self.continues(named or ho))):
            # a cancel naming a re-send its receiver answered UN why=DUP withdraws the handoff that re-send
            # repeated (spec 5.4: the receiver abandons what the cancel names; the sender meant the handoff);
            # any other close naming it before that UN closed it went to the handoff it was then an issue of
            # (live: it was not split off yet; in a replay, where it is a handoff of its own from the start, it
            # is still open)
            h = self._repeated_by(self._messages.get(h.key, ho)) or h
        if kind == "CX":
            first = self._messages.get(h.issues[0])
            if first is not None and self._untraced(first):
                self._untraced_cancels[message.id] = first.id
            guessed = self._untraced_original(h, message.id)
            if guessed is not None:
                self._guessed[message.id] = (guessed, guessed.close)
                h = guessed
            if message.from_ != ho.from_ or message.to != ho.to:
                finding = fail(kind="cancel-wrong-party", key=ho.id, token=message.id,
                               message=f"CX {message.id} comes from {message.from_} to {message.to}; only {ho.id}'s "
                               f"sender {ho.from_} can cancel it, to its receiver {ho.to}")
                self.findings.append(finding)
                h.findings += (finding,)
                return [] if mine else [Noted(message=message, findings=(finding,))]
        elif message.from_ != ho.to:
            return [] if mine else [Noted(message=message)]
        event = kind if kind != "DN" else ("DN-noop" if message.get("out") == "NOOP" else "DN-act")
        close_before = h.close
        if kind != "CX" and h.cancels:
            h.acknowledged = h.acknowledged.union(h.cancels)
        earlier = h.first_closer
        findings, replies = self._step(h, event, message)
        if not mine and self.crossings:
            findings = [self._crossed(f, earlier) for f in findings]
        if h.first_closer is None:
            h.first_closer = message.id
        if close_before == "cancelled" and h.close != "cancelled" and h.answered_by is None:
            h.answered_by = message.id
        if event == "DN-act" and h.act_dn is None:
            h.act_dn = message.id
            if h.item is not None and self._peers is None and h.live in self._ho_index:
                place = self._ho_index[h.live]
                self._item_acted[h.item] = max(self._item_acted.get(h.item, place), place)
        if kind == "CX":
            h.cancels += (message.id,)
        self.findings.extend(findings)
        if findings:
            h.findings += tuple(findings)
        if mine or self._observer:  # a replay's events are not read: nothing composed
            return []
        if kind == "DN" and self.compose:
            report, undo = self._done_check(h, message)
            return [DoneReport(message=message, handoff=h.live, report=report, findings=tuple(findings),
                               after_cancel=close_before in ("cancelled",), undo=undo)]
        if kind == "CX":
            reply: Message | None = None
            if "DN-again" in replies and h.act_dn is not None:
                reply = self._messages[h.act_dn]
            elif ("AN-Y" in replies or "DN-again" in replies) and not self._tool_acts(h):
                reply = self._compose("AN", re=message.id, to=message.from_, slots={"val": "Y"},
                                      profile=ho.profile, tail="abandoned; nothing executed")
            return [Cancelled(message=message, handoff=h.live, abandon=tuple(h.issues), reply=reply,
                              findings=tuple(findings))]
        if kind == "DN":
            return [DoneReport(message=message, handoff=h.live, findings=tuple(findings),
                               after_cancel=close_before in ("cancelled",))]
        return [HandoffClosed(message=message, handoff=h.live, findings=tuple(findings))]

    def _tool_acts(self, h: Handoff) -> list[str]:
        """The states of the agent's tool statements for ``h`` whose act ran or may have (in the step's ledger
        transaction): while one is in doubt, the answer to a cancel is the act's DN once it is known, never
        ``AN val=Y`` (spec 5.4), so none is offered."""
        acts = getattr(self._tx, "acts", None)
        return acts(tuple(h.issues)) if acts is not None else []

    def _crossed(self, finding: Finding, earlier: str | None) -> Finding:
        """A fault of order against a message of mine that its author may not have had yet: a note.

        An act's DN after my cancel, or a close after my close, may have crossed it on the way; a
        cancel cannot unsay an act, so the caller decides whether to reverse it (``ask=UNDO``).
        """
        if finding.kind == "act-after-cancel" or (finding.kind == "closed-twice" and earlier is not None
                                                  and self._dir.get(earlier) == "out"):
            return attrs.evolve(finding, severity=NOTE, message=finding.message + " (it may have crossed this end's "
                                "message on the way: a cancel cannot unsay an act)")
        return finding

    def _done_check(self, h: Handoff, dn: Message) -> tuple[ReadbackReport, Message | None]:
        """A DN for my handoff ``h`` checked against the plan (``check_dn``), and the reversal to send where the
        act differs from it."""
        rb = self._messages.get(h.passing_rb) if h.passing_rb else None
        live_ho = self._messages[h.live]
        extra = self._extra.get(live_ho.id, {})
        report = check_dn(live_ho, dn, rb, profiles=self.receiver, record=extra.get("record"), now=self.clock())
        return report, (self._undo(live_ho, dn, report) if not report.passed else None)

    def undo(self, dn_id: str) -> Message | None:
        """Compose by code the reversal of the act that ``dn_id``, a DN for my handoff, reports, where it differs
        from the plan (the ``undo`` of its :class:`DoneReport`), else None; send it with ``number=True``. For
        a reversal ``send`` refused when the DN came (the event's ``refused`` says why), once that is settled."""
        self.refresh()
        dn = self._messages.get(dn_id)
        ho = self._target(dn) if dn is not None and dn.type == "DN" else None
        h = self._handoffs.get(ho.id) if ho is not None else None
        if dn is None or h is None or h.sender != self.me or dn.to != self.me:
            raise ProtocolError(f"{dn_id} is no done report of a handoff of {self.me}'s", kind="not-offered")
        return self._done_check(h, dn)[1]

    def _undo(self, ho: Message, dn: Message, report: ReadbackReport) -> Message | None:
        """The reversal of an act whose done report contradicts the plan (spec 5.4): a new HO
        ``ask=UNDO ctx=<the DN's id>`` on the same item, built from the values as executed, asking
        ``rb=exec`` where the profile names execution slots for UNDO (``rb=all`` where it does not)."""
        from .readback import exec_slots, vocabulary_of

        if dn.get("out") == "NOOP" or not any(f.kind in ("mismatch", "missing") for f in report.failures()):
            return None
        vocab = vocabulary_of(ho, self.receiver)
        undo_slots = tuple(vocab.exec_slots.get("UNDO", ()))
        executed = exec_slots(ho, vocab)
        slots: dict[str, Any] = {"ask": "UNDO", "ctx": (dn.id,), "rb": ("exec",) if undo_slots else ("all",)}
        for key in undo_slots or executed:
            if dn.get(key) is not None:
                slots[key] = dn.get(key)
        try:
            return self._compose("HO", re=None, to=dn.from_, item=ho.item, slots=slots, profile=ho.profile,
                                 tail=f"reverse {dn.id}: the act differs from the plan")
        except RW1Error:
            return None

    def _apply_ho(self, ho: Message, at: str, *, live: bool, mine: bool) -> list[Any]:
        events = self._take_ho(ho, at, live=live, mine=mine)
        if self._untraced_cancels and not mine:
            moved = self._retarget_untraced_cancels(at, live=live)
            if moved:  # a handoff such a cancel withdraws is offered no readback
                events = [e for e in events if not isinstance(e, HandoffOffered)
                          or self._handoffs[e.handoff].close == "open"] + moved
        return events

    def _retarget_untraced_cancels(self, at: str, *, live: bool) -> list[Any]:
        """The cancels of a re-send whose link was lost, once an HO shows which handoff that re-send carries
        forward. Until then such a cancel went to the first handoff the re-send may repeat (:meth:`_untraced_original`;
        on a closed one, its close again). Where the re-send turns out to carry forward another handoff, the cancel
        withdraws that one, as its sender meant (spec 5.4): no readback or act on it follows. A close-twice the
        guess found on a handoff already closed is taken back (the cancel never named it). A handoff the guess
        withdrew while open stays withdrawn (its receiver abandoned it: no act on a guess undone), and, live, its
        sender, which never cancelled it, is told: a ``DN out=NOOP``, recorded as sent (a :class:`Reply`)."""
        events: list[Any] = []
        for cx_id, resend_id in list(self._untraced_cancels.items()):
            h = self._handoffs.get(resend_id)
            first = self._messages.get(h.issues[0]) if h is not None else None
            if h is None or first is None or cx_id in h.cancels:
                continue
            # the handoff the cancel withdraws now that the link is known (as :meth:`_apply` takes it: through a
            # re-send answered UN why=DUP, the handoff that re-send repeated): where that is the one it went
            # to by guess, the guess stands (it already closed it once)
            meant = self._repeated_by(self._messages.get(h.key, first)) or h
            if cx_id in meant.cancels:
                del self._untraced_cancels[cx_id]
                self._guessed.pop(cx_id, None)
                continue
            if self._untraced(first):  # still a re-send of an HO this end never saw: the guess stands
                self._untraced_cancels[cx_id] = first.id
                continue
            del self._untraced_cancels[cx_id]
            guessed, before = self._guessed.pop(cx_id, (None, ""))
            if guessed is not None and guessed is not h and before != "open":  # (its close again: taken back)
                step = TRANSITIONS[(before, "CX")]
                if guessed.close == step.next and guessed.cancels[-1:] == (cx_id,):  # nothing came after it
                    guessed.close = before
                    guessed.cancels = guessed.cancels[:-1]
                    self._take_back(guessed, lambda f: f.token == cx_id and f.kind in step.findings)
            elif (guessed is not None and guessed is not h and guessed.close == "cancelled"
                  and guessed.first_closer == cx_id and len(guessed.cancels) > 1 and guessed.cancels[0] == cx_id):
                # withdrawn open by the guess, then cancelled by its sender: that cancel is its first close (no
                # close-twice), and it stays withdrawn
                first = guessed.cancels[1]
                guessed.cancels = guessed.cancels[1:]
                guessed.first_closer = first
                self._take_back(guessed, lambda f: f.token == first and f.kind == "closed-twice")
            events += self._apply(self._messages[cx_id], outgoing=False, at=at, live=live)
            if (guessed is not None and guessed is not h and before == "open" and live and guessed.close == "cancelled"
                    and guessed.cancels[-1:] == (cx_id,) and guessed.answered_by is None):
                ho = self._messages[guessed.live]
                reply = self._compose("DN", re=ho.id, to=ho.from_, item=ho.item, slots={"out": "NOOP"},
                                      profile=ho.profile, tail=f"abandoned on {cx_id}, which named another "
                                      "handoff; nothing executed")
                self._record(reply, "out", {}, at)
                self._apply(reply, outgoing=True, at=at, live=live)
                events.append(Reply(line=reply.to_line()))
        return events

    def _take_back(self, h: Handoff, wrong: Callable[[Finding], bool]) -> None:
        """Drop the findings of ``h`` that a guess undone made (``wrong``), from the handoff and from this end."""
        gone = {f for f in h.findings if wrong(f)}
        h.findings = tuple(f for f in h.findings if f not in gone)
        self.findings[:] = [f for f in self.findings if f not in gone]

    def _take_ho(self, ho: Message, at: str, *, live: bool, mine: bool) -> list[Any]:
        if self._peers is not None and not mine:
            return []  # a replay that keeps each handoff at its sender's end alone (its receiver's is the same)
        link = self.continues(ho)
        repeated = None  # (a replay) the handoff a re-send answered UN why=DUP repeated, through a chain of them
        if ho.id in self._duplicates and link is not None and link[1] == "resend":
            repeated = self._repeated_by(ho) if not live else None
            link = None  # answered UN why=DUP: the re-send is a handoff of its own, which that UN closes
        hops: set[str] = set()
        while link is not None and link[1] == "resend" and (link[0] in self._duplicates or link[0] in self._dup_of) \
                and link[0] not in hops:
            # a re-send of a re-send answered UN why=DUP was sent before that UN came: at its sender it carried
            # forward the handoff the re-send repeated, and so it does here (live: that UN split the re-send off)
            hops.add(link[0])
            up = self.continues(self._messages[link[0]])
            if up is None or not (self._came_before(up[0], link[0]) if self._places is not None
                                  else up[0] in self._handoffs):
                break  # it came before what it repeats (a handoff of its own then): the re-send stays with it
            link = (up[0], "resend")
        if link is not None and link[0] not in self._handoffs:
            link = None  # it continues a handoff this end took no part in: to this end it is a new one
        events: list[Any] = []
        if ho.item is not None and (mine or self._peers is None):  # a shared index takes it once, from its sender
            hos = self._item_hos.setdefault(ho.item, [])
            if self._peers is None:  # the owner, for events (a replay that keeps its senders' ends alone has none)
                self._ho_index[ho.id] = len(hos)
            hos.append(ho.id)
        if link is None and repeated is None and (not mine or not live):  # (a replay: the receiver's order)
            late = self._resent_before(ho)
            if late is not None:  # a cancel held for it applies to the handoff it joins, as the thread check reads it
                return [] if mine else self._apply_held(ho, late, [Redelivered(message=ho)], at, live=live)
        if link is not None and link[1] == "resend":
            between = self._resent_between(ho, link[0])
            if between is not None:
                self._join_resends(ho, between)
                return [] if mine else [Redelivered(message=ho)]
        if link is None:
            h = Handoff(key=ho.id, sender=ho.from_, receiver=ho.to, item=ho.item, issues=[ho.id], offered_at=at)
            self._handoffs[ho.id] = h
            if repeated is not None:
                # live, it joined the handoff it repeated until the UN split it off, and its re-sends that came
                # first (handoffs of their own then) joined that handoff with it, and stayed there
                self._join_resends(self._messages[repeated.live], repeated, via=ho)
            if not mine:
                events.append(self._offered(ho, h))
                return self._apply_held(ho, h, events, at, live=live)
            return events
        earlier, how = link
        h = self._handoffs[earlier]
        h.issues.append(ho.id)
        self._carried[earlier] = ho.id
        h.offered_at = at
        self._handoffs[ho.id] = h
        if how == "resend":
            h = self._join_resends(ho, h)
        if how == "reissue":
            h.passing_rb = None
        findings, replies = self._step(h, how, ho)
        self.findings.extend(findings)
        if how == "reissue":  # its re-sends that came before it (untraced then) join it, as a re-send's do
            h = self._join_resends(ho, h, reissued=True)
        if mine:
            return events
        if how == "reissue" and (h.rb != "offered" or h.close != "open"):
            # such a re-send was read back or closed as a handoff of its own: it holds the re-issue now (one
            # readback, one act)
            events = [Redelivered(message=ho)]
        elif "UN-DUP" in replies and live:
            mine_rb = next((self._messages[rb] for issue in reversed(h.issues) for rb in self._rb_of.get(issue, ())
                            if self._messages[rb].from_ == self.me), None)
            reply = self._compose("UN", re=ho.id, to=ho.from_, item=ho.item, slots={"why": "DUP"},
                                  profile=ho.profile, tail=f"already read back {earlier}")
            self._record(reply, "out", {}, at)
            self._apply(reply, outgoing=True, at=at, live=live)
            events = [Duplicate(message=ho, handoff=earlier, readback=self._text[mine_rb.id] if mine_rb else None),
                      Reply(line=reply.to_line())]
        elif "UN-DUP" in replies and self._ahead:  # rebuilt: the UN the live step made here (a replay reads none)
            journalled = self._journalled_reply(ho.id, "UN", ho.id)
            if journalled is not None:
                self._apply(journalled, outgoing=True, at=at, live=live)
        elif h.close != "open":
            # a re-send of a handoff closed without a readback (cancelled, refused): nothing to read back or act
            # on (send refuses its RB), so it is offered nothing, as a re-issue of a closed handoff is not
            events = [Redelivered(message=ho)]
        else:
            offered = self._offered(self._messages[h.live], h)  # (a re-send of ``ho`` that came first is live)
            events = [attrs.evolve(offered, reissue_of=earlier if how == "reissue" else None,
                                   resend_of=earlier if how == "resend" else None)]
        if how == "resend" and (live or self._ahead):
            events += self._answer_resends_of_closed(ho, h, at, ho.id, live=live)
        return self._apply_held(ho, h, events, at, live=live)

    def _answer_resends_of_closed(self, ho: Message, h: Handoff, at: str, cause: str, *, live: bool) -> list[Any]:
        """The re-sends of ``ho`` that came before it and that this end read back as handoffs of their own (their
        ``re=`` named an HO it had not seen), and theirs in turn: ``ho`` shows them to be re-sends of ``h``. Where
        ``h`` is closed, each repeats a closed handoff: it is answered ``UN why=DUP``, which closes it, so no act
        and no second close follow (spec 5 rule 1: a retry cannot make a second owner; docs/endpoint.md, "A
        re-send read back before it could be traced")."""
        if h.close == "open" or ho.item is None:
            return []
        events: list[Any] = []
        for later_id in list(self._item_hos.get(ho.item, ())):
            later = self._messages.get(later_id)
            alone = self._handoffs.get(later_id)
            if (later is None or alone is None or alone is h or alone.issues[0] != later_id or later.re != ho.id
                    or later.from_ != ho.from_ or later.to != ho.to or alone.close != "open"
                    or alone.rb == "offered"):
                continue
            if live:
                reply = self._compose("UN", re=later.id, to=later.from_, item=later.item, slots={"why": "DUP"},
                                      profile=later.profile, tail=f"re-sends {h.key}, already closed")
                self._record(reply, "out", {}, at)
            else:  # rebuilt: the UN the live step made here
                journalled = self._journalled_reply(cause, "UN", later.id)
                if journalled is None:
                    continue
                reply = journalled
            self._apply(reply, outgoing=True, at=at, live=live)
            events += [Duplicate(message=later, handoff=h.key), Reply(line=reply.to_line())]
            events += self._answer_resends_of_closed(later, h, at, cause, live=live)
        return events

    def _resent_before(self, ho: Message) -> Handoff | None:
        """The handoff whose re-send of ``ho`` arrived before ``ho`` itself (a transport that reorders): ``ho``
        joins it as its first issue, carried forward by that re-send, and is offered nothing of its own (one
        handoff, one readback, one act: spec 5 rule 1, a retry "cannot create two owners")."""
        candidates: list[tuple[Message, Handoff]] = []
        for later_id in self._item_hos.get(ho.item, ()) if ho.item is not None else ():
            later = self._messages.get(later_id)
            h = self._handoffs.get(later_id)
            if later is None or h is None or h.sender != ho.from_ or h.receiver != ho.to or ho.id in h.issues:
                continue
            if later.id in self._duplicates:
                continue
            candidates.append((later, h))
        # the first that names ``ho``, whatever came in between (a re-send whose re= names an HO this end never
        # saw is no re-send of ``ho`` until that HO comes: it may re-send another handoff of the same slots)
        found = next(((later, h) for later, h in candidates if self.continues(later) == (ho.id, "resend")), None)
        if found is None:
            return None
        later, h = found
        h.issues.insert(0, ho.id)
        self._handoffs[ho.id] = h
        self._carried[ho.id] = later.id
        return h

    def _join_resends(self, ho: Message, h: Handoff, *, reissued: bool = False, via: Message | None = None) -> Handoff:
        """The re-sends of ``ho`` that arrived before it (their ``re=`` named an HO this end had not seen, so each
        was offered as a handoff of its own), and theirs in turn: ``ho`` re-sends ``h``, so they do too and join
        it, after ``ho`` (spec 5 rule 1: a retry cannot create two owners), with the re-sends of them that came
        after them. One read back or closed already stays as it is (its readback was the act of a handoff of its
        own then). One its sender cancelled joins too, and the cancel applies to ``h`` as a cancel held for an
        HO not yet received applies to the handoff that HO joins (docs/endpoint.md: on a handoff already
        closed, it closes it twice, as the thread check reads the same lines). Where ``h`` was neither read back
        nor closed by this end (its readback and its closes were refused while the re-send might repeat it: "A
        re-send that arrives before its original"), it is the other way round: ``h`` joins the re-send's
        handoff, which keeps its readback and its close (one readback, one act). ``reissued``: ``ho`` is a
        re-issue, offered again (it may change the HO: a readback of a re-send of it, read back as a handoff of
        its own before it came, counts for nothing, as a readback of an issue before a re-issue; a close
        stands). ``via``: the re-sends of that HO instead (a re-send of ``ho`` answered UN why=DUP), joined after
        ``ho``. The handoff that holds them all is returned."""
        named = (via or ho).id
        for later_id in list(self._item_hos.get(ho.item, ())) if ho.item is not None else ():
            later = self._messages.get(later_id)
            alone = self._handoffs.get(later_id)
            if (later is None or alone is None or alone is h or alone.issues[0] != later_id or later.re != named
                    or later.from_ != ho.from_ or later.to != ho.to or later_id in self._duplicates
                    or not self._resent_since(alone, later_id)):
                continue
            # (a readback that failed is no readback: no act follows it)
            if (reissued or alone.rb in ("offered", "void")) and alone.close in ("open", "cancelled"):
                into, taken = h, alone
            elif h.rb in ("offered", "void") and h.close in ("open", "cancelled"):
                into, taken = alone, h
            else:
                continue  # both read back or closed: each stays as it is (its act was a handoff's of its own then)
            issues = list(h.issues)
            at = issues.index(ho.id) + 1
            issues[at:at] = alone.issues
            into.issues[:] = issues
            self._carried[ho.id] = later_id
            for issue in taken.issues:
                self._handoffs[issue] = into
            into.acknowledged = into.acknowledged.union(taken.acknowledged)
            for cx in taken.cancels:
                self._apply(self._messages[cx], outgoing=self._dir.get(cx) == "out", at=self._at.get(cx, ""),
                            live=False)
            h = into
            for issue in taken.issues:
                h = self._join_resends(self._messages[issue], h, reissued=reissued)
        return h

    def _resends_unseen(self, later: Message, h: Handoff, ho: Message) -> bool:
        """Whether ``later``, the first issue ``h`` has, is an HO whose ``re=`` names an HO of its sender's this
        end never saw and may re-send ``ho`` (:meth:`_may_repeat`): a re-send of a re-send lost in transit, and
        taken as one where it matters for the act (one act at most)."""
        return h.issues[0] == later.id and self._untraced(later) and self._may_repeat(later, ho)

    def _may_repeat(self, later: Message, ho: Message) -> bool:
        """Whether ``later``, an HO whose ``re=`` names an HO this end never saw, may re-send ``ho``, the first
        issue of another handoff: an original (no ``re=``), or itself a re-send whose ``re=`` names an HO this
        end never saw (``a-2 re=a-1`` and ``a-4 re=a-3``, the original and ``a-3`` lost, may be one handoff);
        the same parties, item and slots, and ``ho`` not numbered past that lost HO."""
        return ((ho.re is None or self._untraced(ho)) and ho.id != later.id
                and not _numbered_after(ho.id, str(later.re), later.from_)
                and whole(later).replace(id=ho.id, re=ho.re, tail=ho.tail) == whole(ho))

    def _cancelled_original_of(self, ho: Message, h: Handoff) -> Handoff | None:
        """The other handoff, cancelled by its sender, that ``ho``, the first issue of ``h``, may re-send through an
        HO lost in transit (:meth:`_repeated_original`, read back or not): a re-send sent before that cancel, it may
        be, which the cancel withdraws too."""
        return self._repeated_original(ho, h, lambda other: other.close == "cancelled")

    def _repeated_original(self, ho: Message, h: Handoff, fits: Callable[[Handoff], bool]) -> Handoff | None:
        """The first other handoff that ``fits`` and whose original ``ho``, the first issue of ``h``, repeats
        with a ``re=`` naming an HO this end never saw (:meth:`_resends_unseen`)."""
        for other_id in self._item_hos.get(ho.item, ()) if ho.item is not None else ():
            other = self._handoffs.get(other_id)
            if other is None or other is h or other.live != other_id or not fits(other):
                continue
            if self._resends_unseen(ho, h, self._messages[other.issues[0]]):  # (its key may be a re-send)
                return other
        return None

    def _resend_read_back(self, ho: Message, h: Handoff) -> Handoff | None:
        """The other handoff this end read back whose first issue may re-send ``ho``, an original (no ``re=``),
        through an HO lost in transit (:meth:`_resends_unseen`): reading ``ho`` back too would make two acts of
        one handoff, whichever of the two came first. ``ho`` may itself be such a re-send."""
        return self._resend_that(ho, h, lambda other: other.rb in ("read-back", "wilco"))

    def _resend_closed(self, ho: Message, h: Handoff) -> Handoff | None:
        """The other handoff this end closed unread (``DN``, ``UN`` or ``FL``; not ``UN why=DUP``, which its
        sender splits off) whose first issue may re-send ``ho`` through an HO lost in transit: at its sender
        that close, it may be, closed ``ho``'s handoff, so reading ``ho`` back or closing it again would be an act
        or a close after a close (docs/endpoint.md, "A re-send of a re-send that was lost")."""
        return self._resend_that(ho, h, lambda other: other.close in ("done", "closed") and not self._dup_close(other))

    def _dup_close(self, h: Handoff) -> bool:
        closer = self._messages.get(h.first_closer) if h.first_closer else None
        return closer is not None and closer.type == "UN" and closer.get("why") == "DUP"

    def _resend_that(self, ho: Message, h: Handoff, fits: Callable[[Handoff], bool]) -> Handoff | None:
        """The first other handoff that ``fits`` whose first issue may re-send ``ho`` through an HO lost in
        transit (:meth:`_resends_unseen`); ``ho``, the first issue of ``h``, an original or itself such a re-send."""
        if ho.re is not None and not self._untraced(ho):
            return None
        for other_id in self._item_hos.get(ho.item, ()) if ho.item is not None else ():
            other = self._handoffs.get(other_id)
            if other is None or other is h or other.key != other_id or not fits(other):
                continue
            first = self._messages.get(other.issues[0])
            if first is not None and self._resends_unseen(first, other, ho):
                return other
        return None

    def _resent_between(self, ho: Message, earlier: str) -> Handoff | None:
        """The handoff where a re-send ``ho`` of ``earlier`` arrives after a re-send of it: ``ho`` takes its
        place in the chain between them (the live issue stays the latest), and is offered nothing."""
        h = self._handoffs.get(earlier)
        if h is None or earlier not in h.issues or ho.id in h.issues:
            return None
        after = next((i for i in h.issues[h.issues.index(earlier) + 1:] if self._messages[i].re == ho.id), None)
        if after is None:  # (``ho`` re-sent by an issue before ``earlier``: a loop of re=, taken in the order given)
            return None
        h.issues.insert(h.issues.index(after), ho.id)
        self._handoffs[ho.id] = h
        self._carried[earlier] = ho.id
        self._carried[ho.id] = after
        return h

    def _guard_untraced_close(self, msg: Message, h: Handoff) -> None:
        """A close by this end, the receiver, of a handoff that may be one with another it holds, the link lost in
        transit: only ``UN why=DUP`` of the untraced re-send, which its sender splits off, closes nothing else.
        Any other close of either is, at the sender, the close of the handoff it holds (whose live issue the
        re-send is), while this end would keep the other open to read back and act on (an act after a close), or
        closes it a second time (docs/endpoint.md, "A re-send that arrives before its original")."""
        if h.close != "open" or h.rb in ("read-back", "wilco"):
            return
        first = self._messages.get(h.issues[0])
        if first is None or first.type != "HO":
            return
        dup = msg.type == "UN" and msg.get("why") == "DUP"
        if self._untraced(first):
            if dup:
                return  # at its sender, a re-send split off
            held = self._repeated_original(first, h, lambda other: True)
            if held is not None:
                raise ProtocolError(f"{h.live} names {first.re}, which {self.me} never saw, and repeats {held.live}: "
                                    f"a re-send of it, it may be, and at its sender a close of it closes {held.live}'s "
                                    f"handoff; answer it UN why=DUP", kind="dup-only", token=msg.id)
        other, done = self._resend_read_back(first, h), "read back: a re-send of it, it may be, whose readback and " \
            "close stand"
        if other is None:
            other, done = self._resend_closed(first, h), "closed unread: a re-send of it, it may be, whose close stands"
        if other is not None:
            raise ProtocolError(f"{other.key}, which names an HO {self.me} never saw, repeats {h.live} and was {done} "
                                f"for {h.live}'s handoff at its sender; {h.live} needs no answer", kind="dup-only",
                                token=msg.id)

    def _untraced_original(self, h: Handoff, cancel: str) -> Handoff | None:
        """The handoff, open or read back, that ``h``, offered and not read back, may re-send through an HO lost in
        transit (:meth:`_repeated_original`), else None. A cancel of ``h`` withdraws that handoff: its sender cancels
        the handoff it holds, whose live issue ``h`` is (spec 5.4: the receiver abandons what a cancel names);
        acting on the original after it would be the act the cancel forbids (docs/endpoint.md, "A re-send that
        arrives before its original")."""
        first = self._messages.get(h.issues[0])
        if first is None or first.type != "HO" or h.rb != "offered":
            return None
        return self._repeated_original(
            first, h, lambda other: (other.close == "open" or other.rb in ("read-back", "wilco"))
            and self._came_before(other.issues[0], cancel))

    def _came_before(self, ho_id: str, message_id: str) -> bool:
        """Whether the HO ``ho_id`` came before the message ``message_id``: live, every HO this end holds did;
        a replay, which takes every HO first, reads the log's order."""
        places = self._places
        return places is None or places.get(ho_id, -1) < places.get(message_id, len(places))

    def _repeated_by(self, resend: Message) -> Handoff | None:
        """The handoff a re-send answered ``UN why=DUP`` repeated (live: split off when the UN came; in a
        replay: its own handoff from the start), else None. ``resend`` is the key of the handoff a cancel
        names, so a cancel of a later re-send of that re-send is followed back too. A re-send of a re-send
        answered as a duplicate, itself answered so, repeated what that one repeated (in a replay, the chain is
        followed back to the first HO of it no UN answered as a duplicate)."""
        if resend.id in self._dup_of:
            return self._dup_of[resend.id]
        seen: set[str] = set()
        while resend.id in self._duplicates and resend.id not in seen:
            seen.add(resend.id)
            link = self.continues(resend)
            if link is None or link[1] != "resend":
                return None
            up = self._messages.get(link[0])
            if up is None or up.id not in self._duplicates:
                return self._handoffs.get(link[0])
            resend = up
        return None

    def _apply_held(self, ho: Message, h: Handoff, events: list[Any], at: str, *, live: bool) -> list[Any]:
        """The CXs that named ``ho`` before it arrived, applied now (spec 5.4: the receiver abandons what a
        cancel names; a handoff they cancel is offered no readback), then the changes that did."""
        held = self._early_cancels.pop(ho.id, ())
        if held:
            cancels: list[Any] = []
            for cx in held:
                cancels += self._apply(self._messages[cx], outgoing=False, at=at, live=live)
            if h.close != "open":
                events = [e for e in events if not isinstance(e, HandoffOffered)]
            events = events + cancels
        return events + self._apply_early_changes(ho)

    def _apply_early_changes(self, ho: Message) -> list[Any]:
        """The STs and ANs that named ``ho`` before it arrived, taken now as the changes they are (rb=all: each
        is echoed before the act, spec 5 rule 1); one already taken as a change (by its item) is not taken again."""
        events: list[Any] = []
        for change_id in self._early_changes.pop(ho.id, ()):
            change = self._messages[change_id]
            h = self._change_of(change, ho) if change_id not in self._changes else None
            if h is not None:
                events += self._apply_change(change, h, mine=False)
        return events

    def _offered(self, ho: Message, h: Handoff) -> HandoffOffered:
        if not self.compose:
            return HandoffOffered(message=ho, handoff=h.key)
        try:
            rb = make_rb(ho, 0, profiles=self.receiver).replace(id=self._peek_id())
            self._composed.setdefault(ho.id, []).append(rb)
            needs = None
        except ReadbackInputError as exc:
            rb, needs = None, exc.message
        return HandoffOffered(message=ho, handoff=h.key, readback=rb, needs=needs)

    def _split_dup(self, h: Handoff, resend: Message, un: Message) -> Handoff | None:
        """A re-send answered ``UN why=DUP`` by its receiver: the UN closes that re-send alone."""
        if resend.id not in h.issues or resend.id == h.key:
            return None
        if not is_duplicate_answer(un, un.get("why"), resend, self.continues(resend)):
            return None
        h.issues.remove(resend.id)
        h.resent_dup = h.resent_dup.union((resend.id,))
        self._dup_of[resend.id] = h
        for earlier in (*h.issues, *h.resent_dup):
            if self._carried.get(earlier) == resend.id:
                del self._carried[earlier]
        self._carried.pop(resend.id, None)  # a handoff of its own now, which nothing has carried forward
        alone = Handoff(key=resend.id, sender=resend.from_, receiver=resend.to, item=resend.item,
                        issues=[resend.id], close="closed", first_closer=un.id, offered_at=self._at.get(resend.id, ""))
        self._handoffs[resend.id] = alone  # its readback, if any, goes with it (kept by HO id)
        return alone

    def _resent_since(self, h: Handoff, ho_id: str) -> bool:
        """Whether every issue of ``h`` after ``ho_id`` is a re-send: the same HO again (spec 5 rule 1), so a
        readback of ``ho_id`` that crossed them reads back the live issue (its receiver answers them UN why=DUP).
        A re-issue after a void readback may change the HO: a readback of an issue before it counts for nothing."""
        if ho_id not in h.issues:
            return False
        later = h.issues[h.issues.index(ho_id) + 1:]
        return all((link := self.continues(self._messages[i])) is not None and link[1] == "resend" for i in later)

    def _change_of(self, message: Message, named: Message | None) -> Handoff | None:
        """The rb=all handoff an ST or AN of its sender changes, where it is one (spec 5 rule 1)."""
        if message.type == "AN" and named is not None and named.type in ("RB", "CX"):
            return None  # a go-ahead or a cancel's answer changes nothing
        ho = None
        seen = {message.id}
        current = named
        while current is not None and current.type in ("RB", "AN", "CX", "AQ", "ST") and current.id not in seen:
            seen.add(current.id)
            current = self._messages.get(current.re) if current.re else None
        if current is not None and current.type == "HO":
            ho = current
        elif message.type == "ST" and named is None and message.item is not None:
            for ho_id in reversed(self._item_hos.get(message.item, ())):
                candidate = self._handoffs.get(ho_id)
                if candidate is None and self._peers is not None:  # one I received: as its sender's end has it
                    listed = self._messages[ho_id]
                    if self.me != listed.to:
                        continue  # the shared index: an HO between two others
                    sender = self._peers.get(listed.from_)
                    candidate = sender._handoffs.get(ho_id) if sender is not None else None
                if candidate is not None and candidate.close == "open":
                    ho = self._messages[candidate.live]
                    break
        # a change naming a re-send answered UN why=DUP changes the handoff that re-send repeated
        h = (self._repeated_by(ho) or self._handoffs.get(ho.id)) if ho is not None else None
        if h is None or (message.from_, message.to) != (h.sender, h.receiver) or h.close != "open":
            return None
        if "all" not in levels_of(whole(self._messages[h.live])):
            return None
        return h

    def _apply_change(self, message: Message, h: Handoff, *, mine: bool) -> list[Any]:
        h.pending += (message.id,)
        self._changes[message.id] = h
        self._step(h, "change", message)
        named = self._messages.get(message.re) if message.re else None
        if message.type == "AN" and named is not None and named.type == "AQ" and message.from_ == named.to \
                and self._questions.get(named.id) is None:
            self._questions[named.id] = message.id
        if mine:
            return []
        echo = self._echo(message, h) if self.compose else None
        return [ChangeToEcho(message=message, handoff=h.live, echo=echo)]

    def _echo(self, change: Message, h: Handoff) -> Message:
        """The receiver's echo of a change, composed by code: an RB of every slot it carries, and its digest."""
        ho = self._messages[h.live]
        slots: dict[str, Any] = {"p": ho.profile} if ho.profile else {}
        slots["ask"] = ho.get("ask")
        for key, value in change.slots.items():
            if key != "p":
                slots[key] = value
        slots["h"] = change.digest()
        return self._compose("RB", re=change.id, to=change.from_, item=h.item, slots=slots)

    def _apply_echo(self, rb: Message, change: Message, *, mine: bool) -> list[Any]:
        h = self._changes.get(change.id)
        if h is None or change.id not in h.pending:
            return [] if mine else [Noted(message=rb)]
        report = check_echo(whole(change), whole(rb), profiles=self.receiver)
        if report.passed:
            at = h.pending.index(change.id)
            h.pending = h.pending[:at] + h.pending[at + 1:]
            if not h.pending:
                self._step(h, "echo", rb)
        if mine:
            return []
        return [EchoChecked(message=rb, handoff=h.live, report=report)]

    def _apply_rb(self, rb: Message, ho: Message | None, *, mine: bool) -> list[Any]:
        if ho is not None and ho.type in ("ST", "AN"):
            return self._apply_echo(rb, ho, mine=mine)
        if ho is None or ho.type != "HO":
            return [] if mine else [Noted(message=rb)]
        h = self._handoffs.get(ho.id)
        if h is None:
            return [] if mine else [Noted(message=rb)]
        if not self._observer:  # read by the live paths alone (a redelivery, a re-send answered UN why=DUP)
            self._rb_of.setdefault(ho.id, []).append(rb.id)
        event, report = self._rb_event(ho, rb)  # an RB from anyone but the receiver fails tier 1
        before_owner = self._owner(ho.item) if ho.item is not None and self._peers is None else None
        if event != "RB-void":
            if self._readbacks.get(ho.id, ("", ""))[0] != "passed":
                self._readbacks[ho.id] = ("passed", rb.id)
                if ho.item is not None and self._peers is None:
                    place = self._ho_index[ho.id]
                    self._item_passed[ho.item] = max(self._item_passed.get(ho.item, place), place)
            if ho.id == h.live and h.passing_rb is None:
                h.passing_rb = rb.id
        elif self._readbacks.get(ho.id, ("", ""))[0] != "passed":
            self._readbacks[ho.id] = ("failed", rb.id)
        if ho.id == h.live or self._resent_since(h, ho.id):
            if event == "RB-void":
                h.void_at = self._at.get(rb.id, "")
            if ho.id != h.live and h.passing_rb is None and event != "RB-void":
                h.passing_rb = rb.id
            self._step(h, event, rb)
        if mine or self._observer or report is None:  # a replay's events are not read: nothing composed
            return []
        if event == "RB-void":
            keys = []
            for f in report.failures():
                label = f"{f.kind} on {f.key}" if f.key else f.kind
                if label not in keys:
                    keys.append(label)
            tail = ho.tail if ho.tail is not None else ("readback " + ", ".join(keys))[:300]
            reissue = self._compose("HO", re=rb.id, to=ho.to, item=ho.item, slots=dict(ho.slots), tail=tail,
                                    profile=None)
            return [ReadbackVoid(message=rb, handoff=h.live, report=report, reissue=reissue)]
        confirm = None
        if event == "RB-pass-wait":
            confirm = self._compose("AN", re=rb.id, to=rb.from_, slots={"val": "Y"}, profile=ho.profile)
        events: list[Any] = [ReadbackPassed(message=rb, handoff=h.live, report=report, confirm=confirm)]
        after = self._owner(ho.item) if ho.item is not None else None
        if after != before_owner:
            events.append(OwnershipTransferred(message=rb, item=ho.item, from_=ho.from_, to=ho.to, via=ho.id))
        return events

    def _apply_an(self, an: Message, named: Message | None, *, mine: bool) -> list[Any]:
        if named is None:
            return [] if mine else [Noted(message=an)]
        if named.type == "RB":
            ho = self._messages.get(named.re) if named.re else None
            h = self._handoffs.get(ho.id) if ho is not None else None
            if ho is None or h is None or ho.type != "HO" or an.from_ != ho.from_ or an.to != ho.to:
                return [] if mine else [Noted(message=an)]
            val = an.get("val")
            if (ho.id != h.live and not self._resent_since(h, ho.id)) or val not in ("Y", "N"):
                return [] if mine else [Noted(message=an)]
            findings, _ = self._step(h, "confirm" if val == "Y" else "refuse", an)
            self.findings.extend(findings)
            if findings:
                h.findings += tuple(findings)
            if mine:
                return []
            cls = Confirmed if val == "Y" else ConfirmRefused
            return [cls(message=an, handoff=h.live, findings=tuple(findings))]
        if named.type == "CX":
            ho = self._target(named)
            h = self._handoffs.get(ho.id) if ho is not None else None
            if h is not None and ho is not None:  # the handoff the cancel withdrew (a re-send answered UN why=DUP:
                h = self._repeated_by(self._messages.get(h.key, ho)) or h  # the one it repeated)
            if h is not None and an.from_ == named.to:
                h.acknowledged = h.acknowledged.union((named.id,))
                if h.close == "cancelled" and h.answered_by is None:
                    h.answered_by = an.id
                return [] if mine else [CancelAnswered(message=an, handoff=h.live)]
        return [] if mine else [Noted(message=an)]

    # ---- composing -------------------------------------------------------------------

    def _compose(self, type_: str, *, re: str | None, to: str, slots: Mapping[str, Any], item: str | None = None,
                 profile: str | None = None, tail: str | None = None) -> Message:
        body: dict[str, Any] = {"p": profile} if profile else {}
        body.update(slots)
        message = Message(type=type_, id=self._peek_id(), re=re, from_=self.me, to=to, item=item, slots=body,
                          tail=tail)
        return reread(message, self.receiver)

    def readback(self, ho_id: str, **kwargs: Any) -> Message:
        """Compose my readback of ``ho_id`` by code (:func:`make_rb`'s arguments: ``acc``, ``do``,
        ``values``...); send it with ``number=True``."""
        ho = self._messages.get(ho_id)
        if ho is None or ho.type != "HO" or ho.to != self.me:
            raise ProtocolError(f"{ho_id} is not a handoff to {self.me}", kind="not-offered")
        rb = make_rb(ho, 0, profiles=self.receiver, **kwargs).replace(id=self._peek_id())
        self._composed.setdefault(ho.id, []).append(rb)
        return rb

    # ---- send -------------------------------------------------------------------------

    def send(self, message: Message | str | Mapping[str, Any], *, number: bool = False,
             expect_acc: str | Iterable[str] | None = None, record: Mapping[str, Any] | None = None) -> str:
        """Validate, number (``number=True``: this end gives the id), check against the protocol,
        record, and return the line to send. Raises :class:`ProtocolError` for what this end may not send.

        For an HO, ``expect_acc`` (the criteria kept back) and ``record`` (the approval record) are
        kept to check its readback and done report; with ``record`` the HO is checked against it
        before it goes (``check_ho``).
        """
        msg = self._coerce(message, number)
        try:
            with self.ledger.transaction(agent=self.me) as tx:
                self._catch_up(tx)
                if number:
                    n = self._next_number()
                    msg = reread(msg.replace(id=self._format_id(n)), self.receiver)
                else:
                    found = MSGID_RE.fullmatch(msg.id)
                    n = int(found.group(2)) if found else 0
                    if (n in self._used or n in self._taken) and self._dir.get(msg.id) != "out":
                        raise ProtocolError(f"{msg.id}: number {n} is already used by this end"
                                            + ("" if n in self._used else " (a forged line carried it)"),
                                            kind="id-reused", token=msg.id)
                if not number and self._dir.get(msg.id) == "out" and self._messages[msg.id] == msg:
                    return self._text[msg.id]  # the same message again (a cancel answered by the act's DN, a retry)
                if msg.from_ != self.me:
                    raise ProtocolError(f"{msg.id} is from {msg.from_}; this end is {self.me}", kind="not-mine",
                                        token=f"from={msg.from_}")
                extra: dict[str, Any] = {}
                if msg.type == "HO":
                    if expect_acc is not None and not {"acc", "plan"} & set(levels_of(msg)):
                        # criteria kept back at a level whose act does not wait for AN val=Y: the receiver
                        # would judge its readback passed without them, and act on one the sender voids
                        raise ProtocolError(f"{msg.id} keeps criteria back (expect_acc) but asks rb="
                                            f"{'+'.join(levels_of(msg))}: ask rb=acc or rb=plan, so the receiver "
                                            "waits for AN val=Y", kind="criteria-not-asked", token=msg.id)
                    if expect_acc is not None:
                        extra["expect_acc"] = expect_acc if isinstance(expect_acc, str) else "+".join(expect_acc)
                    if record is not None:
                        extra["record"] = {k: v for k, v in dict(record).items()}
                        checked = check_ho(msg, record, profiles=self.receiver)
                        if not checked.passed:
                            raise ProtocolError(f"{msg.id} differs from the record: "
                                                + "; ".join(f.message for f in checked.failures()),
                                                kind="check-ho", findings=checked.findings)
                self._guard(msg, self.clock())
                self._guard_act(tx, msg)
                # a line given as text goes out as written (it parsed to this message); anything else is written
                line = message if isinstance(message, str) and not number else msg.to_line()
                self._journal_out(tx, msg, line, extra)
                return line
        except ProtocolError:
            raise
        except BaseException:
            self._reset()
            raise

    def _guard_act(self, tx: Transaction, msg: Message) -> None:
        """An AN answering a cancel says nothing was done: refused while the agent's tool holds the act as
        in doubt or run (one store: the tool's statements are in this ledger)."""
        named = self._messages.get(msg.re) if msg.type == "AN" and msg.re else None
        ho = self._target(named) if named is not None and named.type == "CX" else None
        h = self._handoffs.get(ho.id) if ho is not None else None
        acts = getattr(tx, "acts", None)
        states = acts(tuple(h.issues)) if h is not None and acts is not None else []
        if states:
            raise ProtocolError(f"the act on {h.live} is {states[0]} in {self.me}'s tool store: answer "  # type: ignore[union-attr]
                                f"{msg.re} with the act's DN once it is known, not AN", kind="act-ran", token=msg.id)

    def _journal_out(self, tx: Transaction, msg: Message, line: str, extra: Mapping[str, Any]) -> None:
        """Record a line this end sends, in memory and in the ledger, and move the counter past its number."""
        at = _stamp(self.clock())
        self._record(msg, "out", extra, at, line)
        self._apply(msg, outgoing=True, at=at, live=True)
        self._seen = tx.append(self.me, "out", line, msg_id=msg.id, extra=extra, at=at)
        found = MSGID_RE.fullmatch(msg.id)
        tx.use_number(self.me, int(found.group(2)) if found else 0)

    def _coerce(self, message: Message | str | Mapping[str, Any], number: bool) -> Message:
        try:
            if isinstance(message, Message):
                text = message.to_line()
            elif isinstance(message, str):
                text = message
            elif isinstance(message, Mapping):
                obj = dict(message)
                if number and not obj.get("id"):
                    obj["id"] = f"{self.me}-0"
                return Message.from_json(obj, self.receiver).replace(source=None)
            else:
                raise ProtocolError(f"send takes a Message, a line or a JSON form, not {type(message).__name__}",
                                    kind="form")
            return Message.from_line(text, self.receiver).replace(source=None)
        except ProtocolError:
            raise
        except RW1Error as exc:
            raise ProtocolError(f"not a valid message: {exc.token} {exc.message}".strip(), kind="form",
                                why=exc.why, token=exc.token, column=exc.column, findings=exc.findings) from None

    def _guard(self, msg: Message, now: _dt.datetime | None = None) -> None:
        """Raise ProtocolError for what the protocol forbids this end to send at ``now``; change nothing."""
        self._guard_table(msg)
        if now is not None:
            self._guard_expiry(msg, now)

    def _standing(self, ho: Message) -> Handoff | None:
        """An open handoff of ``ho``'s item that this end sent to another agent: while it stands, its
        receiver owns the item or may yet (spec 5 rule 1), so a new handoff of it to a third agent would
        make two owners."""
        if ho.item is None:
            return None
        for ho_id in self._item_hos.get(ho.item, ()):
            h = self._handoffs.get(ho_id)
            if h is not None and h.sender == self.me and h.receiver != ho.to and self._stands(h):
                return h
        return None

    def _offered_unread(self, item: str | None) -> Handoff | None:
        """An open handoff of ``item`` to this end that it has not read back, while by its own record the item is
        not its own: that handoff's sender owns the item (spec 5 rule 1, "Until then the sender owns the item")."""
        if item is None or self._holder(item) == self.me:
            return None
        for ho_id in self._item_hos.get(item, ()):
            h = self._handoffs.get(ho_id)
            if h is not None and h.receiver == self.me and h.close == "open" and h.rb in ("offered", "void"):
                return h
        return None

    def _holder(self, item: str) -> str | None:
        """:meth:`_owner` less the handoffs their sender withdrew (a CX): a readback of a handoff that was then
        cancelled leaves the item with its sender (spec 5.4), so it does not make this end the holder. A cancel
        held for an HO not yet received that may withdraw it (:meth:`_held_cancel`) counts as one: until that HO
        comes, this end cannot tell that the item is still its own. A handoff its receiver reported acting on
        (a DN that may have overtaken its RB) counts as read back."""
        hos = self._item_hos.get(item, ())
        for ho_id in reversed(hos):
            h = self._handoffs.get(ho_id)
            if h is None or h.cancels:
                continue
            went_on = self._readbacks.get(ho_id, ("", ""))[0] == "passed" or (h.act_dn is not None and ho_id == h.live)
            if went_on and (h.receiver != self.me or self._held_cancel(h) is None):
                return self._messages[ho_id].to
        return self._messages[hos[0]].from_ if hos else None

    def _guard_expiry(self, msg: Message, now: _dt.datetime) -> None:
        """Spec 3.1 ``exp``: on an HO, nothing may be done on it after (no readback, no act, no
        confirmation); on an RB, the statement cannot be confirmed after."""
        named = self._messages.get(msg.re) if msg.re else None
        ho = None
        if msg.type == "RB" and named is not None and named.type == "HO":
            ho = named
        elif msg.type == "DN" and msg.get("out") != "NOOP":
            ho = self._target(msg)
        elif msg.type == "AN" and msg.get("val") == "Y" and named is not None and named.type == "RB":
            exp = _past_exp(named, now)
            if exp is not None:
                raise ProtocolError(f"{named.id} expired at exp={exp}: a statement cannot be confirmed after its "
                                    "exp (spec 3.1); ask for a new readback", kind="expired", token=msg.id)
            ho = self._target(named)
        h = self._handoffs.get(ho.id) if ho is not None else None
        if ho is None or h is None:
            return
        exp = _past_exp(self._messages[h.live], now)
        if exp is not None:
            raise ProtocolError(f"{h.live} expired at exp={exp}: nothing may be done on it after (spec 3.1); "
                                "its sender cancels it (CX why=EXPIRED) or sends a new HO", kind="expired",
                                token=msg.id)

    def _guard_table(self, msg: Message) -> None:
        """What the table and the handoff rules forbid this end to send, whatever the time."""
        kind = msg.type
        if msg.id in self._messages:
            raise ProtocolError(f"{msg.id} was already sent or received", kind="id-reused", token=msg.id)
        named = self._messages.get(msg.re) if msg.re else None
        if kind == "HO":
            link = self.continues(msg)
            h = self._handoffs.get(link[0]) if link is not None else None
            if link is not None and h is not None:
                if h.close not in ("open",):
                    raise ProtocolError(f"{h.live} is {h.close}: it cannot be sent again", kind="closed")
                if link[0] != h.live:
                    raise ProtocolError(f"{link[0]} was carried forward by {h.live}; continue from that",
                                        kind="stale")
                return
            unread = self._offered_unread(msg.item)
            if unread is not None:
                raise ProtocolError(f"{msg.id} hands {msg.item} on, but {unread.live} offered it to {self.me} and "
                                    f"{self.me} has not read it back: {unread.sender} owns {msg.item} until a "
                                    f"readback passes (spec 5 rule 1); read {unread.live} back first, or refuse it "
                                    "with UN", kind="not-owner", token=msg.id)
            standing = self._standing(msg)
            if standing is not None:
                state = "its readback passed: " + standing.receiver + " owns " + str(msg.item) \
                    if standing.rb in ("read-back", "wilco") else "its readback may still pass"
                raise ProtocolError(f"{msg.id} hands {msg.item} to {msg.to}, but {standing.live} handed it to "
                                    f"{standing.receiver} and is still open ({state}): withdraw that first "
                                    f"(CX re={standing.live} why=SUPERSEDED), or wait for its close",
                                    kind="two-owners", token=msg.id)
            return
        if kind == "RB" and named is not None and named.type in ("ST", "AN"):
            h = self._changes.get(named.id)
            if h is None or named.to != self.me or named.id not in h.pending:
                raise ProtocolError(f"{msg.id} echoes {named.id}, which is no change waiting for an echo",
                                    kind="not-offered", token=f"re={msg.re}")
            return
        if kind == "RB":
            if named is None or named.type != "HO" or named.to != self.me:
                raise ProtocolError(f"{msg.id} answers re={msg.re}, which is no handoff to {self.me}",
                                    kind="not-offered", token=f"re={msg.re}")
            h = self._handoffs.get(named.id)
            if h is None:
                raise ProtocolError(f"{named.id} is no handoff to {self.me}", kind="not-offered")
            if named.id != h.live:
                raise ProtocolError(f"{named.id} was carried forward by {h.live}: read that back", kind="stale")
            if h.close != "open":
                raise ProtocolError(f"{h.live} is {h.close}: there is nothing to read back", kind="closed")
            sent = next((rb for rb in self._rb_of.get(named.id, ()) if self._messages[rb].from_ == self.me
                         and _same_but_id(msg, self._messages[rb])), None)
            if sent is not None:
                # another process of this agent, on its ledger, read it back first: one readback, one act
                raise ProtocolError(f"{named.id} was already read back as {sent}: deliver that again",
                                    kind="read-back", token=msg.id)
            first = self._messages[h.issues[0]]  # (the issue whose re= may name an HO lost in transit)
            # the handoff it may re-send (one read back first): its sender holds one handoff, whose live issue this
            # may be, and a readback of each would make two acts; one closed unread closed that handoff
            holding = self._repeated_original(first, h, lambda other: other.rb in ("read-back", "wilco")) \
                or self._repeated_original(first, h, lambda other: True)
            if holding is not None:
                read = holding.rb in ("read-back", "wilco")
                state = ("read back by" if read else "offered to" if holding.close == "open"
                         else f"{holding.close} by its sender at" if holding.close == "cancelled"
                         else f"{holding.close} at")
                raise ProtocolError(f"{named.id} names {named.re}, which {self.me} never saw, and repeats "
                                    f"{holding.live}, {state} {self.me}: a re-send of it, it may be (one act per "
                                    "handoff); answer it UN why=DUP",
                                    kind="read-back" if read or holding.close == "open" else "closed", token=msg.id)
            resend = self._resend_read_back(first, h)
            if resend is not None:
                raise ProtocolError(f"{named.id} is repeated by {resend.key}, which names an HO {self.me} never saw "
                                    f"and which {self.me} read back: {resend.key} re-sends it, it may be (one act "
                                    f"per handoff); answer {named.id} UN why=DUP", kind="read-back", token=msg.id)
            resend = self._resend_closed(first, h)
            if resend is not None:
                raise ProtocolError(f"{named.id} is repeated by {resend.key}, which names an HO {self.me} never saw "
                                    f"and which {self.me} closed unread: {resend.key} re-sends it, it may be, and at "
                                    f"its sender that close closed {named.id}'s handoff; {named.id} needs no answer",
                                    kind="closed", token=msg.id)
            if named.item is not None and self._handing_on(named.item):
                # a passing readback makes this end the owner (spec 5 rule 1) while the handoff of the item
                # it sent may pass too: two owners
                raise ProtocolError(f"{msg.id} reads back {named.id} of {named.item}, but this end handed "
                                    f"{named.item} on and that handoff is open: cancel it first, or answer "
                                    f"{named.id} with UN", kind="two-owners", token=msg.id)
            if self.composed_only and not any(_same_but_id(msg, c) for c in self._composed.get(named.id, ())):
                raise ProtocolError(f"{msg.id} is not the readback composed by code from {named.id}; this end "
                                    "sends composed readbacks only (Endpoint.readback)", kind="hand-written")
            return
        if kind == "AN" and named is not None:
            if named.type == "AQ":
                if named.to != self.me:
                    raise ProtocolError(f"{named.id} was not asked of {self.me}", kind="not-asked")
                if self._questions.get(named.id) is not None:
                    raise ProtocolError(f"{named.id} is already answered by {self._questions[named.id]}",
                                        kind="answered-twice")
                return
            if named.type == "RB":
                ho = self._messages.get(named.re) if named.re else None
                h = self._handoffs.get(ho.id) if ho is not None else None
                if ho is not None and h is not None and ho.type == "HO" and ho.from_ == self.me:
                    if msg.get("val") == "Y" and h.close != "open":
                        # the go-ahead of a handoff this end withdrew (its cancel may be lost on the way)
                        raise ProtocolError(f"{h.live} is {h.close}: {named.id} cannot be confirmed",
                                            kind="closed", token=msg.id)
                    if msg.get("val") == "Y":
                        if (ho.id != h.live and not self._resent_since(h, ho.id)) \
                                or self._readbacks.get(ho.id, ("", ""))[0] != "passed":
                            raise ProtocolError(f"{named.id} did not pass the check of {ho.id}: it cannot be "
                                                "confirmed", kind="confirm-void")
                return
            if named.type == "CX":
                ho = self._target(named)
                h = self._handoffs.get(ho.id) if ho is not None else None
                if ho is not None and h is not None:
                    if named.to != self.me:
                        raise ProtocolError(f"{named.id} was not sent to {self.me}", kind="not-asked")
                    if h.act_dn is not None:
                        raise ProtocolError(f"the act on {h.live} ran: answer {named.id} with its DN "
                                            f"{h.act_dn}, not AN", kind="act-ran")
                return
        if kind == "AQ" and named is not None and named.type == "AQ":
            return
        if named is None and msg.re is not None and kind in ("AN", "UN", "FL", "DN"):
            # an answer or a close of a line this end has not received: a go-ahead would confirm a readback
            # nobody checked, an act would run on a handoff never read back, and a close may turn out, when
            # the line comes, to close again a handoff it re-sends (nothing to answer or close yet)
            if kind == "AN" and msg.get("val") == "Y":
                raise ProtocolError(f"{msg.id} answers re={msg.re} val=Y, but {self.me} has not received "
                                    f"{msg.re}: no go-ahead for a readback this end did not check (spec 5.3)",
                                    kind="confirm-without-readback", token=f"re={msg.re}")
            if kind == "DN" and msg.get("out") != "NOOP":
                raise ProtocolError(f"{msg.id} reports an act on re={msg.re}, which {self.me} has not received: "
                                    "no act before the readback passes", kind="act-before-wilco",
                                    token=f"re={msg.re}")
            if kind == "UN" and any(self._messages[r].re == msg.re for replies in self._unreadable.values()
                                    for r in replies if r in self._messages):
                return  # a line received and not taken, which this end answered UN why=UNK|VER: refused again
            raise ProtocolError(f"{msg.id} answers re={msg.re}, which {self.me} has not received: nothing to "
                                f"answer or close yet (send it when {msg.re} comes)", kind="not-received",
                                token=f"re={msg.re}")
        if kind in CLOSERS:
            ho = self._target(msg)
            h = self._handoffs.get(ho.id) if ho is not None else None
            if ho is None or h is None:
                if kind == "CX":
                    raise ProtocolError(f"{msg.id} cancels re={msg.re}, which is no handoff this end sent",
                                        kind="cancel-wrong-party", token=f"re={msg.re}")
                return
            if kind == "CX":
                if ho.from_ != self.me or msg.to != ho.to:
                    raise ProtocolError(f"only {ho.id}'s sender {ho.from_} can cancel it, to {ho.to}",
                                        kind="cancel-wrong-party", token=msg.id)
                event = "CX"
                # judged on the handoff the cancel withdraws, as _apply takes it: a re-send answered UN why=DUP
                # stands for the handoff it repeated
                h = self._repeated_by(self._messages.get(h.key, ho)) or h
                h = self._untraced_original(h, msg.id) or h
            else:
                if ho.to != self.me:
                    if kind == "UN" and named is not None and named.type in ("AQ", "AN", "RB", "DN", "FL", "ST"):
                        return
                    raise ProtocolError(f"only {ho.id}'s receiver {ho.to} can close it with {kind}",
                                        kind="not-yours", token=msg.id)
                if kind == "UN" and msg.get("why") == "DUP" and named is not None and named.type == "HO" \
                        and named.id != h.key and named.id in h.issues:
                    return
                self._guard_untraced_close(msg, h)
                event = kind if kind != "DN" else ("DN-noop" if msg.get("out") == "NOOP" else "DN-act")
                if event == "DN-act" and h.rb != "wilco" and h.close == "open":  # out=NOOP reports no act
                    raise ProtocolError(f"{h.live} is not wilco ({h.rb}): no DN before the readback passes"
                                        + (" and AN val=Y comes" if waits_for_verdict(levels_of(self._messages[h.live]))
                                           else ""), kind="act-before-wilco", token=msg.id)
                held = self._held_cancel(h) if event == "DN-act" and h.close == "open" else None
                if held is not None:  # (after the readback and the close: act-before-wilco, closed-twice first)
                    raise ProtocolError(f"{held} from {h.sender} may cancel {h.live}: it names an HO of {h.item} this "
                                        "end has not received, or one whose re= names an HO it never saw (a re-send "
                                        f"of {h.live}, it may be): no act until that HO comes; the answer to the "
                                        "cancel is out=NOOP", kind="act-after-cancel", token=msg.id)
            findings = self._evaluate(h, event, msg)
            if findings:
                first = findings[0]
                hint = ""
                if first.kind == "act-after-cancel":
                    hint = "; the answer to a cancel that arrived first is out=NOOP or AN val=Y"
                raise ProtocolError(first.message + hint, kind=first.kind, findings=tuple(findings), token=msg.id)

    # ---- time ------------------------------------------------------------------------

    def tick(self, now: _dt.datetime | str | None = None) -> list[Any]:
        """What time makes due: my handoffs orphaned (past ``exp=`` or ``due=``, with the CX to send),
        readbacks overdue (with the re-send), held handoffs (a void readback not re-issued within
        ``readback_within``: the re-issue or the CX to send), and questions to me left unanswered (past
        ``by=``, or ``answer_within`` after they came: the UN to send if I cannot answer). Composed
        only; nothing is recorded."""
        from .thread import parse_now

        self.refresh()

        at = parse_now(now) if now is not None else self.clock()
        events: list[Any] = []
        for h in self._unique():
            if h.sender != self.me or h.close != "open":
                continue
            ho = self._messages[h.live]
            reasons = []
            exp = _past_exp(ho, at)
            if exp is not None:
                reasons.append(f"open past its exp={exp}")
            due = ho.get("due")
            if due is not None and at.date() > _dt.date(int(due[:4]), int(due[4:6]), int(due[6:])):
                reasons.append(f"open after its due={due}")
            if reasons:
                why = "TIMEOUT" if h.rb == "offered" else "EXPIRED"
                cancel = self._compose("CX", re=h.live, to=h.receiver, item=h.item, slots={"why": why},
                                       profile=ho.profile)
                events.append(Orphaned(message=ho, handoff=h.live, reason="; ".join(reasons), cancel=cancel))
                continue
            if h.rb == "offered" and h.offered_at and at - _unstamp(h.offered_at) > self.readback_within:
                resend = self._compose("HO", re=h.live, to=h.receiver, item=h.item, slots=dict(ho.slots),
                                       tail=ho.tail)
                events.append(ReadbackOverdue(message=ho, handoff=h.live, resend=resend))
            elif h.rb == "void" and h.void_at and at - _unstamp(h.void_at) > self.readback_within:
                # the void readback: of the live issue, or of an earlier one it re-sends (an RB of the original
                # that came after the re-send voids the handoff as well)
                void = [self._readbacks[i][1] for i in reversed(h.issues)
                        if self._readbacks.get(i, ("", ""))[0] == "failed"] \
                    or [rb for i in reversed(h.issues) for rb in reversed(self._rb_of.get(i, ()))]
                if not void:
                    continue
                void_rb = self._messages[void[0]]
                reissue = self._compose("HO", re=void_rb.id, to=h.receiver, item=h.item, slots=dict(ho.slots),
                                        tail=ho.tail if ho.tail is not None else "readback did not pass")
                cancel = self._compose("CX", re=h.live, to=h.receiver, item=h.item, slots={"why": "TIMEOUT"},
                                       profile=ho.profile, tail="readback did not pass and was not re-issued")
                events.append(Held(message=ho, handoff=h.live, reissue=reissue, cancel=cancel))
        for q, answer in self._questions.items():
            aq = self._messages[q]
            if answer is not None or aq.to != self.me:
                continue
            by = aq.get("by")
            if by is not None:
                late = at.date() > _dt.date(int(by[:4]), int(by[4:6]), int(by[6:]))
            else:
                received = self._at.get(q, "")
                late = bool(received) and at - _unstamp(received) > self.answer_within
            if late:
                refuse = self._compose("UN", re=aq.id, to=aq.from_, item=aq.item, slots={"why": "TIMEOUT"},
                                       profile=aq.profile, tail="cannot answer in time")
                events.append(QuestionUnanswered(message=aq, by=by, refuse=refuse))
        return self._sendable(events)


def replay(messages: Iterable[Message], profiles: Receiver | Iterable | None = None) -> dict[str, Endpoint]:
    """Run a conversation through one endpoint per party; the endpoints, by agent.

    The conversation is a shared record: every endpoint of a replay reads the
    same index of its messages, so a ``re=`` chain resolves wherever its
    links sit in the log (threads are rebuilt from ``re=``, never from
    position). Each message is given to its ``from``, its ``to`` and both
    parties of the handoff it answers, so the two ends of a handoff each see
    every message about it. Every HO goes first, in the order given (a
    handoff exists before anything answers it, wherever the log lists it),
    and a re-send its receiver answered ``UN why=DUP`` is a handoff of its own
    from the start; then every other message goes in the order given, which
    is the order its events happened. A re-issue that every HO of its
    thread (by re=) listed after it carries forward answers a readback: it,
    and those, go at their places among those (each just before the first
    message naming it, if that comes first), so an act listed before it is
    judged on the issue read back, as its receiver judged it live. Nothing is refused: a replay records
    what happened, and the table's findings say what broke a rule.
    Crossings are not assumed: the order given is the order sent.
    """
    ordered = list(messages)
    return replay_indexed(ordered, as_receiver(profiles), {m.id: m for m in ordered})


def replay_indexed(ordered: list[Any], receiver: Receiver, shared: dict[str, Any], *,
                   senders_only: bool = False) -> dict[str, Endpoint]:
    """:func:`replay` of ``ordered`` (each id once), whose index by id is ``shared`` (read, not copied).

    A message may be given as anything that reads like one (:func:`rogerwilco.checks.lifecycle.whole`
    gives it whole where a check needs every slot). ``senders_only``: each handoff is kept at its
    sender's end alone. Both ends of a handoff take every message about it, in the same order, through
    the same table, so the receiver's record would be the same; each end still takes every message
    (its questions, its own handoffs, a cancel from the wrong party, which the sender's end sees too).
    The thread check reads the senders' ends alone, and keeps half the handoffs.
    """
    ends: dict[str, Endpoint] = {}
    items: dict[str, list[str]] = {}
    cache: dict[str, tuple[str, ReadbackReport | None]] = {}
    duplicates = {m.re for m in ordered
                  if m.type == "UN" and m.re in shared
                  and is_duplicate_answer(m, m.get("why"), shared[m.re], issue_link(shared[m.re], shared.get))}

    # each message's place as it arrived (a cancel held for an HO listed after it takes that HO's place)
    arrived = list(_in_arrival_order(ordered))
    places = {m.id: place for place, m in enumerate(arrived)}

    def end(name: str) -> Endpoint:
        found = ends.get(name)
        if found is None:
            found = ends[name] = Endpoint.__new__(Endpoint)
            found._init_replay(name, receiver, cache, shared, duplicates, ends if senders_only else None, items,
                               places)
        return found

    def deliver(m: Message) -> None:
        sender, to = m.from_, m.to
        author = end(sender)
        ho = author._target(m) if m.type != "HO" else None
        author._apply(m, outgoing=True, at="", live=False)
        if ho is None or (ho.from_ in (sender, to) and ho.to in (sender, to)):  # the two parties: its receiver
            if to != sender:
                end(to)._apply(m, outgoing=False, at="", live=False)
            return
        for name in sorted({to, ho.from_, ho.to} - {sender}):
            end(name)._apply(m, outgoing=False, at="", live=False)

    def deliver_in_place(ho: Message) -> None:
        """``ho``, taken after the HOs listed after it, keeps its place among its item's HOs (the latest of
        them is the one a status naming no message is about)."""
        deliver(ho)
        if ho.item is None:
            return
        for e in ends.values() if not senders_only else [next(iter(ends.values()))]:
            hos = e._item_hos.get(ho.item)
            if hos is None or ho.id not in hos:
                continue
            hos.remove(ho.id)  # before the first listed after it
            here = places[ho.id]
            hos.insert(next((n for n, i in enumerate(hos) if places[i] > here), len(hos)), ho.id)
            if e._peers is None:
                e._ho_index.update((i, n) for n, i in enumerate(hos))

    applied: set[str] = set()
    waiting: dict[str, list[tuple[int, Message]]] = {}
    ready: list[tuple[int, Message]] = []
    links = {m.id: end(m.from_).continues(m) for m in ordered if m.type == "HO"}
    # a re-issue answers a readback: where every HO of its thread (by re=) listed after it carries it forward,
    # it and those go at their places (or just before the first message naming one), so an act on the issue
    # before it that the log lists first is judged on that issue (a crossing, as the live end saw it)
    in_place = _taken_in_place([m.id for m in ordered if m.type == "HO"], links)
    later = {m.id: m for m in ordered if m.id in in_place}

    def deliver_later(ho_id: str) -> None:
        chain: list[str] = []
        while ho_id in later and ho_id not in chain:  # (it, then what it carries forward first)
            chain.append(ho_id)
            link = links[ho_id]
            if link is None or places.get(link[0], -1) > places[ho_id]:
                break  # (an HO listed before the one it carries forward came first, as a handoff of its own)
            ho_id = link[0]
        for i in reversed(chain):
            deliver_in_place(later.pop(i))

    for place, message in enumerate(ordered):
        if message.type != "HO" or message.id in later:
            continue
        link = links[message.id]
        if link is not None and link[0] not in applied and link[0] != message.id:
            waiting.setdefault(link[0], []).append((place, message))  # it carries forward an HO listed later
            continue
        heapq.heappush(ready, (place, message))
        while ready:
            _, ho = heapq.heappop(ready)
            deliver(ho)
            applied.add(ho.id)
            for entry in waiting.pop(ho.id, ()):
                heapq.heappush(ready, entry)
    for _, message in sorted(entry for entries in waiting.values() for entry in entries):
        deliver(message)  # a loop of re= among HOs: in the order given
    for message in arrived:
        if message.type == "HO":
            deliver_later(message.id)
            continue
        if message.re is not None:
            deliver_later(message.re)
        deliver(message)
    return ends


def _taken_in_place(hos: list[str], links: Mapping[str, tuple[str, str] | None]) -> set[str]:
    """The HOs a replay takes at their places (``hos`` in the order given): in each thread (the HOs a chain of
    issue links joins), the first re-issue that every HO of the thread listed after it carries forward, with
    every HO that carries it forward."""
    place = {ho_id: n for n, ho_id in enumerate(hos)}
    threads: dict[str, list[str]] = {}
    for ho_id in hos:
        threads.setdefault(_thread_root(ho_id, links), []).append(ho_id)
    taken: set[str] = set()
    for members in threads.values():
        for reissue in members:
            link = links[reissue]
            if link is None or link[1] != "reissue":
                continue
            carrying = [i for i in members if _carries(i, reissue, links)]
            if all(i in carrying for i in members if place[i] > place[reissue]):
                taken.update(carrying)
                break
    return taken


def _carries(ho_id: str, earlier: str, links: Mapping[str, tuple[str, str] | None]) -> bool:
    """Whether the chain of issue links from ``ho_id`` reaches ``earlier`` (``ho_id`` itself included)."""
    seen: set[str] = set()
    while ho_id not in seen:
        if ho_id == earlier:
            return True
        seen.add(ho_id)
        link = links.get(ho_id)
        if link is None:
            return False
        ho_id = link[0]
    return False


def _thread_root(ho_id: str, links: Mapping[str, tuple[str, str] | None]) -> str:
    """The first HO of the chain of issue links ``ho_id`` ends (a loop of re= ends where it closes)."""
    seen = {ho_id}
    while (link := links.get(ho_id)) is not None and link[0] not in seen:
        ho_id = link[0]
        seen.add(ho_id)
    return ho_id


def _in_arrival_order(ordered: list[Any]) -> Iterator[Any]:
    """``ordered`` with each CX that names an HO listed after it moved to that HO's place: the live endpoint
    holds such a cancel and applies it when the HO arrives (docs/endpoint.md, "a cancel of an HO not yet
    received"), so a close listed between the two comes before the cancel, live and in a replay alike."""
    places = {m.id: place for place, m in enumerate(ordered) if m.type == "HO"}
    held: list[tuple[int, int]] = []  # (the named HO's place, the cancel's place)
    for place, message in enumerate(ordered):
        while held and held[0][0] < place:
            yield ordered[heapq.heappop(held)[1]]
        named = places.get(message.re) if message.type == "CX" and message.re is not None else None
        if named is not None and named > place:
            heapq.heappush(held, (named, place))
            continue
        yield message
    while held:
        yield ordered[heapq.heappop(held)[1]]


def _numbered_after(original: str, link: str, sender: str) -> bool:
    """Whether ``original`` and ``link`` are both ``<sender>-<n>`` and ``original``'s number is not below
    ``link``'s: sent after it, by a sender whose ids go forward."""
    numbers = []
    for msgid in (original, link):
        rest = msgid[len(sender) + 1:] if msgid.startswith(f"{sender}-") else ""
        if not (rest.isascii() and rest.isdigit()):
            return False
        numbers.append(int(rest))
    return numbers[0] >= numbers[1]


def _same_but_id(a: Message, b: Message) -> bool:
    return a.replace(id=b.id) == b


def replies(events: Iterable[Any]) -> list[str]:
    """The automatic reply lines among ``events``, to deliver in order."""
    return [e.line for e in events if isinstance(e, Reply)]


__all__ = [
    "Answered",
    "CLOSE_STATES",
    "CancelAnswered",
    "Cancelled",
    "ChangeToEcho",
    "ConfirmRefused",
    "Confirmed",
    "DoneReport",
    "Duplicate",
    "EVENTS",
    "EchoChecked",
    "Endpoint",
    "Event",
    "Forged",
    "Handoff",
    "HandoffClosed",
    "HandoffOffered",
    "HandoffView",
    "Held",
    "NotForMe",
    "Noted",
    "Orphaned",
    "OwnershipTransferred",
    "ProtocolError",
    "QuestionAsked",
    "QuestionUnanswered",
    "READBACK_STATES",
    "ReadbackOverdue",
    "ReadbackPassed",
    "ReadbackVoid",
    "Redelivered",
    "Refused",
    "Reply",
    "StatusReport",
    "Step",
    "TRANSITIONS",
    "Unreadable",
    "check_echo",
    "event_to_json",
    "finding_text",
    "mermaid",
    "replay",
    "replay_indexed",
    "replies",
    "table_rows",
]


def event_to_json(event: Any, endpoint: Endpoint | None = None) -> dict[str, Any]:
    """An event as plain JSON: its kind, its message as a line, and each field (messages as lines,
    reports as ``passed`` and findings, findings in the contract's shape)."""

    def value(v: Any) -> Any:
        if isinstance(v, Message):
            text = endpoint.line_of(v.id) if endpoint is not None else None
            return text if text is not None and endpoint is not None and endpoint._messages.get(v.id) == v \
                else v.to_line()
        if isinstance(v, ReadbackReport):
            return {"passed": v.passed, "findings": [f.to_json() for f in v.findings]}
        if isinstance(v, Finding):
            return v.to_json()
        if isinstance(v, (tuple, list)):
            return [value(x) for x in v]
        return v

    out: dict[str, Any] = {"event": type(event).__name__}
    for field in attrs.fields(type(event)):
        name = field.name.rstrip("_")
        out[name] = value(getattr(event, field.name))
    return out
