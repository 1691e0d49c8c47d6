"""Lint's accept path: a conversation made of plain threads, read in one pass.

Most streams a linter reads are clean, and most of their threads take the
same few steps: an HO, its readback, its DN; a question and its answer; a
cancel and its ``AN val=Y``; a re-send answered ``UN why=DUP``; a re-issue
after a void readback; a refusal. :class:`PlainThreads` follows those steps,
message by message in stream order, in a few dict operations each. It
reports no finding itself. Where a message takes any other step (a type, a
slot, a party, a state it does not follow), :meth:`PlainThreads.take` says
no, and lint reads the whole stream again the full way
(:func:`rogerwilco.io.lint.lint_stream`). When the stream ends with every
message taken, :meth:`PlainThreads.unfinished` gives the threads still
waiting for something (an HO not read back, a question not answered, a
cancel not acknowledged; given a ``now``, a handoff open with a date), whole,
and lint gives those the full rules: a plain thread that waits for nothing
has no finding, and each thread is a part of the conversation that touches
nothing else (:mod:`rogerwilco.checks._components`), so the findings are the
full pass's.

Why a finished plain thread has no finding, rule by rule (each step says
which rows it takes): every id goes forward from its sender's last, so no
id comes twice (RW100, RW101); every ``re=`` names a message a step may
still read, of the kind the step expects, from and to the parties it
expects (RW102, RW109, RW117); every HO that starts a handoff is about an
item no earlier HO named, so no owner rule (RW112, RW116) can read two HOs
of one item; no HO carries ``ctx=``, or readback levels but ``echo``,
``acc`` and ``plan``; a readback that waits for the sender's verdict is
cleared by the sender's ``AN val=Y`` before any act (RW111, RW113, RW114),
and one left waiting is read by the full rules; each handoff steps through
the lifecycle's table (:data:`rogerwilco.checks.lifecycle.TRANSITIONS`) on
rows that carry no finding (RW105, RW108); and a finished thread waits for
no answer (RW103, RW104, RW110, RW115) and has no date left to pass (RW106,
RW107). A handoff of a profile takes the same steps (the replay reads it
through the same table, its readbacks through the profile's vocabulary).
The differential tests (``tests/test_lint_plain.py``) hold the accept path
to the full lint on generated conversations (of the core and of a profile)
and on every stream the tests read, and the C scanner's steps to these.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Callable, Iterator

from ..core import speedups
from ..core.vocab import Receiver
from .readback import VERBATIM_BLOCKERS, readback_passes, verbatim_types

#: the readback verdict is the replay's: as of a moment before any exp (the endpoint checks an RB so)
_BEFORE_ANY_EXP = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
#: an HO's slots that take its handoff off the plain steps: an undo's context (a profile does not: the replay
#: reads a profile's handoff through the same table, its readbacks through the profile's vocabulary)
_NOT_PLAIN_HO = frozenset({"ctx"})
#: the readback levels a plain HO may ask (``rb=``): the echo, and the sender's criteria (``acc``, ``plan``:
#: a readback that passes waits for the sender's ``AN val=Y``); any other token (``all``, ``exec``, a slot) is
#: not a plain step
_PLAIN_LEVELS = frozenset({"echo", "acc", "plan"})
_VERDICT_LEVELS = frozenset({"acc", "plan"})
#: the memory the accept path may hold per message it names (an id and its record), and per message of a
#: thread not finished (kept whole: about 1 KB), about; past lint's bound the full pass takes over (it spills)
HELD = 240
KEPT = 1200

# a thread: [sender, receiver, item, readback state, close state, live HO (None once closed), the live HO's id,
# answers it waits for, its messages (None once finished), dated (a due= or exp= on an issue), the live HO's
# verbatim_types (None: its readbacks are read by the tiers), whether its readback waits for the verdict]
_FROM, _TO, _ITEM, _READBACK, _CLOSE, _LIVE, _LIVE_ID, _WAITS, _MESSAGES, _DATED, _ECHO, _VERDICT = range(12)
# the readback region's states, and the close region's, as the lifecycle's table names them
OFFERED, VOID, WILCO, READ_BACK = range(4)
OPEN, DONE, CLOSED, CANCELLED = range(4)
# what an id names, while a step may read it: (kind, thread), a question (QUESTION, thread, asker, asked)
ISSUE, RESEND, RB_VOID, QUESTION, CANCEL, RB_WAIT = range(6)


class PlainThreads:
    """One stream's messages, taken in order while every one takes a plain step (the module's docstring).

    :meth:`stepper` gives the function that takes each message and says whether it took a plain step (the C
    scanner's, where it is built: step for step this class's :meth:`take`); at the first False the caller
    stops (the object is spent) and reads the stream the full way. After the last message,
    :meth:`unfinished` gives what the full rules must still read."""

    __slots__ = ("_receiver", "_named", "_last", "_items", "_open", "_room")

    def __init__(self, receiver: Receiver, *, memory_bytes: int) -> None:
        self._receiver = receiver
        self._named: dict[str, tuple[Any, ...]] = {}
        self._last: dict[str, int] = {}  # each sender's last id number
        self._items: set[str] = set()
        self._open: dict[str, list[Any]] = {}  # the threads not finished (keeping their messages), by first id
        self._room = memory_bytes

    def stepper(self) -> Callable[[Any], bool]:
        """The function that takes the next message: the C scanner's where it is built, else :meth:`take`. One
        object is stepped by one of them alone."""
        steps = speedups.plain_steps
        if steps is None:
            return self.take
        return steps(self._named, self._last, self._items, self._open, self._room, HELD, KEPT, _NOT_PLAIN_HO,
                     self._readback, VERBATIM_BLOCKERS).take

    def _readback(self, ho: Any, rb: Any) -> bool:
        return readback_passes(ho, rb, receiver=self._receiver, now=_BEFORE_ANY_EXP)

    def take(self, m: Any) -> bool:
        """Take the next message (a :class:`rogerwilco.core.message.Message`); False where it is not plain."""
        named = self._named
        ident = m.id
        if ident in named:  # a repeated id is RW100's (or a twin line: not plain either)
            return False
        self._room -= HELD
        if self._room < 0:
            return False
        sender = m.from_
        head, dash, digits = ident.rpartition("-")
        if head != sender or not (digits.isascii() and digits.isdigit()):
            return False
        number = int(digits)
        last = self._last
        if number <= last.get(sender, -1):  # RW101
            return False
        last[sender] = number
        kind = m.type
        re = m.re
        if re is None:
            if kind == "HO":
                return self._new_handoff(m)
            if kind == "AQ" and m.item is None:  # a question on nothing: a thread of its own, with no close
                question = [sender, m.to, None, OFFERED, CLOSED, None, None, 1, [m], False, None, False]
                self._open[ident] = question
                named[ident] = (QUESTION, question, sender, m.to)
                return self._keep(question, None)
            return False
        target = named.get(re)
        if target is None:  # RW102
            return False
        what, t = target[0], target[1]
        to = m.to
        if kind == "RB":
            # the receiver's readback of the live issue, before any other: the table's (offered, RB-pass) to
            # wilco (the echo level waits for no verdict), (offered, RB-pass-wait) to read-back (acc, plan: the
            # sender's AN val=Y clears it), (offered, RB-void) to void; each answers the HO
            if what != ISSUE or t[_LIVE_ID] != re or t[_READBACK] != OFFERED or t[_CLOSE] != OPEN:
                return False
            if sender != t[_TO] or to != t[_FROM]:
                return False
            if self._echoes(t, m):
                t[_WAITS] -= 1
                if t[_VERDICT]:
                    t[_READBACK] = READ_BACK
                    named[ident] = (RB_WAIT, t)
                else:
                    t[_READBACK] = WILCO
            else:
                t[_READBACK] = VOID  # it waits on, for the re-issue
                named[ident] = (RB_VOID, t)
            return self._keep(t, m)
        if kind == "DN":
            # the act (or NOOP) on a handoff cleared to act and open: (wilco, DN-act), (open, DN-act) to done,
            # (open, DN-noop) to closed; no finding on either row
            if what != ISSUE or t[_LIVE_ID] != re or t[_READBACK] != WILCO or t[_CLOSE] != OPEN:
                return False
            if sender != t[_TO] or to != t[_FROM] or m.item != t[_ITEM]:
                return False
            t[_CLOSE] = CLOSED if m.slots.get("out") == "NOOP" else DONE
            t[_LIVE] = None
            return self._keep(t, m)
        if kind == "FL" or (kind == "UN" and what == ISSUE):
            # the receiver's close of the live issue, open, offered or cleared: (open, UN) and (open, FL) to
            # closed. A refusal answers the HO (RW103); a failure does not: an HO not read back still waits, and
            # the full rules read its thread
            if what != ISSUE or t[_LIVE_ID] != re or t[_CLOSE] != OPEN or t[_READBACK] == VOID:
                return False
            if sender != t[_TO] or to != t[_FROM] or (m.item is not None and m.item != t[_ITEM]):
                return False
            if kind == "UN":
                if m.slots.get("why") in ("DUP", "UNK", "VER"):
                    return False
                if t[_READBACK] == OFFERED:
                    t[_WAITS] -= 1
            t[_CLOSE] = CLOSED
            t[_LIVE] = None
            return self._keep(t, m)
        if kind == "UN":
            if what == RESEND:
                # the receiver's UN why=DUP to a re-send of a handoff it read back: it closes the re-send alone
                if t[_CLOSE] != OPEN or sender != t[_TO] or to != t[_FROM] or m.slots.get("why") != "DUP":
                    return False
                del named[re]  # (answered: no second answer)
                t[_WAITS] -= 1
            elif what != QUESTION or not self._answers(m, target):
                return False
            return self._keep(t, m)
        if kind == "AN":
            if what == QUESTION:
                if not self._answers(m, target):
                    return False
            elif what == RB_WAIT:
                # the sender's verdict on a readback that passed, the handoff open: (read-back, confirm) to wilco
                if t[_READBACK] != READ_BACK or t[_CLOSE] != OPEN or m.slots.get("val") != "Y":
                    return False
                if sender != t[_FROM] or to != t[_TO]:
                    return False
                del named[re]
                t[_READBACK] = WILCO
            elif what == CANCEL:
                # the receiver's AN val=Y to the cancel
                if sender != t[_TO] or to != t[_FROM] or m.slots.get("val") != "Y":
                    return False
                del named[re]
                t[_WAITS] -= 1
            else:
                return False
            return self._keep(t, m)
        if kind == "CX":
            # the sender's cancel of the live issue, open, offered or cleared: (open, CX) to cancelled; it
            # answers the HO and waits for the receiver's AN val=Y; nothing closes the handoff after it here
            if what != ISSUE or t[_LIVE_ID] != re or t[_CLOSE] != OPEN or t[_READBACK] == VOID:
                return False
            if sender != t[_FROM] or to != t[_TO] or m.item != t[_ITEM]:
                return False
            if t[_READBACK] == OFFERED:
                t[_WAITS] -= 1
            t[_CLOSE] = CANCELLED
            t[_LIVE] = None
            t[_WAITS] += 1
            named[ident] = (CANCEL, t)
            return self._keep(t, m)
        if kind == "AQ":
            # a question about the live issue of an open handoff, between its two parties
            if what != ISSUE or t[_LIVE_ID] != re or t[_CLOSE] != OPEN:
                return False
            if m.item is not None and m.item != t[_ITEM]:
                return False
            if not ((sender == t[_FROM] and to == t[_TO]) or (sender == t[_TO] and to == t[_FROM])):
                return False
            t[_WAITS] += 1
            named[ident] = (QUESTION, t, sender, to)
            return self._keep(t, m)
        if kind == "HO":
            return self._carried(m, what, t)
        return False

    def _answers(self, m: Any, question: tuple[Any, ...]) -> bool:
        """The asked agent's AN or UN to a question not answered yet (the question's thread waits no more)."""
        _, t, asker, asked = question
        if m.from_ != asked or m.to != asker:
            return False
        del self._named[m.re]
        t[_WAITS] -= 1
        return True

    def _keep(self, t: list[Any], m: Any) -> bool:
        """Keep ``m`` with its thread while the thread waits or is open; let the thread go once finished."""
        kept = t[_MESSAGES]
        if m is not None:
            kept.append(m)
            self._room -= KEPT
        if t[_WAITS] == 0 and t[_CLOSE] != OPEN and t[_READBACK] != READ_BACK:
            self._room += KEPT * len(kept)
            t[_MESSAGES] = None
            del self._open[kept[0].id]
            self._named.pop(t[_LIVE_ID], None)  # (its live issue: nothing reads a finished thread again)
        return self._room >= 0

    def _echoes(self, t: list[Any], rb: Any) -> bool:
        """Whether the readback passes: at once where it reads back the HO's item and slots as the same
        values (:func:`rogerwilco.checks.readback.verbatim_types`), else by the tiers, as the replay reads it."""
        ho = t[_LIVE]
        typed = t[_ECHO]
        if typed is not None and rb.item == ho.item and rb.slots == ho.slots:
            slots = rb.slots
            if all(type(slots[k]) is kind for k, kind in typed):
                return True
        return self._readback(ho, rb)

    def _plain_ho(self, m: Any) -> bool:
        slots = m.slots
        if type(m.item) is not str or m.from_ == m.to or not _NOT_PLAIN_HO.isdisjoint(slots):
            return False
        levels = slots.get("rb")
        if levels is not None and (type(levels) is not tuple or not _PLAIN_LEVELS.issuperset(levels)):
            return False
        return slots.get("ask") != "UNDO"

    def _issue(self, t: list[Any], m: Any) -> None:
        """``m`` is the handoff's live issue now: its id, its dates, how its readback is read."""
        slots = m.slots
        t[_LIVE] = m
        t[_LIVE_ID] = m.id
        if "due" in slots or "exp" in slots:
            t[_DATED] = True
        t[_ECHO] = verbatim_types(m)
        t[_VERDICT] = not _VERDICT_LEVELS.isdisjoint(slots.get("rb") or ())

    def _new_handoff(self, m: Any) -> bool:
        """An HO that answers nothing, about an item no HO named before."""
        item = m.item
        if not self._plain_ho(m) or item in self._items:
            return False
        self._items.add(item)
        t = [m.from_, m.to, item, OFFERED, OPEN, None, None, 1, [m], False, None, False]
        self._room -= KEPT
        self._issue(t, m)
        self._open[m.id] = t
        self._named[m.id] = (ISSUE, t)
        return self._keep(t, None)

    def _carried(self, m: Any, what: int, t: list[Any]) -> bool:
        """An HO whose ``re=`` names its own handoff: a re-send of the live issue once read back (the table's
        (wilco, resend): it is answered UN why=DUP), or a re-issue naming the void readback ((void, reissue)
        to offered)."""
        if what != ISSUE and what != RB_VOID:
            return False
        if not self._plain_ho(m) or t[_CLOSE] != OPEN:
            return False
        if m.from_ != t[_FROM] or m.to != t[_TO] or m.item != t[_ITEM]:
            return False
        if what == ISSUE:
            live = t[_LIVE]
            if t[_LIVE_ID] != m.re or t[_READBACK] != WILCO or m.slots != live.slots or m.tail != live.tail:
                return False
            t[_WAITS] += 1
            self._named[m.id] = (RESEND, t)
            return self._keep(t, m)
        if what == RB_VOID:  # (the void readback of the live issue: one a handoff, while it is void)
            if t[_READBACK] != VOID:
                return False
            del self._named[m.re]  # (the void readback, answered)
            del self._named[t[_LIVE_ID]]  # (the issue it voided: nothing reads it again)
            t[_READBACK] = OFFERED  # the re-issue waits for its readback in the void one's place
            self._issue(t, m)
            self._named[m.id] = (ISSUE, t)
            return self._keep(t, m)
        return False

    def unfinished(self, now: str | None) -> Iterator[list[Any]]:
        """The messages of each thread the full rules must read: one waiting for an answer (an HO not read
        back, a void readback not re-issued, a re-send, question or cancel not answered), and with ``now``
        one still open with a ``due=`` or ``exp=``, and one read back that waits for the sender's verdict;
        each thread's messages in stream order."""
        for t in self._open.values():
            if (t[_WAITS] or t[_READBACK] == VOID or t[_READBACK] == READ_BACK
                    or (now is not None and t[_DATED] and t[_CLOSE] == OPEN)):
                yield t[_MESSAGES]
