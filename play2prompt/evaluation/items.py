"""What an evaluation runs on: items (a query and the calls that answer it), suites, and the
prompt each side of the comparison gives the task model.

Both BFCL and the user's own queries are single-turn call generation checked by execution: the
task model sees a query and some tools, answers with call(s), and its calls are executed and
compared with the execution of the ground-truth calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.agent.prompt import Demo
from play2prompt.errors import UserError
from play2prompt.jsonutil import stable_hash, to_jsonable
from play2prompt.scoring.match import OUTPUT_MATCH_TYPES
from play2prompt.tools.model import Invocation, Tool, ToolDoc
from play2prompt.tools.transform import drop_param_descriptions

# exact | real_time | structural, plus BFCL REST's key-structure comparison.
ITEM_MATCH_TYPES = OUTPUT_MATCH_TYPES


@dataclass(frozen=True)
class EvalItem:
    """One query, its ground-truth call(s) and how their outputs are compared.

    ``match`` holds one match type per ground-truth call. ``specs`` are per-item tool specs
    (BFCL gives every question its own copy of its functions); names not in ``specs`` come from
    the suite's tools. ``expected_outputs``, when given, replace the execution of the ground
    truth (REST's recorded responses).
    """

    id: str
    query: str
    calls: tuple[Invocation, ...]
    match: tuple[str, ...]
    category: str = "all"
    tools: tuple[str, ...] = ()
    specs: tuple[Tool, ...] = ()
    expected_outputs: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.match) != len(self.calls):
            raise ValueError(f"item {self.id}: {len(self.match)} match types for "
                             f"{len(self.calls)} calls")
        bad = [m for m in self.match if m not in ITEM_MATCH_TYPES]
        if bad:
            raise ValueError(f"item {self.id}: unknown match type {bad[0]!r}")

    @property
    def parallel(self) -> bool:
        """Several calls are expected (the task model may answer with more than one)."""
        return len(self.calls) > 1

    def fingerprint(self) -> str:
        return stable_hash(self.query, [c.to_dict() for c in self.calls], list(self.match),
                           list(self.tools), to_jsonable(self.expected_outputs))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "category": self.category,
                "calls": [c.to_dict() for c in self.calls], "match": list(self.match),
                "tools": list(self.tools)}


@dataclass(frozen=True)
class Skipped:
    """An item (or input line) left out, and why."""

    id: str
    reason: str
    category: str = ""


@dataclass
class EvalSuite:
    """Items to evaluate, the tools they use and how to execute them."""

    name: str
    items: list[EvalItem]
    tools: dict[str, Tool] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    categories: tuple[str, ...] = ()       # display order; default: order of appearance
    require_exec: bool = True              # correct = execution match (BFCL semantics)
    validate_schema: bool = True           # check calls against the schema before running
    base_dir: Path | None = None           # where executors resolve relative paths
    notes: list[str] = field(default_factory=list)  # said in the output (e.g. offline subset)
    # The oracle file documents the whole benchmark: docs of tools this run does not evaluate
    # (other categories, the network subset) are ignored instead of rejected.
    oracle_covers_benchmark: bool = False
    # Opaque (``p2p eval tools.json --opaque``): the opacity, and real tool name -> the name
    # the task model sees it under; runs' and oracle docs are keyed by real name.
    opaque: str = ""
    shown_names: Mapping[str, str] = field(default_factory=dict)

    def category_order(self) -> list[str]:
        seen = list(self.categories)
        for item in self.items:
            if item.category not in seen:
                seen.append(item.category)
        return [c for c in seen if any(i.category == c for i in self.items)]

    def item_tools(self, item: EvalItem) -> list[Tool]:
        own = {t.name: t for t in item.specs}
        out = []
        for name in item.tools:
            tool = own.get(name) or self.tools.get(name)
            if tool is None:
                raise UserError(f"item {item.id}: unknown tool {name!r}")
            out.append(tool)
        return out


# -- the sides of a comparison ---------------------------------------------------------------
VARIANTS = ("full", "desc-only", "demo-only", "baseline")
ORACLE = "oracle"


@dataclass(frozen=True)
class PromptSide:
    """Which docs and demos one side of a comparison gives the task model.

    ``docs``: docs by tool name replacing the original ones (a run's optimized docs, or the
    hand-written correct "oracle" docs of the yardstick); ``tools``: whole tools replacing the
    originals (a run's optimized tools, as Spider's evaluation offers them); ``demos``:
    demonstrations by tool name, at most ``k`` of each; ``drop_param_desc``/``seed``: the
    robustness transform of the original docs, the same on every side (each parameter
    description dropped with probability p)."""

    name: str
    docs: Mapping[str, ToolDoc] = field(default_factory=dict)
    demos: Mapping[str, Sequence[Demo]] = field(default_factory=dict)
    k: int | None = None
    tools: Mapping[str, Tool] = field(default_factory=dict)
    drop_param_desc: float = 0.0
    seed: int = 0

    def tools_for(self, originals: Sequence[Tool]) -> list[Tool]:
        out = drop_param_descriptions(originals, self.drop_param_desc, self.seed)
        out = [self.tools.get(t.name, t) for t in out]
        return [t.with_doc(self.docs[t.name]) if t.name in self.docs else t for t in out]

    def library(self, originals: Mapping[str, Tool]) -> dict[str, Tool]:
        """``originals`` by name, as this side shows them."""
        return {t.name: t for t in self.tools_for(list(originals.values()))}

    def demos_of(self, name: str) -> list[Demo]:
        demos = list(self.demos.get(name, ()))
        return demos if self.k is None else demos[: max(self.k, 0)]

    def demos_for(self, tools: Sequence[Tool]) -> list[Demo]:
        return [d for t in tools for d in self.demos_of(t.name)]

    def to_dict(self) -> dict[str, Any]:
        """What the side gives (part of a fingerprint)."""
        return {"name": self.name, "k": self.k, "drop_param_desc": self.drop_param_desc,
                "seed": self.seed, "docs": {n: d.to_dict() for n, d in self.docs.items()},
                "tools": {n: t.to_dict() for n, t in self.tools.items()},
                "demos": {n: [d.to_dict() for d in self.demos_of(n)] for n in self.demos}}


def run_side(name: str, run: Any, *, docs: bool = True, demos: bool = True,
             k: int | None = None, drop_param_desc: float = 0.0, seed: int = 0) -> PromptSide:
    """A side with a finished run's optimized docs and/or demos. A tool whose original the run
    kept replaces nothing: each item shows it as the item gives it (a benchmark's questions
    may word one function's doc differently), exactly as on the baseline side."""
    return PromptSide(name,
                      {n: r.doc for n, r in run.tools.items() if r.doc_changed}
                      if docs else {},
                      {n: tuple(r.demos) for n, r in run.tools.items()} if demos else {},
                      k, drop_param_desc=drop_param_desc, seed=seed)


def side_for(variant: str, run: Any = None, k: int = 5, drop_param_desc: float = 0.0,
             seed: int = 0, oracle: Sequence[Tool] = ()) -> PromptSide:
    """The side an evaluation variant names: ``baseline`` (the original docs), ``full`` (the
    run's docs and demos), ``desc-only``, ``demo-only``, or ``oracle`` (the correct docs of
    ``oracle``, a tools file)."""
    uses = {"baseline": (False, False), "full": (True, True), "desc-only": (True, False),
            "demo-only": (False, True), ORACLE: (False, False)}
    if variant not in uses:
        raise UserError(f"unknown variant {variant!r} (one of {', '.join(VARIANTS)})")
    if variant == ORACLE:
        return PromptSide(ORACLE, {t.name: t.doc for t in oracle}, k=k,
                          drop_param_desc=drop_param_desc, seed=seed)
    docs, demos = uses[variant]
    if run is None:
        return PromptSide(variant, k=k, drop_param_desc=drop_param_desc, seed=seed)
    return run_side(variant, run, docs=docs, demos=demos, k=k, drop_param_desc=drop_param_desc,
                    seed=seed)


def sides_for(variant: str, run: Any = None, k: int = 5, drop_param_desc: float = 0.0,
              seed: int = 0, oracle: Sequence[Tool] = ()) -> list[PromptSide]:
    """Baseline always; the optimized variant when a run's prompts are given; the oracle docs
    last when they are given."""
    sides = [side_for("baseline", None, k, drop_param_desc, seed)]
    if run is not None and variant != "baseline":
        sides.append(side_for(variant, run, k, drop_param_desc, seed, oracle))
    if oracle:
        sides.append(side_for(ORACLE, None, k, drop_param_desc, seed, oracle))
    return sides
