"""rogerwilco.front.integrations.openai_agents: the spec's section 8 pay handoff through the OpenAI Agents SDK with
its own scripted model (agents.testing.ScriptedModel), offline: strict tools with no fallback, the readback
composed by code and checked by the sender, a misread amount caught, a bad line retried, ownership moved
only on a passing readback."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.exceptions import UserError
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from rogerwilco import Endpoint
from rogerwilco.front.integrations.openai_agents import INSTRUCTIONS, rw1_handoff, rw1_readback_tool, rw1_tools
from rogerwilco.front.mcp_server import session_tools
from rogerwilco.checks.thread import check_thread
from rogerwilco.front.tools import TOOLS, call, schemas
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parents[1]
LINES = (ROOT / "examples" / "spec-section8.rw1").read_text().splitlines()
HO = LINES[7]          # RW1 HO scheduler-1 p=pay ... ask=PAY rb=exec ... amt=5400.00 ...
SPEC_RB = LINES[8]     # RW1 RB payer-1 re=scheduler-1 ... h=a7a82de76607 ...
ITEM = "inv:MD-2026-057"
APPROVAL = {"item": ITEM, "sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS",
            "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
RUN = RunConfig(tracing_disabled=True)
assert HO.startswith("RW1 HO scheduler-1 p=pay") and SPEC_RB.startswith("RW1 RB payer-1 re=scheduler-1")


def outputs(call_):
    """Every tool (or handoff) output the model was given, parsed, in order (an MCP tool's output is a list of
    content parts: its text part)."""
    items = [] if isinstance(call_.input, str) else call_.input
    found = [i["output"] for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return [json.loads(o if isinstance(o, str) else next(p["text"] for p in o if "text" in p)) for o in found]


def said(call_):
    items = [call_.input] if isinstance(call_.input, str) else [i.get("content", "") for i in call_.input]
    return "\n".join(i for i in items if isinstance(i, str))


def rw1_lines(call_):
    return [x for x in said(call_).splitlines() if x.startswith("RW1 ")]


def ends():
    return Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])


# --------------------------------------------------------------------------
# strict function tools


def test_every_tool_passes_the_sdks_strict_mode_with_no_fallback():
    tools = rw1_tools(Endpoint("payer", profiles=["pay"]))
    assert {t.name for t in tools} == set(TOOLS) | set(session_tools(None))
    for tool in tools:
        assert isinstance(tool, FunctionTool) and tool.strict_json_schema is True, tool.name
        # the SDK's own conversion, refusing open objects as it does for MCP tools, leaves each schema as it is
        assert ensure_strict_json_schema(copy.deepcopy(tool.params_json_schema), _reject_open_objects=True) \
            == tool.params_json_schema, tool.name
    # the check can fail: the plain schemas are the ones the SDK cannot take strictly
    refused = []
    for name, schema in schemas().items():
        try:
            ensure_strict_json_schema(copy.deepcopy(schema), _reject_open_objects=True)
        except UserError:
            refused.append(name)
    assert {"make_rb", "check_rb", "check_ho", "check_dn"} <= set(refused)


def test_the_strict_send_takes_a_line_not_a_json_form():
    assert "json" not in schemas(strict=True, tools=session_tools(None))["send"]["properties"]
    assert "json" in schemas(tools=session_tools(None))["send"]["properties"]


def test_a_bad_line_given_to_a_tool_comes_back_to_the_model_and_the_corrected_call_runs():
    strict_args = {name: None for name in schemas(strict=True)["make_rb"]["properties"]}
    model = ScriptedModel([
        [function_call("make_rb", {**strict_args, "ho": HO.replace("ask=PAY", "ask=PAYY"), "n": 1}, call_id="c1")],
        ModelStep.respond(lambda c: [function_call("make_rb", "{not json", call_id="c2")]),
        ModelStep.respond(lambda c: [function_call("make_rb", {**strict_args, "ho": HO, "n": 1,
                                                               "profiles": ["pay"]}, call_id="c3")]),
        ModelStep.respond(lambda c: [assistant_message(outputs(c)[-1]["line"])]),
    ])
    result = Runner.run_sync(Agent(name="payer", model=model, tools=rw1_tools(), instructions=INSTRUCTIONS), "read back",
                             run_config=RUN)
    typo, garbled, made = outputs(model.calls[-1])
    assert typo["ok"] is False and typo["error"]["token"] == "ask=PAYY" and typo["error"]["why"] == "UNK"
    assert "Correct it and call the tool again" in typo["retry"]
    assert garbled["ok"] is False and garbled["error"]["rule"] == "arguments"
    assert made["ok"] is True and result.final_output == made["line"]
    assert made["line"] == call("make_rb", {"ho": HO, "n": 1, "profiles": ["pay"]})[0]["line"]
    assert "h=a7a82de76607" in made["line"] and "amt=5400.00" in made["line"]


def test_strict_record_pairs_reach_the_check():
    args = {name: None for name in schemas(strict=True)["check_rb"]["properties"]}
    args.update(ho=HO, rb=SPEC_RB.replace("amt=5400.00", "amt=4500.00"), profiles=["pay"],
                record=[{"slot": "amt", "value": "5400.00"}])
    model = ScriptedModel([[function_call("check_rb", args, call_id="c1")],
                           ModelStep.respond(lambda c: [assistant_message("checked")])])
    Runner.run_sync(Agent(name="scheduler", model=model, tools=rw1_tools(names=["check_rb"])), "check", run_config=RUN)
    (report,) = outputs(model.calls[-1])
    assert report["ok"] is True and report["passed"] is False
    assert any(f["key"] == "amt" and f["severity"] == "fail" and f["tier"] == 5 for f in report["findings"])


def test_names_must_exist():
    with pytest.raises(ValueError, match="no RW1 tool named nope"):
        rw1_tools(names=["make_rb", "nope"])


# --------------------------------------------------------------------------
# the handoff


def handoff_pair(scheduler_steps, *, record=None, write_rb=None):
    scheduler_end, payer_end = ends()
    payer_model = ScriptedModel([ModelStep.respond(lambda c: [assistant_message("\n".join(rw1_lines(c)))])])
    payer = Agent(name="payer", model=payer_model, tools=rw1_tools(payer_end))
    scheduler_model = ScriptedModel(scheduler_steps)
    scheduler = Agent(name="scheduler", model=scheduler_model, instructions=INSTRUCTIONS)
    made = rw1_handoff(scheduler, payer, sender=scheduler_end, receiver=payer_end, record=record, write_rb=write_rb)
    scheduler.handoffs.append(made)
    result = Runner.run_sync(scheduler, "Pay the approved run.", run_config=RUN)
    return result, made, scheduler_end, payer_end, scheduler_model, payer_model


def test_the_pay_handoff_passes_control_only_with_a_passing_code_composed_readback():
    assert HO.split()[2] == "scheduler-1"
    result, made, scheduler_end, payer_end, _, payer_model = handoff_pair(
        [[function_call("transfer_to_payer", {"line": HO}, call_id="c1")]])
    assert result.last_agent.name == "payer" and [o.status for o in made.outcomes] == ["wilco"]
    ho, rb, an = rw1_lines(payer_model.calls[0])  # the receiver's input: the HO, its RB and the AN, nothing else
    assert ho == HO and an.startswith("RW1 AN scheduler-2 re=payer-1") and "val=Y" in an
    assert rb.startswith("RW1 RB payer-1 re=scheduler-1") and "h=a7a82de76607" in rb and "amt=5400.00" in rb
    assert "Pay the approved run." not in said(payer_model.calls[0])
    assert scheduler_end.owner(ITEM) == "payer" and payer_end.may_act("scheduler-1")
    assert check_thread([ho, rb, an], profiles=["pay"], now="20261002T1200Z").passed  # open and in time


def test_a_bad_handoff_line_is_retried_not_a_crash():
    retried = []

    def again(c):
        retried.append(outputs(c)[-1])
        return [function_call("transfer_to_payer", {"line": HO}, call_id="c3")]

    result, made, scheduler_end, _, _, _ = handoff_pair([
        [function_call("transfer_to_payer", {"line": HO.replace("ask=PAY", "ask=PAYY")}, call_id="c1")],
        ModelStep.respond(lambda c: [function_call("transfer_to_payer", '{"lin": 1}', call_id="c2")]),
        ModelStep.respond(again),
    ])
    assert [o.status for o in made.outcomes] == ["refused", "refused", "wilco"]
    typo, shape = made.outcomes[0].error, made.outcomes[1].error
    assert typo["token"] == "ask=PAYY" and typo["why"] == "UNK"
    assert shape["rule"] == "arguments"
    assert retried[0]["ok"] is False and retried[0]["status"] == "refused"  # what the sending model was shown
    assert result.last_agent.name == "payer" and scheduler_end.owner(ITEM) == "payer"


def test_a_misread_amount_in_the_ho_is_caught_against_the_record_before_it_goes():
    shown = []

    def corrected(c):
        shown.append(outputs(c)[-1])
        return [function_call("transfer_to_payer", {"line": HO}, call_id="c2")]

    result, made, scheduler_end, payer_end, _, _ = handoff_pair([
        [function_call("transfer_to_payer", {"line": HO.replace("amt=5400.00", "amt=4500.00")}, call_id="c1")],
        ModelStep.respond(corrected),
    ], record=APPROVAL)
    refused = made.outcomes[0]
    assert refused.status == "refused" and refused.error["rule"] == "check-ho"
    assert refused.error["token"] == "amt=4500.00" and shown[0]["error"]["token"] == "amt=4500.00"
    assert [line for _, line in payer_end.journal()][0] == HO  # the misread line never reached the payer
    assert made.outcomes[1].status == "wilco" and scheduler_end.owner(ITEM) == "payer"


def test_a_misread_readback_is_void_control_stays_and_the_reissue_passes():
    misreads = iter([True])

    def write_rb(composed, ho):
        return composed.replace("amt=5400.00", "amt=4500.00") if next(misreads, False) else composed

    shown = []

    def reissue(c):
        shown.append(outputs(c)[-1])
        return [function_call("transfer_to_payer", {"line": shown[-1]["reissue"]}, call_id="c2")]

    result, made, scheduler_end, payer_end, _, payer_model = handoff_pair([
        [function_call("transfer_to_payer", {"line": HO}, call_id="c1")], ModelStep.respond(reissue),
    ], write_rb=write_rb)
    void = shown[0]
    assert void["status"] == "void" and void["owner"] == "scheduler"
    assert "amt=4500.00" in void["readback"]
    assert any(f["key"] == "amt" and f["tier"] == 5 for f in void["findings"])
    assert void["reissue"].startswith("RW1 HO scheduler-2 re=payer-1")
    assert [o.status for o in made.outcomes] == ["void", "wilco"]
    assert len(payer_model.calls) == 1 and rw1_lines(payer_model.calls[0])[0] == void["reissue"]
    assert scheduler_end.owner(ITEM) == "payer" and payer_end.may_act("scheduler-2")


def held_by_the_sender(ho, scheduler_end, payer_end):
    """The scheduler hands ``ho`` to a payer that reads nothing back: control stays with the scheduler, which
    is shown the one exchange (returned)."""
    payer = Agent(name="payer", model=ScriptedModel([]))
    shown = []
    scheduler = Agent(name="scheduler", model=ScriptedModel([
        [function_call("transfer_to_payer", {"line": ho}, call_id="c1")],
        ModelStep.respond(lambda c: shown.append(outputs(c)[-1]) or [assistant_message("held")]),
    ]))
    made = rw1_handoff(scheduler, payer, sender=scheduler_end, receiver=payer_end)
    scheduler.handoffs.append(made)
    result = Runner.run_sync(scheduler, "Pay.", run_config=RUN)
    assert result.last_agent.name == "scheduler" and result.final_output == "held"
    (unable,) = shown
    assert unable["status"] == "unable" and scheduler_end.owner(ITEM) == "scheduler"
    return unable


def test_a_receiver_that_refuses_the_handoff_keeps_control_with_the_sender():
    scheduler_end, payer_end = Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=[])
    unable = held_by_the_sender(HO, scheduler_end, payer_end)
    assert unable["lines"][1].startswith("RW1 UN payer-1 re=scheduler-1") and "why=UNK" in unable["lines"][1]


def test_a_handoff_that_reaches_its_receiver_after_its_exp_is_unable_and_says_why():
    import datetime as _dt

    def at(hour):
        return lambda: _dt.datetime(2026, 10, 2, hour, 0, tzinfo=_dt.timezone.utc)

    late_ho = HO.replace(" rb=exec", " rb=exec exp=20261002T1200Z")
    unable = held_by_the_sender(late_ho, Endpoint("scheduler", profiles=["pay"], clock=at(11)),
                                Endpoint("payer", profiles=["pay"], clock=at(13)))
    assert any(f["kind"] == "refused" and "expired at exp=20261002T1200Z" in f["message"] for f in unable["findings"])


# --------------------------------------------------------------------------
# agents as tools: the round trip


def test_the_round_trip_shows_the_sender_the_receivers_readback_and_checks_it():
    scheduler_end, payer_end = ends()

    def retyped(c):
        rb = next(x for x in rw1_lines(c) if x.startswith("RW1 RB"))
        return [assistant_message(rb.replace("amt=5400.00", "amt=4500.00"))]

    def copied(c):
        return [assistant_message(next(x for x in rw1_lines(c) if x.startswith("RW1 RB")))]

    def done(c):
        return [assistant_message(LINES[10].replace("payer-2 re=scheduler-1", "payer-3 re=scheduler-2"))]

    payer_model = ScriptedModel([ModelStep.respond(s) for s in (retyped, copied, done)])
    tool = rw1_readback_tool(Agent(name="payer", model=payer_model), sender=scheduler_end, receiver=payer_end,
                             act=True, run_config=RUN)
    assert ensure_strict_json_schema(copy.deepcopy(tool.params_json_schema), _reject_open_objects=True) \
        == tool.params_json_schema and tool.strict_json_schema
    scheduler_model = ScriptedModel([
        [function_call("hand_to_payer", {"line": HO.replace("ask=PAY", "ask=PAYY")}, call_id="c0")],
        ModelStep.respond(lambda c: [function_call("hand_to_payer", {"line": HO}, call_id="c1")]),
        ModelStep.respond(lambda c: [function_call("hand_to_payer", {"line": outputs(c)[-1]["reissue"]},
                                                   call_id="c2")]),
        ModelStep.respond(lambda c: [assistant_message(outputs(c)[-1]["status"])]),
    ])
    result = Runner.run_sync(Agent(name="scheduler", model=scheduler_model, tools=[tool]), "Pay.", run_config=RUN)
    typo, void, done_ = outputs(scheduler_model.calls[-1])
    assert typo["status"] == "refused" and typo["error"]["token"] == "ask=PAYY"
    # the sender sees the receiver's own readback, and its check refuses the misread amount
    assert void["status"] == "void" and "amt=4500.00" in void["readback"] and void["owner"] == "scheduler"
    assert [f["key"] for f in void["findings"] if f["severity"] == "fail"] == ["amt"]
    # re-issued, read back right, confirmed, acted on, and the done report checked against the plan
    assert result.final_output == "done" and done_["owner"] == "payer"
    assert [x.split()[1] for x in done_["lines"]] == ["HO", "RB", "AN", "DN"]
    assert done_["readback"].startswith("RW1 RB payer-2 re=scheduler-2") and "amt=5400.00" in done_["readback"]
    journal = [line for _, line in scheduler_end.journal()]
    assert [x.split()[1] for x in journal] == ["HO", "RB", "HO", "RB", "AN", "DN"]
    assert check_thread(journal, profiles=["pay"], now="20261002T1200Z").passed


def test_a_done_report_that_differs_from_the_plan_is_caught():
    scheduler_end, payer_end = ends()
    steps = [lambda c: [assistant_message(next(x for x in rw1_lines(c) if x.startswith("RW1 RB")))],
             lambda c: [assistant_message(LINES[10].replace("amt=5400.00", "amt=5100.00"))]]
    tool = rw1_readback_tool(Agent(name="payer", model=ScriptedModel([ModelStep.respond(s) for s in steps])),
                             sender=scheduler_end, receiver=payer_end, act=True, run_config=RUN)
    model = ScriptedModel([[function_call("hand_to_payer", {"line": HO}, call_id="c1")],
                           ModelStep.respond(lambda c: [assistant_message(outputs(c)[-1]["status"])])])
    result = Runner.run_sync(Agent(name="scheduler", model=model, tools=[tool]), "Pay.", run_config=RUN)
    (out,) = outputs(model.calls[-1])
    assert result.final_output == "done-failed" and any(f["key"] == "amt" for f in out["findings"])
    assert out["undo"].startswith("RW1 HO scheduler-") and "ask=UNDO" in out["undo"]


def test_a_receiver_that_answers_nothing_sendable_is_reported_not_raised():
    scheduler_end, payer_end = ends()
    tool = rw1_readback_tool(Agent(name="payer", model=ScriptedModel([[assistant_message("sure, will do")]])),
                             sender=scheduler_end, receiver=payer_end, run_config=RUN)
    model = ScriptedModel([[function_call("hand_to_payer", {"line": HO}, call_id="c1")],
                           ModelStep.respond(lambda c: [assistant_message(outputs(c)[-1]["status"])])])
    result = Runner.run_sync(Agent(name="scheduler", model=model, tools=[tool]), "Pay.", run_config=RUN)
    assert result.final_output == "no-readback" and scheduler_end.owner(ITEM) == "scheduler"


def test_the_documented_example_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "agents" / "openai_agents_handoff.py")],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[:3] == ["handoff: refused check-ho amt=4500.00", "handoff: wilco", "the payer's model was given:"]
    assert out[3] == HO and out[4].startswith("RW1 RB payer-1") and out[5].startswith("RW1 AN scheduler-2")
    assert out[6] == "owner: payer | payer may act: True"
    assert out[7:9] == ["round trip: void amt (tier 5)", "round trip: done"]
    assert [x.split()[1] for x in out[9:15]] == ["HO", "RB", "HO", "RB", "AN", "DN"] and out[15] == "owner: payer"
    # docs/agents.md shows exactly this output
    section = (ROOT / "docs" / "agents.md").read_text().split("## The OpenAI Agents SDK")[1].split("\n## ")[0]
    assert section.split("```text\n")[1].split("```")[0].splitlines() == out


def test_the_documented_snippet_runs(capsys):
    doc = (ROOT / "docs" / "agents.md").read_text()
    section = doc.split("## The OpenAI Agents SDK")[1].split("\n## ")[0]
    exec(compile(section.split("```python\n")[1].split("```")[0], "docs/agents.md", "exec"), {})  # noqa: S102
    assert capsys.readouterr().out.splitlines() == ["payer wilco", "payer True"]


# --------------------------------------------------------------------------
# the MCP server from the SDK's MCPServerStdio


def mcp_tools(*args: str):
    """The SDK's function tools for `rogerwilco mcp ARGS` with convert_schemas_to_strict, and a scripted run
    that calls check_rb through them with strict arguments."""
    import asyncio

    from agents import RunContextWrapper
    from agents.mcp import MCPServerStdio

    strict_args = {name: None for name in schemas(strict=True)["check_rb"]["properties"]}
    strict_args.update(ho=HO, rb=SPEC_RB.replace("amt=5400.00", "amt=4500.00"), profiles=["pay"],
                       record=[{"slot": "amt", "value": "5400.00"}])

    async def main():
        params = {"command": sys.executable, "args": ["-m", "rogerwilco", "mcp", *args]}
        async with MCPServerStdio(params=params, client_session_timeout_seconds=HANG) as server:
            model = ScriptedModel([[function_call("check_rb", strict_args, call_id="c1")],
                                   ModelStep.respond(lambda c: [assistant_message("checked")])])
            agent = Agent(name="scheduler", model=model, mcp_servers=[server],
                          mcp_config={"convert_schemas_to_strict": True})
            tools = {t.name: t for t in await agent.get_mcp_tools(RunContextWrapper(None))}
            await Runner.run(agent, "check", run_config=RUN)
            return tools, outputs(model.calls[-1])

    return asyncio.run(main())


def test_the_mcp_servers_strict_listing_passes_the_sdks_strict_mode_for_every_tool():
    tools, (report,) = mcp_tools("--strict")
    assert set(tools) == set(TOOLS) and all(t.strict_json_schema for t in tools.values())
    assert report["ok"] is True and report["passed"] is False
    assert any(f["key"] == "amt" and f["severity"] == "fail" for f in report["findings"])
    # the plain listing is what falls back (the 7 of 8): the strict one is needed, and is what fixes it
    plain, _ = mcp_tools()
    assert sorted(n for n, t in plain.items() if not t.strict_json_schema) == sorted(set(TOOLS) - {"legend"})
