"""Thread reports: the findings, then the ownership ledger as tables."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from ...core.errors import printable
from . import counted
from .tables import FoldingTable
from ...checks.thread import ThreadReport

_STYLE = {"fail": "bold red", "note": "yellow"}
_STATE_STYLE = {"orphaned": "bold red", "held": "red", "awaiting-readback": "yellow", "owned": "green",
                "closed": "", "reissued": "dim"}


def _cell(value: object) -> str:
    return "" if value is None else printable(str(value))


def findings_text(report: ThreadReport) -> Text:
    out = Text()
    for finding in report.findings:
        out.append(finding.severity, style=_STYLE.get(finding.severity, ""))
        out.append(f" [{finding.kind}]")
        if finding.key and not finding.message.startswith(finding.key):
            out.append(f" {printable(finding.key)}", style="bold")
        out.append(" " + printable(finding.message) + "\n")
    fails = sum(1 for f in report.findings if f.failed)
    notes = len(report.findings) - fails
    verdict = "passed" if report.passed else "failed"
    out.append(f"{verdict}: {counted(fails, 'fails')}, {counted(notes, 'notes')}", style="bold" if report.passed else "bold red")
    return out


def items_table(report: ThreadReport) -> FoldingTable:
    table = FoldingTable("Owners", [("item", True), ("owner", True), ("via", False)])
    for entry in report.ledger.items:
        table.add_row(_cell(entry.item), _cell(entry.owner), _cell(entry.via or "(no readback passed)"))
    return table


def handoffs_table(report: ThreadReport) -> FoldingTable:
    table = FoldingTable("Handoffs", [("HO", True), ("item", True), ("from", True), ("to", True), ("ask", True),
                                      ("readback", False), ("state", True), ("by", False)])
    for h in report.ledger.handoffs:
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


def thread_report(report: ThreadReport) -> RenderableType:
    return Group(findings_text(report), items_table(report), handoffs_table(report))


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
