"""Reports of the profile commands: profile problems and quote checks."""

from __future__ import annotations

from typing import Iterable

from rich.table import Table
from rich.text import Text

from ..errors import printable

_STYLE = {"fail": "bold red", "note": "yellow"}


def problems_table(name: str, problems: Iterable[tuple[str, str, str]]) -> Table:
    """One row per problem of a profile: JSON path, source (core check or schema), message."""
    table = Table(title=f"{printable(name)}: profile problems", title_justify="left", show_lines=False)
    table.add_column("path", style="bold", no_wrap=True)
    table.add_column("check")
    table.add_column("problem")
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
    return Text(", ".join(f"{n} {k}" for k, n in counts.items()), style="bold")
