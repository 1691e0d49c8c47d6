"""Lint reports: each finding with its place, its code and a caret under the token."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from rich.text import Text

from ...core.display import caret_lines
from ...core.errors import printable
from . import EXCERPT_INDENT, counted
from .tables import FoldingTable
from ...io.lint import RULES, LintFinding

_STYLE = {"error": "bold red", "warning": "yellow"}


def finding_text(finding: LintFinding, width: int | None = None) -> Text:
    """``file:line:col: RW105 [closed-twice] message`` then the line and a caret, the excerpt at most ``width``
    cells wide (:func:`rogerwilco.front.render.excerpt_width`)."""
    where = f"{printable(finding.file)}:{finding.line}"
    if finding.column:
        where += f":{finding.column}"
    out = Text()
    out.append(where + ": ", style="bold")
    out.append(finding.code, style=_STYLE.get(finding.level, ""))
    out.append(f" [{finding.rule.name}]")
    if finding.token:
        out.append(" " + printable(finding.token), style="bold")
    out.append(" " + printable(finding.message))
    if finding.hint:
        out.append(f" ({printable(finding.hint)})", style="cyan")
    if finding.cause:
        out.append(f" [follows from {finding.cause}]", style="dim")
    if finding.text:
        shown, caret = caret_lines(finding.text, finding.column or 1, finding.token or "", width)
        out.append("\n" + EXCERPT_INDENT + shown)
        if finding.column:
            out.append("\n" + EXCERPT_INDENT + caret, style=_STYLE.get(finding.level, ""))
    return out


def summary_text(findings: Iterable[LintFinding], files: int, *, empty: int = 0) -> Text:
    """The last line of lint's text output; ``empty`` files held no RW1 line (nothing in them was checked)."""
    findings = list(findings)
    counts = Counter(f.code for f in findings)
    total = sum(counts.values())
    unread = f", {counted(empty, 'files')} with no RW1 line" if empty else ""
    if not total:
        return Text(f"{counted(files, 'files')} checked, no findings{unread}",
                    style="bold yellow" if empty else "bold green")
    parts = ", ".join(f"{code} {RULES[code].name} {n}" for code, n in sorted(counts.items()))
    return Text(f"{counted(total, 'findings')} in {counted(files, 'files')} ({roots_and_consequences(findings)}): {parts}"
                f"{unread}", style="bold red")


def roots_and_consequences(findings: Iterable[LintFinding]) -> str:
    """``2 root causes, 1 consequence``: a consequence follows from a root (a readback echoing a refused code)."""
    findings = list(findings)
    consequences = sum(1 for f in findings if f.cause)
    return f"{counted(len(findings) - consequences, 'root causes')}, {counted(consequences, 'consequences')}"


def rules_table() -> FoldingTable:
    table = FoldingTable("rogerwilco lint rules", [("code", True), ("name", True), ("level", True), ("what", False)])
    for rule in RULES.values():
        table.add_row(rule.code, rule.name, rule.level, rule.summary)
    return table
