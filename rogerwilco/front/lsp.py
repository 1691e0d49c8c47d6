"""The language server: RW1 diagnostics, hover, completion, quick fixes, symbols, definitions and references
over the Language Server Protocol.

Theory of operation
-------------------
:mod:`rogerwilco.front.editor` knows the answers; this module only speaks the
protocol (pygls, the ``lsp`` extra).

* **Configuration.** Each document is linted with the configuration ``lint``
  would use for its file (the nearest ``pyproject.toml`` or
  ``rogerwilco.toml`` at or above its folder): its rules, per-file ignores
  and profiles, which also choose the vocabulary of hover and completion.
  The server says which file it used in a ``window/logMessage`` when a
  document opens and whenever that changes. It reads the configuration again
  when the client reports a configuration file changed
  (``workspace/didChangeWatchedFiles``, registered where the client allows)
  and whenever a document is saved (clients that watch no files), then
  refreshes every open document's diagnostics.
* **Diagnostics.** A client that can pull them (``textDocument/diagnostic``)
  pulls them; any other gets them pushed on every open and change.
* **Synchronisation** is incremental. The edits are applied by
  :func:`rogerwilco.front.editor.apply_edit`, which splits lines as the
  protocol does (``\\n``, ``\\r\\n``, ``\\r`` only, where pygls's own edits
  also split at form feeds and line separators) and reads columns in the
  negotiated position encoding (UTF-16 by default, UTF-8 or UTF-32), so a
  finding after an emoji sits on the right character.

A handler that fails answers nothing rather than taking the server down, and
diagnostics carry the failure at the start of the document.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from typing import Any, Generator

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from . import editor
from ..core._version import __version__
from ..io.lint_config import CONFIG_NAMES, LintConfig

log = logging.getLogger(__name__)
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
_KIND = {"type": types.CompletionItemKind.Class, "key": types.CompletionItemKind.Field,
         "code": types.CompletionItemKind.EnumMember, "profile": types.CompletionItemKind.Module}
#: the files whose change means a document's configuration may have changed
_WATCHED = tuple(f"**/{name}" for name in ("pyproject.toml", *CONFIG_NAMES))


class _Protocol(LanguageServerProtocol):
    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        """Each change applied in order, an incremental one by :func:`editor.apply_edit`."""
        encoding = str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                doc = self.workspace.get_text_document(params.text_document.uri)
                start, end = change.range.start, change.range.end
                text = editor.apply_edit(doc.source, (start.line, start.character), (end.line, end.character),
                                         change.text, encoding)
            else:
                text = change.text
            self.workspace.update_text_document(params.text_document,
                                                types.TextDocumentContentChangeWholeDocument(text=text))
        if (user_handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None


class RW1LanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rogerwilco", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=_Protocol)
        self.configs = editor.DocumentConfigs()
        self._said: dict[str, str] = {}  # uri -> the configuration line last logged for it

    def pulls(self) -> bool:
        """Whether the client pulls diagnostics (``textDocument/diagnostic``) rather than taking them pushed."""
        document = self.client_capabilities.text_document
        return document is not None and document.diagnostic is not None

    def settings(self, uri: str) -> editor.DocumentConfig:
        """The document's configuration; its file named in a log message when it is new for the document."""
        path = to_fs_path(uri)
        if path is None:  # an unsaved buffer: no folder to look from
            found = editor.DocumentConfig(LintConfig(), LintConfig().options())
            said = f"{uri}: not a file; linting with the defaults"
        else:
            found = self.configs.for_path(path)
            said = found.describe(path)
        if self._said.get(uri) != said:
            self._said[uri] = said
            kind = types.MessageType.Warning if found.error else types.MessageType.Info
            self.window_log_message(types.LogMessageParams(type=kind, message=f"rogerwilco: {said}"))
        return found

    def forget(self, uri: str) -> None:
        self._said.pop(uri, None)


server = RW1LanguageServer()


def _encoding(ls: RW1LanguageServer) -> str:
    return str(ls.workspace.position_encoding or types.PositionEncodingKind.Utf16)


def _lines(doc: Any) -> list[str]:
    return editor.split_lines(doc.source)


def _to_client(ls: RW1LanguageServer, lines: list[str], line: int, start: int, end: int) -> types.Range:
    text = lines[line] if line < len(lines) else ""
    encoding = _encoding(ls)
    return types.Range(types.Position(line, editor.to_units(text, start, encoding)),
                       types.Position(line, editor.to_units(text, end, encoding)))


def _from_client(ls: RW1LanguageServer, doc: Any, position: types.Position) -> tuple[int, int]:
    lines = _lines(doc)
    text = lines[position.line] if position.line < len(lines) else ""
    return position.line, editor.from_units(text, position.character, _encoding(ls))


def _name(uri: str) -> str:
    return to_fs_path(uri) or uri.rsplit("/", 1)[-1].split("?", 1)[0]


def _found(ls: RW1LanguageServer, uri: str) -> tuple[Any, list[editor.Diagnostic]]:
    doc = ls.workspace.get_text_document(uri)
    settings = ls.settings(uri)
    found = editor.diagnostics(doc.source, _name(uri), options=settings.options)
    if settings.error is not None:
        found.insert(0, editor.Diagnostic(0, 0, 1, "error", None, f"the lint configuration cannot be read: "
                                                                  f"{settings.error}; linting with the defaults"))
    return doc, found


def _diagnostics(ls: RW1LanguageServer, uri: str) -> tuple[Any, list[types.Diagnostic]]:
    doc, found = _found(ls, uri)
    lines = _lines(doc)
    return doc, [_diagnostic(ls, lines, d) for d in found]


def _diagnostic(ls: RW1LanguageServer, lines: list[str], d: editor.Diagnostic) -> types.Diagnostic:
    return types.Diagnostic(
        range=_to_client(ls, lines, d.line, d.start, d.end), message=d.message, severity=_SEVERITY[d.severity],
        code=d.code, source="rogerwilco", data={"fixes": list(d.fixes)} if d.fixes else None,
        code_description=types.CodeDescription(href=_help(d.code)) if d.code else None)


def _publish(ls: RW1LanguageServer, uri: str) -> None:
    doc, out = _diagnostics(ls, uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=out, version=doc.version))


def _help(code: str) -> str:
    from ..io.lint import RULES
    from ..io.sarif import help_uri

    return help_uri(RULES[code])


def _refresh(ls: RW1LanguageServer) -> None:
    """A configuration file may have changed: read the configurations again and renew every open document's
    diagnostics (pushed again, or the pulling client asked to pull again)."""
    ls.configs.reload()
    uris = list(ls.workspace.text_documents)
    if not ls.pulls():
        for uri in uris:
            _publish(ls, uri)
        return
    for uri in uris:
        ls.settings(uri)  # the file in force said again if it changed
    workspace = ls.client_capabilities.workspace
    if workspace is not None and workspace.diagnostics is not None and workspace.diagnostics.refresh_support:
        ls.workspace_diagnostic_refresh(None)


@server.feature(types.INITIALIZED)
def initialized(ls: RW1LanguageServer, params: types.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is not None and watched.dynamic_registration:
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in _WATCHED])
        ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
            id="rogerwilco-configuration", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options)]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: RW1LanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    _refresh(ls)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RW1LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    if ls.pulls():
        ls.settings(params.text_document.uri)
    else:
        _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RW1LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    if not ls.pulls():
        _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: RW1LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    _refresh(ls)  # clients that watch no files: a save is when a changed configuration is read


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RW1LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
    if not ls.pulls():
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(identifier="rogerwilco", inter_file_dependencies=False,
                                        workspace_diagnostics=False))
def diagnostic(ls: RW1LanguageServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
    doc, out = _diagnostics(ls, params.text_document.uri)
    result_id = hashlib.sha256(repr(out).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=out, result_id=result_id)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: RW1LanguageServer, params: types.HoverParams) -> types.Hover | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line, column = _from_client(ls, doc, params.position)
    text = editor.hover(doc.source, _name(doc.uri), line, column, _receiver(ls, doc.uri))
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def _receiver(ls: RW1LanguageServer, uri: str) -> Any:
    return ls.settings(uri).options["profiles"]


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["=", " ", "+"]))
def completion(ls: RW1LanguageServer, params: types.CompletionParams) -> types.CompletionList:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line, column = _from_client(ls, doc, params.position)
    items = [types.CompletionItem(label=c.label, detail=c.detail, insert_text=c.insert, kind=_KIND[c.kind])
             for c in editor.completions(doc.source, _name(doc.uri), line, column, _receiver(ls, doc.uri))]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_action(ls: RW1LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """A quick fix for every suggestion of the findings on the lines asked about (the server's own findings,
    so a client that sends no diagnostics, or old ones, still gets the fixes of the text as it is)."""
    doc, found = _found(ls, params.text_document.uri)
    lines = _lines(doc)
    first, last = params.range.start.line, params.range.end.line
    actions = []
    for d in found:
        if not (first <= d.line <= last) or not d.fixes:
            continue
        diagnostic = _diagnostic(ls, lines, d)
        for fix in d.fixes:
            edit = types.WorkspaceEdit(changes={params.text_document.uri: [types.TextEdit(range=diagnostic.range, new_text=fix)]})
            actions.append(types.CodeAction(title=f"Replace with {fix}", kind=types.CodeActionKind.QuickFix,
                                            diagnostics=[diagnostic], edit=edit, is_preferred=len(d.fixes) == 1))
    return actions


def _locations(ls: RW1LanguageServer, doc: Any, uses: list[editor.IdUse]) -> list[types.Location]:
    lines = _lines(doc)
    return [types.Location(uri=doc.uri, range=_to_client(ls, lines, u.line, u.start, u.end)) for u in uses]


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RW1LanguageServer, params: types.DefinitionParams) -> list[types.Location]:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line, column = _from_client(ls, doc, params.position)
    return _locations(ls, doc, editor.definition(doc.source, _name(doc.uri), line, column, _receiver(ls, doc.uri)))


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: RW1LanguageServer, params: types.ReferenceParams) -> list[types.Location]:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line, column = _from_client(ls, doc, params.position)
    uses = editor.references(doc.source, _name(doc.uri), line, column, _receiver(ls, doc.uri),
                             include_declaration=params.context.include_declaration)
    return _locations(ls, doc, uses)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: RW1LanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    lines = _lines(doc)

    def convert(s: editor.Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=s.name, detail=s.detail, kind=types.SymbolKind.Event,
            range=_to_client(ls, lines, s.line, s.start, s.end),
            selection_range=_to_client(ls, lines, s.line, s.id_start, s.id_end),
            children=[convert(c) for c in s.children])

    return [convert(s) for s in editor.symbols(doc.source, _name(doc.uri), _receiver(ls, doc.uri))]


def main() -> None:
    """Serve over standard input and output."""
    server.start_io()
    # the client's exit closed standard output's buffer under its text stream: the command's last flush
    # goes to the null device rather than failing on a closed file
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - open until the process ends
