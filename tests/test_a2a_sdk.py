"""A2A carriage through the A2A SDK's own types (``a2a.types``): messages, parts, task states."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

a2a_types = pytest.importorskip("a2a.types", reason="the a2a extra (the A2A SDK) is not installed")

from rogerwilco import Message, RW1Error  # noqa: E402
from tests.a2a_common import ALL, HO, SPEC, refusal  # noqa: E402
from tests.jstools import node  # noqa: E402
from rogerwilco.front.a2a import (  # noqa: E402
    CANCELED, COMPLETED, EXTENSION_URI, FAILED, INPUT_REQUIRED, REJECTED, SUBMITTED, WORKING, CarriageError,
    from_a2a, json_part, sdk_task_state, task_states, to_a2a_message,
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


# Integral doubles from protobuf: A2A data parts are Struct values, whose numbers are doubles --------------

STATUS = "RW1 ST writer-02 re=research-01 from=writer to=research item=gh:crox/site#42 pct=40"
INT_LINES = [line for line in [*SPEC, STATUS] if any(isinstance(v, int) and not isinstance(v, bool)
                                                      for v in Message.from_line(line, ALL).to_json()["slots"].values())]
PEER = Path(__file__).resolve().parent.parent / "examples" / "ports" / "js" / "rw1.js"
# the JavaScript port reads a JSON form from its text (parseJsonExact: 2.0 stays a float, as D9 asks)
PEER_SCRIPT = f"""
import {{ encode }} from {json.dumps(PEER.as_uri())};
let text = ""; for await (const chunk of process.stdin) text += chunk;
try {{ console.log(JSON.stringify({{ line: encode(text) }})); }}
catch (exc) {{ console.log(JSON.stringify({{ refused: exc.message, token: exc.token }})); }}
"""


def over_the_wire(line: str):
    """The SDK message as a peer gets it: written and parsed by the SDK's own JSON mapping."""
    from google.protobuf.json_format import MessageToJson, Parse

    return Parse(MessageToJson(to_a2a_message(line, ALL, message_id="m-1")), a2a_types.Message())


def peer_reads(form) -> dict:
    out = subprocess.run([node(), "--input-type=module", "-e", PEER_SCRIPT], input=json.dumps(form),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_there_are_integer_slots_to_carry():
    assert INT_LINES == [HO, STATUS]


@pytest.mark.parametrize("line", INT_LINES)
def test_json_part_gives_the_integers_back_that_the_struct_made_doubles(line):
    from google.protobuf.json_format import MessageToDict

    received = over_the_wire(line)
    as_sent = Message.from_line(line, ALL)
    raw = MessageToDict(received)["parts"][1]["data"]
    assert any(isinstance(v, float) for v in raw["slots"].values())  # what the Struct holds
    assert json_part(received) == as_sent.to_json() == json_part(MessageToDict(received))
    assert Message.from_json(json_part(received), ALL) == as_sent


def test_from_json_itself_stays_strict_about_a_double(line=HO):
    from google.protobuf.json_format import MessageToDict

    raw = MessageToDict(over_the_wire(line))["parts"][1]["data"]
    with pytest.raises(RW1Error) as refused:
        Message.from_json(raw, ALL)
    assert refused.value.token == "pri"


@pytest.mark.parametrize("line", INT_LINES[:2])
def test_a_second_implementation_validates_the_json_part_as_the_json_form(line):
    from google.protobuf.json_format import MessageToDict

    received = over_the_wire(line)
    read = peer_reads(json_part(received))
    assert Message.from_line(read["line"], ALL) == Message.from_line(line, ALL)  # slot order aside: a Struct has none
    raw = peer_reads(MessageToDict(received)["parts"][1]["data"])  # the Struct's doubles, unrestored
    assert raw["token"] in Message.from_line(line, ALL).slots and "not an integer" in raw["refused"]


def test_a_fractional_double_in_the_json_part_is_still_refused():
    from google.protobuf.json_format import MessageToDict, ParseDict

    wire = MessageToDict(to_a2a_message(HO, ALL, message_id="m-1"))
    wire["parts"][1]["data"]["slots"]["pri"] = 2.5
    received = ParseDict(wire, a2a_types.Message())
    assert json_part(received)["slots"]["pri"] == 2.5
    kind, _, token, _ = refusal(received)
    assert (kind, token) == ("json", "pri")


def test_json_part_of_a_message_without_one_names_the_part():
    with pytest.raises(CarriageError) as refused:
        json_part({"parts": [{"text": HO}]})
    assert refused.value.token == "json" and "missing-part" in str(refused.value)
