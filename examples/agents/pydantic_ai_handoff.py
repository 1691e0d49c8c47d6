"""The spec's section 8 pay handoff between two PydanticAI agents, offline.

Scripted models (PydanticAI's FunctionModel) stand in for real ones; swap in
``Agent("openai:...", ...)`` and the toolset, deps and instructions stay the same.
Run: python examples/agents/pydantic_ai_handoff.py
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

from rogerwilco import Endpoint
from rogerwilco.integrations.pydantic_ai import INSTRUCTIONS, RW1Deps, rw1_toolset

HO = (Path(__file__).resolve().parents[1] / "spec-section8.rw1").read_text().splitlines()[7]


def script(*steps):
    """A model that calls step(last tool result) in turn: (tool, args) to call a tool, a string to answer."""
    def model(messages, info):
        results = [p.content for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        out = steps[sum(isinstance(m, ModelResponse) for m in messages)](results[-1] if results else None)
        return ModelResponse(parts=[TextPart(out)] if isinstance(out, str) else [ToolCallPart(*out)])
    return FunctionModel(model)


def agent(model):
    return Agent(model, toolsets=[rw1_toolset()], deps_type=RW1Deps, instructions=INSTRUCTIONS)


scheduler = RW1Deps(Endpoint("scheduler", profiles=["pay"]))
payer = RW1Deps(Endpoint("payer", profiles=["pay"]))

# the sender sends the approved HO through its endpoint
ho = agent(script(lambda _: ("send", {"line": HO}), lambda r: r["line"])).run_sync("pay", deps=scheduler).output

# the receiver: receive composes the readback by code; the model sends it as it is
rb = agent(script(
    lambda _: ("receive", {"line": ho}),
    lambda r: ("send", {"line": next(e["readback"] for e in r["events"] if e["event"] == "HandoffOffered")}),
    lambda r: r["line"],
)).run_sync("a line arrived", deps=payer).output

# the sender checks it: ownership moves only when it passes
events = scheduler.endpoint.receive(rb)
print(rb)
print([type(e).__name__ for e in events])
print("owner:", scheduler.endpoint.owner("inv:MD-2026-057"))
