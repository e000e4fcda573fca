"""What a run changed in each tool's documentation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from play2prompt.agent.prompt import Demo
from play2prompt.results import RunResult


@dataclass(frozen=True)
class DocChange:
    """One tool's new texts: its description when the run changed it, each changed
    parameter description, and the run's verified demos."""

    tool: str
    description: str | None
    params: Mapping[str, str] = field(default_factory=dict)
    demos: tuple[Demo, ...] = ()
    function: str | None = None      # the Python function that implements it, when known

    @property
    def empty(self) -> bool:
        return self.description is None and not self.params


def doc_changes(result: RunResult, select: Sequence[str] | None = None) -> list[DocChange]:
    """The changes of every tool whose doc the run changed (``select``: only these)."""
    out = []
    for name, res in result.tools.items():
        if not res.doc_changed or (select and name not in select):
            continue
        old = res.original.doc
        description = res.doc.description if res.doc.description != old.description else None
        params = {p: text for p, text in res.doc.params.items()
                  if p in res.original.properties and text != old.params.get(p, "")}
        change = DocChange(name, description, params, tuple(res.demos),
                           _function(res.original.executor))
        if not change.empty:
            out.append(change)
    return out


def _function(executor: Mapping[str, object] | None) -> str | None:
    """``fn`` of a python executor ``"file.py:fn"`` / ``{"function": "mod:fn"}``."""
    spec = (executor or {}).get("python")
    if isinstance(spec, Mapping):
        spec = spec.get("function")
    if isinstance(spec, str) and ":" in spec:
        return spec.rsplit(":", 1)[1]
    return None


@dataclass(frozen=True)
class Edited:
    """What an editor made of one text: the new text, the tools whose docs went in, notes."""

    text: str
    written: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
