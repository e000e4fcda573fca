"""Shared CLI helpers: consoles, tables, JSON output (the bars live in play2prompt.progress).

Output that goes to a pipe or a file is never cut: there the consoles are as wide as any line
(:data:`PIPE_WIDTH`), so a table keeps its natural width and a long reason stays whole.

The consoles read no markup and no emoji codes: a message prints what it holds (a tool named
``x[bold]``, ``--generator fake:abc``), never a style or an emoji it happens to spell. A line
that is styled on purpose passes ``markup=True`` and escapes what it quotes
(``rich.markup.escape``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console, ConsoleDimensions
from rich.table import Table

from play2prompt.progress import progress_bars

__all__ = ["PIPE_WIDTH", "FullWidthConsole", "console", "console_err", "fmt", "print_json",
           "progress_bars", "table"]

PIPE_WIDTH = 100_000   # wider than any line: nothing is wrapped or cut with "…"


class FullWidthConsole(Console):
    """A rich console that cuts nothing where no person reads a terminal.

    Rich takes the width of whichever standard stream is a terminal (``p2p sweep > out`` in a
    terminal still gets its 80 or 120 columns) and wraps or ellipsizes tables to it. Printing
    to a pipe or a file, this console is :data:`PIPE_WIDTH` wide instead, unless a width was
    given.
    """

    @property
    def size(self) -> ConsoleDimensions:
        dims = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and not self.is_terminal:
            return ConsoleDimensions(PIPE_WIDTH, dims.height)
        return dims

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


console = FullWidthConsole(soft_wrap=True, markup=False, emoji=False)
console_err = FullWidthConsole(stderr=True, soft_wrap=True, markup=False, emoji=False)


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
    t = Table(title=title, title_justify="left")
    cells = [["" if v is None else str(v) for v in row] for row in rows]
    for i, col in enumerate(columns):
        # every column keeps room for its widest cell (up to 16 characters) before any wraps,
        # so a long tool name on a narrow terminal cannot squeeze the figures to nothing
        widest = max((len(r[i]) for r in cells if i < len(r)), default=0)
        t.add_column(col, overflow="fold", min_width=max(1, min(widest, 16)))
    for row in cells:
        t.add_row(*row)
    return t


def print_json(value: Any) -> None:
    """``value`` as one JSON document on stdout (for ``--json``): plain text, never wrapped,
    no colour; what JSON cannot hold (paths, dates) as text."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)
