"""MCP session mode: one agent's endpoint behind the tools (``rogerwilco mcp --ledger PATH --as NAME``)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from rogerwilco import Endpoint  # noqa: E402
from rogerwilco.front.cli import main  # noqa: E402
from rogerwilco.front.mcp_server import TOOLS, call, session_tools  # noqa: E402
from tests.mcp_common import provider_refusals  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "examples" / "spec-section8.rw1").read_text().splitlines()


def tools(name: str, **kw):
    return session_tools(Endpoint(name, id_width=2, **kw))


def test_a_handoff_runs_through_two_sessions():
    research, writer = tools("research"), tools("writer")
    sent = call("send", {"line": SPEC[0]}, research)[0]
    assert sent == {"ok": True, "line": SPEC[0]}
    got = call("receive", {"line": SPEC[0]}, writer)[0]
    offered = got["events"][0]
    assert offered["event"] == "HandoffOffered" and offered["readback"] == SPEC[1] and got["replies"] == []
    rb = call("send", {"line": offered["readback"], "number": True}, writer)[0]["line"]
    assert rb == SPEC[1]
    passed = call("receive", {"line": rb}, research)[0]["events"]
    assert [e["event"] for e in passed] == ["ReadbackPassed", "OwnershipTransferred"]
    assert passed[0]["report"]["passed"] is True
    assert call("owner", {"item": "gh:crox/site#42"}, research)[0]["owner"] == "writer"
    assert call("may_act", {"ho": "research-01"}, writer)[0]["may_act"] is True
    handoffs = call("open_handoffs", {}, research)[0]["handoffs"]
    assert [(h["id"], h["readback"], h["close"]) for h in handoffs] == [("research-01", "wilco", "open")]


def test_what_the_protocol_forbids_is_an_error_naming_the_rule():
    writer = tools("writer")
    call("receive", {"line": SPEC[0]}, writer)
    result, is_error = call("send", {"line": SPEC[4]}, writer)  # the DN, before any readback
    assert is_error and result["error"]["rule"] == "act-before-wilco"
    result, is_error = call("send", {"line": "RW1 HO writer-09 from=writer to=x item=y ask=DRAFTT"}, writer)
    assert is_error and result["error"]["rule"] == "form" and result["error"]["token"] == "ask=DRAFTT"
    assert call("send", {}, writer)[0]["error"]["rule"] == "arguments"


def test_a_bad_line_is_answered_and_a_question_waits():
    human = tools("human")
    got = call("receive", {"line": "RW1 AQ triage-1 from=triage to=human need=MAYBE"}, human)[0]
    assert got["replies"] == ["RW1 UN human-01 re=triage-1 from=human to=triage why=UNK // need=MAYBE unknown need code"]
    call("receive", {"line": SPEC[12]}, human)
    assert call("pending_questions", {}, human)[0]["questions"] == [SPEC[12]]
    events = call("tick", {"now": "20261001T0000Z"}, human)[0]["events"]
    assert events == []


def test_session_tools_do_not_change_the_plain_server():
    assert not set(session_tools(Endpoint("x"))) & set(TOOLS)


def test_session_mode_needs_both_options(capsys):
    assert main(["mcp", "--as", "writer"]) == 2
    assert "--ledger" in capsys.readouterr().err


async def _session(ledger: Path, calls: list) -> list:
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                   args=["-m", "rogerwilco", "mcp", "--ledger", str(ledger), "--as", "writer"])
    out = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            out.append({t.name: t for t in (await session.list_tools()).tools})
            for name, arguments in calls:
                out.append((await session.call_tool(name, arguments)).structured_content)
    return out


def test_the_server_in_session_mode_keeps_the_agent_across_restarts(tmp_path):
    ledger = tmp_path / "writer.ledger"
    first = anyio.run(_session, ledger, [("receive", {"line": SPEC[0]})])
    assert {"receive", "send", "owner", "open_handoffs", "validate", "make_rb"} <= set(first[0])
    readback = first[1]["events"][0]["readback"]
    assert readback == SPEC[1].replace("writer-01", "writer-1")
    second = anyio.run(_session, ledger, [("send", {"line": readback, "number": True}), ("open_handoffs", {})])
    assert second[1]["line"] == readback
    assert [h["readback"] for h in second[2]["handoffs"]] == ["wilco"]


def test_session_mode_lists_schemas_every_provider_takes_and_says_what_changes_the_ledger(tmp_path):
    (listed,) = anyio.run(_session, tmp_path / "writer.ledger", [])
    assert {name: provider_refusals(t.input_schema) for name, t in listed.items()} == {name: [] for name in listed}
    assert "`json`" in listed["send"].description
    changes = {name for name, t in listed.items() if not t.annotations.read_only_hint}
    assert changes == {"receive", "send"}  # tick composes what is due and records nothing
    assert listed["tick"].annotations.idempotent_hint is True
