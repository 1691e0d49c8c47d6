"""Random interleavings of valid and faulty messages between two endpoints.

Whatever the order of sends and deliveries (a cancel may cross a done report,
a re-send may cross a readback), and whatever faulty lines reach them:

* no handoff ever has two owners: at most one end may act on an item;
* no act before wilco: every DN with an act that an endpoint let out was sent
  when ``may_act`` said so, and a faulty one that bypassed its endpoint is
  reported by the receiving end;
* every HO closes at most once: each end lets out at most one close per
  handoff (the act's DN again, as the answer to a cancel, is the same message);
* ``receive`` never raises, and once the wire is quiet both ends agree on
  every owner.

``RW_PROPERTY_EXAMPLES`` raises the number of interleavings (default 150).
"""

from __future__ import annotations

import os
from collections import deque

from hypothesis import example, given, settings, strategies as st

from rogerwilco import Endpoint, ProtocolError
from rogerwilco.checks.endpoint import DoneReport, HandoffOffered, ReadbackPassed, ReadbackVoid, Reply

EXAMPLES = int(os.environ.get("RW_PROPERTY_EXAMPLES", "150"))
ITEMS = ("gh:o/r#1", "gh:o/r#2")

ACTIONS = st.one_of(
    st.tuples(st.just("handoff"), st.sampled_from(ITEMS), st.booleans()),
    st.tuples(st.just("readback"), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("confirm"), st.integers(0, 3)),
    st.tuples(st.just("reissue"), st.integers(0, 3)),
    st.tuples(st.just("resend"), st.integers(0, 3)),
    st.tuples(st.just("close"), st.integers(0, 3), st.sampled_from(["OK", "NOOP", "UN", "FL"])),
    st.tuples(st.just("cancel"), st.integers(0, 3)),
    st.tuples(st.just("fault"), st.integers(0, 3), st.sampled_from(["early-dn", "garbage", "unknown", "dup-id"])),
    st.tuples(st.just("deliver"), st.sampled_from(["lead", "dev"])),
    st.tuples(st.just("deliver"), st.sampled_from(["lead", "dev"])),
)


class World:
    def __init__(self) -> None:
        self.lead = Endpoint("lead")
        self.dev = Endpoint("dev")
        self.ends = {"lead": self.lead, "dev": self.dev}
        self.wire: dict[str, deque[str]] = {"lead": deque(), "dev": deque()}  # to whom
        self.hos: list[str] = []  # HO ids the lead sent, in order
        self.offers: dict[str, object] = {}  # HO id -> HandoffOffered (at dev)
        self.passed: dict[str, object] = {}  # HO id -> ReadbackPassed or ReadbackVoid (at lead)
        self.closes: dict[tuple[str, str], set[str]] = {}  # (who, handoff key) -> close ids let out
        self.early_acts: set[str] = set()
        self.n_fault = 1000

    def put(self, to: str, line: str) -> None:
        self.wire[to].append(line)

    def send(self, who: str, message, **kw) -> str | None:
        end = self.ends[who]
        try:
            line = end.send(message, **kw)
        except ProtocolError:
            return None
        self.put("dev" if who == "lead" else "lead", line)
        return line

    def pick(self, i: int) -> str | None:
        return self.hos[i % len(self.hos)] if self.hos else None

    def close_key(self, who: str, ho_id: str) -> tuple[str, str]:
        return who, self.ends[who].handoff(ho_id).key

    def step(self, action) -> None:
        kind = action[0]
        if kind == "handoff":
            _, item, exec_like = action
            line = self.send("lead", {"v": "RW1", "type": "HO", "id": None, "re": None, "from": "lead", "to": "dev",
                                      "item": item, "slots": {"ask": "FIX", "rb": ["all"] if exec_like else ["echo"]},
                                      "tail": None}, number=True)
            if line:
                self.hos.append(line.split(" ")[2])
        elif kind == "readback":
            ho = self.pick(action[1])
            if ho is None or self.dev.handoff(ho) is None:
                return
            view = self.dev.handoff(ho)
            if action[2]:
                rb = self.dev.readback(view.id) if self.dev.handoff(view.id) is not None else None
                if rb is not None:
                    self.send("dev", rb, number=True)
            else:  # a misread
                self.send("dev", f"RW1 RB dev-0 re={view.id} from=dev to=lead item={view.item} ask=TEST", number=True)
        elif kind == "confirm":
            ho = self.pick(action[1])
            event = self.passed.get(ho) if ho else None
            if isinstance(event, ReadbackPassed):
                self.send("lead", f"RW1 AN lead-0 re={event.message.id} from=lead to=dev val=Y", number=True)
        elif kind == "reissue":
            ho = self.pick(action[1])
            event = self.passed.get(ho) if ho else None
            if isinstance(event, ReadbackVoid):
                line = self.send("lead", event.reissue, number=True)
                if line:
                    self.hos.append(line.split(" ")[2])
        elif kind == "resend":
            ho = self.pick(action[1])
            view = self.lead.handoff(ho) if ho else None
            if view is not None:
                line = self.send("lead", f"RW1 HO lead-0 re={view.id} from=lead to=dev item={view.item} ask=FIX",
                                 number=True)
                if line:
                    self.hos.append(line.split(" ")[2])
        elif kind == "close":
            ho = self.pick(action[1])
            view = self.dev.handoff(ho) if ho else None
            if view is None:
                return
            how = action[2]
            may = self.dev.may_act(view.id)
            if how in ("OK", "NOOP"):
                line = f"RW1 DN dev-0 re={view.id} from=dev to=lead item={view.item} out={how}"
            else:
                line = f"RW1 {how} dev-0 re={view.id} from=dev to=lead item={view.item} why=ERR"
            sent = self.send("dev", line, number=True)
            if sent:
                assert how != "OK" or may, "an act let out before wilco"
                answer_to_cancel = how == "NOOP" and view.close == "cancelled"
                if not answer_to_cancel:
                    self.closes.setdefault(self.close_key("dev", view.id), set()).add(sent.split(" ")[2])
        elif kind == "cancel":
            ho = self.pick(action[1])
            view = self.lead.handoff(ho) if ho else None
            if view is None:
                return
            sent = self.send("lead", f"RW1 CX lead-0 re={view.id} from=lead to=dev item={view.item} why=REVOKED",
                             number=True)
            if sent:
                self.closes.setdefault(self.close_key("lead", view.id), set()).add(sent.split(" ")[2])
        elif kind == "fault":
            ho = self.pick(action[1])
            self.n_fault += 1
            what = action[2]
            if what == "garbage":
                self.put("lead", "RW1 DN dev-x re=lead-1 from=dev to=lead out=OK")
            elif what == "unknown":
                self.put("dev", f"RW1 HO lead-{self.n_fault} from=lead to=dev item=gh:o/r#9 ask=FIXX")
            elif what == "dup-id" and ho is not None:
                self.put("dev", f"RW1 HO {ho} from=lead to=dev item=gh:o/r#9 ask=TEST")
            elif what == "early-dn" and ho is not None:
                view = self.lead.handoff(ho)
                in_flight = any(line.split(" ", 3)[1] in ("RB", "UN") and f" re={issue} " in line
                                for line in self.wire["lead"] for issue in view.issues) if view is not None else False
                if view is not None and view.readback == "offered" and view.close == "open" and not in_flight:
                    # (a readback already on its way would reach the lead first and clear the act: one of any
                    # issue of the handoff, a re-send it crossed included)
                    # a receiver without an endpoint acts before any readback
                    line = f"RW1 DN dev-{self.n_fault} re={view.id} from=dev to=lead item={view.item} out=OK"
                    self.early_acts.add(f"dev-{self.n_fault}")
                    self.put("lead", line)
        elif kind == "deliver":
            self.deliver(action[1])

    def deliver(self, to: str) -> None:
        if not self.wire[to]:
            return
        line = self.wire[to].popleft()
        events = self.ends[to].receive(line)
        for event in events:
            if isinstance(event, Reply):
                self.put("dev" if to == "lead" else "lead", event.line)
            elif isinstance(event, HandoffOffered):
                self.offers[event.message.id] = event
            elif isinstance(event, (ReadbackPassed, ReadbackVoid)):
                ho = event.message.re
                if not isinstance(self.passed.get(ho), ReadbackPassed):
                    self.passed[ho] = event
            elif isinstance(event, DoneReport) and event.message.id in self.early_acts:
                assert "act-before-wilco" in [f.kind for f in event.findings if f.severity == "fail"]

    def check(self) -> None:
        for item in ITEMS + ("gh:o/r#9",):
            acting = [(who, h.id) for who, end in self.ends.items() for h in end.open_handoffs()
                      if h.item == item and end.may_act(h.id)]
            # one end may act on an item (two handoffs of one item to the same end are two pieces of work)
            assert len({who for who, _ in acting}) <= 1, f"two owners of {item}: {acting}"
        for key, ids in self.closes.items():
            assert len(ids) <= 1, f"{key} closed more than once: {ids}"


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(ACTIONS, max_size=40))
def test_random_interleavings_keep_the_invariants(actions):
    world = World()
    for action in actions:
        world.step(action)
        world.check()
    for _ in range(200):
        if not world.wire["lead"] and not world.wire["dev"]:
            break
        world.deliver("lead")
        world.deliver("dev")
        world.check()
    for item in ITEMS:
        assert world.lead.owner(item) == world.dev.owner(item)


# ---- live enforcement and the thread check agree ------------------------------------------------

THREAD_KINDS_OF_THE_TABLE = {"closed-twice", "act-after-cancel", "cancel-wrong-party", "act-before-wilco",
                             "confirm-void", "confirm-without-readback"}


class Immediate(World):
    """Every line is delivered as soon as it is sent: no crossings, so the log's order is everyone's order."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[str] = []
        self.disagreements: list[tuple] = []
        self.checked = 0

    def put(self, to: str, line: str) -> None:
        self.log.append(line)
        super().put(to, line)
        while self.wire["lead"] or self.wire["dev"]:
            self.deliver("lead" if self.wire["lead"] else "dev")

    def send(self, who: str, message, **kw) -> str | None:
        from rogerwilco.checks.thread import check_thread

        end = self.ends[who]
        try:
            line = end.send(message, **kw)
        except ProtocolError as exc:
            if exc.kind in THREAD_KINDS_OF_THE_TABLE and isinstance(message, str):
                line = message.replace(f" {who}-0 ", f" {end._peek_id()} ", 1) if kw.get("number") else message
                forced = check_thread(self.log + [line], now="20261001T0000Z")
                token = line.split(" ")[2]
                self.checked += 1
                if (exc.kind, token) not in {(f.kind, f.token) for f in forced.findings if f.failed}:
                    self.disagreements.append((exc.kind, line))
            return None
        self.put("dev" if who == "lead" else "lead", line)
        return line


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(ACTIONS.filter(lambda a: a[0] != "fault"), max_size=30))
# found by a long run: two handoffs of one item, the first read back; a re-send of the second; its cancel
@example([("handoff", "gh:o/r#1", False), ("handoff", "gh:o/r#1", False), ("readback", 0, False), ("resend", 0),
          ("cancel", 2)])
def test_what_the_endpoints_let_out_the_thread_check_passes(actions):
    from rogerwilco.checks.thread import check_thread

    world = Immediate()
    for action in actions:
        world.step(action)
    report = check_thread(world.log, now="20261001T0000Z")
    assert [f for f in report.findings if f.failed] == [], world.log
    assert world.disagreements == []


def test_what_an_endpoint_refuses_the_thread_check_reports():
    from rogerwilco.checks.thread import check_thread

    lead, dev = Endpoint("lead"), Endpoint("dev")
    log = []
    for line in ("RW1 HO lead-1 from=lead to=dev item=x ask=FIX", "RW1 RB dev-1 re=lead-1 from=dev to=lead item=x ask=FIX",
                 "RW1 CX lead-2 re=lead-1 from=lead to=dev item=x why=REVOKED"):
        sender = lead if " from=lead " in line else dev
        receiver = dev if sender is lead else lead
        receiver.receive(sender.send(line))
        log.append(line)
    for line, kind in (("RW1 DN dev-2 re=lead-1 from=dev to=lead item=x out=OK", "act-after-cancel"),
                       ("RW1 CX dev-3 re=lead-1 from=dev to=lead item=x why=REVOKED", "cancel-wrong-party"),
                       ("RW1 CX lead-3 re=lead-1 from=lead to=dev item=x why=REVOKED", "closed-twice")):
        end = lead if " from=lead " in line else dev
        try:
            end.send(line)
        except ProtocolError as exc:
            assert exc.kind == kind
        else:
            raise AssertionError(f"{line} was let out")
        forced = check_thread(log + [line], now="20261001T0000Z")
        assert (kind, line.split(" ")[2]) in {(f.kind, f.token) for f in forced.findings if f.failed}
