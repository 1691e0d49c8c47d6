"""The language server in a project: the lint configuration of each document, pull and push diagnostics,
incremental edits, definitions, references and quick fixes; the editor logic behind them checked directly,
and the server driven over stdio by a scripted LSP client (pygls's).

``RW1_LSP_EXAMPLES`` sets the examples of the incremental-edit property (default 300);
``RW1_LSP_WAIT`` the seconds a session waits for the server before failing (default 600).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from rogerwilco.front import editor

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("RW1_LSP_EXAMPLES", "300"))
WAIT = float(os.environ.get("RW1_LSP_WAIT", "600"))

STREAM = ("RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX\n"
          "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX\n"
          "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK foo=1\n")


# ---- incremental edits -------------------------------------------------------------------------------------

#: characters that split lines for the protocol, characters that do not (for the protocol) although Python's
#: str.splitlines splits at them, and characters taking several UTF-16 or UTF-8 units
PIECES = ["a", "b", " ", "\n", "\r", "\r\n", "\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\u2029", "é", "😀", "中"]


def _position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """Where the client sees ``offset``: its line (``\\n``, ``\\r\\n`` and ``\\r`` end one) and column in units."""
    line, start, i = 0, 0, 0
    while i < offset:
        if text[i] == "\r" and text[i + 1:i + 2] == "\n":
            i += 2
        elif text[i] in "\r\n":
            i += 1
        else:
            i += 1
            continue
        line, start = line + 1, i
    width = {"utf-8": lambda c: len(c.encode("utf-8")), "utf-16": lambda c: 2 if ord(c) > 0xFFFF else 1,
             "utf-32": lambda c: 1}[encoding]
    return line, sum(width(c) for c in text[start:offset])


def _between_cr_lf(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"


texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=EXAMPLES, deadline=None)
@given(text=texts, edits=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40), texts), max_size=6),
       encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_incremental_edits_give_the_clients_text(text, edits, encoding):
    for a, b, new in edits:
        first, last = sorted((min(a, len(text)), min(b, len(text))))
        first -= _between_cr_lf(text, first)  # a position cannot stand between CR and LF
        last -= _between_cr_lf(text, last)
        expected = text[:first] + new + text[last:]
        text = editor.apply_edit(text, _position(text, first, encoding), _position(text, last, encoding), new, encoding)
        assert text == expected


def test_positions_past_a_line_or_the_document_are_their_ends():
    text = "ab\ncd\r\nef"
    assert editor.apply_edit(text, (0, 99), (1, 0), "X") == "abXcd\r\nef"
    assert editor.apply_edit(text, (1, 1), (1, 99), "") == "ab\nc\r\nef"
    assert editor.apply_edit(text, (7, 0), (9, 3), "!") == text + "!"
    assert editor.apply_edit("x😀y", (0, 1), (0, 3), "", "utf-16") == "xy"


# ---- definitions, references, fixes ----------------------------------------------------------------------


def test_definition_goes_from_re_and_ctx_to_the_message_line():
    text = STREAM + "RW1 HO ops-2 from=ops to=builder item=jira:OPS-7 ask=UNDO ctx=builder-2+ops-1\n"
    lines = text.splitlines()
    re_at = lines[1].index("re=ops-1") + 4
    (target,) = editor.definition(text, "a.rw1", 1, re_at)
    assert (target.line, lines[0][target.start:target.end]) == (0, "ops-1")  # the refused HO still carries its id
    ctx_at = lines[3].index("builder-2")
    (target,) = editor.definition(text, "a.rw1", 3, ctx_at + 2)
    assert (target.line, lines[2][target.start:target.end]) == (2, "builder-2")
    assert editor.definition(text, "a.rw1", 3, lines[3].index("ask=")) == []


def test_references_name_every_use_of_an_id():
    lines = STREAM.splitlines()
    found = editor.references(STREAM, "a.rw1", 0, 8)
    assert [(u.line, u.declares) for u in found] == [(0, True), (1, False), (2, False)]
    assert all(lines[u.line][u.start:u.end] == "ops-1" for u in found)
    assert len(editor.references(STREAM, "a.rw1", 1, lines[1].index("re=") + 5, include_declaration=False)) == 2


def test_definition_in_a_log_sits_on_the_physical_column():
    log = "INFO sent RW1 HO ops-1 from=ops to=b item=x ask=FIX\nINFO got RW1 RB b-1 re=ops-1 from=b to=ops item=x ask=FIX\n"
    second = log.splitlines()[1]
    (target,) = editor.definition(log, "app.log", 1, second.index("re=ops-1") + 3)
    assert log.splitlines()[0][target.start:target.end] == "ops-1"


def test_every_suggestion_is_a_fix_a_tie_gives_each_word():
    text = "RW1 HX a-1 from=a to=b item=x ask=FIX\nRW1 HO a-2 from=a to=b item=x ask=FIXX amt=5\n"
    by_token = {d.message.split(":")[0]: d.fixes for d in editor.diagnostics(text, "a.rw1")}
    assert by_token == {"HX": ("HO", "CX"), "ask=FIXX": ("ask=FIX",), "amt=5": ("p=pay amt=5",)}


# ---- the configuration of each document ----------------------------------------------------------------------


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW010"]\n'
                                             '[tool.rogerwilco.lint.per-file-ignores]\n"quiet/*.rw1" = ["RW003"]\n')
    sub = tmp_path / "payments"
    sub.mkdir()
    (sub / "rogerwilco.toml").write_text('[lint]\nselect = ["RW010"]\n')
    return tmp_path


def test_each_document_takes_the_configuration_lint_finds_for_its_file(tmp_path):
    root = _project(tmp_path)
    configs = editor.DocumentConfigs(cwd=root)

    def codes(path: Path) -> set:
        settings = configs.for_path(str(path))
        return {d.code for d in editor.diagnostics(STREAM, str(path), options=settings.options)}

    assert codes(root / "a.rw1") == {"RW003"}
    assert codes(root / "quiet" / "a.rw1") == set()  # per-file ignores
    assert codes(root / "payments" / "a.rw1") == {"RW010"}  # the nearest configuration
    assert configs.for_path(str(root / "payments" / "a.rw1")).describe("a.rw1").endswith(
        str(root / "payments" / "rogerwilco.toml"))
    (root / "payments" / "rogerwilco.toml").write_text('[lint]\nselect = ["RW0"]\n')
    assert codes(root / "payments" / "a.rw1") == {"RW010"}  # read once ...
    configs.reload()
    assert codes(root / "payments" / "a.rw1") == {"RW003", "RW010"}  # ... and again when told


def test_a_broken_configuration_is_said_and_the_defaults_used(tmp_path):
    (tmp_path / "rogerwilco.toml").write_text("[lint]\nselect = 3\n")
    found = editor.DocumentConfigs(cwd=tmp_path).for_path(str(tmp_path / "a.rw1"))
    assert "select is expected to be a list of strings" in found.error
    assert "cannot be read" in found.describe("a.rw1")


# ---- over stdio --------------------------------------------------------------------------------------------


class Session:
    """A scripted LSP client talking to ``rogerwilco lsp``: what the server pushed, logged, registered and
    asked to refresh, and the requests a test makes."""

    def __init__(self, capabilities: types.ClientCapabilities) -> None:
        self.capabilities = capabilities
        self.client = LanguageClient("rogerwilco-test", "1")
        self.published: dict[str, types.PublishDiagnosticsParams] = {}
        self.logged: list[str] = []
        self.registered: list[types.Registration] = []
        self.refreshes = 0
        self.changed = asyncio.Condition()
        client = self.client

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = params
            await self._changed()

        @client.feature(types.WINDOW_LOG_MESSAGE)
        async def on_log(params: types.LogMessageParams) -> None:
            self.logged.append(params.message)
            await self._changed()

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        async def on_register(params: types.RegistrationParams) -> None:
            self.registered.extend(params.registrations)
            await self._changed()

        @client.feature(types.WORKSPACE_DIAGNOSTIC_REFRESH)
        async def on_refresh(params: None) -> None:
            self.refreshes += 1
            await self._changed()

    async def _changed(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def until(self, ready) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(ready), WAIT)

    async def __aenter__(self) -> "Session":
        await self.client.start_io(sys.executable, "-m", "rogerwilco", "lsp", cwd=str(ROOT))
        await self.client.initialize_async(types.InitializeParams(capabilities=self.capabilities, process_id=None))
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *exc) -> None:
        try:
            await self.client.shutdown_async(None)
            self.client.exit(None)
        finally:
            await self.client.stop()

    def open(self, path: Path, text: str) -> str:
        uri = from_fs_path(str(path))
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="rw1", version=1, text=text)))
        return uri

    def edit(self, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(*start), types.Position(*end)), text=text)]))

    async def pushed(self, uri: str, version: int) -> list[types.Diagnostic]:
        await self.until(lambda: uri in self.published and self.published[uri].version == version)
        return list(self.published[uri].diagnostics)


def _codes(diagnostics) -> list:
    return sorted(d.code for d in diagnostics)


PUSH = types.ClientCapabilities()
PULL = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()),
    workspace=types.WorkspaceClientCapabilities(
        diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)))


def test_a_pushing_client_gets_the_projects_configuration_and_its_changes_on_save(tmp_path):
    root = _project(tmp_path)
    path = root / "convo.rw1"

    async def run() -> dict:
        async with Session(PUSH) as s:
            uri = s.open(path, STREAM)
            first = await s.pushed(uri, 1)
            said = list(s.logged)
            (root / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW003"]\n')
            s.client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
            await s.until(lambda: _codes(s.published[uri].diagnostics) == ["RW010"])
            quiet = s.open(root / "quiet" / "convo.rw1", STREAM)
            return {"first": first, "said": said, "quiet": await s.pushed(quiet, 1)}

    got = asyncio.run(run())
    assert _codes(got["first"]) == ["RW003"]  # RW010 ignored by the project's configuration
    assert got["said"] == [f"rogerwilco: {path}: linted with the configuration in {root / 'pyproject.toml'}"]
    assert _codes(got["quiet"]) == ["RW010"]  # the new configuration, for a document opened after the save


def test_a_pulling_client_pulls_and_is_asked_again_when_a_watched_configuration_changes(tmp_path):
    root = _project(tmp_path)
    path = root / "payments" / "convo.rw1"

    async def run() -> dict:
        async with Session(PULL) as s:
            await s.until(lambda: s.registered)
            uri = s.open(path, STREAM)
            doc = types.TextDocumentIdentifier(uri=uri)
            first = await s.client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=doc))
            same = await s.client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
                text_document=doc, previous_result_id=first.result_id))
            (root / "payments" / "rogerwilco.toml").write_text('[lint]\nselect = ["RW003"]\n')
            s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
                uri=from_fs_path(str(root / "payments" / "rogerwilco.toml")), type=types.FileChangeType.Changed)]))
            await s.until(lambda: s.refreshes == 1)
            after = await s.client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=doc))
            return {"first": first, "same": same, "after": after, "published": dict(s.published),
                    "watched": s.registered}

    got = asyncio.run(run())
    assert got["first"].kind == "full" and _codes(got["first"].items) == ["RW010"]
    assert got["same"].kind == "unchanged" and got["same"].result_id == got["first"].result_id
    assert _codes(got["after"].items) == ["RW003"]
    assert got["published"] == {}  # nothing pushed to a client that pulls
    (watch,) = got["watched"]
    assert watch.method == "workspace/didChangeWatchedFiles"
    assert {w["globPattern"] for w in watch.register_options["watchers"]} >= {"**/pyproject.toml", "**/rogerwilco.toml"}


def test_incremental_edits_over_stdio_leave_the_clients_text(tmp_path):
    """Random ranged edits (line breaks, an emoji, a form feed): the server's diagnostics are those of the
    text the client holds."""
    rng = random.Random(31)
    path = tmp_path / "convo.rw1"
    text = STREAM + "RW1 HO ops-3 from=ops to=b item=x ask=FIX x_note=😀\x0c ask=FIX\n"
    pieces = ["ask=FIXX ", "😀", "\n", "\r\n", "RW1 HO ops-9 from=ops to=b item=x ask=FIX\n", "\x0c", "re=ops-1 ", ""]

    async def run() -> tuple[str, list]:
        nonlocal text
        async with Session(PUSH) as s:
            uri = s.open(path, text)
            await s.pushed(uri, 1)
            for version in range(2, 32):
                first, last = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
                first -= _between_cr_lf(text, first)
                last -= _between_cr_lf(text, last)
                new = rng.choice(pieces)
                s.edit(uri, version, _position(text, first, "utf-16"), _position(text, last, "utf-16"), new)
                text = text[:first] + new + text[last:]
            return text, await s.pushed(uri, 31)

    final, pushed = asyncio.run(run())
    lines = editor.split_lines(final)
    expected = [(d.code, d.line, editor.to_units(lines[d.line], d.start)) for d in editor.diagnostics(final, str(path))]
    assert [(d.code, d.range.start.line, d.range.start.character) for d in pushed] == expected


def test_quick_fix_definition_and_references_over_stdio(tmp_path):
    path = tmp_path / "convo.rw1"
    text = "RW1 HX a-1 from=a to=b item=x ask=FIX\n" + STREAM
    lines = text.splitlines()

    async def run() -> dict:
        async with Session(PUSH) as s:
            uri = s.open(path, text)
            pushed = await s.pushed(uri, 1)
            doc = types.TextDocumentIdentifier(uri=uri)
            # a client holding no diagnostics still gets the fixes of the line
            fixes = await s.client.text_document_code_action_async(types.CodeActionParams(
                text_document=doc, range=types.Range(types.Position(0, 0), types.Position(1, 0)),
                context=types.CodeActionContext(diagnostics=[])))
            definition = await s.client.text_document_definition_async(types.DefinitionParams(
                text_document=doc, position=types.Position(2, lines[2].index("re=ops-1") + 5)))
            refs = await s.client.text_document_references_async(types.ReferenceParams(
                text_document=doc, position=types.Position(1, lines[1].index("ops-1")),
                context=types.ReferenceContext(include_declaration=True)))
            return {"pushed": pushed, "fixes": fixes, "definition": definition, "refs": refs}

    got = asyncio.run(run())
    assert _codes(got["pushed"]) == ["RW003", "RW003", "RW010"]
    titles = [(a.title, a.is_preferred) for a in got["fixes"]]
    assert titles == [("Replace with HO", False), ("Replace with CX", False), ("Replace with ask=FIX", True)]
    (edit,) = got["fixes"][2].edit.changes[from_fs_path(str(path))]
    assert lines[1][edit.range.start.character:edit.range.end.character] == "ask=FIXX"
    (target,) = got["definition"]
    assert (target.range.start.line, target.range.start.character, target.range.end.character) == (1, 7, 12)
    assert [r.range.start.line for r in got["refs"]] == [1, 2, 3]


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_session_the_client_ends_exits_0_and_says_nothing():
    session = b"".join(_frame(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"}))
    run = subprocess.run([sys.executable, "-m", "rogerwilco", "lsp"], input=session, capture_output=True, cwd=ROOT)
    assert (run.returncode, run.stderr) == (0, b"")
