"""Tables that fit: one style for every command, tokens never split or elided.

A :class:`FoldingTable` is declared with its columns, each either a *token*
column (ids, refs, tokens, states, numbers: what a user copies, so never
split, never cut with an ellipsis) or a *text* column (messages, details:
wrapped at spaces, and folded only inside a word longer than the column).
At print time it measures the console: when every token fits on one line of
its column, it is a table in the one style of the package (ASCII rules, so
it reads the same in a pipe, a CI log and any encoding); when the width
cannot hold them, each row is printed as a block of ``column: value`` lines,
so a token is still whole and copyable at 40 columns.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

STYLE = box.ASCII  # the one table style of the package


class FoldingTable:
    def __init__(self, title: str | None, columns: Sequence[tuple[str, bool]], *,
                 justify: dict[str, str] | None = None) -> None:
        self.title = title
        self.columns = list(columns)  # (header, is_token)
        self.justify = justify or {}
        self.rows: list[tuple[Text, ...]] = []

    def add_row(self, *cells: "str | Text") -> None:
        self.rows.append(tuple(c if isinstance(c, Text) else Text(c) for c in cells))

    # the width each column needs so that no token is split
    def _needed(self) -> list[int]:
        needed = []
        for i, (header, is_token) in enumerate(self.columns):
            cells = [row[i] for row in self.rows]
            if is_token:
                longest = max((len(line) for c in cells for line in c.plain.split("\n")), default=0)
                needed.append(max(len(header), longest))
            else:  # a text column can wrap at spaces: it needs its longest word
                word = max((len(w) for c in cells for w in c.plain.split()), default=0)
                needed.append(max(len(header), word))
        return needed

    def table(self) -> Table:
        table = Table(title=self.title, box=STYLE, title_justify="left", header_style="bold")
        needed = self._needed()
        for (header, is_token), width in zip(self.columns, needed):
            if is_token:
                table.add_column(header, no_wrap=True, min_width=width, overflow="fold",
                                 justify=self.justify.get(header, "left"))  # type: ignore[arg-type]
            else:
                table.add_column(header, overflow="fold", min_width=width,
                                 justify=self.justify.get(header, "left"))  # type: ignore[arg-type]
        for row in self.rows:
            table.add_row(*row)
        return table

    def fits(self, width: int) -> bool:
        return sum(self._needed()) + 3 * len(self.columns) + 1 <= width

    def blocks(self) -> Text:
        out = Text()
        if self.title:
            out.append(self.title + "\n", style="bold")
        label = max((len(h) for h, _ in self.columns), default=0)
        for n, row in enumerate(self.rows):
            if n:
                out.append("\n")
            for (header, _), cell in zip(self.columns, row):
                if not cell.plain:
                    continue
                out.append(f"  {header.rjust(label)}: ", style="bold")
                out.append_text(cell)
                out.append("\n")
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.fits(options.max_width):
            yield self.table()
        else:
            yield self.blocks()


def folding_table(title: str | None, columns: Iterable[tuple[str, bool]], **kw) -> FoldingTable:
    return FoldingTable(title, list(columns), **kw)
