"""Progress reporting: the engine calls a Reporter; the CLI passes a rich one."""

from __future__ import annotations

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
