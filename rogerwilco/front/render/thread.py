"""Thread reports: the findings, then the ownership ledger as tables."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from rich.console import Console, Group, RenderableType
from rich.text import Text

from ...core.errors import printable
from . import counted
from .tables import FoldingTable
from ...checks.thread import HandoffStatus, ItemOwner, SpooledThreadReport, ThreadReport
from ...core.findings import Finding

_STYLE = {"fail": "bold red", "note": "yellow"}
_STATE_STYLE = {"orphaned": "bold red", "held": "red", "awaiting-readback": "yellow", "owned": "green",
                "closed": "", "reissued": "dim"}


def _cell(value: object) -> str:
    return "" if value is None else printable(str(value))


def _finding_line(finding: Finding) -> Text:
    out = Text()
    out.append(finding.severity, style=_STYLE.get(finding.severity, ""))
    out.append(f" [{finding.kind}]")
    if finding.key and not finding.message.startswith(finding.key):
        out.append(f" {printable(finding.key)}", style="bold")
    out.append(" " + printable(finding.message))
    return out


def _verdict(passed: bool, fails: int, notes: int) -> Text:
    verdict = "passed" if passed else "failed"
    return Text(f"{verdict}: {counted(fails, 'fails')}, {counted(notes, 'notes')}",
                style="bold" if passed else "bold red")


def findings_text(report: ThreadReport) -> Text:
    out = Text()
    for finding in report.findings:
        out.append_text(_finding_line(finding))
        out.append("\n")
    fails = sum(1 for f in report.findings if f.failed)
    out.append_text(_verdict(report.passed, fails, len(report.findings) - fails))
    return out


def _items_table(entries: Iterable[ItemOwner]) -> FoldingTable:
    table = FoldingTable("Owners", [("item", True), ("owner", True), ("via", False)])
    for entry in entries:
        table.add_row(_cell(entry.item), _cell(entry.owner), _cell(entry.via or "(no readback passed)"))
    return table


def items_table(report: ThreadReport) -> FoldingTable:
    return _items_table(report.ledger.items)


def _handoffs_table(handoffs: Iterable[HandoffStatus]) -> FoldingTable:
    table = FoldingTable("Handoffs", [("HO", True), ("item", True), ("from", True), ("to", True), ("ask", True),
                                      ("readback", False), ("state", True), ("by", False)])
    for h in handoffs:
        if h.state == "closed":
            by = f"{h.by} {h.closer}"
        elif h.state == "reissued":
            by = f"-> {h.next}"
        else:
            by = ""
        readback = f"{h.readback} {h.rb}" if h.readback else "none"
        table.add_row(_cell(h.id), _cell(h.item), _cell(h.from_), _cell(h.to), _cell(h.ask), _cell(readback),
                      Text(h.state, style=_STATE_STYLE.get(h.state, "")), _cell(by))
    return table


def handoffs_table(report: ThreadReport) -> FoldingTable:
    return _handoffs_table(report.ledger.handoffs)


def thread_report(report: ThreadReport) -> RenderableType:
    return Group(findings_text(report), items_table(report), handoffs_table(report))


#: rows to a page when a report is printed a page at a time (:func:`print_spooled`)
PAGE_ROWS = 1000


def print_spooled(console: Console, report: SpooledThreadReport, *, page: int = PAGE_ROWS) -> None:
    """Print a report kept on disk a page at a time: the findings ``page`` lines at a time, then the two
    tables in pages of ``page`` rows, each page a table of its own (measured alone). A report of one page
    prints as :func:`thread_report` prints it."""
    for chunk in _pages(report.findings(), page):
        out = Text()
        for finding in chunk:
            out.append_text(_finding_line(finding))
            out.append("\n")
        out.rstrip()
        console.print(out)
    console.print(_verdict(report.passed, report.fails, report.notes))
    for make, rows in ((_items_table, report.items()), (_handoffs_table, report.handoffs())):
        chunks = 0
        for chunk in _pages(rows, page):
            console.print(make(chunk))
            chunks += 1
        if not chunks:
            console.print(make(()))


def _pages(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


_TOOL_STYLE = {"prepared": "green", "expired": "yellow", "in-doubt": "bold red", "committed": "", "failed": "red",
               "abandoned": "dim", "cancelled": "dim"}


def statements_table(statements) -> FoldingTable:
    """The tool's store: one row per prepared statement (``rogerwilco tool status``)."""
    table = FoldingTable("Statements", [("token", True), ("HO", True), ("item", True), ("agent", True), ("exp", True),
                                        ("state", True), ("detail", False)])
    for s in statements:
        reply = " ".join(s.reply.split(" ")[1:3]) if s.reply else ""
        detail = s.detail if s.detail and s.state != "committed" else reply
        table.add_row(_cell(s.token), _cell(s.ho), _cell(s.item), _cell(s.agent), _cell(s.exp),
                      Text(s.state, style=_TOOL_STYLE.get(s.state, "")), _cell(detail))
    return table
