"""Line reports: each finding with its place and a caret under the token."""

from __future__ import annotations

from rich.text import Text

from ..display import caret_lines
from ..errors import printable
from ..findings import Finding
from ..semantics import LineResult

_STYLE = {"fail": "bold red", "note": "yellow"}


def finding_text(result: LineResult, finding: Finding, file: str) -> Text:
    """``file:line:col: fail UNK ask=PAYY unknown ask code`` and the caret."""
    where = f"{printable(file)}:{result.line_number or 1}"
    if finding.column:
        where += f":{finding.column}"
    out = Text()
    out.append(where + ": ", style="bold")
    out.append(finding.severity, style=_STYLE.get(finding.severity, ""))
    if finding.why:
        out.append(f" {finding.why}", style=_STYLE.get(finding.severity, ""))
    out.append(f" [{finding.kind}]")
    if finding.token:
        out.append(" " + printable(finding.token), style="bold")
    out.append(" " + printable(finding.message))
    if finding.hint:
        out.append(f" ({printable(finding.hint)})", style="cyan")
    if finding.column and result.text:
        shown, caret = caret_lines(result.text, finding.column, finding.token or "")
        out.append("\n  " + shown)
        out.append("\n  " + caret, style=_STYLE.get(finding.severity, ""))
    return out


def summary_text(counts: dict[str, int]) -> Text:
    from . import counted

    parts = [counted(n, name) for name, n in counts.items()]
    return Text(", ".join(parts), style="bold")
