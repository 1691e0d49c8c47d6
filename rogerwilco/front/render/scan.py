"""Scan reports: the summary table (stderr; the progress bar is render.progress's)."""

from __future__ import annotations

from rich.table import Table

from ...core.errors import printable
from .tables import STYLE
from ...io.scan import Tally


def summary_table(tally: Tally) -> Table:
    """Lines read, files, messages by type, diagnostics by why and by reason."""
    table = Table(title="rogerwilco scan", show_header=True, header_style="bold", box=STYLE, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("files", str(tally.files))
    table.add_row("lines read", str(tally.lines))
    table.add_row("messages", str(sum(tally.messages.values())), style="bold")
    for type_, n in sorted(tally.messages.items()):
        table.add_row(f"  {printable(type_)}", str(n))
    table.add_row("diagnostics", str(tally.refused), style="bold red" if tally.refused else "bold")
    for why, n in sorted(tally.diagnostics.items()):
        table.add_row(f"  why={printable(why)}", str(n))
    for reason, n in sorted(tally.reasons.items()):
        table.add_row(f"  {printable(reason)}", str(n))
    if tally.unreadable_ts:
        table.add_row("times unreadable (ts left null)", str(tally.unreadable_ts), style="yellow")
    return table


