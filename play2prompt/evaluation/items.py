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

from play2prompt.errors import UserError
from play2prompt.jsonutil import stable_hash, to_jsonable
from play2prompt.method.task_prompt import Demo
from play2prompt.scoring.match import OUTPUT_MATCH_TYPES
from play2prompt.tools.model import Invocation, Tool
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


# -- the sides of the comparison --------------------------------------------------------------
VARIANTS = ("full", "desc-only", "demo-only", "baseline")
ORACLE = "oracle"


@dataclass(frozen=True)
class Side:
    """Which prompt the task model gets: original or optimized docs, with or without demos,
    or the hand-written correct ("oracle") docs of the yardstick."""

    name: str
    optimized_docs: bool
    demos: bool
    oracle_docs: bool = False


def make_side(variant: str) -> Side:
    sides = {
        "baseline": Side("baseline", False, False),
        "full": Side("full", True, True),
        "desc-only": Side("desc-only", True, False),
        "demo-only": Side("demo-only", False, True),
        ORACLE: Side(ORACLE, False, False, oracle_docs=True),
    }
    if variant not in sides:
        raise UserError(f"unknown variant {variant!r} (one of {', '.join(VARIANTS)})")
    return sides[variant]


def sides_for(variant: str, has_run: bool, has_oracle: bool = False) -> list[Side]:
    """Baseline always; the optimized variant when a run's prompts are given; the oracle docs
    last when they are given."""
    sides = [make_side("baseline")]
    if has_run and variant != "baseline":
        sides.append(make_side(variant))
    if has_oracle:
        sides.append(make_side(ORACLE))
    return sides


@dataclass(frozen=True)
class PromptSource:
    """Where the optimized docs and demos come from (a finished run), the oracle docs (a
    tools file with correct docs), and the doc transform applied to the original docs on
    every side (parameter-description dropout)."""

    docs: Mapping[str, Any] = field(default_factory=dict)     # tool name -> ToolDoc
    demos: Mapping[str, Sequence[Demo]] = field(default_factory=dict)
    k: int = 5
    drop_param_desc: float = 0.0
    seed: int = 0
    oracle: Mapping[str, Any] = field(default_factory=dict)   # tool name -> ToolDoc

    @classmethod
    def from_run(cls, run: Any, k: int, drop_param_desc: float = 0.0, seed: int = 0,
                 oracle: Sequence[Tool] = ()) -> PromptSource:
        oracle_docs = {t.name: t.doc for t in oracle}
        if run is None:
            return cls(k=k, drop_param_desc=drop_param_desc, seed=seed, oracle=oracle_docs)
        return cls({n: r.doc for n, r in run.tools.items()},
                   {n: tuple(r.demos) for n, r in run.tools.items()}, k, drop_param_desc, seed,
                   oracle_docs)

    def tools_for(self, tools: Sequence[Tool], side: Side) -> list[Tool]:
        out = drop_param_descriptions(tools, self.drop_param_desc, self.seed)
        if side.oracle_docs:
            out = [t.with_doc(self.oracle[t.name]) if t.name in self.oracle else t for t in out]
        if side.optimized_docs:
            out = [t.with_doc(self.docs[t.name]) if t.name in self.docs else t for t in out]
        return out

    def demos_for(self, tools: Sequence[Tool], side: Side) -> list[Demo]:
        if not side.demos or self.k <= 0:
            return []
        out: list[Demo] = []
        for tool in tools:
            out.extend(list(self.demos.get(tool.name, ()))[: self.k])
        return out
