"""Threads: every handoff closes exactly once (spec 5 rule 1, 5.4).

Theory of operation
-------------------
:func:`check_thread` takes a conversation in the order it was sent and
replays it through one :class:`rogerwilco.checks.endpoint.Endpoint` per party
(:func:`rogerwilco.checks.endpoint.replay`): each message is recorded as sent by its
``from`` and taken by its ``to``. The endpoints walk the same transition
table the live endpoint enforces (:data:`rogerwilco.checks.lifecycle.TRANSITIONS`),
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
(spec 5 rule 1). The readback region gives ``act-before-wilco``: a DN
reporting the act before a readback of the live issue passed, or, at a
level whose act waits for the sender's verdict (``rb=acc``, ``plan``,
``exec``: :data:`rogerwilco.checks.lifecycle.VERDICT_LEVELS`), before the
sender's ``AN re=<RB> val=Y``; and ``confirm-void`` and
``confirm-without-readback``: an ``AN val=Y`` to a readback that did not pass,
or before any. The live endpoint refuses each of these acts before it leaves.

**Two owners.** An HO that starts a handoff of an item while a handoff of
it from the same sender to another agent is still open (no close of it
earlier in the stream) is ``two-owners``: that receiver owns the item, or may
yet (spec 5 rule 1). The live endpoint refuses such an HO.

**Expiry** is judged at the end alone (``open-past-exp``): a line carries no
time of sending, so an RB or an act after an HO's ``exp=`` is the live
endpoint's to refuse (docs/endpoint.md, "Expiry").

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
one of :data:`HANDOFF_STATES`. An HO of an item its sender was offered and
has not read back is ``not-owner`` unless the item is the sender's by its own
record, where a readback of its own HO at a level whose verdict is its own
(``acc``, ``plan``, ``exec``) counts from its ``AN val=Y``.

**Keys.** Every finding about a handoff carries that handoff's live HO id as
``key`` (for a CX from the wrong party, the HO its ``re=`` names); findings
about no handoff (``form``, ``reply-to-unknown``) carry ``key`` null.

**In flat memory.** :func:`check_thread_spooled` runs the same check on a
conversation of any length: it cuts the conversation into the parts that
touch nothing else (:mod:`rogerwilco.checks._components`), checks a batch of
parts at a time with the same code, and merges the findings and ledger rows
by their places (each finding's section of the report and the place in the
stream of what it is about; an item's owner from its parts), on disk.
"""

from __future__ import annotations

import datetime as _dt
import gc
import json
import re
import sys
import tempfile
from typing import IO, Any, Container, Iterable, Iterator, Mapping

import attrs

from ..core.findings import Finding, fail, note, passed
from ..core.message import Message
from ..core import _deprecated, speedups
from .endpoint import Endpoint, Handoff, finding_text, replay_indexed
from .lifecycle import CLOSE_EVENTS, CLOSE_TRANSITIONS, CLOSERS, HANDOFF_STATES, Conversation  # noqa: F401
from .lifecycle import waits_for_verdict
from .readback import levels_of
from ..core.semantics import LineResult, check_line
from ..core.slottypes import parse_time
from ..core.vocab import Receiver, as_receiver

#: the table's finding kinds that are this check's (the others are the live endpoint's alone)
_TABLE_KINDS = frozenset({"closed-twice", "act-after-cancel", "act-before-echo", "act-before-wilco", "confirm-void",
                          "confirm-without-readback"})
_TIME_RE = re.compile(r"[0-9]{8}T[0-9]{4}Z")

@attrs.frozen(kw_only=True)
class HandoffStatus:
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
class ThreadLedger:
    items: tuple[ItemOwner, ...]
    handoffs: tuple[HandoffStatus, ...]

    def owner(self, item: str) -> str | None:
        return next((entry.owner for entry in self.items if entry.item == item), None)

    def handoff(self, ho_id: str) -> HandoffStatus | None:
        return next((entry for entry in self.handoffs if entry.id == ho_id), None)

    def to_json(self) -> dict[str, Any]:
        return {"items": [e.to_json() for e in self.items], "handoffs": [h.to_json() for h in self.handoffs]}


@attrs.frozen(kw_only=True)
class ThreadReport:
    passed: bool
    findings: tuple[Finding, ...]
    ledger: ThreadLedger

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


#: the slots the replay and the ledger read of a message kept small, by type; any other slot is read again
_CONTROL: Mapping[str, tuple[str, ...]] = {"HO": ("ask", "exp", "due", "ctx"), "DN": ("out",), "UN": ("why",),
                                           "AN": ("val",), "AQ": ("by",)}
_NONE: tuple[Any, ...] = ()
#: the replay keeps each handoff at its sender's end alone (the ends the check reads); the tests compare
#: the report with both ends kept
_SENDERS_ONLY = True
#: the lines' text stays in memory up to this size, then goes to a temporary file
SPOOL_BYTES = 4 << 20


class SpooledLines:
    """The text of the lines a check keeps small, one after another: in memory up to :data:`SPOOL_BYTES`,
    then in a temporary file (deleted on :meth:`close`); :meth:`add` gives where a line is, :meth:`text`
    reads it back."""

    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver
        self._file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        self._end = 0
        self._full = False

    def add(self, text: str) -> int | str:
        """Keep ``text``; where it is (a line holding a line break, or any line once no temporary file
        can be made, is kept as it is)."""
        if "\n" in text or self._full:
            return text
        data = text.encode("utf-8", "surrogatepass") + b"\n"
        at = self._end
        self._file.seek(at)
        try:
            self._file.write(data)
        except OSError:  # no temporary file to go on in: the lines from here are kept in memory
            self._full = True
            return text
        self._end += len(data)
        return at

    def text(self, at: int | str) -> str:
        if isinstance(at, str):
            return at
        self._file.seek(at)
        return self._file.readline()[:-1].decode("utf-8", "surrogatepass")

    def close(self) -> None:
        self._file.close()


class KeptMessage:
    """What :func:`check_thread` keeps of a message it read as a line: its envelope, the few slots the
    replay's table and the ledger read (:data:`_CONTROL`), and where its line is; the whole message is
    read again from its line when a check needs the rest (a readback check, an echo check, a repeated
    id compared). Any attribute of a :class:`Message` it does not hold is read from the whole message."""

    __slots__ = ("type", "id", "re", "from_", "to", "item", "_control", "_at", "_lines")

    def __init__(self, message: Message, re: str | None, at: int | str, lines: SpooledLines) -> None:
        intern = sys.intern
        self.type = intern(message.type)
        self.id = message.id
        self.re = re
        self.from_ = intern(message.from_)
        self.to = intern(message.to)
        self.item = intern(message.item) if message.item is not None else None
        keys = _CONTROL.get(message.type, _NONE)
        get = message.slots.get
        if len(keys) == 1:  # one slot: its value as it is
            self._control: Any = _interned(get(keys[0]))
        else:
            values = tuple(_interned(get(key)) for key in keys)
            self._control = values if any(v is not None for v in values) else _NONE
        self._at = at
        self._lines = lines

    def get(self, key: str, default: Any = None) -> Any:
        """A slot by key, as :meth:`Message.get`."""
        keys = _CONTROL.get(self.type, _NONE)
        if key in keys:
            control = self._control
            value = control if len(keys) == 1 else (control[keys.index(key)] if control else None)
            return default if value is None else value
        if key == "from":
            return self.from_
        if key in ("re", "to", "item"):
            value = getattr(self, key)
            return default if value is None else value
        return self.whole().get(key, default)

    def whole(self) -> Message:
        """The message, read again from its line (the same line read with the same profiles: the same message)."""
        return _reread(self._lines.text(self._at), self._lines.receiver)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in KeptMessage.__slots__:  # a dunder, or a record not yet made
            raise AttributeError(name)
        return getattr(self.whole(), name)

    def __repr__(self) -> str:
        return f"KeptMessage({self._lines.text(self._at)!r})"


def _reread(text: str, receiver: Receiver) -> Message:
    """A line already read as a valid message, read again (the accept path: the same message, faster)."""
    return speedups.loads_line(text, receiver)


def _interned(value: Any) -> Any:
    return sys.intern(value) if isinstance(value, str) and len(value) < 16 else value


def _whole(message: Any) -> Message:
    return message.whole() if isinstance(message, KeptMessage) else message


def _result(number: int, entry: Any, receiver: Receiver) -> LineResult | None:
    """One entry of a thread's lines as the never-guess pass read it; None for a blank line."""
    if isinstance(entry, Message):
        return LineResult(text="", message=entry, findings=(), line_number=number)
    if isinstance(entry, LineResult):
        if entry.message is None and entry.refusal is None:  # a blank line read from a stream
            return None
        return entry
    if isinstance(entry, str):
        text = entry[:-1] if entry.endswith("\n") else entry
        text = text[:-1] if text.endswith("\r") else text
        return check_line(text, receiver, line_number=number) if text != "" else None
    raise TypeError(f"a thread line is a str, a Message or a LineResult, not {type(entry).__name__}")


def _unreadable(number: int, result: LineResult) -> Finding:
    """The ``form`` finding of a line that did not read as a message."""
    problem = result.refusal
    assert problem is not None
    return fail(kind="form", key=None, message=f"line {result.line_number or number}: not a valid message "
                f"({problem.token or problem.kind}: {problem.message}); left out of the thread")


def _note_refused(result: LineResult, refused: set[str]) -> None:
    """Keep the id of a refused line whose envelope reads: a reply to it names a message that was sent.

    The message is left out of the thread, but a ``re=`` naming it is no reply to nothing: the one
    root cause is the refused line's own finding."""
    if result.raw is not None and result.raw.id:
        refused.add(result.raw.id)


class _NoPlaces(dict):
    """Every message's place, when no report is merged from parts: 0 (nothing is kept)."""

    def __missing__(self, ident: str) -> int:
        return 0


_NO_PLACES = _NoPlaces()


def _read(numbered: Iterable[tuple[int, Any]], receiver: Receiver, kept: SpooledLines | None, *, places: bool,
          refused: set[str]) -> tuple[list[Any], list[tuple[int, Finding]], dict[str, Any], dict[str, int]]:
    """The stream's messages in order, each id once; ``form`` findings for the rest, each with its line's
    place; the index by id; each message's place in the stream.

    ``numbered`` gives each entry with its place in the stream. A line given as text or as a
    :class:`LineResult` is kept small (:class:`KeptMessage`), its text in ``kept``; a :class:`Message`
    given as such is kept as given, and so is every message when ``kept`` is None. Without ``places``,
    every message's place is 0 (a report read whole is in order already: no place to keep a message by).
    The id of a line refused with a readable envelope goes to ``refused`` (:func:`_refused_id`)."""
    messages: list[Any] = []
    findings: list[tuple[int, Finding]] = []
    by_id: dict[str, Any] = {}
    place: dict[str, int] = {} if places else _NO_PLACES
    result: LineResult | None
    for number, entry in numbered:
        if isinstance(entry, Message):  # a message as such: nothing to read (lint's parts)
            message, line, result = entry, number, None
        else:
            result = _result(number, entry, receiver)
            if result is None:
                continue
            if result.message is None:
                findings.append((number, _unreadable(number, result)))
                _note_refused(result, refused)
                continue
            message, line = result.message, result.line_number or number
        earlier = by_id.get(message.id)
        if earlier is not None:
            if _whole(earlier) != message:
                where = f"line {line}"
                findings.append((number, fail(kind="form", key=None, message=f"{where}: id {message.id} is already "
                                              "used by a different message; this one is left out of the thread")))
            continue
        text = result.text if kept is not None and result is not None else None
        record: Any = message
        if text is not None:
            assert kept is not None
            named = by_id.get(message.re) if message.re is not None else None
            record = KeptMessage(message, named.id if named is not None else message.re, kept.add(text), kept)
        by_id[message.id] = record
        if places:
            place[message.id] = number
        messages.append(record)
    return messages, findings, by_id, place


def _reversal(ho: Any, by_id: Mapping[str, Any], ends: Mapping[str, Any]) -> dict[str, str]:
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
    ledger: bool = True,
) -> ThreadReport:
    """Rebuild the threads of a conversation and report what did not close right.

    ``lines`` are in the order they were sent; ``now`` (default: the clock) is
    when the conversation is read, for ``exp=`` and ``due=``. The phases, in
    order: read the lines, index them (replies to nothing), replay them
    through every party's endpoint, then for each handoff its close findings
    and each issue's state, then the questions, then the owners.
    ``ledger=False`` gives the findings alone, the same ones (the report's
    ledger is empty: no handoff's state and no item's owner is built).
    """
    at = parse_now(now)
    receiver = as_receiver(profiles)
    kept = SpooledLines(receiver)
    from ._components import no_cycle_collection

    try:
        with no_cycle_collection():
            return _check(enumerate(lines, start=1), at, receiver, kept, places=False, ledger=ledger).report()
    finally:
        kept.close()


#: the report's sections, in order; within one, findings go by the place in the stream of the line, message,
#: cancel, handoff (its first HO) or question they are about
_READ, _UNKNOWN, _WRONG_PARTY, _HANDOFFS, _QUESTIONS = range(5)


@attrs.define
class _Keyed:
    """A check's report with where each part goes: findings as (section, place, finding), ledger rows with
    their places in lists beside them (empty when the places were not kept), each in report order. The
    report of independent parts of a conversation, checked apart, is their lists merged by these keys
    (:func:`check_thread_spooled`)."""

    findings: list[tuple[int, int, Finding]]
    handoffs: list[HandoffStatus]
    items: list[ItemOwner]
    handoff_places: list[int]
    #: each item's first HO's place, the owner that HO gives, and its latest HO whose readback passed (-1: none)
    item_places: list[tuple[int, ItemOwner, int]]

    def report(self) -> ThreadReport:
        findings = tuple(f for _, _, f in self.findings)
        ledger = ThreadLedger(items=tuple(self.items), handoffs=tuple(self.handoffs))
        return ThreadReport(passed=passed(findings), findings=findings, ledger=ledger)


def _check(numbered: Iterable[tuple[int, Any]], at: _dt.datetime, receiver: Receiver, kept: SpooledLines | None,
           *, places: bool, refused: set[str] | None = None, ledger: bool = True) -> _Keyed:
    refused = set() if refused is None else refused  # ids of refused lines (a part's: the whole stream's)
    messages, read, by_id, place = _read(numbered, receiver, kept, places=places, refused=refused)
    findings = [(_READ, number, f) for number, f in read]
    conversation = Conversation(index=by_id)
    findings += [(_UNKNOWN, place[m.id], f) for m, f in _unknown_replies(messages, conversation, refused)]
    ends = replay_indexed(messages, receiver, by_id, senders_only=_SENDERS_ONLY)
    findings += [(_WRONG_PARTY, place[f.token or ""], f) for f in _wrong_party(ends, messages)]
    hos = [m for m in messages if m.type == "HO"]
    groups = _handoffs(hos, ends)
    several = {i for _, handoff, _ in groups if len(handoff.issues) > 1 for i in handoff.issues}
    position = {ho.id: i for i, ho in enumerate(hos) if ho.id in several}  # stream order, among the HOs
    states: dict[str, HandoffStatus] = {}
    order = {m.id: i for i, m in enumerate(messages)}  # each message's place among them
    not_owner = _not_owner(messages, hos, ends, order)
    again = _read_back_again(messages, by_id, ends, order)
    owners_twice = _two_owners(messages, hos, ends, order)
    # a cancel its receiver answered (an AN naming it): answered, whichever handoff the cancel went to
    answered = {m.re for m in messages if m.type == "AN" and m.re is not None
                and (cx := by_id.get(m.re)) is not None and cx.type == "CX" and m.from_ == cx.to}
    for first, handoff, end in groups:
        where = place[first]
        members = sorted(handoff.issues, key=lambda i: position[i]) if len(handoff.issues) > 1 else handoff.issues
        live = [i for i in members if i not in end._carried]
        key = live[-1] if live else members[-1]
        if id(handoff) in not_owner:  # the live endpoint refuses the HO as not-owner before two-owners
            findings.append((_HANDOFFS, where, attrs.evolve(not_owner[id(handoff)], key=key)))
        else:
            findings += [(_HANDOFFS, where, attrs.evolve(f, key=key)) for f in owners_twice.get(id(handoff), ())]
        findings += [(_HANDOFFS, where, attrs.evolve(f, key=key)) for f in again.get(id(handoff), ())]
        findings += [(_HANDOFFS, where, f) for f in _close_findings(handoff, key, conversation, answered)]
        for ho_id in members:
            state, found = _issue_state(conversation.get(ho_id), handoff, end, conversation, ends, at, ledger=ledger)
            if state is not None:
                states[ho_id] = state
            findings += [(_HANDOFFS, where, f) for f in found]
    findings += [(_QUESTIONS, place[aq.id], f) for aq, f in _questions(messages, ends, at)]
    if not ledger:
        keyed = _Keyed(findings=findings, handoffs=[], items=[], handoff_places=[], item_places=[])
    else:
        owners, firsts = _owners(hos, ends, firsts=places)
        keyed = _Keyed(findings=findings, handoffs=[states[ho.id] for ho in hos], items=owners,
                       handoff_places=[place[ho.id] for ho in hos] if places else [],
                       item_places=[(place[first], default, -1 if last is None else place[last])
                                    for first, default, last in firsts])
    ends.clear()  # each end holds the others (a replay's senders' ends): let go without the cyclic collector
    return keyed


def check_thread_spooled(
    lines: Iterable[str | LineResult],
    *,
    now: str | _dt.datetime | None = None,
    profiles: Receiver | Iterable | None = None,
    batch_lines: int | None = None,
) -> "SpooledThreadReport":
    """:func:`check_thread` in memory that does not grow with the conversation; the report on disk.

    The same report, finding for finding and row for row, for a conversation of any length: the
    lines are read once and cut into the parts that touch nothing else
    (:class:`rogerwilco.checks._components.Components`: in memory up to a fixed bound, past it a temporary
    database on disk), each batch of whole parts (about ``batch_lines`` lines) is checked alone, and the
    findings and ledger rows go to a second temporary database, read back in report order. Memory holds one
    batch, the largest part and the cut's bound or fixed cache; what the disk holds grows with the conversation. ``lines`` are text or
    :class:`LineResult` (a line is read again when its batch comes); close the report (or use it in a
    ``with``) to delete its files.
    """
    from ._components import BATCH_LINES, Components, no_cycle_collection, on_disk, touches_of

    at = parse_now(now)
    receiver = as_receiver(profiles)
    out = SpooledThreadReport()
    refused: set[str] = set()  # every refused line's id, for the replies to it in any part
    try:
        parts = Components(batch_lines=BATCH_LINES if batch_lines is None else batch_lines)
    except BaseException:
        out.close()
        raise
    try:
        with no_cycle_collection() as read, on_disk():
            for number, entry in enumerate(lines, start=1):
                if isinstance(entry, Message):
                    raise TypeError("check_thread_spooled reads lines (text or LineResult), not Message objects")
                result = _result(number, entry, receiver)
                if result is None:
                    continue
                message = result.message
                if message is None:
                    out._add([(_READ, number, _unreadable(number, result))])
                    _note_refused(result, refused)
                    continue
                names, listed, joins = touches_of(message)
                text = result.text or message.to_line()  # a LineResult made by hand may not hold its line
                parts.add(number, result.line_number, text, names, listed=listed, joins=joins, kept=message)
            read()
            for batch in parts.batches():  # a batch is small: its messages are kept whole
                # each message as it was read while the messages fit in memory (parse once), else read again
                numbered = ((entry[0], LineResult(text=entry[2], findings=(), line_number=entry[1],
                                                  message=entry[3] if len(entry) > 3 else _reread(entry[2], receiver)))
                            for entry in batch)
                keyed = _check(numbered, at, receiver, None, places=True, refused=refused)
                out._add(keyed.findings, zip(keyed.handoff_places, keyed.handoffs), zip(keyed.item_places, keyed.items))
                del keyed
                gc.collect(0)  # the batch's endpoints hold one another: freed here (the youngest objects alone)
    except BaseException:
        out.close()
        raise
    finally:
        parts.close()
    return out


class SpooledThreadReport:
    """A :class:`ThreadReport` kept on disk (:func:`check_thread_spooled`): read its parts in report order,
    write its JSON in pieces, or load it whole (:meth:`report`)."""

    def __init__(self) -> None:
        from ._components import scratch_database

        self._db = scratch_database("""
            CREATE TABLE finding (section INTEGER NOT NULL, place INTEGER NOT NULL, seq INTEGER PRIMARY KEY,
                                  json TEXT NOT NULL);
            CREATE TABLE handoff (place INTEGER PRIMARY KEY, json TEXT NOT NULL);
            CREATE TABLE item (item BLOB PRIMARY KEY, first INTEGER NOT NULL, first_json TEXT NOT NULL,
                               passed INTEGER NOT NULL, passed_json TEXT NOT NULL) WITHOUT ROWID;
        """, cache_kib=1024)
        self.fails = 0
        self.notes = 0

    @property
    def passed(self) -> bool:
        return self.fails == 0

    def _add(self, findings: list[tuple[int, int, Finding]], handoffs: Iterable[tuple[int, HandoffStatus]] = (),
             items: Iterable[tuple[tuple[int, ItemOwner, int], ItemOwner]] = ()) -> None:
        from ._components import encoded

        dumps = json.dumps
        for _, _, f in findings:
            if f.failed:
                self.fails += 1
            else:
                self.notes += 1
        self._db.executemany("INSERT INTO finding (section, place, json) VALUES (?, ?, ?)",
                             ((section, place, dumps(f.to_json(), ensure_ascii=True)) for section, place, f in findings))
        self._db.executemany("INSERT INTO handoff VALUES (?, ?)",
                             ((place, dumps(h.to_json(), ensure_ascii=True)) for place, h in handoffs))
        # an item's HOs may lie in several parts: its first HO gives the owner until a readback passes, and
        # the latest HO whose readback passed gives it after
        self._db.executemany(
            "INSERT INTO item VALUES (?, ?, ?, ?, ?) ON CONFLICT (item) DO UPDATE SET "
            "first_json = CASE WHEN excluded.first < first THEN excluded.first_json ELSE first_json END, "
            "first = min(first, excluded.first), "
            "passed_json = CASE WHEN excluded.passed > passed THEN excluded.passed_json ELSE passed_json END, "
            "passed = max(passed, excluded.passed)",
            ((encoded(owner.item), first, dumps(default.to_json(), ensure_ascii=True),
              last, dumps(owner.to_json(), ensure_ascii=True)) for (first, default, last), owner in items))

    def _rows(self, query: str) -> Iterator[str]:
        from ._components import on_disk

        with on_disk():
            for (text,) in self._db.execute(query):
                yield text

    def _findings_json(self) -> Iterator[str]:
        return self._rows("SELECT json FROM finding ORDER BY section, place, seq")

    def _handoffs_json(self) -> Iterator[str]:
        return self._rows("SELECT json FROM handoff ORDER BY place")

    def _items_json(self) -> Iterator[str]:
        return self._rows("SELECT CASE WHEN passed >= 0 THEN passed_json ELSE first_json END FROM item ORDER BY first")

    def findings(self) -> Iterator[Finding]:
        for text in self._findings_json():
            yield Finding(**json.loads(text))

    def handoffs(self) -> Iterator[HandoffStatus]:
        for text in self._handoffs_json():
            row = json.loads(text)
            row["from_"] = row.pop("from")
            yield HandoffStatus(**row)

    def items(self) -> Iterator[ItemOwner]:
        for text in self._items_json():
            yield ItemOwner(**json.loads(text))

    def json_chunks(self) -> Iterator[str]:
        """``json.dumps(report.to_json(), ensure_ascii=True)`` of the whole report, in pieces."""
        yield '{"passed": ' + ("true" if self.passed else "false") + ', "findings": ['
        yield from _joined(self._findings_json())
        yield '], "ledger": {"items": ['
        yield from _joined(self._items_json())
        yield '], "handoffs": ['
        yield from _joined(self._handoffs_json())
        yield "]}}"

    def report(self) -> ThreadReport:
        """The whole report in memory (:class:`ThreadReport`)."""
        findings = tuple(self.findings())
        ledger = ThreadLedger(items=tuple(self.items()), handoffs=tuple(self.handoffs()))
        return ThreadReport(passed=self.passed, findings=findings, ledger=ledger)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "SpooledThreadReport":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _joined(pieces: Iterator[str]) -> Iterator[str]:
    first = True
    for piece in pieces:
        yield piece if first else ", " + piece
        first = False


def _unknown_replies(messages: list[Any], conversation: Conversation, refused: Container[str]
                     ) -> list[tuple[Any, Finding]]:
    """A ``re=`` naming no message in the stream (a refused line's id names one: its finding is the root)."""
    return [(m, fail(kind="reply-to-unknown", key=None,
                     message=f"{m.type} {m.id} answers re={m.re}, which names no message in the stream"))
            for m in messages if m.re is not None and m.re not in conversation and m.re not in refused]


def _wrong_party(ends: Mapping[str, Endpoint], messages: list[Any]) -> list[Finding]:
    """A cancel from the wrong party, once: whichever end saw it (a third agent's CX is seen by its receiver
    alone), in the order the cancels were sent (not the order of the ends that saw them)."""
    wrong: dict[str | None, Finding] = {}
    for end in ends.values():
        for f in end.findings:
            if f.kind == "cancel-wrong-party" and f.token not in wrong:
                wrong[f.token] = f
    sent = {m.id: i for i, m in enumerate(messages) if m.id in wrong}
    return sorted(wrong.values(), key=lambda f: sent.get(f.token or "", -1))


def _handoffs(hos: list[Any], ends: Mapping[str, Endpoint]) -> list[tuple[str, Handoff, Endpoint]]:
    """Every handoff once, with its first HO in the stream, as its sender's end saw it (it saw every
    message between the two parties)."""
    groups: list[tuple[str, Handoff, Endpoint]] = []
    seen: set[int] = set()
    for ho in hos:
        end = ends[ho.from_]
        handoff = end._handoffs[ho.id]
        if id(handoff) not in seen:
            seen.add(id(handoff))
            groups.append((ho.id, handoff, end))
    return groups


def _two_owners(messages: list[Any], hos: list[Any], ends: Mapping[str, Endpoint], at: Mapping[str, int]
                ) -> dict[int, list[Finding]]:
    """By handoff (``id()``): an HO that starts a handoff of an item while a handoff of it its sender made to
    another agent is still open (no close of it earlier in the stream): its receiver owns the item, or may yet
    (spec 5 rule 1), so the item would have two owners. The live endpoint refuses the HO (``two-owners``)."""
    messages_by_id = {m.id: m for m in messages if m.type == "CX"}
    standing: dict[tuple[str, str], list[tuple[Handoff, str, int | None]]] = {}
    seen: set[int] = set()
    found: dict[int, list[Finding]] = {}
    for ho in hos:
        end = ends[ho.from_]
        handoff = end._handoffs[ho.id]
        if ho.item is None or id(handoff) in seen or handoff.key in end._duplicates:
            continue  # a re-send answered UN why=DUP repeats a handoff that stands (or not) on its own
        seen.add(id(handoff))
        here = at[ho.id]
        earlier = standing.setdefault((ho.from_, ho.item), [])
        earlier[:] = [entry for entry in earlier if entry[2] is None or entry[2] > here]  # closed before: gone
        other = next((entry for entry in earlier if entry[1] != ho.to), None)
        if other is not None:
            found.setdefault(id(handoff), []).append(fail(
                kind="two-owners", key=ho.id, token=ho.id,
                message=f"HO {ho.id} hands {ho.item} to {ho.to} while {other[0].live} (to {other[1]}) is still open: "
                        f"two agents could own {ho.item}; {ho.from_} withdraws {other[0].live} first (CX)"))
        # a handoff withdrawn by a cancel stands until its receiver answers it (the live endpoint's rule: the
        # receiver may have acted, or may yet, before the cancel reaches it)
        until = _stood_until(handoff, messages_by_id)
        close = at[until] if until is not None else None
        earlier.append((handoff, ho.to, close))
    return found


def _not_owner(messages: list[Any], hos: list[Any], ends: Mapping[str, Endpoint], at: Mapping[str, int]
               ) -> dict[int, Finding]:
    """By handoff (``id()``): an HO that starts a handoff of an item while a handoff of it to its sender is open
    and not read back (no passing readback earlier in the stream), and the item is not the sender's by its own
    record then (the ``to`` of its latest HO of the item whose readback passed and that no cancel withdrew,
    else its first HO's sender): that handoff's sender owns the item (spec 5 rule 1, "Until then the sender
    owns the item"). The live endpoint refuses the HO (``not-owner``); the two-owners rule then has nothing
    to add about it."""
    confirmed: dict[tuple[str, str], int] = {}  # (an agent, an RB) -> where the agent first answered it val=Y
    for i, m in enumerate(messages):
        if m.type == "AN" and m.re is not None and (m.from_, m.re) not in confirmed and m.get("val") == "Y":
            confirmed[(m.from_, m.re)] = i
    found: dict[int, Finding] = {}
    seen: set[int] = set()
    of_item: dict[str, list[Any]] = {}  # each item's HOs so far, in stream order
    for ho in hos:
        if ho.item is None:
            continue
        before = of_item.setdefault(ho.item, [])
        before.append(ho)
        handoff = ends[ho.from_]._handoffs[ho.id]
        if id(handoff) in seen:
            continue
        seen.add(id(handoff))
        if ends[ho.from_].continues(ho) is not None:
            continue  # a re-send or re-issue hands nothing on anew (the live guard lets it out as one too)
        here = at[ho.id]
        earlier = [(m, ends[m.from_]._handoffs[m.id]) for m in before[:-1] if ho.from_ in (m.from_, m.to)]
        if _holder_then(ho.from_, earlier, ends, at, here, confirmed) == ho.from_:
            continue
        unread = next((h for m, h in earlier if h.receiver == ho.from_ and h.sender != ho.from_
                       and _open_then(h, at, here) and not _read_back_then(h, ends[h.sender], at, here)), None)
        if unread is not None:
            found[id(handoff)] = fail(
                kind="not-owner", key=ho.id, token=ho.id,
                message=f"HO {ho.id} hands {ho.item} on, but {unread.live} offered it to {ho.from_}, which had not "
                        f"read it back: {unread.sender} owns {ho.item} until a readback passes (spec 5 rule 1)")
    return found


def _read_back_again(messages: list[Any], by_id: Mapping[str, Any], ends: Mapping[str, Endpoint],
                     at: Mapping[str, int]) -> dict[int, list[Finding]]:
    """By handoff (``id()``): a readback of an HO whose ``re=`` names an HO of its sender's that the stream lacks,
    the first issue of its handoff, when an original HO (no ``re=``) of the same sender, receiver, item and slots
    came before it, read back or not, open or closed since: a re-send of that handoff, it may be, so reading it
    back makes two acts of one handoff, or an act on a handoff the original's close closed (spec 5 rule 1). The
    live endpoint refuses the RB (``read-back``, or ``closed`` after a close with no readback)."""
    originals: dict[tuple[str, str, str], list[Any]] = {}  # (from, to, item) -> its original HOs so far
    found: dict[int, list[Finding]] = {}
    for m in messages:
        if m.type == "HO" and m.re is None and m.item is not None:
            originals.setdefault((m.from_, m.to, m.item), []).append(m)
        ho = by_id.get(m.re) if m.type == "RB" and m.re is not None else None
        if ho is None or ho.type != "HO" or ho.item is None or m.from_ != ho.to:
            continue
        end = ends[ho.from_]
        handoff = end._handoffs[ho.id]
        here = at[m.id]
        if not _open_then(handoff, at, here):
            continue
        for original in originals.get((ho.from_, ho.to, ho.item), ()):
            other = end._handoffs[original.id]
            if other is not handoff and at[original.id] < here and end._resends_unseen(ho, handoff, original):
                state = "read back" if _read_back_then(other, end, at, here) else "held"
                found.setdefault(id(handoff), []).append(fail(
                    kind="read-back", key=ho.id, token=m.id,
                    message=f"RB {m.id} reads back {ho.id}, which names {ho.re} (not in the stream) and repeats "
                            f"{original.id}, which {ho.to} {state}: a re-send of it, it may be (one "
                            f"act per handoff); {ho.to} answers {ho.id} UN why=DUP"))
                break
    return found


def _holder_then(agent: str, earlier: list[tuple[Any, Handoff]], ends: Mapping[str, Endpoint],
                 at: Mapping[str, int], here: int, confirmed: Mapping[tuple[str, str], int]) -> str | None:
    """The item's holder by ``agent``'s record at ``here`` (the live endpoint's ``_holder``): ``earlier`` are the
    item's HOs ``agent`` took part in before that place, with their handoffs. A readback of ``agent``'s own HO at
    a level whose verdict is the sender's (``acc``, ``plan``, ``exec``) counts from ``agent``'s ``AN val=Y`` to
    it (``confirmed``, by who answered what: an answer from anyone else is no verdict): until then the verdict is ``agent``'s alone, on criteria or a record the stream may not
    hold, and the receiver may not act (spec 5.2, 5.3)."""
    for m, h in reversed(earlier):
        rb = ends[m.from_]._readbacks.get(m.id, ("", ""))
        if rb[0] != "passed" or at[rb[1]] > here or any(at[cx] < here for cx in h.cancels):
            continue
        if m.from_ == agent and waits_for_verdict(levels_of(m)) and confirmed.get((agent, rb[1]), here) >= here:
            continue
        return m.to
    return earlier[0][0].from_ if earlier else None


def _open_then(handoff: Handoff, at: Mapping[str, int], here: int) -> bool:
    return handoff.first_closer is None or at[handoff.first_closer] > here


def _read_back_then(handoff: Handoff, end: Endpoint, at: Mapping[str, int], here: int) -> bool:
    """Whether a readback of one of ``handoff``'s issues passed before ``here``."""
    for issue in handoff.issues:
        state, rb = end._readbacks.get(issue, ("", ""))
        if state == "passed" and at[rb] < here:
            return True
    return False


def _stood_until(handoff: Handoff, cancels: Mapping[str, Any]) -> str | None:
    """The message after which a handoff no longer stands: its first close, or where that close is its sender's
    cancel, the receiver's first answer to it (None: it still stands)."""
    if handoff.first_closer is not None and handoff.first_closer in cancels:
        return handoff.answered_by
    return handoff.first_closer


def _close_findings(handoff: Handoff, key: str, conversation: Conversation, answered: Container[str]) -> list[Finding]:
    """The table's findings that are this check's, keyed by the live issue, and the unanswered cancels (neither
    in ``answered``, the cancels an AN from their receiver names, nor followed by a close from it)."""
    findings = []
    first = conversation.get(handoff.first_closer)
    for f in handoff.findings:
        if f.kind in _TABLE_KINDS:
            text = finding_text(f.kind, conversation.get(f.token or ""), key, first)
            findings.append(attrs.evolve(f, key=key, message=text))
    for cx in handoff.cancels:
        if cx not in handoff.acknowledged and cx not in answered:
            findings.append(note(kind="cancel-unacknowledged", key=key,
                                 message=f"CX {cx} of {key} is not yet answered by {handoff.receiver}", token=cx))
    return findings


def _issue_state(ho: Any, handoff: Handoff, end: Endpoint, conversation: Conversation, ends: Mapping[str, Endpoint],
                 at: _dt.datetime, *, ledger: bool = True) -> tuple[HandoffStatus | None, list[Finding]]:
    """One issue's state in the ledger (one of :data:`HANDOFF_STATES`), and, while it is open, its findings
    (without ``ledger``, the findings alone: no state, None)."""
    rb_state, rb_id = end._readbacks.get(ho.id, (None, None))
    carried = ho.id in end._carried
    closer = None if carried else conversation.get(handoff.first_closer)
    if not ledger and (carried or closer is not None):
        return None, []
    common = dict(id=ho.id, item=ho.item, from_=ho.from_, to=ho.to, ask=ho.get("ask"),
                  readback=rb_state, rb=rb_id, exp=ho.get("exp"), due=ho.get("due"),
                  **_reversal(ho, conversation.by_id, ends))
    if carried:
        return HandoffStatus(state="reissued", next=end._carried[ho.id], **common), []
    if closer is not None:
        return HandoffStatus(state="closed", by=closer.type, closer=closer.id, **common), []
    late = []
    exp = ho.get("exp")
    if exp is not None and at > parse_time(exp):
        late.append(fail(kind="open-past-exp", key=ho.id, message=f"{ho.id} is still open past its exp={exp}"))
    due = ho.get("due")
    if due is not None and at.date() > _date(due):
        late.append(fail(kind="open-past-due", key=ho.id, message=f"{ho.id} is still open after its due={due}"))
    if rb_state == "failed":  # a held handoff: re-issue it or cancel it, never leave it (5.4)
        late.append(note(kind="held", key=ho.id, token=rb_id,
                         message=f"{ho.id}'s readback {rb_id} did not pass and it was neither re-issued nor cancelled"))
    open_ = note(kind="open", key=ho.id, message=f"{ho.id} is open and in time")
    if any(f.failed for f in late):
        return HandoffStatus(state="orphaned", **common), late
    if late:
        return HandoffStatus(state="held", **common), [*late, open_]
    state = {"passed": "owned", "failed": "held", None: "awaiting-readback"}[rb_state]
    return HandoffStatus(state=state, **common), [open_]


def _questions(messages: list[Any], ends: Mapping[str, Endpoint], at: _dt.datetime) -> list[tuple[Any, Finding]]:
    """Every question answered or refused by the agent it asked, never left (spec 5 rule 2)."""
    findings = []
    for aq in (m for m in messages if m.type == "AQ"):
        if ends[aq.to]._questions.get(aq.id) is not None:
            continue
        by = aq.get("by")
        if by is not None and at.date() > _date(by):
            findings.append((aq, fail(kind="unanswered", key=None, token=aq.id,
                                      message=f"AQ {aq.id} to {aq.to} is not answered, and its by={by} has passed")))
        else:
            findings.append((aq, note(kind="unanswered", key=None, token=aq.id, message=f"AQ {aq.id} to {aq.to} is "
                                      "not answered yet" + (f" (by={by})" if by else ""))))
    return findings


def _owners(hos: list[Any], ends: Mapping[str, Endpoint], *, firsts: bool
            ) -> tuple[list[ItemOwner], list[tuple[str, ItemOwner, str | None]]]:
    """The owner of each item: the ``to`` of its latest HO whose readback passed, else its first sender;
    and with ``firsts``, for each item its first HO, that HO's sender as the owner, and its latest HO whose
    readback passed (what the owners of parts of a conversation checked apart are merged by)."""
    owners: dict[str, ItemOwner] = {}
    first: dict[str, tuple[str, ItemOwner]] = {}
    passed_: dict[str, str] = {}
    for ho in hos:
        if ho.item is None:
            continue
        if ho.item not in owners:
            owners[ho.item] = ItemOwner(item=ho.item, owner=ho.from_, via=None)
            if firsts:
                first[ho.item] = (ho.id, owners[ho.item])
        if ends[ho.from_]._readbacks.get(ho.id, ("", ""))[0] == "passed":
            owners[ho.item] = ItemOwner(item=ho.item, owner=ho.to, via=ho.id)
            if firsts:
                passed_[ho.item] = ho.id
    return list(owners.values()), [(*first[item], passed_.get(item)) for item in owners] if firsts else []


__all__ = [
    "HandoffStatus",
    "ItemOwner",
    "KeptMessage",
    "SPOOL_BYTES",
    "SpooledLines",
    "ThreadLedger",
    "ThreadReport",
    "SpooledThreadReport",
    "check_thread",
    "check_thread_spooled",
    "parse_now",
]

__getattr__ = _deprecated.renamed(__name__, {
    "Ledger": ("ThreadLedger", ThreadLedger),  # not the endpoint's rogerwilco.ledger.Ledger
    "HandoffState": ("HandoffStatus", HandoffStatus),  # not the LangGraph integration's HandoffState
})
