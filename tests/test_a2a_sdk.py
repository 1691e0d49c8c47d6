"""A2A carriage through the A2A SDK's own types (``a2a.types``): messages, parts, task states."""

from __future__ import annotations


import pytest

a2a_types = pytest.importorskip("a2a.types", reason="the a2a extra (the A2A SDK) is not installed")

from rogerwilco import Message  # noqa: E402
from tests.a2a_common import ALL, HO, SPEC, refusal  # noqa: E402
from rogerwilco.front.a2a import (  # noqa: E402
    CANCELED, COMPLETED, EXTENSION_URI, FAILED, INPUT_REQUIRED, REJECTED, SUBMITTED, WORKING, from_a2a,
    sdk_task_state, task_states, to_a2a_message,
)



@pytest.mark.parametrize("line", SPEC, ids=[f"spec8-{i}" for i in range(len(SPEC))])
def test_every_spec_line_round_trips_through_sdk_messages_and_their_wire_bytes(line):
    sdk = to_a2a_message(line, ALL, message_id="m-1", context_id="ctx-1")
    assert isinstance(sdk, a2a_types.Message)
    wire = a2a_types.Message()
    wire.ParseFromString(sdk.SerializeToString())
    out = from_a2a(wire, ALL)
    assert out.ok, out.findings
    assert out.message == Message.from_line(line, ALL) and out.line == line
    assert wire.context_id == "ctx-1"


def test_sdk_parts_are_a_text_part_and_a_data_part():
    sdk = to_a2a_message(HO, ALL, message_id="m-1")
    line_part, json_part = sdk.parts
    assert line_part.WhichOneof("content") == "text" and line_part.text == HO
    assert json_part.WhichOneof("content") == "data" and json_part.media_type == "application/json"
    assert list(sdk.extensions) == [EXTENSION_URI]
    assert sdk.role == a2a_types.Role.ROLE_USER
    assert to_a2a_message(SPEC[1], ALL).role == a2a_types.Role.ROLE_AGENT


def test_sdk_numbers_come_back_as_integers():
    from google.protobuf.json_format import MessageToDict

    sdk = to_a2a_message(HO, ALL, message_id="m-1")
    assert MessageToDict(sdk)["parts"][1]["data"]["slots"]["pri"] == 2.0  # protobuf holds a double
    assert from_a2a(sdk, ALL).message.slots["pri"] == 2


def test_an_sdk_message_whose_parts_disagree_is_refused():
    sdk = to_a2a_message(HO, ALL, message_id="m-1")
    sdk.parts[1].data.struct_value.fields["slots"].struct_value.fields["due"].string_value = "20261009"
    assert refusal(sdk) == ("disagree", "due", "due=20261002", "UNK")


def test_an_sdk_message_built_by_hand_without_the_json_part_is_refused():
    sdk = a2a_types.Message(message_id="m-2", role=a2a_types.Role.ROLE_AGENT,
                            parts=[a2a_types.Part(text=HO, metadata={EXTENSION_URI: {"part": "line"}})])
    assert refusal(sdk)[:2] == ("missing-part", "json")



def test_states_map_onto_the_sdk_task_state():
    view = task_states(SPEC[:5], profiles=ALL).tasks["research-01"]
    task = a2a_types.Task(id=view.ho, context_id="ctx-1",
                          status=a2a_types.TaskStatus(state=sdk_task_state(view.state)))
    assert task.status.state == a2a_types.TaskState.TASK_STATE_COMPLETED
    for state in (SUBMITTED, WORKING, INPUT_REQUIRED, COMPLETED, REJECTED, FAILED, CANCELED):
        assert a2a_types.TaskState.Name(sdk_task_state(state)) == "TASK_STATE_" + state.upper().replace("-", "_")
