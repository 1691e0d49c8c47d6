"""The spec's section 8 pay handoff in the OpenAI Agents SDK, offline.

The SDK's ScriptedModel stands in for real models (no network, no API key);
give the agents ``model="gpt-5"`` and the tools, the handoff and the
endpoints stay the same.
Run: python examples/agents/openai_agents_handoff.py
"""

from __future__ import annotations

import json
from pathlib import Path

from agents import Agent, RunConfig, Runner
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from rogerwilco import Endpoint
from rogerwilco.integrations.openai_agents import INSTRUCTIONS, rw1_handoff, rw1_readback_tool, rw1_tools

HO = (Path(__file__).resolve().parents[1] / "spec-section8.rw1").read_text().splitlines()[7]
APPROVAL = {"item": "inv:MD-2026-057", "sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS",
            "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
RUN = RunConfig(tracing_disabled=True)


def last_output(call):
    """What the model's last tool call (or handoff) returned to it."""
    outputs = [i for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return json.loads(outputs[-1]["output"])


def said(call):
    """The text a model was given (its input as one string)."""
    items = [call.input] if isinstance(call.input, str) else [i.get("content", "") for i in call.input]
    return "\n".join(i for i in items if isinstance(i, str))


# 1. The handoff: control passes to the payer only when the readback passes.
scheduler_end, payer_end = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])
payer = Agent(name="payer", tools=rw1_tools(payer_end), model=ScriptedModel([  # answers with the lines it was given
    ModelStep.respond(lambda call: [assistant_message("\n".join(x for x in said(call).splitlines() if x[:4] == "RW1 "))]),
]))
scheduler = Agent(name="scheduler", instructions=INSTRUCTIONS, model=ScriptedModel([
    # a misread amount: the approval record refuses the HO before it goes, and the model is told why
    [function_call("transfer_to_payer", {"line": HO.replace("amt=5400.00", "amt=4500.00")}, call_id="c1")],
    ModelStep.respond(lambda call: [function_call("transfer_to_payer", {"line": HO}, call_id="c2")]),
]))
to_payer = rw1_handoff(scheduler, payer, sender=scheduler_end, receiver=payer_end, record=APPROVAL)
scheduler.handoffs.append(to_payer)
result = Runner.run_sync(scheduler, "Pay the approved run.", run_config=RUN)
for outcome in to_payer.outcomes:
    print("handoff:", outcome.status, *[(outcome.error or {})[k] for k in ("rule", "token") if outcome.error])
print("the payer's model was given:", result.final_output, sep="\n")
print("owner:", scheduler_end.owner("inv:MD-2026-057"), "| payer may act:", payer_end.may_act("scheduler-1"))

# 2. Agents as tools: the sender sees the receiver's RB, checks it, and re-issues on a void one.
scheduler_end, payer_end = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])


def retyped(call):  # the payer's model retypes the readback and misreads the amount
    rb = next(x for x in said(call).splitlines() if x.startswith("RW1 RB"))
    return [assistant_message(rb.replace("amt=5400.00", "amt=4500.00"))]


def copied(call):  # the payer's model sends the readback composed by code
    return [assistant_message(next(x for x in said(call).splitlines() if x.startswith("RW1 RB")))]


def done(call):  # after the AN val=Y: the DN with the values the payment tool returned
    return [assistant_message(f"RW1 DN payer-3 re=scheduler-2 p=pay from=payer to=scheduler item=inv:MD-2026-057 "
                              f"out=OK {' '.join(f'{k}={v}' for k, v in APPROVAL.items() if k != 'item')}")]


payer = Agent(name="payer", model=ScriptedModel([ModelStep.respond(s) for s in (retyped, copied, done)]))
ask_payer = rw1_readback_tool(payer, sender=scheduler_end, receiver=payer_end, act=True, run_config=RUN)
scheduler = Agent(name="scheduler", instructions=INSTRUCTIONS, tools=[ask_payer], model=ScriptedModel([
    [function_call("hand_to_payer", {"line": HO}, call_id="c1")],
    ModelStep.respond(lambda call: [function_call("hand_to_payer", {"line": last_output(call)["reissue"]},
                                                  call_id="c2")]),
    ModelStep.respond(lambda call: [assistant_message(last_output(call)["status"])]),
]))
result = Runner.run_sync(scheduler, "Pay the approved run.", run_config=RUN)
for outcome in ask_payer.outcomes:
    print("round trip:", outcome.status, *[f"{f['key']} (tier {f['tier']})" for f in outcome.findings])
print(*[line for _, line in scheduler_end.journal()], sep="\n")
print("owner:", scheduler_end.owner("inv:MD-2026-057"))
