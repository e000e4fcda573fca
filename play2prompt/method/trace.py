"""What the method's steps tell the run: every candidate they make, and each iteration that
ends. The steps never touch the run store or the progress reporter; the engine's ``trace``
receives these, and the pipeline decides what to persist and to report
(:class:`play2prompt.engine.StoreTrace`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Trace(Protocol):
    """Receives the candidates of a tool's optimization (``kind``: play, probe, example,
    fact-test, doc) and the end of each search iteration."""

    def candidate(self, kind: str, tool: str, id: str, *, iteration: int,
                  parent: str | None, state: str, reward: float | None,
                  payload: Mapping[str, Any]) -> None: ...

    def iteration_ended(self, kind: str, tool: str, iteration: int) -> None: ...


class NullTrace:
    """A trace that keeps nothing."""

    def candidate(self, kind: str, tool: str, id: str, *, iteration: int,
                  parent: str | None, state: str, reward: float | None,
                  payload: Mapping[str, Any]) -> None:
        return None

    def iteration_ended(self, kind: str, tool: str, iteration: int) -> None:
        return None


__all__ = ["NullTrace", "Trace"]
