"""An endpoint behind an A2A message handler (rogerwilco.a2a.EndpointHandler)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rogerwilco import Endpoint
from rogerwilco.front.a2a import EndpointHandler, to_a2a_dict
from rogerwilco.checks.endpoint import HandoffOffered, Unreadable

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "examples" / "spec-section8.rw1").read_text().splitlines()


def test_the_example_hands_off_over_a2a_and_refuses_an_unknown_code():
    spec = importlib.util.spec_from_file_location("a2a_handler", ROOT / "examples" / "endpoint" / "a2a_handler.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.run() == SPEC[:2] + ["RW1 UN writer-02 re=research-02 from=writer to=research why=UNK // ask=DRAFTT "
                                       "unknown ask code"]


def test_parts_that_disagree_never_reach_the_endpoint():
    writer = EndpointHandler(Endpoint("writer"))
    carried = to_a2a_dict(SPEC[0], context_id="c")
    carried["parts"][1]["data"]["slots"]["due"] = "20261003"
    handled = writer.handle(carried)
    assert [type(e) for e in handled.events] == [Unreadable] and handled.replies == ()
    assert handled.events[0].findings[0].failed
    assert writer.endpoint.open_handoffs() == []


def test_the_sdk_message_form_is_taken_too():
    from rogerwilco.front.a2a import to_a2a_message

    writer = EndpointHandler(Endpoint("writer"))
    handled = writer.handle(to_a2a_message(SPEC[0], task_id="t-1"))
    assert isinstance(handled.events[0], HandoffOffered) and handled.events[0].readback is not None
