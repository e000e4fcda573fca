"""What a run changed in each tool's documentation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

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
    # the texts the run started from (description, then each parameter's): a source whose
    # text is another is left as it is; None: replace whatever the source says (--force)
    before: tuple[str, Mapping[str, str]] | None = None

    @property
    def empty(self) -> bool:
        return self.description is None and not self.params

    def against(self, description: str | None, params: Mapping[str, str]
                ) -> tuple[DocChange, tuple[str, ...]]:
        """This change less each text whose place in the source (``description``, ``params``:
        what the source says now) holds a text the run never read, with a note for each: a
        reviewed docstring richer than the tools.json the run started from is not lost."""
        if self.before is None:
            return self, ()
        old_description, old_params = self.before
        notes, kept = [], dict(self.params)
        new_description = self.description
        if new_description is not None and _other(description, old_description):
            new_description = None
            notes.append(f"{self.tool}: the source's description is not the one the run "
                         f"started from; left as it is (--force replaces it)")
        for name in [p for p in kept if _other(params.get(p), old_params.get(p, ""))]:
            del kept[name]
            notes.append(f"{self.tool}.{name}: the source's text is not the one the run "
                         f"started from; left as it is (--force replaces it)")
        return replace(self, description=new_description, params=kept), tuple(notes)


def _other(now: str | None, before: str) -> bool:
    """The source says something (``now``) and it is not ``before``, spacing aside."""
    return bool(now and now.strip()) and " ".join(str(now).split()) != " ".join(before.split())


def doc_changes(result: RunResult, select: Sequence[str] | None = None,
                force: bool = False) -> list[DocChange]:
    """The changes of every tool whose doc the run changed (``select``: only these;
    ``force``: written over whatever the sources say, not only over the texts the run read)."""
    out = []
    for name, res in result.tools.items():
        if not res.doc_changed or (select and name not in select):
            continue
        old = res.original.doc
        description = res.doc.description if res.doc.description != old.description else None
        params = {p: text for p, text in res.doc.params.items()
                  if p in res.original.properties and text != old.params.get(p, "")}
        change = DocChange(name, description, params, tuple(res.demos),
                           _function(res.original.executor),
                           None if force else (old.description, dict(old.params)))
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
