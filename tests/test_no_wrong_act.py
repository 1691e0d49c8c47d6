"""No wrong act under any interleaving: a stateful property test, and the issue's four reproducers.

Three agents (``a``, ``b``, ``c``) each run an :class:`~rogerwilco.Endpoint`;
``c`` keeps its endpoint on a SQLite ledger that the tool's store
(:class:`~rogerwilco.front.tool.ToolStore`, ``endpoint=``) shares, and a second
process of ``c`` reads and writes the same ledger. Between them sits a
transport that delivers lines in any order, drops them, delivers them twice and
forges them (a cancel in the sender's name, a line in the receiver's own name,
a line reusing an id the receiver already holds with other content, a done
report in the receiver's name, a line with an unknown code). The agents send
handoffs at every readback level (``echo``, ``all``, ``acc`` with the criteria
kept back, ``exec`` under the pay profile; some with ``exp=``), read back
(composed by code, or wrong), confirm, re-issue, re-send, cancel, answer
cancels, change an ``rb=all`` handoff and echo the change (or echo it wrong),
act (sometimes with another amount than the plan's), reverse such an act
(``ask=UNDO``), refuse, fail, close or act on an HO their end has not
received yet, confirm a readback their end has not received, send what ``tick`` offers and advance a fake clock. They act
three ways: when ``may_act`` says so, by sending ``DN out=OK`` without
asking, and through the tool's ``prepare`` and ``commit`` (sometimes while
another process of ``c`` takes a line from the transport between the tool's
question and its act).

What must hold (an act the endpoint or the tool refuses is no act: the
invariants are about what gets out and what runs):

* never two owners: at any moment at most one agent may act on an item, and
  it is the owner of spec 5 rule 1 (the ``to`` of the most recent HO with a
  readback that passes its sender's check, the check its sender's endpoint runs
  with the criteria it kept back);
* no act before wilco: the actor let out a readback of the handoff that passes
  its sender's check, and under ``rb=exec`` it received the sender's
  ``AN val=Y`` to it;
* under ``rb=all``, no act before the actor let out, for every change of the
  handoff it received (an ST or AN of its sender naming an issue it held), an echo
  that passes the sender's check;
* at most one act per handoff;
* a cancel the actor received before the act, in whatever order it came,
  prevents the act;
* nothing is done on an HO after its ``exp=``;
* ``receive`` never raises;
* each endpoint's journal, read by ``check_thread``, has no fail finding
  against a line that endpoint let out, and ``check_thread``'s findings of the
  table's kinds on the lines it received are exactly those the endpoint raised
  live.

Budget: ``RW1_STATEFUL_EXAMPLES`` (default 50) runs and
``RW1_STATEFUL_STEPS`` (default 40) steps per run. By hand, for instance::

    RW1_PURE=1 RW1_STATEFUL_EXAMPLES=2000 RW1_STATEFUL_STEPS=80 \\
        python -m pytest -q -p no:cacheprovider tests/test_no_wrong_act.py

(``--hypothesis-seed=N`` replays one run exactly.)

The plain tests at the end reproduce the issue's four wrong acts one by one.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import sqlite3
import sys
import tempfile
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from rogerwilco import Endpoint, Message, ProtocolError
from rogerwilco.checks.endpoint import (Cancelled, ChangeToEcho, DoneReport, HandoffOffered, Held, Orphaned,
                                        QuestionUnanswered, ReadbackOverdue, ReadbackPassed, ReadbackVoid, Reply,
                                        Unreadable, check_echo)
from rogerwilco.checks.ledger import LedgerError, SQLiteLedger
from rogerwilco.checks.readback import check_rb, levels_of
from rogerwilco.checks.thread import check_thread
from rogerwilco.core.errors import RW1Error
from rogerwilco.core.slottypes import parse_time
from rogerwilco.front.tool import ToolError, ToolRefused, ToolStore

EXAMPLES = int(os.environ.get("RW1_STATEFUL_EXAMPLES", "50"))
STEPS = int(os.environ.get("RW1_STATEFUL_STEPS", "40"))

AGENTS = ("scheduler", "auditor", "payer")  # pay's named agents: the machine's pay handoffs are ones pay takes
PAIRS = tuple((sender, to) for sender in AGENTS for to in AGENTS if sender != to)
TOOL_AGENT = "payer"
PROFILES = ["pay"]
START = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)
PAY_ITEM = "inv:MD-2026-057"
ITEMS = ("x:1", "x:2", PAY_ITEM)
#: who holds each item first; anyone else hands it on only after an HO of it reached them (an agent that never
#: held an item and says it owns it is a forger no endpoint can tell from its owner)
ORIGIN = {"x:1": "scheduler", "x:2": "auditor", PAY_ITEM: "scheduler"}
PAY_VALUES = ("sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 "
              "apref=FD-0929")
LEVELS = ("echo", "all", "acc")
KEPT_CRITERIA = "len:120w+tone:plain"
CRITERIA = (KEPT_CRITERIA, "len:150w+tone:plain")  # the receiver's reading: right, or a contradiction
#: the table's finding kinds: what an endpoint raises live and check_thread reports on the same lines
TABLE_KINDS = frozenset({"act-before-wilco", "act-after-cancel", "closed-twice", "act-before-echo", "confirm-void",
                         "confirm-without-readback", "cancel-wrong-party"})
FORGED_BASE = 900  # forged lines take ids from here, above any number an agent reaches in a run


def stamp(at: dt.datetime) -> str:
    return at.strftime("%Y%m%dT%H%MZ")


def field(line: str, key: str) -> str | None:
    found = re.search(rf" {key}=(\S+)", line.split(" // ", 1)[0])
    return found.group(1) if found else None


def parse(line: str) -> Message | None:
    try:
        return Message.from_line(line, PROFILES)
    except RW1Error:
        return None


def ho_line(sender: str, to: str, item: str, level: str, exp: str | None) -> str:
    if item == PAY_ITEM:
        body = f"p=pay from={sender} to={to} item={item} ask=PAY rb=exec {PAY_VALUES}"
    elif level == "acc":
        body = f"from={sender} to={to} item={item} ask=DRAFT rb=acc keys=len+tone"
    else:
        body = f"from={sender} to={to} item={item} ask=FIX" + (" rb=all" if level == "all" else "")
    tail = " // 120 words, plain tone" if level == "acc" and item != PAY_ITEM else ""
    return f"RW1 HO {sender}-0 {body}" + (f" exp={exp}" if exp else "") + tail


def dn_line(actor: str, ho: Message, out: str = "OK", *, off: bool = False) -> str:
    """The act's done report: under pay, the execution slots as executed (the HO's values; ``off``: the tool paid
    another amount, a report the sender's done check fails and answers with an undo)."""
    values = f" {PAY_VALUES}" if ho.profile == "pay" and out != "NOOP" else ""
    if off:
        values = values.replace("amt=5400.00", "amt=5100.00")
    p = " p=pay" if ho.profile == "pay" else ""
    return f"RW1 DN {actor}-0 re={ho.id}{p} from={actor} to={ho.from_} item={ho.item} out={out}{values}"


class RacingEndpoint:
    """The endpoint as the tool's store sees it: after each answer to ``may_act`` another process of the same
    agent may take lines from the transport (``hook``), before the store goes on to act."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self.hook = None

    def may_act(self, ho_id: str) -> bool:
        answer = self._endpoint.may_act(ho_id)
        if self.hook is not None:
            self.hook()
        return answer

    def __getattr__(self, name: str):
        return getattr(self._endpoint, name)


class NoWrongAct(RuleBasedStateMachine):
    """Three agents, one tool on a shared ledger, and a transport that loses, repeats, reorders and forges."""

    @initialize()
    def start(self) -> None:
        self.now = START
        # (in memory where the system offers it: the files live for one run)
        self.dir = tempfile.mkdtemp(prefix="rw1-stateful-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.ends = {name: Endpoint(name, profiles=PROFILES, clock=self.clock) for name in AGENTS
                     if name != TOOL_AGENT}
        self.open_payer()
        self.wire: list[tuple[str, str]] = []  # (to, line) in flight
        self.let_out: dict[str, list[str]] = defaultdict(list)  # agent -> ids its endpoint let out
        self.log: list[str] = []  # every line the endpoints let out, in order
        self.hos: list[Message] = []  # HOs let out, in order
        self.ho_by_id: dict[str, Message] = {}
        self.kept: dict[str, str] = {}  # HO id -> the criteria its sender kept back
        self.rb_pass: dict[str, bool] = {}  # RB id let out -> whether it passes its sender's check
        self.rb_of: dict[str, list[str]] = defaultdict(list)  # HO id -> RBs let out for it
        self.cx_of: dict[str, str] = {}  # CX id -> the HO it names
        self.seq: dict[str, int] = {}  # a line let out -> its place among them
        self.abandoned: set[str] = set()  # HOs a CX named that their receiver answered AN val=Y (spec 5.4)
        # agent -> (from, re=) of the cancels it received, and of the AN val=Y it received
        self.cancels_in: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
        self.confirms_in: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
        self.delivered: dict[str, dict[str, str]] = defaultdict(dict)  # agent -> id -> line it took
        self.offers: dict[str, dict[str, HandoffOffered]] = defaultdict(dict)
        self.to_confirm: list[tuple[str, Message]] = []
        self.to_reissue: list[tuple[str, Message]] = []
        self.to_answer: list[tuple[str, Message]] = []
        self.to_echo: list[tuple[str, Message]] = []
        self.changes: dict[str, Message] = {}  # a change let out (an ST, or an AN naming an HO) -> the line
        self.to_undo: list[tuple[str, Message]] = []
        self.undo_later: list[tuple[str, str]] = []  # (agent, DN id) whose reversal send refused when it came
        # agent -> HO id -> the changes (rb=all: an ST or AN of its sender naming it) it received after that HO
        self.changes_in: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self.echoed: set[tuple[str, str]] = set()  # (agent, change id) it let out an echo of that passes the check
        self.prepared: list[tuple[str, str]] = []  # (token, HO id)
        self.acts: dict[tuple[str, str], list[str]] = defaultdict(list)  # (sender, handoff key) -> how each act ran
        self.n_forged = FORGED_BASE
        self.forged_done: set[tuple[str, str]] = set()  # (receiver, HO id) a forged DN closed at its sender
        self.prompt = False  # agents that answer at once: read back as composed, confirm what passes

    def clock(self) -> dt.datetime:
        return self.now

    def open_payer(self) -> None:
        """The tool's agent: its endpoint and tool store on one SQLite ledger, and a second process of it."""
        ledger = os.path.join(self.dir, f"{TOOL_AGENT}.ledger")
        self.ends[TOOL_AGENT] = Endpoint(TOOL_AGENT, profiles=PROFILES, clock=self.clock,
                                         ledger=SQLiteLedger(ledger, synchronous="NORMAL"))
        # another process of the tool's agent on the same ledger: it never waits for a lock (a step it cannot
        # take now stays on the transport)
        self.other = Endpoint(TOOL_AGENT, profiles=PROFILES, clock=self.clock,
                              ledger=SQLiteLedger(ledger, synchronous="NORMAL", busy_timeout=0))
        self.racing = RacingEndpoint(self.ends[TOOL_AGENT])
        self.store = ToolStore.open(ledger, profiles=PROFILES, endpoint=self.racing)

    def teardown(self) -> None:
        if getattr(self, "dir", None):
            try:
                if sys.exc_info()[0] is None:  # after a run that broke nothing else: the thread check
                    self.check_threads()
            finally:
                shutil.rmtree(self.dir, ignore_errors=True)

    # ---- the transport ------------------------------------------------------------------------------------

    def put(self, line: str) -> None:
        to = field(line, "to")
        if to in AGENTS:
            self.wire.append((to, line))

    def take(self, agent: str, line: str, end: Endpoint | None = None) -> None:
        """One line into one of ``agent``'s endpoints; what the oracle learns from it; its replies back out."""
        end = end or self.ends[agent]
        try:
            events = end.receive(line)
        except (LedgerError, sqlite3.OperationalError):
            if end is self.other:  # the other process found the ledger busy: the line waits on the transport
                self.wire.append((agent, line))
                return
            raise
        except Exception as exc:
            raise AssertionError(f"receive raised {exc!r} on {line!r}") from exc
        if any(isinstance(e, Unreadable) for e in events):
            for e in events:
                if isinstance(e, Reply):
                    self.out(agent, e.line)
            return
        message = parse(line)
        if message is not None and message.to == agent:
            self.delivered[agent].setdefault(message.id, line)
            if message.type == "CX":
                self.cancels_in[agent].add((message.from_, message.re))
            if message.type == "AN" and message.get("val") == "Y" and message.re:
                self.confirms_in[agent].add((message.from_, message.re))
            if message.type == "DN" and message.re and int(message.id.rsplit("-", 1)[1]) > FORGED_BASE:
                self.forged_done.add((message.from_, message.re))
            if message.type in ("ST", "AN") and message.re in self.delivered[agent] and message.re in self.ho_by_id \
                    and "all" in levels_of(self.ho_by_id[message.re]) and message.from_ == self.ho_by_id[message.re].from_:
                self.changes_in[agent][message.re].append(message.id)
        for e in events:  # what an event offers to send is what send takes: a readback offered is of an open issue
            if isinstance(e, HandoffOffered) and e.readback is not None:
                view = end.handoff(e.readback.re)
                assert view is not None and view.open and view.id == e.readback.re, (
                    f"{agent} was offered a readback of {e.readback.re} that send refuses: {view}")
        for e in events:
            if isinstance(e, Reply):
                self.out(agent, e.line)
            elif isinstance(e, HandoffOffered) and self.prompt and e.readback is not None and agent != TOOL_AGENT:
                self.send_offered(agent, end, e.readback)
            elif isinstance(e, HandoffOffered) and self.prompt:
                self.read_back_as_composed(agent, e.message)
            elif isinstance(e, ReadbackPassed) and e.confirm is not None and self.prompt:
                self.send_offered(agent, end, e.confirm)
            elif isinstance(e, Cancelled) and e.reply is not None and self.prompt:
                self.send_offered(agent, end, e.reply)
            elif isinstance(e, ChangeToEcho) and e.echo is not None and self.prompt:
                self.send_offered(agent, end, e.echo)
            elif isinstance(e, DoneReport) and e.undo is not None and self.prompt:
                self.send_offered(agent, end, e.undo)
            elif isinstance(e, ReadbackVoid) and e.reissue is not None and self.prompt:
                earlier = next((h for h, rbs in self.rb_of.items() if e.reissue.re in rbs), "")
                kept = self.kept.get(earlier)
                try:
                    sent = end.send(e.reissue, number=True, expect_acc=kept)
                except ProtocolError as exc:
                    raise AssertionError(f"{agent} was offered {e.reissue.to_line()} that send refuses: {exc}") from exc
                if kept is not None:
                    self.kept[sent.split(" ")[2]] = kept
                self.out(agent, sent)
            elif isinstance(e, HandoffOffered):
                self.offers[agent][e.message.id] = e
            elif isinstance(e, ReadbackPassed) and e.confirm is not None:
                self.to_confirm.append((agent, e.confirm))
            elif isinstance(e, ReadbackVoid) and e.reissue is not None:
                self.to_reissue.append((agent, e.reissue))
            elif isinstance(e, Cancelled) and e.reply is not None:
                self.to_answer.append((agent, e.reply))
            elif isinstance(e, ChangeToEcho) and e.echo is not None:
                self.to_echo.append((agent, e.echo))
            elif isinstance(e, DoneReport) and e.undo is not None:
                self.to_undo.append((agent, e.undo))
            elif isinstance(e, DoneReport) and e.refused is not None:
                self.undo_later.append((agent, e.message.id))
            if isinstance(e, (ReadbackPassed, ReadbackVoid)) and e.message.id in self.rb_pass:
                judged = isinstance(e, ReadbackPassed)
                assert judged == self.rb_pass[e.message.id], \
                    f"{agent}'s endpoint judged {e.message.id} {'passing' if judged else 'void'}, unlike its check"

    def send_offered(self, agent: str, end: Endpoint, message: Message, expect_acc: str | None = None) -> None:
        """What an event offered to send, sent at once (as an agent that answers at once does): send takes it
        (numbered by the endpoint, except the act's DN a cancel is answered with, which went out already; an
        issue of a handoff keeps its criteria back as the first did)."""
        try:
            line = end.send(message, number=message.type != "DN", expect_acc=expect_acc)
        except ProtocolError as exc:
            raise AssertionError(f"{agent} was offered {message.to_line()} that send refuses: {exc}") from exc
        if expect_acc is not None:
            self.kept[line.split(" ")[2]] = expect_acc
        self.out(agent, line)

    def out(self, agent: str, line: str) -> None:
        """A line ``agent``'s endpoint let out: into the oracle, onto the transport."""
        message = parse(line)
        assert message is not None, line
        self.let_out[agent].append(message.id)
        self.seq[message.id] = len(self.log)
        self.log.append(line)
        if message.type == "HO":
            self.hos.append(message)
            self.ho_by_id[message.id] = message
        elif message.type == "ST" or (message.type == "AN" and message.re in self.ho_by_id):
            self.changes[message.id] = message
        elif message.type == "RB" and message.re in self.changes:
            if check_echo(self.changes[message.re], message, profiles=PROFILES).passed:
                self.echoed.add((agent, message.re))
        elif message.type == "RB" and message.re in self.ho_by_id:
            ho = self.ho_by_id[message.re]
            # judged as the endpoints judge it, before any exp= (expiry is the clock's rule, checked on each act)
            report = check_rb(ho, message, profiles=PROFILES, expect_acc=self.kept.get(ho.id), now=START)
            self.rb_pass[message.id] = report.passed
            self.rb_of[ho.id].append(message.id)
        elif message.type == "CX" and message.re in self.ho_by_id:
            self.cx_of[message.id] = message.re
        elif message.type == "AN" and message.get("val") == "Y" and message.re in self.cx_of \
                and message.from_ == self.ho_by_id[self.cx_of[message.re]].to:
            self.abandoned.add(self.cx_of[message.re])
        self.put(line)

    def send(self, agent: str, message, **kw) -> str | None:
        try:
            line = self.ends[agent].send(message, **kw)
        except ProtocolError:
            return None
        self.out(agent, line)
        return line

    # ---- the oracle ---------------------------------------------------------------------------------------

    def owner(self, item: str) -> str | None:
        """Spec 5 rule 1: the ``to`` of the HO whose readback passing its sender's check came last (the readback
        transfers the item), less a handoff its sender cancelled and its receiver abandoned (``AN val=Y``, spec
        5.4: the item stays with the sender), and less a handoff a DN forged in its receiver's name closed at its
        sender (that sender may hand the item on again: the deceived receiver is left out of the one-owner check,
        :meth:`never_two_owners`, and so is its readback here)."""
        hos = [ho for ho in self.hos if ho.item == item]
        last = self.last_passed(item, forged_too=False)
        return last.to if last is not None else hos[0].from_ if hos else None

    def last_passed(self, item: str, *, forged_too: bool) -> Message | None:
        """The HO of ``item`` whose readback passing its sender's check came last, less a handoff its sender
        cancelled and its receiver abandoned, and (unless ``forged_too``) less one a forged DN closed."""
        passed = [(min(self.seq[rb] for rb in rbs), ho) for ho in self.hos if ho.item == item
                  if not any(i in self.abandoned or (not forged_too and (ho.to, i) in self.forged_done)
                             for i in self.with_resends(ho.from_, set(self.issues(ho.id)[1])))
                  and (rbs := [rb for rb in self.rb_of.get(ho.id, ()) if self.rb_pass[rb]])]
        return max(passed, key=lambda pair: pair[0])[1] if passed else None

    def holds_by_deception(self, name: str, item: str) -> bool:
        """Whether ``name`` holds ``item`` by a handoff a DN forged in its name closed at its sender: it may act
        on any handoff of the item it holds, and the sender may hand the item on again."""
        last = self.last_passed(item, forged_too=True)
        return last is not None and last.to == name and any(
            (name, i) in self.forged_done for i in self.with_resends(last.from_, set(self.issues(last.id)[1])))

    def issues(self, ho_id: str) -> tuple[str, tuple[str, ...]]:
        """The handoff an HO belongs to, as its sender's endpoint holds it: (its key, its issues)."""
        ho = self.ho_by_id[ho_id]
        view = self.ends[ho.from_].handoff(ho_id)
        return (view.key, view.issues) if view is not None else (ho_id, (ho_id,))

    def acted(self, actor: str, ho_id: str, how: str) -> None:
        """``actor`` acted on the handoff of ``ho_id``: every rule about an act must hold now."""
        ho = self.ho_by_id.get(ho_id)
        assert ho is not None and ho.to == actor, f"{actor} acted ({how}) on {ho_id}, which is no handoff to it"
        key, issues = self.issues(ho_id)
        self.acts[(ho.from_, key)].append(how)
        assert len(self.acts[(ho.from_, key)]) == 1, \
            f"two acts on the handoff {key}: {self.acts[(ho.from_, key)]}"
        cancelled = [i for i in issues if (ho.from_, i) in self.cancels_in[actor]]
        if how == "tool":
            assert not cancelled, f"the tool ran {key} after {actor} received the cancel of {cancelled}"
        else:
            assert not cancelled, f"{actor} acted ({how}) on {key} after it received the cancel of {cancelled}"
        passing = [rb for i in issues for rb in self.rb_of.get(i, ())
                   if self.rb_pass[rb] and rb in self.let_out[actor]]
        assert passing, f"{actor} acted ({how}) on {key} before wilco: no readback of it passes {ho.from_}'s check"
        if "exec" in levels_of(ho):
            assert any((ho.from_, rb) in self.confirms_in[actor] for rb in passing), \
                f"{actor} acted ({how}) on {key} under rb=exec before {ho.from_}'s AN val=Y"
        unechoed = [c for i in issues for c in self.changes_in[actor].get(i, ()) if (actor, c) not in self.echoed]
        assert not unechoed, f"{actor} acted ({how}) on {key} under rb=all before it echoed the change {unechoed}; " \
            f"its journal:\n" + "\n".join(line for _, line in self.ends[actor].journal())
        exp = min((self.ho_by_id[i].get("exp") for i in issues if self.ho_by_id[i].get("exp")), default=None)
        assert exp is None or self.now <= parse_time(exp), \
            f"{actor} acted ({how}) on {key} at {stamp(self.now)}, after its exp={exp}"

    @invariant()
    def never_two_owners(self) -> None:
        if not hasattr(self, "ends"):
            return
        for item in ITEMS:
            # a DN forged in a receiver's name closes the handoff at its sender, which may then hand the item on
            # (docs/endpoint.md, "One owner") while the receiver, which closed nothing, may still act: RW1 lines
            # carry no signature, so no endpoint can tell that report from the receiver's own (as the receiver
            # honours a cancel forged in its sender's name). The deceived handoff's receiver is left out here, on
            # that handoff and, while it holds the item by it, on any other of the item it may act on; every other
            # end is held to one owner
            may = sorted({name for name, end in self.ends.items() for h in end.open_handoffs()
                          if h.receiver == name and h.item == item and end.may_act(h.id)
                          and not self.deceived(name, h) and not self.holds_by_deception(name, item)})
            owner = self.owner(item)
            assert len(may) <= 1, f"two owners of {item}: {may} may both act (the owner is {owner}); sent:\n" \
                + "\n".join(self.log)
            assert not may or may == [owner], f"{may[0]} may act on {item}, whose owner is {owner}; sent:\n" \
                + "\n".join(self.log)

    def deceived(self, name: str, h) -> bool:
        """Whether a DN forged in ``name``'s name closed the handoff ``h`` at its sender: it may name an issue
        of it ``name`` has not received yet, so the sender's issues of it are read too."""
        view = self.ends[h.sender].handoff(h.id) if h.sender in self.ends else None
        issues = set(h.issues) | (set(view.issues) if view is not None else set())
        return any((name, i) in self.forged_done for i in self.with_resends(h.sender, issues))

    def with_resends(self, sender: str, issues: set[str]) -> set[str]:
        """``issues`` and their re-sends, those answered UN why=DUP among them (split off from the handoff: a DN
        naming one closes the handoff it repeated)."""
        more = issues
        while more:
            more = {ho.id for ho in self.hos if ho.re in more and ho.from_ == sender} - issues
            issues = issues | more
        return issues

    def check_threads(self) -> None:
        """Each endpoint's journal through check_thread: nothing it let out fails, and the table's findings on
        what it received are the ones it raised live."""
        now = stamp(START)
        for name, end in self.ends.items():
            lines = [line for direction, line in end.journal()
                     if direction == "out" or (field(line, "to") == name and field(line, "from") != name)]
            mine = set(self.let_out[name])
            report = check_thread(lines, now=now, profiles=PROFILES)
            against_mine = [(f.kind, f.token) for f in report.findings if f.failed and f.token in mine]
            assert not against_mine, f"check_thread fails what {name} let out: {against_mine}\n" + "\n".join(lines)
            live = set(end.findings) | (set(self.other.findings) if name == TOOL_AGENT else set())
            raised = {(f.kind, f.token) for f in live if f.kind in TABLE_KINDS}
            replayed = {(f.kind, f.token) for f in report.findings if f.kind in TABLE_KINDS}
            assert replayed == raised, (f"{name}: check_thread reports {sorted(replayed - raised)} that the endpoint "
                                        f"did not raise, and not {sorted(raised - replayed)} that it did\n"
                                        + "\n".join(lines))

    # ---- what agents do -----------------------------------------------------------------------------------

    def pick(self, data, options: list, label: str):
        return options[data.draw(st.integers(0, len(options) - 1), label=label)] if options else None

    @rule(parties=st.sampled_from(PAIRS), item=st.sampled_from(ITEMS), level=st.sampled_from(LEVELS),
          with_exp=st.booleans())
    def hand_off(self, parties, item, level, with_exp):
        sender, to = parties
        if sender != ORIGIN[item] and self.ends[sender].owner(item) is None:
            return
        exp = stamp(START + dt.timedelta(minutes=30)) if with_exp else None
        line = ho_line(sender, to, item, level, exp)
        self.send_ho(sender, line, KEPT_CRITERIA if level == "acc" and item != PAY_ITEM else None)

    @rule(sender=st.sampled_from([a for a in AGENTS if a != TOOL_AGENT]), with_exp=st.booleans())
    def hand_off_payment(self, sender, with_exp):
        """A payment for the agent that acts through the tool (the pay item is the one it handles)."""
        self.hand_off((sender, TOOL_AGENT), PAY_ITEM, "echo", with_exp)

    def send_ho(self, sender: str, ho, kept: str | None) -> None:
        """An HO, numbered by the endpoint; the criteria its sender keeps back (rb=acc) go with every issue."""
        try:
            sent = self.ends[sender].send(ho, number=True, expect_acc=kept)
        except ProtocolError:
            return
        if kept is not None:
            self.kept[sent.split(" ")[2]] = kept
        self.out(sender, sent)

    @precondition(lambda self: any(self.offers.values()))
    @rule(data=st.data(), right=st.booleans(), criteria=st.sampled_from(CRITERIA))
    def read_back(self, data, right, criteria):
        agent, ho_id = self.pick(data, sorted((a, h) for a, offers in self.offers.items() for h in offers), "offer")
        ho = self.offers[agent][ho_id].message
        end = self.ends[agent]
        try:
            if "acc" in levels_of(ho):
                rb = end.readback(ho_id, acc=criteria)
            elif right:
                rb = end.readback(ho_id)
            elif ho.profile == "pay":
                rb = end.readback(ho_id, values={"amt": "5100.00"})  # a dispute of the amount: tier 5 fails
            else:
                rb = f"RW1 RB {agent}-0 re={ho_id} from={agent} to={ho.from_} item={ho.item} ask=TEST"
        except (ProtocolError, RW1Error):
            return
        self.send(agent, rb, number=True)

    def read_back_as_composed(self, agent: str, ho: Message) -> None:
        if agent == TOOL_AGENT and ho.profile == "pay":
            self.prepare_through_the_tool(ho.id)  # the execution readback is the tool's statement (spec 5.3)
            return
        end = self.ends[agent]
        try:
            rb = end.readback(ho.id, acc=KEPT_CRITERIA if "acc" in levels_of(ho) else None)
        except (ProtocolError, RW1Error):
            return
        self.send(agent, rb, number=True)

    @precondition(lambda self: self.wire)
    @rule()
    def settle(self):
        """The transport delivers everything in order, and every agent answers at once as the protocol asks."""
        self.prompt = True
        try:
            for _ in range(60):
                if not self.wire:
                    break
                to, line = self.wire.pop(0)
                self.take(to, line)
        finally:
            self.prompt = False

    @precondition(lambda self: self.to_confirm)
    @rule(data=st.data())
    def confirm(self, data):
        agent, an = self.pick(data, self.to_confirm, "confirm")
        self.send(agent, an, number=True)

    @precondition(lambda self: self.to_reissue)
    @rule(data=st.data())
    def reissue(self, data):
        agent, ho = self.pick(data, self.to_reissue, "reissue")
        earlier = next((h for h, rbs in self.rb_of.items() if ho.re in rbs), "")
        self.send_ho(agent, ho, self.kept.get(earlier))

    @precondition(lambda self: self.hos)
    @rule(data=st.data())
    def resend(self, data):
        ho = self.pick(data, self.hos, "resend")
        view = self.ends[ho.from_].handoff(ho.id)
        if view is None:
            return
        live = self.ho_by_id.get(view.id, ho)
        self.send_ho(ho.from_, live.replace(id=f"{ho.from_}-0", re=view.id), self.kept.get(view.id))

    @precondition(lambda self: self.hos)
    @rule(data=st.data())
    def cancel(self, data):
        views = sorted((v.id for name, end in self.ends.items() for v in end.open_handoffs() if v.sender == name))
        live = self.pick(data, views, "cancel")
        if live is None:
            return
        self.cancel_handoff(live)

    def cancel_handoff(self, ho_id: str) -> None:
        """The sender withdraws the handoff of ``ho_id`` (its live issue, as the sender's endpoint holds it)."""
        ho = self.ho_by_id[ho_id]
        view = self.ends[ho.from_].handoff(ho_id)
        live = view.id if view is not None else ho_id
        p = " p=pay" if ho.profile == "pay" else ""
        self.send(ho.from_, f"RW1 CX {ho.from_}-0 re={live}{p} from={ho.from_} to={ho.to} item={ho.item} why=REVOKED",
                  number=True)

    @precondition(lambda self: self.to_answer)
    @rule(data=st.data())
    def answer_cancel(self, data):
        agent, reply = self.pick(data, self.to_answer, "answer")
        self.send(agent, reply, number=reply.type != "DN")

    @precondition(lambda self: self.hos)
    @rule(data=st.data(), right=st.booleans(), how=st.sampled_from(["ST", "AN", "ST-key"]))
    def change(self, data, right, how):
        """Under rb=all, the sender changes what its receiver will do (an ST or an AN naming the live issue, or an
        ST naming the handoff's first); the receiver echoes it before it acts (spec 5 rule 1)."""
        views = sorted(((v.id, v.key) for name, end in self.ends.items() for v in end.open_handoffs()
                        if v.sender == name and v.id in self.ho_by_id and "all" in levels_of(self.ho_by_id[v.id])))
        picked = self.pick(data, views, "change")
        if picked is None:
            return
        live, key = picked
        ho = self.ho_by_id[live]
        named = key if how == "ST-key" else live
        if how == "AN":
            line = f"RW1 AN {ho.from_}-0 re={named} from={ho.from_} to={ho.to} val={'Y' if right else 'N'} // go on"
        else:
            eta = "20261008" if right else "20261009"
            line = f"RW1 ST {ho.from_}-0 re={named} from={ho.from_} to={ho.to} item={ho.item} eta={eta} // sooner"
        self.send(ho.from_, line, number=True)

    @precondition(lambda self: self.to_echo)
    @rule(data=st.data(), right=st.booleans())
    def echo(self, data, right):
        """The receiver sends the echo it was offered, late, or a wrong one (another eta, the other val)."""
        agent, rb = self.pick(data, self.to_echo, "echo")
        if not right:
            wrong = {"eta": "20261001", "val": "N" if rb.get("val") == "Y" else "Y"}
            rb = rb.replace(slots={k: wrong.get(k, v) for k, v in rb.slots.items()})
        self.send(agent, rb, number=True)

    @precondition(lambda self: self.to_undo or self.undo_later)
    @rule(data=st.data())
    def undo(self, data):
        """The sender reverses an act whose done report contradicts the plan (ask=UNDO), late: as offered, or
        composed again where send refused it when the DN came."""
        agent, ho = self.pick(data, self.to_undo + self.undo_later, "undo")
        if isinstance(ho, str):
            ho = self.ends[agent].undo(ho)
        if ho is not None:
            self.send_ho(agent, ho, None)

    def handoffs_to(self, agent: str) -> list[str]:
        return sorted(h.id for h in self.ends[agent].open_handoffs() if h.receiver == agent)

    @precondition(lambda self: self.hos)
    @rule(agent=st.sampled_from(AGENTS), data=st.data(), off=st.booleans())
    def act_when_may(self, agent, data, off):
        """An act ``may_act`` allows (``off``: under pay, it paid another amount than the plan's)."""
        ho_id = self.pick(data, self.handoffs_to(agent), "handoff")
        if ho_id is None or not self.ends[agent].may_act(ho_id):
            return
        self.acted(agent, ho_id, "may_act")
        self.send(agent, dn_line(agent, self.ho_by_id[ho_id], off=off), number=True)

    @precondition(lambda self: self.hos)
    @rule(agent=st.sampled_from(AGENTS), data=st.data(), out=st.sampled_from(["OK", "NOOP", "OFF"]))
    def report_done(self, agent, data, out):
        """A DN sent without asking ``may_act`` (``OFF``: the act ran with another amount than the plan's)."""
        ho_id = self.pick(data, self.handoffs_to(agent), "handoff")
        if ho_id is None or ho_id not in self.ho_by_id:
            return
        off = out == "OFF"
        out = "OK" if off else out
        try:
            line = self.ends[agent].send(dn_line(agent, self.ho_by_id[ho_id], out, off=off), number=True)
        except ProtocolError:
            return
        if out == "OK":
            self.acted(agent, ho_id, "DN")
        self.out(agent, line)

    @precondition(lambda self: self.hos)
    @rule(agent=st.sampled_from(AGENTS), data=st.data(), how=st.sampled_from(["UN", "FL", "NOOP", "OK"]))
    def close_unseen(self, agent, data, how):
        """A refusal, a failure or a done report (``OK``: an act) naming an HO to ``agent`` that its end has not
        received yet (it learned the id some other way; the transport holds the HO back)."""
        unseen = sorted(ho.id for ho in self.hos if ho.to == agent and ho.id not in self.ends[agent]._messages)
        ho_id = self.pick(data, unseen, "handoff not received")
        if ho_id is None:
            return
        ho = self.ho_by_id[ho_id]
        p = " p=pay" if ho.profile == "pay" else ""
        if how in ("UN", "FL"):
            line = f"RW1 {how} {agent}-0 re={ho.id}{p} from={agent} to={ho.from_} item={ho.item} why=BUSY"
        else:
            line = dn_line(agent, ho, how)
        try:
            sent = self.ends[agent].send(line, number=True)
        except ProtocolError:
            return
        if how == "OK":
            self.acted(agent, ho_id, "DN")
        self.out(agent, sent)

    @precondition(lambda self: self.rb_of)
    @rule(data=st.data())
    def confirm_unseen(self, data):
        """An ``AN val=Y`` from an HO's sender to a readback of it its end has not received (nobody checked it)."""
        unseen = sorted((ho.from_, rb) for ho_id, rbs in self.rb_of.items() for rb in rbs
                        if (ho := self.ho_by_id[ho_id]).from_ in self.ends and rb not in self.ends[ho.from_]._messages)
        picked = self.pick(data, unseen, "readback not received")
        if picked is None:
            return
        sender, rb = picked
        reader = rb.rsplit("-", 1)[0]
        p = next((" p=pay" for ho_id, rbs in self.rb_of.items() if rb in rbs and self.ho_by_id[ho_id].profile == "pay"),
                 "")
        self.send(sender, f"RW1 AN {sender}-0 re={rb}{p} from={sender} to={reader} val=Y", number=True)

    @precondition(lambda self: any(ho.to == TOOL_AGENT and ho.item == PAY_ITEM for ho in self.hos))
    @rule(data=st.data())
    def tool_prepare(self, data):
        ho_id = self.pick(data, [h for h in self.handoffs_to(TOOL_AGENT)
                                 if self.ho_by_id.get(h) is not None and self.ho_by_id[h].profile == "pay"], "handoff")
        if ho_id is not None:
            self.prepare_through_the_tool(ho_id)

    def prepare_through_the_tool(self, ho_id: str) -> None:
        try:
            prepared = self.store.prepare(self.ends[TOOL_AGENT].line_of(ho_id), now=self.now)
        except (ToolRefused, ToolError):
            return
        self.prepared.append((prepared.token, ho_id))
        # the statement is the readback: relayed as the tool wrote it, or numbered by the endpoint where the
        # tool's number is taken
        if self.send(TOOL_AGENT, prepared.rb.to_line()) is None:
            self.send(TOOL_AGENT, prepared.rb, number=True)

    @precondition(lambda self: self.prepared)
    @rule(data=st.data(), race=st.sampled_from(["none", "waiting", "cancel"]))
    def tool_commit(self, data, race):
        """Commit a statement; between the tool's question to the endpoint and its act, another process of the
        agent may take the lines waiting for it, or a cancel its sender sends at that moment."""
        token, ho_id = self.pick(data, self.prepared, "statement")

        def another_process_takes_its_lines() -> None:
            self.racing.hook = None  # once: what it cannot take now waits on the transport
            if race == "cancel":
                self.cancel_handoff(ho_id)
            waiting = [line for to, line in self.wire if to == TOOL_AGENT]
            self.wire = [(to, line) for to, line in self.wire if to != TOOL_AGENT]
            for line in waiting:
                self.take(TOOL_AGENT, line, self.other)

        self.racing.hook = another_process_takes_its_lines if race != "none" else None
        try:
            dn = self.store.commit(token, ["cat"], now=self.now)
        except (ToolRefused, ToolError):
            return
        finally:
            self.racing.hook = None
        self.acted(TOOL_AGENT, ho_id, "tool")
        try:
            line = self.ends[TOOL_AGENT].send(dn.to_line())
        except ProtocolError:
            return
        self.out(TOOL_AGENT, line)

    @rule(minutes=st.sampled_from([10, 20, 40]))
    def advance_clock(self, minutes):
        self.now += dt.timedelta(minutes=minutes)

    @precondition(lambda self: self.hos)
    @rule(agent=st.sampled_from(AGENTS), data=st.data())
    def follow_the_clock(self, agent, data):
        """An agent asks its endpoint what time makes due and sends what it offers (for a held handoff, the
        re-issue or the cancel): what tick offers is what send takes at that moment."""
        end = self.ends[agent]
        for e in end.tick():
            if isinstance(e, Orphaned):
                self.send_offered(agent, end, e.cancel)
            elif isinstance(e, ReadbackOverdue):
                self.send_offered(agent, end, e.resend, expect_acc=self.kept.get(e.handoff))
            elif isinstance(e, Held):
                reissue = e.reissue is not None and data.draw(st.booleans(), label="reissue")
                self.send_offered(agent, end, e.reissue if reissue else e.cancel,
                                  expect_acc=self.kept.get(e.handoff) if reissue else None)
            elif isinstance(e, QuestionUnanswered):
                self.send_offered(agent, end, e.refuse)

    # ---- the transport's doing ----------------------------------------------------------------------------

    @precondition(lambda self: self.wire)
    @rule(data=st.data(), which=st.sampled_from(["oldest", "newest", "any"]))
    def deliver(self, data, which):
        """One line reaches its agent: the oldest in flight, the newest (it overtook the rest), or any."""
        at = {"oldest": 0, "newest": len(self.wire) - 1}.get(which)
        if at is None:
            at = data.draw(st.integers(0, len(self.wire) - 1), label="deliver")
        to, line = self.wire.pop(at)
        self.take(to, line)

    @precondition(lambda self: self.wire)
    @rule(data=st.data(), lose=st.booleans())
    def drop_or_repeat(self, data, lose):
        at = data.draw(st.integers(0, len(self.wire) - 1), label="line")
        if lose:
            self.wire.pop(at)
        else:
            self.wire.append(self.wire[at])

    def forged_id(self, agent: str) -> str:
        self.n_forged += 1
        return f"{agent}-{self.n_forged}"

    @precondition(lambda self: self.hos)
    @rule(data=st.data(), kind=st.sampled_from(["cancel", "own-name", "done", "unknown", "reused-id"]))
    def forge(self, data, kind):
        if kind == "reused-id":
            self.forge_reused_id(data)
            return
        ho = self.pick(data, self.hos, "forge")
        p = " p=pay" if ho.profile == "pay" else ""
        if kind == "cancel":  # a cancel in the sender's name: the receiver cannot tell, and honours it
            line = f"RW1 CX {self.forged_id(ho.from_)} re={ho.id}{p} from={ho.from_} to={ho.to} item={ho.item} why=REVOKED"
            self.wire.append((ho.to, line))
        elif kind == "own-name":  # a line in the receiver's own name, which it never sent
            self.wire.append((ho.to, dn_line(ho.to, ho).replace(f" {ho.to}-0 ", f" {self.forged_id(ho.to)} ", 1)))
        elif kind == "done":  # a done report in the receiver's name, to the sender
            self.wire.append((ho.from_, dn_line(ho.to, ho).replace(f" {ho.to}-0 ", f" {self.forged_id(ho.to)} ", 1)))
        else:  # an unknown code: answered UN why=UNK, never guessed at
            self.wire.append((ho.to, f"RW1 HO {self.forged_id(ho.from_)} from={ho.from_} to={ho.to} item={ho.item} "
                                     "ask=FIXX"))

    def forge_reused_id(self, data) -> None:
        """A line reusing an id the receiver already holds, with other content: never taken for the first."""
        held = sorted((a, i) for a, seen in self.delivered.items() for i in seen)
        if not held:
            return
        agent, ident = self.pick(data, held, "reuse")
        line = self.delivered[agent][ident]
        message = parse(line)
        changed = message.replace(item="x:9") if message.item != "x:9" else message.replace(item="x:8")
        self.wire.append((agent, changed.to_line()))


NoWrongAct.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
                                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestNoWrongAct = NoWrongAct.TestCase


# ---- the issue's four wrong acts, one by one ------------------------------------------------------------------


def test_a_cancel_that_arrives_before_its_handoff_still_stops_the_act():
    """1. On a transport that reorders, ``CX a-2 re=a-1`` reaches b before ``HO a-1``, and again after it."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send("RW1 HO a-1 from=a to=b item=x:1 ask=FIX")
    cx = a.send("RW1 CX a-2 re=a-1 from=a to=b item=x:1 why=REVOKED")
    b.receive(cx)
    b.receive(cx)  # redelivered
    offered = [e for e in b.receive(ho) if isinstance(e, HandoffOffered)]
    if offered and offered[0].readback is not None:
        try:
            b.send(offered[0].readback, number=True)
        except ProtocolError:
            pass  # a cancelled handoff need not be read back
    assert not b.may_act("a-1")
    with pytest.raises(ProtocolError):
        b.send("RW1 DN b-9 re=a-1 from=b to=a item=x:1 out=OK")


def test_an_end_that_handed_an_item_on_cannot_hand_it_on_again():
    """2. a hands x:1 to b (the readback passes), then hands x:1 to c."""
    a, b, c = Endpoint("a"), Endpoint("b"), Endpoint("c")
    offered = b.receive(a.send("RW1 HO a-1 from=a to=b item=x:1 ask=FIX"))[0]
    a.receive(b.send(offered.readback, number=True))
    assert b.may_act("a-1")
    with pytest.raises(ProtocolError):
        a.send("RW1 HO a-2 from=a to=c item=x:1 ask=FIX")
    assert b.may_act("a-1")


def test_a_receiver_does_not_act_on_an_acc_readback_its_sender_may_void():
    """3. Under rb=acc with the criteria kept back, b cannot judge its own readback: it waits for a's verdict."""
    a, b = Endpoint("a"), Endpoint("b")
    ho = a.send("RW1 HO a-1 from=a to=b item=x:1 ask=DRAFT rb=acc keys=len+tone // 120 words, plain tone",
                expect_acc=KEPT_CRITERIA)
    b.receive(ho)
    rb = b.send(b.readback("a-1", acc="len:150w+tone:plain"), number=True)
    assert [type(e) for e in a.receive(rb)] == [ReadbackVoid]
    assert not b.may_act("a-1")
    with pytest.raises(ProtocolError):
        b.send("RW1 DN b-5 re=a-1 from=b to=a item=x:1 out=OK")


def live_and_replayed(lines: list[str], end: Endpoint) -> tuple[set, set]:
    """The table's findings ``end`` raised on ``lines`` live, and check_thread's on the same lines."""
    for line in lines:
        if f" from={end.me} " not in line:
            end.receive(line)
    raised = {(f.kind, f.token) for f in end.findings if f.kind in TABLE_KINDS}
    replayed = {(f.kind, f.token) for f in check_thread(lines, now="20261001T0000Z").findings if f.kind in TABLE_KINDS}
    return raised, replayed


def test_check_thread_reports_a_done_report_with_no_readback_as_the_sender_does():
    """3. An HO followed by a DN with no RB: the sender's endpoint reports act-before-wilco; so does check_thread."""
    a = Endpoint("a")
    ho = a.send("RW1 HO a-1 from=a to=b item=x:1 ask=FIX")
    raised, replayed = live_and_replayed([ho, "RW1 DN b-1 re=a-1 from=b to=a item=x:1 out=OK"], a)
    assert ("act-before-wilco", "b-1") in raised
    assert replayed == raised


def test_check_thread_reports_an_act_on_a_voided_acc_readback_as_the_sender_does():
    """3. The lines of the acc case: the sender's endpoint voids the RB and reports the DN; check_thread agrees."""
    a = Endpoint("a")
    ho = a.send("RW1 HO a-1 from=a to=b item=x:1 ask=DRAFT rb=acc keys=len+tone // 120 words, plain tone",
                expect_acc=KEPT_CRITERIA)
    rb = "RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=DRAFT acc=len:150w+tone:plain"
    raised, replayed = live_and_replayed([ho, rb, "RW1 DN b-2 re=a-1 from=b to=a item=x:1 out=OK"], a)
    assert ("act-before-wilco", "b-2") in raised
    assert replayed == raised


#: the executor: records that it ran, and reports the statement's values as executed
ACT = "import sys; s = sys.stdin.read(); open(sys.argv[1], 'a').write(s); sys.stdout.write(s)"
PAY_HO = (f"RW1 HO scheduler-1 p=pay from=scheduler to=payer item={PAY_ITEM} ask=PAY rb=exec {PAY_VALUES}")


def test_a_cancel_recorded_by_another_process_while_the_tool_commits_stops_the_act(tmp_path):
    """4. With the tool on payer's ledger, a CX taken by another process of payer between the tool's question to
    the ledger and its act: the executor must not run."""
    world = tmp_path / "world.log"
    ledger = tmp_path / "payer.ledger"
    s = Endpoint("scheduler", profiles=PROFILES)
    payer = Endpoint("payer", profiles=PROFILES, ledger=ledger)
    other = Endpoint("payer", profiles=PROFILES, ledger=SQLiteLedger(ledger, busy_timeout=0))
    racing = RacingEndpoint(payer)
    store = ToolStore.open(ledger, profiles=PROFILES, endpoint=racing)
    payer.receive(s.send(PAY_HO))
    prepared = store.prepare(PAY_HO)
    confirm = s.receive(payer.send(prepared.rb, number=True))[0].confirm
    payer.receive(s.send(confirm, number=True))
    assert payer.may_act("scheduler-1")
    cx = s.send(f"RW1 CX scheduler-3 re=scheduler-1 p=pay from=scheduler to=payer item={PAY_ITEM} why=REVOKED")
    taken = []

    def another_process_takes_the_cancel() -> None:
        if not taken:
            try:
                other.receive(cx)
            except (LedgerError, sqlite3.OperationalError):
                return  # the ledger is held by the act's own transaction: the cancel comes after it
            taken.append(cx)

    racing.hook = another_process_takes_the_cancel
    try:
        ran = store.commit(prepared.token, [sys.executable, "-c", ACT, str(world)])
    except ToolRefused as refused:
        ran = None
        assert refused.reason == "cancelled"
    racing.hook = None
    if taken:  # the cancel was in payer's ledger before the act: it stops it
        assert ran is None and not world.exists()
    else:  # the act's transaction kept the cancel out: it comes after, and is answered with the act's DN
        assert ran is not None
        payer.receive(cx)
        assert not payer.may_act("scheduler-1")
