"""rogerwilco.front.integrations.langgraph: the spec's section 8 pay handoff through the two-node graph on two
endpoints, and the RW1 tools in a LangGraph tool loop driven by a scripted model, offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from rogerwilco import Endpoint
from rogerwilco.front.integrations.langgraph import HandoffState, handoff_graph, rw1_tools
from rogerwilco.front.tools import TOOLS, call, schemas

LINES = (Path(__file__).resolve().parents[1] / "examples" / "spec-section8.rw1").read_text().splitlines()
HO = LINES[7]
ITEM = "inv:MD-2026-057"
assert HO.startswith("RW1 HO scheduler-1 p=pay")


def ends():
    return Endpoint("scheduler", profiles=["pay"]), Endpoint("payer", profiles=["pay"])


def test_the_pay_handoff_passes_and_moves_ownership():
    scheduler, payer = ends()
    out = handoff_graph(scheduler, payer, HO).compile().invoke({})
    assert out["status"] == "wilco" and out["reissues"] == 0
    ho, rb, an = out["lines"]
    assert ho == HO
    assert rb == call("make_rb", {"ho": HO, "n": 1, "profiles": ["pay"]})[0]["line"]  # composed by code
    assert an.startswith("RW1 AN scheduler-2 re=payer-1") and "val=Y" in an
    assert scheduler.owner(ITEM) == "payer" and payer.may_act("scheduler-1")


def test_a_misread_amount_is_voided_and_the_handoff_reissued():
    scheduler, payer = ends()
    written = []

    def model_rb(composed, state):  # a model's own readback: first misread, then as composed
        written.append(composed)
        return composed.replace("amt=5400.00", "amt=4500.00") if len(written) == 1 else composed

    out = handoff_graph(scheduler, payer, HO, write_rb=model_rb).compile().invoke({})
    ho, bad_rb, reissue, rb, an = out["lines"]
    assert "amt=4500.00" in bad_rb
    assert reissue.startswith("RW1 HO scheduler-2 re=payer-1") and "amt=5400.00" in reissue
    assert out["status"] == "wilco" and out["reissues"] == 1 and out["handoff"] == "scheduler-2"
    assert scheduler.owner(ITEM) == "payer" and payer.may_act("scheduler-2")


def test_a_readback_that_stays_wrong_ends_void_and_nothing_moves():
    scheduler, payer = ends()
    out = handoff_graph(scheduler, payer, HO, max_reissues=1,
                        write_rb=lambda rb, s: rb.replace("amt=5400.00", "amt=4500.00")).compile().invoke({})
    assert out["status"] == "void" and out["reissues"] == 1
    assert any(f["key"] == "amt" for f in out["findings"])
    assert scheduler.owner(ITEM) != "payer" and not payer.may_act("scheduler-1")


def test_on_wilco_goes_on_to_the_next_node():
    scheduler, payer = ends()
    graph = StateGraph(HandoffState)
    graph.add_node("pay", lambda state: {"lines": ["paid"]})
    graph.add_edge("pay", END)
    out = handoff_graph(scheduler, payer, HO, on_wilco="pay", graph=graph).compile().invoke({})
    assert out["lines"][-1] == "paid"


def scripted(*steps):
    """A model node: step(last tool message) gives (tool, args) to call, or a string to answer with."""
    def node(state: MessagesState):
        last = state["messages"][-1]
        out = steps[sum(isinstance(m, AIMessage) for m in state["messages"])](last)
        if isinstance(out, str):
            return {"messages": [AIMessage(out)]}
        n = len(state["messages"])
        return {"messages": [AIMessage("", tool_calls=[{"name": out[0], "args": out[1], "id": f"call-{n}"}])]}
    return node


def tool_loop(model, tools):
    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


def test_a_bad_line_goes_back_to_the_model_and_the_corrected_call_runs():
    payer = Endpoint("payer", profiles=["pay"])
    seen = []
    statuses = []

    def look(message):
        assert isinstance(message, ToolMessage)
        seen.append(json.loads(message.content))
        statuses.append(message.status)
        return seen[-1]

    out = tool_loop(scripted(lambda _: ("make_rb", {"ho": HO.replace("ask=PAY", "ask=PAYY"), "n": 1}),
                             lambda m: ("make_rb", {"ho": HO, "n": 1}) if not look(m)["ok"] else "gave up",
                             lambda m: look(m)["line"]),
                    rw1_tools(payer)).invoke({"messages": [HumanMessage("read back " + HO)]})
    assert seen[0]["ok"] is False and seen[0]["error"]["token"] == "ask=PAYY" and seen[0]["error"]["why"] == "UNK"
    assert statuses == ["error", "success"]  # LangChain's convention: a tool that could not run says status="error"
    assert out["messages"][-1].content == call("make_rb", {"ho": HO, "n": 1})[0]["line"]


def test_session_tools_on_the_endpoint_and_their_refusals():
    scheduler, payer = ends()
    tools = {t.name: t for t in rw1_tools(payer)}
    assert set(tools) >= set(TOOLS) | {"receive", "send", "may_act"}
    events = tools["receive"].invoke({"line": HO})["events"]
    (offered,) = [e for e in events if e["event"] == "HandoffOffered"]
    refused = tools["send"].invoke({"line": LINES[10]})  # a done report before the wilco
    assert refused["ok"] is False and refused["error"]["rule"] == "act-before-wilco"
    assert tools["send"].invoke({"line": offered["readback"]})["line"].startswith("RW1 RB payer-1")
    misread = scheduler.send(HO) and call("check_rb", {"ho": HO, "rb": offered["readback"].replace(
        "amt=5400.00", "amt=4500.00"), "profiles": ["pay"]})[0]
    assert misread["passed"] is False and any(f["key"] == "amt" for f in misread["findings"])


def test_a_tool_that_cannot_run_is_a_tool_exception_answered_with_status_error():
    from langchain_core.tools import ToolException

    tools = {t.name: t for t in rw1_tools(Endpoint("payer", profiles=["pay"]))}
    call_id = {"type": "tool_call", "id": "call-1"}
    tools["receive"].invoke({"line": HO})
    refused = tools["send"].invoke({**call_id, "name": "send", "args": {"line": LINES[10]}})
    assert isinstance(refused, ToolMessage) and refused.status == "error"
    assert json.loads(refused.content)["error"]["rule"] == "act-before-wilco"
    # a refused line given to validate is a result the model reads, not an error
    checked = tools["validate"].invoke({**call_id, "name": "validate", "args": {"line": "RW1 HO a-1 from=a to=b item=x ask=PAYY"}})
    assert checked.status == "success" and json.loads(checked.content)["valid"] is False
    # the ToolException is what LangChain's own error handling sees, with the structured result on it
    bare = [t for t in rw1_tools(names=["digest"])][0]
    bare.handle_tool_error = False
    with pytest.raises(ToolException) as raised:
        bare.invoke({"line": "RW1 HO a-1 from=a"})
    assert raised.value.result["ok"] is False and raised.value.result["error"]["rule"] != ""


def test_strict_tools_carry_the_strict_schemas():
    tools = {t.name: t for t in rw1_tools(strict=True)}
    assert tools["check_rb"].args_schema == schemas(strict=True)["check_rb"]
    args = {name: None for name in schemas(strict=True)["check_rb"]["properties"]}
    args.update(ho=HO, rb=LINES[8], profiles=["pay"], record=[{"slot": "amt", "value": "5400.00"}])
    assert tools["check_rb"].invoke(args)["passed"] is True
    with pytest.raises(ValueError, match="nope"):
        rw1_tools(names=["nope"])


def test_the_documented_example_runs(capsys):
    doc = (Path(__file__).resolve().parents[1] / "docs" / "agents.md").read_text()
    block = doc.split("## LangGraph and LangChain")[1].split("```python\n")[1].split("```")[0]
    exec(compile(block, "docs/agents.md", "exec"), {})  # noqa: S102 - our own documentation
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "wilco" and out[1] == HO and out[-1] == "payer True"
