"""rogerwilco.front.integrations.pydantic_ai: the spec's section 8 pay handoff between two PydanticAI agents
with scripted models (FunctionModel), offline: the readback composed by code, checked by the sender, a
misread amount refused, a bad line retried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from rogerwilco import Endpoint
from rogerwilco.front.integrations.pydantic_ai import INSTRUCTIONS, RW1Deps, rw1_toolset
from rogerwilco.front.tools import call, schemas

LINES = (Path(__file__).resolve().parents[1] / "examples" / "spec-section8.rw1").read_text().splitlines()
HO = LINES[7]          # RW1 HO scheduler-1 p=pay ... ask=PAY rb=exec ... amt=5400.00 ...
SPEC_RB = LINES[8]     # RW1 RB payer-1 re=scheduler-1 ... h=a7a82de76607 ...
ITEM = "inv:MD-2026-057"
assert HO.startswith("RW1 HO scheduler-1 p=pay") and SPEC_RB.startswith("RW1 RB payer-1 re=scheduler-1")


def scripted(*steps):
    """A model that plays ``steps`` in turn: each gets the last tool's result (or retry prompt) and returns
    ``(tool, args)`` to call or a string to end the run with."""
    seen = []

    def model(messages, info: AgentInfo) -> ModelResponse:
        last = [p for p in messages[-1].parts if isinstance(p, (ToolReturnPart, RetryPromptPart))]
        seen.append(last[-1] if last else None)
        step = steps[min(len([m for m in messages if isinstance(m, ModelResponse)]), len(steps) - 1)]
        out = step(seen[-1])
        if isinstance(out, str):
            return ModelResponse(parts=[TextPart(out)])
        return ModelResponse(parts=[ToolCallPart(out[0], out[1])])

    return FunctionModel(model), seen


def retried(part):
    """A call the toolset refused with ModelRetry (a RetryPromptPart, or from pydantic-ai 2 a tool return
    marked retried)."""
    return isinstance(part, RetryPromptPart) or getattr(part, "outcome", None) == "retried"


def said(part):
    return part.model_response() if isinstance(part, RetryPromptPart) else str(part.content)


def agent(model):
    return Agent(model, toolsets=[rw1_toolset()], deps_type=RW1Deps, instructions=INSTRUCTIONS)


def content(part):
    return part.content if isinstance(part.content, dict) else json.loads(part.content)


def test_the_pay_handoff_moves_ownership_on_a_code_composed_readback():
    scheduler = RW1Deps(Endpoint("scheduler", profiles=["pay"]))
    payer = RW1Deps(Endpoint("payer", profiles=["pay"]))

    model, _ = scripted(lambda _: ("send", {"line": HO}), lambda r: content(r)["line"])
    sent = agent(model).run_sync("send the approved pay run", deps=scheduler).output
    assert sent == HO

    # the receiver's model never writes the RB: it sends the one the receive tool composed
    def offered(r):
        (event,) = [e for e in content(r)["events"] if e["event"] == "HandoffOffered"]
        return ("send", {"line": event["readback"]})

    model, _ = scripted(lambda _: ("receive", {"line": sent}), offered, lambda r: content(r)["line"])
    rb = agent(model).run_sync("a line arrived", deps=payer).output
    assert rb.startswith("RW1 RB payer-1 re=scheduler-1") and "amt=5400.00" in rb and "h=a7a82de76607" in rb
    assert not payer.endpoint.may_act("scheduler-1")

    model, seen = scripted(lambda _: ("receive", {"line": rb}), lambda r: json.dumps(content(r)))
    result = json.loads(agent(model).run_sync("a line arrived", deps=scheduler).output)
    kinds = [e["event"] for e in result["events"]]
    assert "ReadbackPassed" in kinds and "ReadbackVoid" not in kinds
    assert scheduler.endpoint.owner(ITEM) == "payer"
    (passed,) = [e for e in result["events"] if e["event"] == "ReadbackPassed"]
    assert passed["confirm"].startswith("RW1 AN scheduler-2 re=payer-1") and "val=Y" in passed["confirm"]

    payer.endpoint.receive(passed["confirm"])
    assert payer.endpoint.may_act("scheduler-1")


def test_a_misread_amount_is_refused_by_the_senders_check():
    scheduler = RW1Deps(Endpoint("scheduler", profiles=["pay"]))
    scheduler.endpoint.send(HO)
    misread = SPEC_RB.replace("amt=5400.00", "amt=4500.00")

    # the stateless check a sender can run
    model, seen = scripted(lambda _: ("check_rb", {"ho": HO, "rb": misread, "profiles": ["pay"]}),
                           lambda r: "checked")
    agent(model).run_sync("check the readback", deps=scheduler)
    report = content(seen[-1])
    assert report["ok"] is True and report["passed"] is False
    assert any(f["key"] == "amt" and f["severity"] == "fail" for f in report["findings"])
    assert {t["tier"]: t["status"] for t in report["tiers"]}[5] != "pass"

    # and the endpoint's: nothing moves, the HO is offered again
    model, seen = scripted(lambda _: ("receive", {"line": misread}), lambda r: "read")
    agent(model).run_sync("a line arrived", deps=scheduler)
    events = content(seen[-1])["events"]
    (void,) = [e for e in events if e["event"] == "ReadbackVoid"]
    assert void["reissue"].startswith("RW1 HO scheduler-2 re=payer-1")
    assert scheduler.endpoint.owner(ITEM) != "payer"


def test_a_bad_line_gets_a_retry_not_a_crash():
    typo = HO.replace("ask=PAY", "ask=PAYY")
    model, seen = scripted(lambda _: ("make_rb", {"ho": typo, "n": 1}),
                           lambda r: ("make_rb", {"ho": HO, "n": 1}),
                           lambda r: content(r)["line"])
    rb = agent(model).run_sync("read this back", deps=RW1Deps(Endpoint("payer", profiles=["pay"]))).output
    assert retried(seen[1])
    assert "token at fault: ask=PAYY" in said(seen[1]) and "never write an RB yourself" in said(seen[1])
    assert not retried(seen[2]) and rb == call("make_rb", {"ho": HO, "n": 1})[0]["line"]
    assert "h=a7a82de76607" in rb and "amt=5400.00" in rb


def test_a_send_the_protocol_forbids_is_retried_with_its_rule():
    payer = RW1Deps(Endpoint("payer", profiles=["pay"]))
    payer.endpoint.receive(HO)  # offered, not read back: a done report now would act before the wilco
    model, seen = scripted(lambda _: ("send", {"line": LINES[10]}), lambda r: "stopped")
    agent(model).run_sync("report done", deps=payer)
    assert retried(seen[1]) and LINES[10].startswith("RW1 DN payer-2")
    assert said(seen[1]).startswith("act-before-wilco: "), said(seen[1])


def test_a_model_that_never_corrects_itself_ends_on_the_retry_limit():
    model, _ = scripted(lambda _: ("digest", {"line": "RW1 XX nonsense"}))
    with pytest.raises(UnexpectedModelBehavior, match="digest"):
        agent(model).run_sync("digest", deps=RW1Deps(Endpoint("payer")))


def test_strict_tools_take_strict_arguments():
    toolset = rw1_toolset(strict=True, session=False)
    assert toolset.tools["check_rb"].function_schema.json_schema == schemas(strict=True)["check_rb"]
    args = {name: None for name in schemas(strict=True)["check_rb"]["properties"]}
    args.update(ho=HO, rb=SPEC_RB.replace("amt=5400.00", "amt=4500.00"), profiles=["pay"],
                record=[{"slot": "amt", "value": "5400.00"}])
    model, seen = scripted(lambda _: ("check_rb", args), lambda r: "checked")
    Agent(model, toolsets=[toolset]).run_sync("check")
    assert content(seen[-1])["passed"] is False


def test_session_tools_need_an_endpoint_in_the_deps():
    model, seen = scripted(lambda _: ("owner", {"item": ITEM}), lambda r: "done")
    agent(model).run_sync("who owns it", deps=None)
    assert retried(seen[1]) and "no RW1 endpoint" in said(seen[1])


def test_the_documented_example_runs():
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[1] / "examples" / "agents" / "pydantic_ai_handoff.py"
    out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [SPEC_RB.replace(" h=a7a82de76607", "").replace("ask=PAY p=pay", "p=pay ask=PAY")
                                + " h=a7a82de76607", "['ReadbackPassed', 'OwnershipTransferred']", "owner: payer"]
