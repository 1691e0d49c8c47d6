"""The lifecycle: one rule for which HOs are one handoff, one walk to the HO, the tables as data."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.front.a2a import task_states
from rogerwilco.checks.lifecycle import (A2A_END_STATES, A2A_TASK_STATES, A2A_TASK_TRANSITIONS, A2A_TERMINAL, CLOSERS,
                                  REISSUE, RESEND, STATEMENT_EVENTS, STATEMENT_LIVE, STATEMENT_STATES,
                                  STATEMENT_TRANSITIONS, Conversation, Envelope, handoff_of, is_carried_forward,
                                  issue_link)
from rogerwilco.io.lint import lint_stream
from rogerwilco.core.message import Message
from rogerwilco.checks.thread import check_thread


def _m(line: str) -> Message:
    return Message.from_line(line)


# --------------------------------------------------------------------------
# the issue's reproducer: lint and check-thread agree on what one handoff is

REPRODUCER = [
    "RW1 HO ops-1 from=ops to=builder item=gh:x#1 ask=FIX",
    "RW1 HO ops-2 re=ops-1 from=ops to=reviewer item=gh:x#1 ask=FIX",
    "RW1 RB reviewer-1 re=ops-2 from=reviewer to=ops item=gh:x#1 ask=FIX",
]


def test_an_ho_to_another_agent_does_not_carry_the_first_forward_for_lint_or_check_thread():
    """HO ops-1 to builder, then HO ops-2 re=ops-1 to reviewer and its RB: ops-1 is still unread, for both."""
    report = check_thread(REPRODUCER)
    assert report.ledger.handoff("ops-1").state == "awaiting-readback"
    assert report.ledger.handoff("ops-2").state == "owned"
    unread = {f.key for f in lint_stream(REPRODUCER) if f.code == "RW103"}
    assert unread == {"ops-1"}


def test_a_resend_to_the_same_agent_carries_the_first_forward_for_both():
    lines = [REPRODUCER[0], "RW1 HO ops-2 re=ops-1 from=ops to=builder item=gh:x#1 ask=FIX",
             "RW1 RB builder-1 re=ops-2 from=builder to=ops item=gh:x#1 ask=FIX"]
    assert check_thread(lines).ledger.handoff("ops-1").state == "reissued"
    assert not [f for f in lint_stream(lines) if f.code == "RW103"]


AGENTS = ("builder", "reviewer")
ITEMS = ("gh:x#1", "gh:x#2")


@st.composite
def conversations(draw):
    """HOs from ops (to either agent, about either item, ``re=`` any earlier message or none) and RBs from
    an HO's receiver: the shapes in which lint's RW103 and check-thread's awaiting-readback must agree."""
    lines: list[str] = []
    hos: list[tuple[str, str, str]] = []  # (id, to, item)
    ids: list[str] = []
    numbers = {"ops": 0, "builder": 0, "reviewer": 0}
    for _ in range(draw(st.integers(1, 6))):
        if hos and draw(st.booleans()):
            ho_id, to, item = draw(st.sampled_from(hos))
            numbers[to] += 1
            rb = f"{to}-{numbers[to]}"
            lines.append(f"RW1 RB {rb} re={ho_id} from={to} to=ops item={item} ask=FIX")
            ids.append(rb)
        else:
            numbers["ops"] += 1
            ho_id = f"ops-{numbers['ops']}"
            to, item = draw(st.sampled_from(AGENTS)), draw(st.sampled_from(ITEMS))
            re = draw(st.sampled_from([None, *ids]))
            lines.append(f"RW1 HO {ho_id}{f' re={re}' if re else ''} from=ops to={to} item={item} ask=FIX")
            hos.append((ho_id, to, item))
            ids.append(ho_id)
    return lines


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_lint_and_check_thread_agree_on_which_handoffs_await_a_readback(lines):
    awaiting = {h.id for h in check_thread(lines).ledger.handoffs if h.state == "awaiting-readback"}
    unread = {f.key for f in lint_stream(lines) if f.code == "RW103"}
    assert unread == awaiting


# --------------------------------------------------------------------------
# the one rule, as a table: (the HO's envelope, what its re= names) -> link

EARLIER = Envelope("HO", "ops-1", None, "ops", "builder", "gh:x#1")
RB_OF_EARLIER = Envelope("RB", "builder-1", "ops-1", "builder", "ops", "gh:x#1")
LINKS = [
    (Envelope("HO", "ops-2", "ops-1", "ops", "builder", "gh:x#1"), ("ops-1", RESEND)),
    (Envelope("HO", "ops-2", "builder-1", "ops", "builder", "gh:x#1"), ("ops-1", REISSUE)),
    (Envelope("HO", "ops-2", "ops-1", "ops", "reviewer", "gh:x#1"), None),  # another receiver
    (Envelope("HO", "ops-2", "ops-1", "ops", "builder", "gh:x#2"), None),  # another item
    (Envelope("HO", "builder-2", "ops-1", "builder", "tester", "gh:x#1"), None),  # a relay
    (Envelope("HO", "ops-2", "nobody-1", "ops", "builder", "gh:x#1"), None),  # re= unknown
    (Envelope("HO", "ops-2", None, "ops", "builder", "gh:x#1"), None),
    (Envelope("RB", "builder-2", "ops-1", "builder", "ops", "gh:x#1"), None),  # not an HO
]


@pytest.mark.parametrize("ho,link", LINKS)
def test_issue_link_is_the_one_rule(ho, link):
    known = {e.id: e for e in (EARLIER, RB_OF_EARLIER)}
    assert issue_link(ho, known.get) == link
    assert is_carried_forward(EARLIER, ho, known.get) is (link is not None)
    assert Conversation([EARLIER, RB_OF_EARLIER]).issue_link(ho) == link


def test_an_rb_from_someone_else_does_not_make_a_reissue():
    stranger = Envelope("RB", "c-1", "ops-1", "c", "ops", "gh:x#1")
    ho = Envelope("HO", "ops-2", "c-1", "ops", "builder", "gh:x#1")
    assert issue_link(ho, {e.id: e for e in (EARLIER, stranger)}.get) is None


# --------------------------------------------------------------------------
# the walk from a reply to its HO

WALK = [
    "RW1 HO a-1 from=a to=b item=x ask=FIX",
    "RW1 RB b-1 re=a-1 from=b to=a item=x ask=FIX",
    "RW1 AQ b-2 re=a-1 from=b to=a need=YESNO",
    "RW1 AN a-2 re=b-2 from=a to=b val=Y",
    "RW1 DN b-3 re=b-1 from=b to=a item=x out=OK",
    "RW1 DN b-4 re=a-2 from=b to=a item=x out=OK",
    "RW1 ST b-5 re=nobody-1 from=b to=a item=x",
]


@pytest.mark.parametrize("start,through,ho", [
    ("b-1", ("RB", "AN", "CX"), "a-1"),
    ("b-3", ("RB", "AN", "CX"), "a-1"),  # a DN answering the RB
    ("b-4", ("RB", "AN", "CX"), None),  # the AN answers an AQ: the default walk does not pass an AQ
    ("b-4", None, "a-1"),  # any type: DN -> AN -> AQ -> HO
    ("a-2", None, "a-1"),
    ("b-5", None, None),  # re= names nothing known
    ("a-1", None, None),  # an HO with no re=
])
def test_handoff_of_walks_re_back_to_the_ho(start, through, ho):
    conversation = Conversation(_m(line) for line in WALK)
    found = conversation.handoff_of(conversation.get(start), through=through)
    assert (found.id if found is not None else None) == ho


def test_handoff_of_ends_a_cycle():
    a = Envelope("RB", "x-1", "y-1", "x", "y", None)
    b = Envelope("RB", "y-1", "x-1", "y", "x", None)
    known = {a.id: a, b.id: b}
    assert handoff_of(a, known.get) is None
    assert handoff_of(a, known.get, through=None) is None


def test_a_conversation_keeps_the_first_of_a_repeated_id():
    first, second = _m("RW1 ST a-1 from=a to=b item=x"), _m("RW1 ST a-1 from=a to=c item=x")
    conversation = Conversation([first])
    assert conversation.add(second) is False and conversation.get("a-1") is first
    assert "a-1" in conversation and len(conversation) == 1 and list(conversation) == [first]


# --------------------------------------------------------------------------
# the tables


def test_every_statement_move_starts_and_ends_in_a_statement_state_and_each_event_has_one_row():
    for (state, event), nxt in STATEMENT_TRANSITIONS.items():
        assert state in STATEMENT_STATES and nxt in STATEMENT_STATES
        assert STATEMENT_EVENTS[event] == (state, nxt)
    assert set(STATEMENT_LIVE) <= set(STATEMENT_STATES)
    # nothing leaves an end state: a committed act is never run again
    ends = {"committed", "failed", "abandoned", "cancelled"}
    assert not [row for row in STATEMENT_TRANSITIONS if row[0] in ends]


def test_the_a2a_task_table_ends_in_end_states_and_an_end_is_final():
    assert set(A2A_END_STATES) == set(CLOSERS) and A2A_TERMINAL == set(A2A_END_STATES.values())
    for (state, event), nxt in A2A_TASK_TRANSITIONS.items():
        assert state in A2A_TASK_STATES and state not in A2A_TERMINAL
        assert nxt in A2A_TASK_STATES or nxt == "resume"


def test_the_a2a_task_map_walks_the_table():
    lines = ["RW1 HO a-1 from=a to=b item=x ask=FIX", "RW1 RB b-1 re=a-1 from=b to=a item=x ask=FIX",
             "RW1 AQ b-2 re=a-1 from=b to=a need=YESNO", "RW1 AN a-2 re=b-2 from=a to=b val=Y",
             "RW1 DN b-3 re=a-1 from=b to=a item=x out=OK", "RW1 FL b-4 re=a-1 from=b to=a item=x why=ERR"]
    task = task_states(lines, readback_passes=lambda ho, rb: True).tasks["a-1"]
    assert [state for _, state in task.history] == ["submitted", "working", "input-required", "working", "completed"]
