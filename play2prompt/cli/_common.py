"""Shared CLI helpers: consoles, tables, progress (the bars live in play2prompt.progress)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from play2prompt.progress import progress_bars

__all__ = ["console", "console_err", "fmt", "progress_bars", "table"]

console = Console(soft_wrap=True)
console_err = Console(stderr=True, soft_wrap=True)


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


def fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)
