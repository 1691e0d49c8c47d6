"""lint's accept path (rogerwilco.checks._plain) against the full pass: the same findings, always.

The accept path reads a stream once and gives the full rules only the threads left waiting; where a message
takes a step it does not follow, the full pass reads the stream. These tests generate conversations made of
the plain steps, with variations the accept path takes (orders, parties, closes, questions, re-sends,
re-issues, dates and a ``now``) and variations it must not take (a wrong party, an id going back, an item
handed on, a close twice), and hold the findings to the full pass's (the accept path switched off), finding
for finding; they also check that the accept path did take the plain ones. ``RW1_PLAIN_EXAMPLES`` raises the
number of generated conversations (default 400): ``RW1_PLAIN_EXAMPLES=20000 pytest tests/test_lint_plain.py``.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rogerwilco.checks._plain import PlainThreads
from rogerwilco.core.message import Message
from rogerwilco.core.vocab import Receiver
from rogerwilco.io import lint as lint_module
from rogerwilco.io.lint import lint_stream
from rogerwilco.io.stream import validate_stream

from .strategies import messages, value_for
from .test_scanner import scan  # noqa: F401  (the fixture: the C scanner, built for the test where it is not)

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ("ops", "dev", "qa", "lead")
DEPLOY_AGENTS = ("release", "operator", "oncall")
ITEMS = ("jira:OPS-1", "jira:OPS-2", "jira:OPS-3", "gh:rw#4", "jira:OPS-5", "jira:OPS-6")
NOWS = (None, "20261003T0900Z", "20261011T0900Z", "20270101T0000Z")
EXAMPLES = int(os.environ.get("RW1_PLAIN_EXAMPLES", "400"))


def as_log(text: str, noise: int = 0) -> str:
    """The conversation inside a log: each message after a time and a level, with a line of noise every so often
    (and one in JSON, holding its message as a string: a line that is not its own frame)."""
    out = []
    for n, line in enumerate(text.splitlines()):
        if noise and n % noise == 0:
            out.append(f"2026-10-02T14:{n % 60:02d}:00Z DEBUG heartbeat ok")
        if noise and n % (noise + 1) == 1:
            out.append('{"level": "info", "msg": "' + line + '"}')
        else:
            out.append(f"2026-10-02T14:{n % 60:02d}:01Z INFO sent {line}")
    return "\n".join(out) + "\n"


def both(text: str, now: str | None, *, log: bool = False) -> tuple[list, list, bool]:
    """(findings with the accept path, findings of the full pass, whether the accept path took the stream): of
    ``text`` as a stream, or with ``log`` as a log (lint's embedded mode, chosen by the file's name)."""
    took: list[bool] = []
    plain = lint_module._plain_findings
    name = "s.log" if log else "s.rw1"

    def watched(*args, **kwargs):
        out = plain(*args, **kwargs)
        took.append(out is not None)
        return out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lint_module, "_plain_findings", watched)
        counts_fast: dict[str, int] = {}
        fast = lint_stream(io.BytesIO(text.encode()), file=name, now=now, counts=counts_fast)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lint_module, "_plain_findings", lambda *a, **k: None)
        counts_full: dict[str, int] = {}
        full = lint_stream(io.BytesIO(text.encode()), file=name, now=now, counts=counts_full)
    assert counts_fast == counts_full
    return fast, full, bool(took and took[0])


class Writer:
    """Lines of a conversation, each sender's ids going forward."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.turn = 0

    def pick(self, *choices: str) -> str:
        """The next of ``choices``, in turn (each value of a code comes up across a conversation)."""
        self.turn += 1
        return choices[self.turn % len(choices)]

    def id(self, agent: str) -> str:
        self.numbers[agent] = self.numbers.get(agent, 0) + 1
        return f"{agent}-{self.numbers[agent]}"


# one thread's script: a list of steps, each (kind, options); the interleaving writes them
PLAIN = ["rb", "rb-void", "confirm", "dn", "dn-noop", "un", "fl", "cx", "aq-in", "aq-out", "resend"]
OFF_PLAIN = ["an-rb", "rb-wrong-party", "dn-wrong", "cx-wrong", "un-dup-issue", "st", "ho-same-item"]


@st.composite
def threads(draw):
    count = draw(st.integers(1, 5))
    steps_of = st.sampled_from(PLAIN + OFF_PLAIN if draw(st.booleans()) else PLAIN)
    out = []
    for n in range(count):
        a, b = draw(st.permutations(AGENTS))[:2]
        item = ITEMS[n] if not draw(st.integers(0, 9)) == 0 else draw(st.sampled_from(ITEMS))
        dated = draw(st.sampled_from(["", " due=20261010", " exp=20261010T1200Z", " due=20261231"]))
        if draw(st.integers(0, 3)) == 0:  # a handoff of the deploy profile, between its agents, about a service
            a, b = draw(st.permutations(DEPLOY_AGENTS))[:2]
            item = f"svc:s{n}" if draw(st.integers(0, 9)) else "svc:s0"
            dated += " p=deploy env=PROD ver=v2.4.1"
        levels = draw(st.sampled_from(["", "", " rb=acc keys=len", " rb=echo"]))
        if draw(st.booleans()):  # any steps, in any order
            steps = draw(st.lists(steps_of, max_size=5))
        else:  # a thread as agents run one: read back (perhaps after void ones), talked about, closed (or not)
            steps = draw(st.lists(st.just("rb-void"), max_size=2)) + ["rb"]
            steps += ["confirm"] if "acc" in levels and draw(st.integers(0, 4)) else []
            steps += draw(st.lists(st.sampled_from(["aq-in", "aq-out", "resend"]), max_size=2))
            steps += draw(st.lists(st.sampled_from(["dn", "dn-noop", "un", "fl", "cx"]), max_size=1))
        out.append((a, b, item, dated + levels, steps))
    order = draw(st.lists(st.integers(0, count - 1), max_size=40))
    return out, order


def conversation(spec) -> str:
    """The lines of ``spec`` (threads and an interleaving): each thread's HO, then its steps in order, the
    threads' next steps taken in the order given (then every step left, thread by thread)."""
    scripts, order = spec
    w = Writer()
    state = []
    lines: list[str] = []
    for a, b, item, dated, steps in scripts:
        ho = w.id(a)
        lines.append(f"RW1 HO {ho} from={a} to={b} item={item} ask=FIX{dated}")
        state.append({"a": a, "b": b, "item": item, "dated": dated, "live": ho, "rb": None, "steps": list(steps)})

    def step(s) -> None:
        kind = s["steps"].pop(0)
        a, b, item, live, dated = s["a"], s["b"], s["item"], s["live"], s["dated"]
        back = f"from={b} to={a} item={item}"
        env = f"from={a} to={b} item={item}"
        # (the HO's own levels are not read back; under rb=acc the readback gives its acceptance)
        echoed = dated.replace(" rb=acc keys=len", " acc=len:120w").replace(" rb=echo", "")
        if kind == "rb":
            s["rb"] = w.id(b)
            lines.append(f"RW1 RB {s['rb']} re={live} {back} ask=FIX{echoed}")
        elif kind == "rb-void":
            rb = w.id(b)
            lines.append(f"RW1 RB {rb} re={live} {back} ask=TEST{echoed}")
            s["live"] = w.id(a)
            lines.append(f"RW1 HO {s['live']} re={rb} {env} ask=FIX{dated}")
        elif kind in ("dn", "dn-noop"):
            out = w.pick("OK", "PARTIAL") if kind == "dn" else "NOOP"
            lines.append(f"RW1 DN {w.id(b)} re={live} {back} out={out}")
        elif kind == "un":
            why = w.pick("BUSY", "CONFLICT", "SCOPE", "EXPIRED", "NOCAP")
            lines.append(f"RW1 UN {w.id(b)} re={live} {back} why={why}")
        elif kind == "cx":
            cx = w.id(a)
            lines.append(f"RW1 CX {cx} re={live} {env} why={w.pick('REVOKED', 'SUPERSEDED')}")
            lines.append(f"RW1 AN {w.id(b)} re={cx} from={b} to={a} val=Y")
        elif kind in ("aq-in", "aq-out"):
            asker, asked = (b, a) if kind == "aq-in" else (a, b)
            aq = w.id(asker)
            lines.append(f"RW1 AQ {aq} re={live} from={asker} to={asked} need=ENUM opts=a+b // which?")
            lines.append(f"RW1 AN {w.id(asked)} re={aq} from={asked} to={asker} val=a")
        elif kind == "resend":
            again = w.id(a)
            lines.append(f"RW1 HO {again} re={live} {env} ask=FIX{dated}")
            lines.append(f"RW1 UN {w.id(b)} re={again} {back} why=DUP")
        elif kind == "fl":
            lines.append(f"RW1 FL {w.id(b)} re={live} {back} why={w.pick('ERR', 'TIMEOUT')}")
        elif kind in ("confirm", "an-rb") and s["rb"]:  # (the sender's verdict: a step where rb=acc asks for it)
            lines.append(f"RW1 AN {w.id(a)} re={s['rb']} from={a} to={b} val=Y")
        elif kind == "rb-wrong-party":
            lines.append(f"RW1 RB {w.id(a)} re={live} from={a} to={b} item={item} ask=FIX{dated}")
        elif kind == "dn-wrong":
            lines.append(f"RW1 DN {w.id(a)} re={live} from={a} to={b} item={item} out=OK")
        elif kind == "cx-wrong":
            lines.append(f"RW1 CX {w.id(b)} re={live} {back} why=REVOKED")
        elif kind == "un-dup-issue":
            lines.append(f"RW1 UN {w.id(b)} re={live} {back} why=DUP")
        elif kind == "st":
            lines.append(f"RW1 ST {w.id(b)} {back}")
        elif kind == "ho-same-item":
            lines.append(f"RW1 HO {w.id(b)} from={b} to={a} item={item} ask=FIX")

    for n in order:
        if state[n]["steps"]:
            step(state[n])
    for s in state:
        while s["steps"]:
            step(s)
    return "\n".join(lines) + "\n"


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=threads(), now=st.sampled_from(NOWS), cut=st.integers(0, 3), log=st.sampled_from([None, 0, 2, 5]))
@example(spec=([("ops", "dev", "jira:OPS-1", "", ["rb", "dn"])], []), now=None, cut=0, log=None)
def test_the_accept_path_gives_the_full_findings(spec, now, cut, log):
    """As a stream, or inside a log (``log``: a line of noise every so many lines, 0: none)."""
    text = conversation(spec)
    if cut:  # the stream cut short: threads left waiting
        kept = text.splitlines()
        text = "\n".join(kept[: max(1, len(kept) - cut)]) + "\n"
    if log is None:
        fast, full, _ = both(text, now)
    else:
        fast, full, _ = both(as_log(text, log), now, log=True)
    assert fast == full


def test_the_accept_path_takes_plain_conversations():
    """Each plain step, alone and together, is taken (so the property above holds the accept path to
    something), and a thread left waiting is read by the full rules."""
    plain = (["rb", "dn"], ["rb", "dn-noop"], ["rb", "confirm", "dn"], ["un"], ["rb", "un"], ["cx"], ["rb", "cx"],
             ["rb", "aq-in", "dn"], ["rb", "aq-out", "dn"], ["rb", "resend", "dn"], ["rb-void", "rb", "dn"],
             ["rb-void", "rb-void", "rb"], ["rb"], ["rb", "fl"], ["fl"])
    for steps in plain:
        levels = " rb=acc keys=len" if "confirm" in steps else ""
        text = conversation(([("ops", "dev", "jira:OPS-1", " due=20261010" + levels, list(steps))], []))
        for now in NOWS:
            fast, full, took = both(text, now)
            assert took, (steps, now)
            assert fast == full
            fast, full, took = both(as_log(text, 3), now, log=True)
            assert took, (steps, now)
            assert fast == full
    waiting = conversation(([("ops", "dev", "jira:OPS-1", "", ["rb"]), ("qa", "lead", "jira:OPS-2", "", [])], [0]))
    fast, full, took = both(waiting, None)
    assert took and fast == full and [f.code for f in fast] == ["RW103"]
    fast, full, took = both(as_log(waiting, 2), None, log=True)
    assert took and fast == full and [(f.code, f.line) for f in fast] == [("RW103", 3)]


@pytest.mark.parametrize("steps", [["dn"], ["rb", "fl", "dn"], ["rb", "an-rb"], ["rb-wrong-party"], ["rb", "dn-wrong"],
                                   ["cx-wrong"], ["un-dup-issue"], ["st"], ["ho-same-item"], ["rb", "dn", "dn"]])
def test_steps_off_the_plain_path_go_the_full_way(steps):
    text = conversation(([("ops", "dev", "jira:OPS-1", "", steps)], []))
    fast, full, took = both(text, "20261011T0900Z")
    assert not took
    assert fast == full


def test_every_shipped_stream_agrees():
    """The examples and the conformance suite's streams, linted both ways."""
    paths = sorted(p for p in (*ROOT.glob("examples/**/*.rw1"), *ROOT.glob("tests/data/**/*.rw1")))
    assert len(paths) > 10
    taken = 0
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        for now in (None, "20261011T0900Z"):
            fast, full, took = both(text, now)
            assert fast == full, path
            taken += took
    assert taken


def test_ids_must_go_forward_and_be_new():
    backwards = ("RW1 HO ops-2 from=ops to=dev item=jira:OPS-1 ask=FIX\n"
                 "RW1 HO ops-1 from=ops to=dev item=jira:OPS-2 ask=FIX\n")
    fast, full, took = both(backwards, None)
    assert not took and fast == full and "RW101" in {f.code for f in fast}
    twice = "RW1 HO ops-1 from=ops to=dev item=jira:OPS-1 ask=FIX\n" * 2
    fast, full, took = both(twice, None)
    assert not took and fast == full


def test_the_accept_path_keeps_to_its_memory_bound():
    receiver = Receiver.all_bundled()
    text = "".join(f"RW1 HO ops-{n} from=ops to=dev item=jira:OPS-{n} ask=FIX\n" for n in range(1, 200))
    messages = [r.message for r in validate_stream(io.BytesIO(text.encode()), receiver)]
    roomy = PlainThreads(receiver, memory_bytes=10 << 20)
    assert all(roomy.take(m) for m in messages)
    tight = PlainThreads(receiver, memory_bytes=50_000)
    assert not all(tight.take(m) for m in messages)


@settings(max_examples=300, deadline=None)
@given(ho=messages(types=["HO"]), data=st.data())
def test_the_readback_shortcuts_agree_with_the_tiers(ho, data):
    """verbatim_types (a readback passing at once) and the misread echo (failing at once) never disagree with
    the tiers: a readback of the HO's own slots, or with one slot dropped or drawn again."""
    import datetime as dt

    from rogerwilco.checks.readback import _misread, check_rb, readback_passes, verbatim_types

    receiver = Receiver.all_bundled()
    slots = dict(ho.slots)
    change = data.draw(st.sampled_from(["none", "drop", "redraw"]))
    keys = sorted(k for k in slots if k != "p")
    if keys and change != "none":
        key = data.draw(st.sampled_from(keys))
        if change == "drop":
            del slots[key]
        else:
            vocab = receiver.vocabulary(ho.slots.get("p"))
            if key in vocab.slots:
                slots[key] = data.draw(value_for(vocab.slots[key].type.name, vocab))
    rb = Message(type="RB", id=f"{ho.to}-9", re=ho.id, from_=ho.to, to=ho.from_, item=ho.item, slots=slots)
    before = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    passed = check_rb(ho, rb, profiles=receiver, now=before).passed
    assert readback_passes(ho, rb, receiver=receiver, now=before) == passed
    typed = verbatim_types(ho)
    if typed is not None and rb.slots == ho.slots and all(type(rb.slots[k]) is kind for k, kind in typed):
        assert passed
    if _misread(ho, rb, receiver):
        assert not passed


def canonical(threads: PlainThreads) -> tuple:
    """A PlainThreads' state with each thread as its place in the order its ids were named, each message as its id."""
    order: dict[int, int] = {}
    rows: list[list] = []

    def thread(t):
        if t is None:
            return None
        if id(t) not in order:
            order[id(t)] = len(order)
            rows.append(t)
        return order[id(t)]

    named = {k: (v[0], thread(v[1]), *v[2:]) for k, v in threads._named.items()}
    opened = {k: thread(t) for k, t in threads._open.items()}
    shown = [[getattr(x, "id", x) if not isinstance(x, list) else [m.id for m in x] for x in t] for t in rows]
    return named, opened, shown, dict(threads._last), set(threads._items)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=threads(), cut=st.integers(0, 3))
def test_the_c_steps_are_the_python_steps(scan, spec, cut):
    """The C scanner's PlainSteps and PlainThreads.take, given the same messages: the same answer for each, and
    the same state after each (the threads, what each id names, each sender's last number, the items)."""
    from rogerwilco.checks import _plain

    text = conversation(spec)
    if cut:
        kept = text.splitlines()
        text = "\n".join(kept[: max(1, len(kept) - cut)]) + "\n"
    receiver = Receiver.all_bundled()
    messages = [r.message for r in validate_stream(io.BytesIO(text.encode()), receiver) if r.message is not None]
    python, native = PlainThreads(receiver, memory_bytes=1 << 30), PlainThreads(receiver, memory_bytes=1 << 30)
    step = scan.scan.PlainSteps(native._named, native._last, native._items, native._open, 1 << 30, _plain.HELD,
                                _plain.KEPT, _plain._NOT_PLAIN_HO, native._readback, _plain.VERBATIM_BLOCKERS).take
    for m in messages:
        took = python.take(m)
        assert step(m) is took, m
        assert canonical(native) == canonical(python), m
        if not took:
            break
    assert [list(map(id, t)) for t in native.unfinished(None)] == [list(map(id, t)) for t in python.unfinished(None)]


def test_the_c_steps_keep_to_the_memory_bound(scan):
    from rogerwilco.checks import _plain

    receiver = Receiver.all_bundled()
    text = "".join(f"RW1 HO ops-{n} from=ops to=dev item=jira:OPS-{n} ask=FIX\n" for n in range(1, 200))
    messages = [r.message for r in validate_stream(io.BytesIO(text.encode()), receiver)]
    for room, all_taken in ((10 << 20, True), (50_000, False)):
        t = PlainThreads(receiver, memory_bytes=room)
        step = scan.scan.PlainSteps(t._named, t._last, t._items, t._open, room, _plain.HELD, _plain.KEPT,
                                    _plain._NOT_PLAIN_HO, t._readback, _plain.VERBATIM_BLOCKERS).take
        assert all(step(m) for m in messages) is all_taken


def test_line_ends_in_a_log():
    """CRLF ends a log's lines as LF does, and a bare CR ends one too (the line it sits in cut in two, numbered as
    the full pass numbers them): the accept path takes both, with the full pass's findings."""
    text = as_log(conversation(([("ops", "dev", "jira:OPS-1", "", ["rb"]), ("qa", "lead", "jira:OPS-2", "", [])],
                                [0])), 2)
    crlf = text.replace("\n", "\r\n")
    fast, full, took = both(crlf, None, log=True)
    assert took and fast == full and [f.code for f in fast] == ["RW103"]
    lines = text.splitlines(keepends=True)
    bare = "".join(lines[:2]) + lines[2].rstrip("\n") + "\r" + "".join(lines[3:])
    fast, full, took = both(bare, None, log=True)
    assert took and fast == full and [(f.code, f.line) for f in fast] == [("RW103", 3)]


@pytest.mark.parametrize("ident, sender", [
    ("ops-1", "ops"), ("ops-0000000000000000000000000001", "ops"), ("ops-99999999999999999999", "ops"),
    ("ops-\u0663", "ops"), ("ops-", "ops"), ("ops", "ops"), ("-1", ""), ("ops-1", "op"), ("x-ops-1", "x-ops"),
    ("\u00e9-1", "\u00e9"), ("ops-+1", "ops"), ("ops- 1", "ops"),
])
def test_the_c_steps_read_ids_as_python_does(scan, ident, sender):
    """An id's number as PlainThreads.take reads it (<from>-<n>, n ASCII digits, any length), in C too."""
    from rogerwilco.checks import _plain

    receiver = Receiver.all_bundled()
    first = Message(type="HO", id=ident, from_=sender, to="dev", item="jira:OPS-1", slots={"ask": "FIX"})
    again = Message(type="HO", id=f"{sender}-5", from_=sender, to="dev", item="jira:OPS-2", slots={"ask": "FIX"})
    python, native = PlainThreads(receiver, memory_bytes=1 << 20), PlainThreads(receiver, memory_bytes=1 << 20)
    step = scan.scan.PlainSteps(native._named, native._last, native._items, native._open, 1 << 20, _plain.HELD,
                                _plain.KEPT, _plain._NOT_PLAIN_HO, native._readback, _plain.VERBATIM_BLOCKERS).take
    for m in (first, again):
        assert step(m) is python.take(m)
        assert canonical(native) == canonical(python)


@pytest.mark.parametrize("name", ["s.rw1", "s.log"])
@pytest.mark.parametrize("steps", [["rb", "dn"], ["rb", "st"]])
def test_a_file_opened_as_text_is_read_again(tmp_path, name, steps):
    """A file lint is given open in text mode: the accept path, and the full pass after it where a step is not
    plain, read it from its start (the same findings as the full pass alone)."""
    body = conversation(([("ops", "dev", "jira:OPS-1", "", steps), ("qa", "lead", "jira:OPS-2", "", [])], [0]))
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    got = []
    for plain in (lint_module._plain_findings, lambda *a, **k: None):
        with pytest.MonkeyPatch.context() as patch, open(path, encoding="utf-8") as fh:
            patch.setattr(lint_module, "_plain_findings", plain)
            got.append(lint_stream(fh, file=name))
    assert got[0] == got[1] and "RW103" in {f.code for f in got[0]}
