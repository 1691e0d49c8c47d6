"""The language server over stdio, driven by a real LSP client (pygls's): diagnostics, hover, completion,
quick fixes and symbols; and the editor logic behind it, checked directly."""

from __future__ import annotations

import asyncio
import sys

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from rogerwilco.front import editor

STREAM = "\n".join([
    "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX",
    "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX",
    "RW1 HO scheduler-2 p=pay from=scheduler to=payer item=inv:1 ask=PAY rb=exec // pay it",
    "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK",
]) + "\n"


# ---- the editor logic --------------------------------------------------------------------


def test_diagnostics_have_codes_spans_and_fixes():
    (d,) = [d for d in editor.diagnostics(STREAM, "a.rw1") if d.code == "RW003"]
    assert (d.line, d.start, d.end, d.severity, d.fix) == (0, 49, 57, "error", "ask=FIX")
    assert STREAM.splitlines()[0][d.start:d.end] == "ask=FIXX"


def test_diagnostics_in_a_log_sit_on_the_physical_column():
    log = "INFO boot\n2026-10-02 INFO sent RW1 HO ops-1 from=ops to=builder item=x ask=FIXX\n"
    (d,) = [d for d in editor.diagnostics(log, "app.log") if d.code == "RW003"]
    line = log.splitlines()[1]
    assert (d.line, line[d.start:d.end]) == (1, "ask=FIXX")


def test_a_document_that_cannot_be_read_is_a_diagnostic_not_a_crash():
    found = editor.diagnostics("RW1 HO a-1 from=a to=b item=\udc80 ask=FIX\n", "a.rw1")
    assert found and all(isinstance(d, editor.Diagnostic) for d in found)


L = STREAM.splitlines()


@pytest.mark.parametrize("line, column, words", [
    (0, 4, ["**HO**", "Handoff", "required"]),
    (0, L[0].index("ask=") + 1, ["ask", "enum"]),
    (2, L[2].index("PAY") + 1, ["**PAY**", "profile pay"]),
    (2, L[2].index("to=") + 1, ["**to**"]),
    (2, L[2].index("pay it"), ["tail"]),
    (0, 1, ["version"]),
])
def test_hover_describes_from_the_vocabulary(line, column, words):
    text = editor.hover(STREAM, "a.rw1", line, column)
    assert text is not None
    for word in words:
        assert word in text


def test_completion_offers_types_keys_and_codes():
    doc = "RW1 H\nRW1 HO a-1 from=a to=b item=x ask=\nRW1 HO a-1 from=a to=b item=x as\nRW1 HO a-1 p=\n"
    assert {c.label for c in editor.completions(doc, "a.rw1", 0, 5)} == {"HO"}
    codes = {c.label for c in editor.completions(doc, "a.rw1", 1, len("RW1 HO a-1 from=a to=b item=x ask="))}
    assert {"FIX", "DRAFT", "UNDO"} <= codes and "PAY" not in codes
    keys = {c.insert for c in editor.completions(doc, "a.rw1", 2, len("RW1 HO a-1 from=a to=b item=x as"))}
    assert keys == {"ask="}
    assert {c.label for c in editor.completions(doc, "a.rw1", 3, len("RW1 HO a-1 p="))} == {"pay", "clin", "pform", "deploy"}
    pay = "RW1 HO scheduler-1 p=pay from=scheduler to=payer item=x ask=PA"
    assert "PAY" in {c.label for c in editor.completions(pay, "a.rw1", 0, len(pay))}


def test_symbols_are_one_per_message_grouped_by_thread():
    (ops1, pay) = editor.symbols(STREAM, "a.rw1")
    assert ops1.name == "HO ops-1" and [c.name for c in ops1.children] == ["RB builder-1", "DN builder-2"]
    assert pay.name == "HO scheduler-2" and pay.children == ()


# ---- over stdio with a real client -------------------------------------------------------


async def _session(uri: str, text: str) -> dict:
    client = LanguageClient("rogerwilco-test", "1")
    published: dict[str, list] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.uri] = params.diagnostics
        arrived.set()

    await client.start_io(sys.executable, "-m", "rogerwilco", "lsp")
    try:
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None))
        client.initialized(types.InitializedParams())
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="rw1", version=1, text=text)))
        await asyncio.wait_for(arrived.wait(), 60)
        doc = types.TextDocumentIdentifier(uri=uri)
        hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=types.Position(0, 4)))
        completion = await client.text_document_completion_async(
            types.CompletionParams(text_document=doc, position=types.Position(0, 56)))
        diagnostics = published[uri]
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc, range=diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=diagnostics)))
        symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc))
        arrived.clear()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="RW1 HO ops-1 from=ops to=b item=x ask=FIX\n"
                                                                               "RW1 RB b-1 re=ops-1 from=b to=ops item=x ask=FIX\n")]))
        await asyncio.wait_for(arrived.wait(), 60)
        after = published[uri]
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return {"diagnostics": diagnostics, "hover": hover, "completion": completion, "actions": actions,
            "symbols": symbols, "after": after}


def test_a_real_client_gets_diagnostics_hover_completion_fixes_and_symbols():
    text = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX\nRW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX\n"
    got = asyncio.run(_session("file:///tmp/convo.rw1", text))
    (d,) = [d for d in got["diagnostics"] if d.code == "RW003"]
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (0, 49, 57)
    assert d.severity == types.DiagnosticSeverity.Error and "did you mean FIX" in d.message
    assert d.code_description.href.endswith("#rw003-unknown-code-error")
    assert "Handoff" in got["hover"].contents.value
    assert "FIX" in {i.label for i in got["completion"].items}
    (action,) = got["actions"]
    (edit,) = action.edit.changes["file:///tmp/convo.rw1"]
    assert edit.new_text == "ask=FIX"
    assert [s.name for s in got["symbols"]] == ["HO ops-1"] and [c.name for c in got["symbols"][0].children] == ["RB builder-1"]
    assert list(got["after"]) == []  # the fixed document is clean


def test_columns_are_sent_in_the_clients_units():
    """An emoji in the tail takes two UTF-16 units: a finding after it moves by one more than its code points."""
    text = "RW1 HO ops-1 from=ops to=b item=x ask=FIX x_note=\U0001F600 ask=FIX\n"
    got = asyncio.run(_session("file:///tmp/emoji.rw1", text))
    (d,) = [d for d in got["diagnostics"] if d.code == "RW004"]
    code_points = text.index(" ask=FIX\n") + 1
    assert d.range.start.character == code_points + 1
