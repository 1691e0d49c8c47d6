"""A2A carriage: a line in an A2A message and out again; a thread as A2A task states."""

from __future__ import annotations

import copy
import json

import pytest

from rogerwilco import Message
from tests.a2a_common import ALL, HO, SPEC, refusal
from rogerwilco.front.a2a import (
    CANCELED, COMPLETED, EXTENSION_URI, FAILED, INPUT_REQUIRED, REJECTED, SUBMITTED, WORKING, CarriageError,
    from_a2a, from_a2a_dict, message_from_a2a, task_states, to_a2a_dict,
)



def carried(line: str = HO) -> dict:
    return to_a2a_dict(line, ALL, message_id="m-1")


# ---- plain dicts -------------------------------------------------------------


@pytest.mark.parametrize("line", SPEC, ids=[f"spec8-{i}" for i in range(len(SPEC))])
def test_every_spec_line_round_trips_through_a_plain_dict(line):
    obj = json.loads(json.dumps(carried(line)))  # as it would cross the wire
    out = from_a2a_dict(obj, ALL)
    assert out.ok, out.findings
    assert out.message == Message.from_line(line, ALL)
    assert out.line == line


def test_the_two_parts_hold_the_line_and_the_json_form_with_its_digest():
    obj = carried()
    line_part, json_part = obj["parts"]
    message = Message.from_line(HO)
    assert line_part["text"] == HO and line_part["metadata"][EXTENSION_URI] == {"part": "line"}
    assert json_part["data"] == message.to_json()
    assert json_part["metadata"][EXTENSION_URI] == {"part": "json", "h": "c40bba4360dc"}
    assert obj["extensions"] == [EXTENSION_URI]
    assert obj["role"] == "ROLE_USER" and obj["messageId"] == "m-1"
    assert to_a2a_dict(SPEC[1], ALL)["role"] == "ROLE_AGENT"
    assert to_a2a_dict(SPEC[1], ALL, role="user", context_id="c-9", task_id="t-2")["role"] == "ROLE_USER"


def test_a_message_value_is_carried_as_its_written_line():
    message = Message.from_line(SPEC[7], ALL)
    obj = to_a2a_dict(message)
    assert obj["parts"][0]["text"] == message.to_line()
    assert from_a2a(obj, ALL).message == message


def test_a_refused_line_is_never_put_in():
    with pytest.raises(Exception) as exc:
        to_a2a_dict(HO.replace("ask=DRAFT", "ask=DRAFTT"), ALL)
    assert exc.value.token == "ask=DRAFTT"


def test_the_older_part_shape_with_kind_is_read():
    obj = carried()
    for part in obj["parts"]:
        part["kind"] = "text" if "text" in part else "data"
    assert from_a2a(obj, ALL).ok


# ---- refusals ----------------------------------------------------------------


def test_a_json_part_carrying_a_different_message_is_refused():
    obj = carried()
    obj["parts"][1]["data"]["slots"]["pri"] = 3
    assert refusal(obj) == ("disagree", "pri", "pri=2", "UNK")


def test_a_line_changed_apart_from_its_json_part_is_refused():
    obj = carried()
    obj["parts"][0]["text"] = HO.replace("due=20261002", "due=20261003")
    assert refusal(obj) == ("disagree", "due", "due=20261003", "UNK")


def test_a_changed_tail_is_refused():
    obj = carried()
    obj["parts"][1]["data"]["tail"] = "hero copy, 150 words"
    assert refusal(obj)[:2] == ("disagree", "tail")


def test_both_parts_changed_together_are_caught_by_the_digest():
    obj = carried()
    changed = HO.replace("pri=2", "pri=1")
    obj["parts"][0]["text"] = changed
    obj["parts"][1]["data"] = Message.from_line(changed).to_json()
    assert refusal(obj) == ("digest", "h", "h=c40bba4360dc", "UNK")


def test_a_missing_or_wrong_digest_is_refused():
    obj = carried()
    del obj["parts"][1]["metadata"][EXTENSION_URI]["h"]
    assert refusal(obj)[:3] == ("digest", "h", "h")
    obj = carried()
    obj["parts"][1]["metadata"][EXTENSION_URI]["h"] = "000000000000"
    assert refusal(obj)[:3] == ("digest", "h", "h=000000000000")


@pytest.mark.parametrize("drop, key", [(0, "line"), (1, "json")])
def test_a_missing_part_is_refused(drop, key):
    obj = carried()
    del obj["parts"][drop]
    assert refusal(obj)[:3] == ("missing-part", key, key)


def test_an_unmarked_part_does_not_count():
    obj = carried()
    del obj["parts"][0]["metadata"]
    assert refusal(obj)[:2] == ("missing-part", "line")


def test_two_line_parts_are_refused_rather_than_chosen_between():
    obj = carried()
    second = copy.deepcopy(obj["parts"][0])
    second["text"] = HO.replace("pri=2", "pri=1")
    obj["parts"].append(second)
    assert refusal(obj)[:2] == ("extra-part", "line")


def test_a_refused_line_names_its_token():
    obj = carried()
    obj["parts"][0]["text"] = HO.replace("ask=DRAFT", "ask=DRAFTT")
    assert refusal(obj) == ("form", "ask", "ask=DRAFTT", "UNK")


def test_a_line_part_cannot_forge_a_second_line():
    obj = carried()
    obj["parts"][0]["text"] = HO + "\nRW1 DN writer-3 re=research-01 from=writer to=research item=gh:crox/site#42 out=OK"
    kind, _, _, why = refusal(obj)
    assert (kind, why) == ("form", "UNK")


def test_a_json_part_that_is_not_a_json_form_is_refused():
    obj = carried()
    obj["parts"][1]["data"] = {"type": "HO"}
    assert refusal(obj)[0] == "json"


def test_not_a_message_at_all_is_refused():
    assert refusal({"messageId": "x"})[:2] == ("missing-part", "parts")


def test_the_strict_form_raises_naming_the_rule_and_token():
    obj = carried()
    obj["parts"][1]["data"]["slots"]["pri"] = 3
    with pytest.raises(CarriageError) as exc:
        message_from_a2a(obj, ALL)
    assert exc.value.why == "UNK" and exc.value.token == "pri=2" and "disagree" in str(exc.value)
    assert message_from_a2a(carried(), ALL) == Message.from_line(HO)


# ---- task states -------------------------------------------------------------------


def history(lines, **kw):
    return task_states(lines, profiles=ALL, **kw)


def test_handoff_question_completion_walks_the_task_states():
    tasks = history(SPEC[:5])
    view = tasks.tasks["research-01"]
    assert view.history == (("research-01", SUBMITTED), ("writer-01", WORKING), ("writer-02", INPUT_REQUIRED),
                            ("research-02", WORKING), ("writer-03", COMPLETED))
    assert view.a2a_state == "TASK_STATE_COMPLETED"
    assert (view.sender, view.receiver, view.item) == ("research", "writer", "gh:crox/site#42")


@pytest.mark.parametrize("closer, state", [
    ("RW1 UN writer-04 re=research-01 from=writer to=research item=gh:crox/site#42 why=NOCTX", REJECTED),
    ("RW1 FL writer-04 re=research-01 from=writer to=research item=gh:crox/site#42 why=ERR", FAILED),
    ("RW1 CX research-03 re=research-01 from=research to=writer item=gh:crox/site#42 why=REVOKED", CANCELED),
    ("RW1 DN writer-04 re=research-01 from=writer to=research item=gh:crox/site#42 out=OK", COMPLETED),
])
def test_each_close_ends_the_task_in_its_state(closer, state):
    assert history([HO, SPEC[1], closer]).state("research-01") == state


def test_a_failing_readback_leaves_the_task_submitted_and_a_reissue_is_its_own_task():
    tasks = history(SPEC[13:17])
    assert tasks.state("ops-03") == SUBMITTED
    assert tasks.state("ops-04") == WORKING


def test_a_question_before_the_readback_returns_to_submitted_when_answered():
    lines = [HO, SPEC[2], SPEC[3]]
    assert [s for _, s in history(lines).tasks["research-01"].history] == [SUBMITTED, INPUT_REQUIRED, SUBMITTED]


def test_an_end_state_is_final():
    lines = [SPEC[7], SPEC[17], SPEC[18], SPEC[10]]  # HO, CX, AN to the CX, then a DN anyway
    tasks = history(lines)
    assert tasks.state("scheduler-1") == CANCELED
    assert any(f.kind == "after-end" and f.token == "payer-2" for f in tasks.findings)


def test_a_close_from_someone_else_moves_nothing():
    stranger = "RW1 DN editor-1 re=research-01 from=editor to=research item=gh:crox/site#42 out=OK"
    assert history([HO, SPEC[1], stranger]).state("research-01") == WORKING


def test_the_readback_check_can_be_supplied():
    tasks = history([HO, SPEC[1]], readback_passes=lambda ho, rb: False)
    assert tasks.state("research-01") == SUBMITTED


def test_refused_lines_and_orphan_replies_are_findings():
    tasks = history(["RW1 HO a-1 from=a to=b item=x:1 ask=PAYY", SPEC[4]])
    assert tasks.tasks == {}
    assert {f.kind for f in tasks.findings} == {"form", "no-task"}
