"""Line reports: each finding with its place and a caret under the token."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.display import caret_lines
from ...core.errors import printable
from ...core.findings import Finding
from ...core.semantics import LineResult
from . import EXCERPT_INDENT

if TYPE_CHECKING:
    from rich.text import Text

_STYLE = {"fail": "bold red", "note": "yellow"}


# A report as (text, style) parts: rich renders them styled, a plain report joins the text.
Parts = list[tuple[str, str]]


def finding_parts(result: LineResult, finding: Finding, file: str, width: int | None = None) -> Parts:
    """``file:line:col: fail UNK ask=PAYY unknown ask code`` and the caret, under an excerpt of the line at most
    ``width`` cells wide (:func:`rogerwilco.front.render.excerpt_width`)."""
    column = result.column_of(finding)
    where = f"{printable(file)}:{result.line_number or 1}"
    if column:
        where += f":{column}"
    style = _STYLE.get(finding.severity, "")
    out: Parts = [(where + ": ", "bold"), (finding.severity, style)]
    if finding.why:
        out.append((f" {finding.why}", style))
    out.append((f" [{finding.kind}]", ""))
    if finding.token:
        out.append((" " + printable(finding.token), "bold"))
    out.append((" " + printable(finding.message), ""))
    if finding.hint:
        out.append((f" ({printable(finding.hint)})", "cyan"))
    if column and result.text:
        shown, caret = caret_lines(result.text, column, (finding.token or "") if finding.column else "", width)
        out.append(("\n" + EXCERPT_INDENT + shown, ""))
        out.append(("\n" + EXCERPT_INDENT + caret, style))
    return out


def summary_parts(counts: dict[str, int]) -> Parts:
    from . import counted

    return [(", ".join(counted(n, name) for name, n in counts.items()), "bold")]


def styled(parts: Parts) -> "Text":
    from rich.text import Text

    out = Text()
    for text, style in parts:
        out.append(text, style=style)
    return out


def plain(parts: Parts) -> str:
    return "".join(text for text, _ in parts)


def finding_text(result: LineResult, finding: Finding, file: str, width: int | None = None) -> "Text":
    return styled(finding_parts(result, finding, file, width))


def summary_text(counts: dict[str, int]) -> "Text":
    return styled(summary_parts(counts))
