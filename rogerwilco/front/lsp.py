"""The language server: RW1 diagnostics, hover, completion, quick fixes and symbols over the Language Server Protocol.

Theory of operation
-------------------
:mod:`rogerwilco.front.editor` knows the answers; this module only speaks the
protocol (pygls, the ``lsp`` extra). Documents are synchronised in full, and
on every open or change the server lints the whole document and publishes its
diagnostics. Positions cross the boundary through the document's position
codec, so a client counting UTF-16 units (the default) and one that
negotiated UTF-32 or UTF-8 both get the right columns. A handler that fails
answers nothing rather than taking the server down, and diagnostics carry
the failure at the start of the document.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from . import editor
from ..core._version import __version__
from ..core.vocab import Receiver

log = logging.getLogger(__name__)
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
_KIND = {"type": types.CompletionItemKind.Class, "key": types.CompletionItemKind.Field,
         "code": types.CompletionItemKind.EnumMember, "profile": types.CompletionItemKind.Module}


class RW1LanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rogerwilco", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.receiver = Receiver.all_bundled()


server = RW1LanguageServer()


def _lines(doc: Any) -> list[str]:
    return editor.split_lines(doc.source)


def _to_client(doc: Any, line: int, start: int, end: int) -> types.Range:
    codec = doc.position_codec
    lines = _lines(doc)
    return codec.range_to_client_units(lines, ServerTextRange(ServerTextPosition(line, start), ServerTextPosition(line, end)))


def _from_client(doc: Any, position: types.Position) -> tuple[int, int]:
    at = doc.position_codec.position_from_client_units(_lines(doc), position)
    return at.line, at.character


def _name(uri: str) -> str:
    return uri.rsplit("/", 1)[-1].split("?", 1)[0]


def _publish(ls: RW1LanguageServer, uri: str) -> None:
    doc = ls.workspace.get_text_document(uri)
    out = []
    for d in editor.diagnostics(doc.source, _name(uri), ls.receiver):
        out.append(types.Diagnostic(
            range=_to_client(doc, d.line, d.start, d.end), message=d.message, severity=_SEVERITY[d.severity],
            code=d.code, source="rogerwilco", data={"fix": d.fix} if d.fix else None,
            code_description=types.CodeDescription(href=_help(d.code))))
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=out, version=doc.version))


def _help(code: str) -> str:
    from ..io.lint import RULES
    from ..io.sarif import help_uri

    return help_uri(RULES[code])


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RW1LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RW1LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RW1LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: RW1LanguageServer, params: types.HoverParams) -> types.Hover | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line, column = _from_client(doc, params.position)
    text = editor.hover(doc.source, _name(doc.uri), line, column, ls.receiver)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["=", " ", "+"]))
def completion(ls: RW1LanguageServer, params: types.CompletionParams) -> types.CompletionList:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line, column = _from_client(doc, params.position)
    items = [types.CompletionItem(label=c.label, detail=c.detail, insert_text=c.insert, kind=_KIND[c.kind])
             for c in editor.completions(doc.source, _name(doc.uri), line, column, ls.receiver)]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_action(ls: RW1LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    actions = []
    for diagnostic in params.context.diagnostics:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        fix = data.get("fix")
        if not fix or diagnostic.source != "rogerwilco":
            continue
        edit = types.WorkspaceEdit(changes={params.text_document.uri: [types.TextEdit(range=diagnostic.range, new_text=fix)]})
        actions.append(types.CodeAction(title=f"Replace with {fix}", kind=types.CodeActionKind.QuickFix,
                                        diagnostics=[diagnostic], edit=edit, is_preferred=True))
    return actions


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: RW1LanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    doc = ls.workspace.get_text_document(params.text_document.uri)

    def convert(s: editor.Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=s.name, detail=s.detail, kind=types.SymbolKind.Event,
            range=_to_client(doc, s.line, s.start, s.end), selection_range=_to_client(doc, s.line, s.id_start, s.id_end),
            children=[convert(c) for c in s.children])

    return [convert(s) for s in editor.symbols(doc.source, _name(doc.uri), ls.receiver)]


def main() -> None:
    """Serve over standard input and output."""
    server.start_io()
