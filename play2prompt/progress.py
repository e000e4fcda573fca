"""Progress reporting: the engine calls a Reporter; the CLI passes a rich one.

:func:`progress_bars` gives long-running commands (the CLI's and the benchmarks') a rich
progress display on standard error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class Reporter(Protocol):
    def start(self, tool: str, total: int) -> None: ...

    def advance(self, tool: str, steps: int = 1) -> None: ...

    def done(self, tool: str, summary: str) -> None: ...


class NullReporter:
    def start(self, tool: str, total: int) -> None:
        pass

    def advance(self, tool: str, steps: int = 1) -> None:
        pass

    def done(self, tool: str, summary: str) -> None:
        pass


class RichReporter:
    """One progress bar per tool (rich)."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def start(self, tool: str, total: int) -> None:
        self.tasks[tool] = self.progress.add_task(tool, total=total)

    def advance(self, tool: str, steps: int = 1) -> None:
        if tool in self.tasks:
            self.progress.advance(self.tasks[tool], steps)

    def done(self, tool: str, summary: str) -> None:
        if tool in self.tasks:
            task = self.tasks[tool]
            self.progress.update(task, completed=self.progress.tasks[task].total,
                                 description=f"{tool}: {summary}")


@contextmanager
def progress_bars(enabled: bool = True) -> Iterator[Any]:
    """A rich Progress on standard error (or None when disabled)."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True, soft_wrap=True),
                  transient=False) as prog:
        yield prog
