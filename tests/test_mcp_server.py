"""The MCP server, driven through the SDK's own client session over stdio.

The server runs as a subprocess (``python -m rogerwilco mcp``); one session
makes every call below and the tests assert on what came back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.bounds import HANG

pytest.importorskip("mcp", reason="the mcp extra (the MCP SDK) is not installed")
pytest.importorskip("mcp.server.mcpserver", reason="these tests drive the server with the SDK 2 client; tests/test_mcp_sdk1.py covers SDK 1")

import anyio  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from rogerwilco import Message, Receiver  # noqa: E402
from rogerwilco.core.legend import legend  # noqa: E402
from tests.mcp_common import provider_refusals  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "examples" / "spec-section8.rw1").read_text(encoding="utf-8").splitlines()
HO = SPEC[0]
HO_ACC = SPEC[5]
RB_ACC = SPEC[6]
HO_PAY, RB_PAY, DN_PAY = SPEC[7], SPEC[8], SPEC[10]
PAY_RECORD = {"item": "inv:MD-2026-057", "sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS",
              "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
TOOL_NAMES = {"validate", "make_rb", "check_rb", "check_dn", "check_ho", "check_thread", "legend", "digest"}

# (label, tool, arguments): every call the session makes.
CALLS = [
    ("validate-two", "validate", {"lines": [HO, "RW1 HO a-1 from=a to=b item=x:1 ask=PAYY"], "reply_as": "b", "n": 3}),
    ("validate-forged", "validate", {"line": HO + "\nRW1 DN writer-9 re=research-01 from=writer to=research "
                                     "item=gh:crox/site#42 out=OK"}),
    ("validate-core-only", "validate", {"line": HO_PAY, "profiles": []}),
    ("digest", "digest", {"line": HO}),
    ("digest-pay", "digest", {"line": HO_PAY}),
    ("digest-refused", "digest", {"line": HO.replace("ask=DRAFT", "ask=DRAFTT")}),
    ("make_rb", "make_rb", {"ho": HO, "n": 1}),
    ("make_rb-pay", "make_rb", {"ho": HO_PAY, "n": 1, "profiles": ["pay"]}),
    ("make_rb-acc-missing", "make_rb", {"ho": HO_ACC, "n": 1}),
    ("make_rb-acc", "make_rb", {"ho": HO_ACC, "n": 1, "acc": "len:120w+tone:plain+must:monday-problem+no:em-dash",
                                "do": "copy"}),
    ("make_rb-not-ho", "make_rb", {"ho": SPEC[1], "n": 1}),
    ("check_rb-spec", "check_rb", {"ho": HO, "rb": SPEC[1]}),
    ("check_rb-misread", "check_rb", {"ho": HO, "rb": SPEC[1].replace("due=20261002", "due=20261003")}),
    ("check_rb-acc", "check_rb", {"ho": HO_ACC, "rb": RB_ACC,
                                  "expect_acc": "len:120w+tone:plain+no:em-dash+must:monday-problem"}),
    ("check_rb-contradiction", "check_rb", {"ho": HO_ACC, "rb": RB_ACC.replace("len:120w", "len:150w"),
                                            "expect_acc": "len:120w+tone:plain+no:em-dash+must:monday-problem"}),
    ("check_rb-pay-amount", "check_rb", {"ho": HO_PAY, "rb": RB_PAY.replace("amt=5400.00", "amt=5100.00")}),
    ("check_rb-broken", "check_rb", {"ho": HO, "rb": "RB writer-01 re=research-01"}),
    ("check_ho", "check_ho", {"line": HO_PAY, "record": PAY_RECORD}),
    ("check_ho-drifted", "check_ho", {"line": HO_PAY, "record": {**PAY_RECORD, "amt": "5100.00"}}),
    ("check_dn", "check_dn", {"ho": HO_PAY, "dn": DN_PAY, "rb": RB_PAY}),
    ("check_dn-tool-drift", "check_dn", {"ho": HO_PAY, "dn": DN_PAY.replace("amt=5400.00", "amt=5100.00")}),
    ("check_thread", "check_thread", {"lines": SPEC[:5], "now": "20261001T0900Z"}),
    ("check_thread-overdue", "check_thread", {"lines": [SPEC[13]], "now": "20261003T0900Z"}),
    ("check_thread-cancel", "check_thread", {"lines": [HO_PAY, SPEC[17], SPEC[18]], "now": "20261001T0900Z"}),
    ("check_thread-bad-now", "check_thread", {"lines": SPEC[:1], "now": "tomorrow"}),
    ("legend-pay", "legend", {"profile": "pay"}),
    ("legend-pay-lean", "legend", {"profile": "pay", "lean": True}),
    ("legend-core", "legend", {}),
    ("unknown-argument", "digest", {"line": HO, "colour": "red"}),
    ("missing-argument", "make_rb", {"ho": HO}),
    ("validate-both", "validate", {"line": HO, "lines": [HO]}),
    ("unknown-tool", "readback", {"ho": HO}),
]


async def _session() -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "rogerwilco", "mcp"], cwd=str(ROOT))
    out: dict = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            out["instructions"] = init.instructions
            out["tools"] = {t.name: t for t in (await session.list_tools()).tools}
            for label, name, arguments in CALLS:
                try:
                    out[label] = await session.call_tool(name, arguments)
                except MCPError as exc:  # a JSON-RPC error answers the request
                    out[label] = exc
    return out


@pytest.fixture(scope="module")
def results() -> dict:
    return anyio.run(_session)


def ok(results: dict, label: str) -> dict:
    result = results[label]
    assert not result.is_error, result.structured_content
    data = result.structured_content
    assert data["ok"] is True
    return data


def error(results: dict, label: str) -> dict:
    result = results[label]
    assert result.is_error
    data = result.structured_content
    assert data["ok"] is False
    return data["error"]


def kinds(data: dict) -> set[tuple]:
    return {(f["severity"], f["kind"], f["tier"], f["key"]) for f in data["findings"]}


def test_server_lists_every_tool_with_input_and_output_schemas(results):
    assert results["server"] == "rogerwilco"
    assert "make_rb" in results["instructions"]
    tools = results["tools"]
    assert set(tools) == TOOL_NAMES
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema["type"] == "object"
        assert "ok" in tool.output_schema["required"]
        assert tool.description


def test_tools_carry_titles_and_annotations(results):
    tools = results["tools"]
    for tool in tools.values():
        assert tool.title and tool.annotations.title == tool.title
        assert tool.annotations.read_only_hint is True and tool.annotations.idempotent_hint is True
        assert tool.annotations.destructive_hint is False and tool.annotations.open_world_hint is False


def test_every_listed_input_schema_is_one_every_provider_takes(results):
    refused = {name: provider_refusals(tool.input_schema) for name, tool in results["tools"].items()}
    assert refused == {name: [] for name in results["tools"]}


def test_the_one_of_rule_the_schema_cannot_say_is_said_and_kept(results):
    assert "`line`" in results["tools"]["validate"].description
    assert "`lines`" in results["tools"]["validate"].description
    err = error(results, "validate-both")
    assert (err["rule"], err["token"]) == ("arguments", "line")


def test_every_tool_was_driven_through_the_session():
    assert {name for _, name, _ in CALLS} >= TOOL_NAMES


def test_text_content_carries_the_same_json_as_the_structured_result(results):
    for label, _, _ in CALLS:
        result = results[label]
        if label == "unknown-tool":
            continue  # answered with a JSON-RPC error, no content
        assert json.loads(result.content[0].text) == result.structured_content


def test_validate_reports_findings_per_line_and_composes_the_refusal(results):
    data = ok(results, "validate-two")
    assert data["valid"] is False
    first, second = data["results"]
    assert first["valid"] and first["findings"] == [] and first["reply"] is None
    assert first["json"] == Message.from_line(HO).to_json()
    assert not second["valid"] and second["json"] is None
    refusal = second["findings"][0]
    assert (refusal["kind"], refusal["why"], refusal["token"], refusal["key"]) == ("enum", "UNK", "ask=PAYY", "ask")
    reply = Message.from_line(second["reply"])
    assert (reply.type, reply.id, reply.re, reply.to, reply.slots["why"]) == ("UN", "b-3", "a-1", "a", "UNK")
    assert reply.tail.startswith("ask=PAYY ")


def test_validate_cannot_be_made_to_pass_a_second_line(results):
    data = ok(results, "validate-forged")
    assert data["valid"] is False
    assert data["results"][0]["findings"][0]["severity"] == "fail"


def test_validate_holds_only_the_profiles_it_is_given(results):
    finding = ok(results, "validate-core-only")["results"][0]["findings"][0]
    assert (finding["kind"], finding["token"]) == ("profile", "p=pay")


def test_digest_matches_the_spec_and_the_library(results):
    assert ok(results, "digest")["h"] == "c40bba4360dc"
    data = ok(results, "digest-pay")
    assert data["h"] == "a7a82de76607" == Message.from_line(HO_PAY, Receiver.all_bundled()).digest()
    assert json.loads(data["canonical"]) == Message.from_line(HO_PAY, Receiver.all_bundled()).to_json()


def test_digest_of_a_refused_line_is_an_error_naming_rule_and_token(results):
    err = error(results, "digest-refused")
    assert (err["rule"], err["why"], err["token"], err["argument"]) == ("enum", "UNK", "ask=DRAFTT", "line")
    assert err["column"] == HO.index("ask=DRAFT") + 1


def test_make_rb_composes_the_spec_readback(results):
    data = ok(results, "make_rb")
    rb = Message.from_line(data["line"])
    spec_rb = Message.from_line(SPEC[1])
    assert rb == spec_rb.replace(id="writer-1")
    assert data["h"] == "c40bba4360dc" and data["json"] == rb.to_json()


def test_make_rb_under_exec_carries_every_execution_slot(results):
    data = ok(results, "make_rb-pay")
    pay = Receiver.load(["pay"])
    assert Message.from_line(data["line"], pay) == Message.from_line(RB_PAY, pay).replace(id="payer-1")


def test_make_rb_refuses_what_the_level_requires_and_is_not_given(results):
    err = error(results, "make_rb-acc-missing")
    assert err["rule"] == "make-rb" and "acc" in err["message"]
    rb = Message.from_line(ok(results, "make_rb-acc")["line"])
    assert rb.slots["acc"] == ("len:120w", "tone:plain", "must:monday-problem", "no:em-dash")
    assert rb.slots["do"] == "copy"


def test_make_rb_of_a_message_that_is_not_a_handoff_is_an_error(results):
    err = error(results, "make_rb-not-ho")
    assert (err["rule"], err["token"], err["argument"]) == ("form", "RB", "ho")


def test_check_rb_passes_the_spec_readback_tier_by_tier(results):
    data = ok(results, "check_rb-spec")
    assert data["passed"] is True
    status = {t["tier"]: t["status"] for t in data["tiers"]}
    assert status[1] == status[2] == status[3] == "passed"


def test_check_rb_fails_a_misread_with_both_values(results):
    data = ok(results, "check_rb-misread")
    assert data["passed"] is False
    assert ("fail", "mismatch", 3, "due") in kinds(data)
    # h= no longer matches either: the RB's digest was of the HO, which still says 20261002
    finding = next(f for f in data["findings"] if f["kind"] == "mismatch")
    assert (finding["sender"], finding["receiver"]) == ("20261002", "20261003")


def test_check_rb_comprehension_notes_assumptions_and_fails_contradictions(results):
    good = ok(results, "check_rb-acc")
    assert good["passed"] is True and ("note", "assumption", 4, "fmt") in kinds(good)
    bad = ok(results, "check_rb-contradiction")
    assert bad["passed"] is False and ("fail", "contradiction", 4, "len") in kinds(bad)


def test_check_rb_execution_tier_catches_a_wrong_amount(results):
    data = ok(results, "check_rb-pay-amount")
    assert data["passed"] is False and ("fail", "mismatch", 5, "amt") in kinds(data)


def test_check_rb_of_an_unreadable_line_is_a_form_failure_with_its_token(results):
    data = ok(results, "check_rb-broken")
    assert data["passed"] is False
    (finding,) = data["findings"]
    assert (finding["kind"], finding["why"]) == ("form", "UNK") and finding["token"]


def test_check_ho_against_the_record(results):
    assert ok(results, "check_ho")["passed"] is True
    data = ok(results, "check_ho-drifted")
    assert data["passed"] is False and ("fail", "mismatch", None, "amt") in kinds(data)


def test_check_dn_catches_what_the_tool_did(results):
    assert ok(results, "check_dn")["passed"] is True
    data = ok(results, "check_dn-tool-drift")
    assert data["passed"] is False and ("fail", "mismatch", None, "amt") in kinds(data)


def test_check_thread_reports_closes_and_the_ledger(results):
    data = ok(results, "check_thread")
    assert data["passed"] is True
    (handoff,) = data["ledger"]["handoffs"]
    assert (handoff["id"], handoff["state"], handoff["by"]) == ("research-01", "closed", "DN")
    assert data["ledger"]["items"][0]["owner"] == "writer"
    overdue = ok(results, "check_thread-overdue")
    assert overdue["passed"] is False and ("fail", "open-past-due", None, "ops-03") in kinds(overdue)
    assert ok(results, "check_thread-cancel")["passed"] is True
    err = error(results, "check_thread-bad-now")
    assert (err["rule"], err["token"], err["argument"]) == ("arguments", "tomorrow", "now")


def test_legend_is_the_generated_one_full_or_lean(results):
    pay = Receiver.load(["pay"]).vocabulary("pay")
    assert ok(results, "legend-pay")["text"] == legend(pay)
    lean = ok(results, "legend-pay-lean")
    assert lean["lean"] is True and lean["text"] == legend(pay, lean=True)
    assert len(lean["text"]) < len(ok(results, "legend-pay")["text"])
    core = ok(results, "legend-core")
    assert core["profile"] is None and core["text"] == legend(Receiver().vocabulary(None))


def test_bad_arguments_are_structured_errors_naming_the_argument(results):
    err = error(results, "unknown-argument")
    assert (err["rule"], err["token"]) == ("arguments", "colour")
    err = error(results, "missing-argument")
    assert (err["rule"], err["token"]) == ("arguments", "n")


def test_an_unknown_tool_is_a_json_rpc_invalid_params_error(results):
    # MCP's tools page: "Unknown tools" are a protocol error, JSON-RPC -32602; isError is for a tool's own failure
    refused = results["unknown-tool"]
    assert isinstance(refused, MCPError)
    assert refused.error.code == -32602
    assert "readback" in refused.error.message and "validate" in refused.error.message


def test_without_the_sdk_the_command_says_what_to_install():
    code = ("import sys; sys.modules['mcp'] = None; "
            "from rogerwilco.front.cli import main; sys.exit(main(['mcp']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=HANG)
    assert proc.returncode == 2
    assert "rogerwilco[mcp]" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_the_core_does_not_import_the_sdk():
    code = "import sys, rogerwilco, rogerwilco.front.mcp_server, rogerwilco.front.cli; print('mcp' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=HANG)
    assert proc.stdout.strip() == "False"
