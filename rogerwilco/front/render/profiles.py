"""Reports of the profile commands: profile problems and quote checks."""

from __future__ import annotations

from typing import Iterable

from rich.text import Text

from ...core.errors import printable
from .tables import FoldingTable

_STYLE = {"fail": "bold red", "note": "yellow"}


def problems_table(name: str, problems: Iterable[tuple[str, str, str]]) -> FoldingTable:
    """One row per problem of a profile: JSON path, source (core check or schema), message."""
    table = FoldingTable(f"{printable(name)}: profile problems", [("path", True), ("check", True), ("problem", False)])
    for path, source, message in problems:
        table.add_row(printable(path), source, printable(message))
    return table


def ok_text(name: str, detail: str) -> Text:
    out = Text()
    out.append(printable(name), style="bold")
    out.append(f": {printable(detail)}", style="green")
    return out


def quote_text(file: str, line: int | None, finding) -> Text:
    """``file:line: fail [wrong-line] src=doc:x#l3 the quote is on line 5 of x``."""
    out = Text()
    out.append(f"{printable(file)}:{line or 1}: ", style="bold")
    out.append(finding.severity, style=_STYLE.get(finding.severity, "green"))
    out.append(f" [{finding.kind}]")
    if finding.token:
        out.append(" " + printable(finding.token), style="bold")
    out.append(" " + printable(finding.message))
    return out


def summary(counts: dict[str, int]) -> Text:
    from . import counted

    return Text(", ".join(counted(n, k) for k, n in counts.items()), style="bold")
