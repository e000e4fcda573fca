"""What a sweep optimizes and evaluates: a benchmark, or the user's tools.json plus a query file.

The tools optimized are the ones the evaluated queries call (after ``limit``), so a small sweep
optimizes only what it measures.

Opaque (``--opaque``): a tools file's suite shows every query the same names
(``suite.shown_names``, :mod:`play2prompt.evaluation.opaque`); a benchmark whose questions each
show their tools under names of their own (BFCL: ``function_1..`` per question) gives a
:class:`TargetView` (its ``opaque_view``) that shows and evaluates the sides as its own
``p2p eval --opaque`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from play2prompt.benchmarks import Benchmark
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalSuite, PromptSide
from play2prompt.evaluation.session import limit_items
from play2prompt.jsonutil import stable_hash
from play2prompt.tools.model import Tool
from play2prompt.tools.opacity import real_name

if TYPE_CHECKING:
    from play2prompt.evaluation.runner import EvalSettings, Evaluator
    from play2prompt.progress import Reporter
    from play2prompt.store.db import RunStore
    from play2prompt.tools.executors._base import ExecContext


class TargetView(Protocol):
    """How a target shows a side and evaluates it, when that is not the plain
    :class:`~play2prompt.evaluation.runner.Evaluator`'s way (a benchmark's opaque suite)."""

    def side(self, side: PromptSide, run: Any = None,
             oracle: Sequence[Tool] = ()) -> PromptSide:
        """``side`` (made with ``run``'s prompts or the ``oracle`` docs) as evaluated."""

    def evaluator(self, suite: EvalSuite, lm: Any, store: RunStore, settings: EvalSettings,
                  ctx: ExecContext, reporter: Reporter | None = None, *,
                  drop: float = 0.0) -> Evaluator:
        """The evaluator of ``suite``; ``drop``: the parameter-description dropout, which it
        applies itself (the sides it is given carry none)."""


@dataclass
class SweepTarget:
    name: str                      # label of the optimization runs
    suite: EvalSuite               # the queries evaluated (already limited)
    tools: list[Tool]              # the tools optimized
    base_dir: Path | None = None
    exec_ctx: Any = None
    oracle: list[Tool] = field(default_factory=list)   # hand-written correct docs (a side)
    view: TargetView | None = None   # None: the plain evaluator, sides as opaque_sides shows

    def fingerprint(self) -> str:
        """Changes when the tools optimized change (part of the optimization key)."""
        return stable_hash([t.to_dict() for t in self.tools], length=12)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "suite": self.suite.name, "items": len(self.suite.items),
                "opaque": self.suite.opaque,
                "categories": self.suite.category_order(),
                "tools": [t.name for t in self.tools],
                "oracle": {t.name: t.doc.to_dict() for t in self.oracle}}

    def with_oracle(self, path: Path) -> SweepTarget:
        """The target with the oracle docs of tools file ``path`` (checked against the
        evaluated tools)."""
        from play2prompt.evaluation.session import load_oracle

        return replace(self, oracle=load_oracle(path, self.suite))


def called_tools(suite: EvalSuite) -> list[str]:
    """Names of the tools the suite's ground-truth calls use, in order of appearance."""
    return list(dict.fromkeys(c.name for item in suite.items for c in item.calls))


def called_real_tools(suite: EvalSuite) -> list[str]:
    """Real names of the tools the suite's ground-truth calls use (an item's own specs may show
    them under names of its own), in order of appearance."""
    out: list[str] = []
    for item in suite.items:
        specs = {s.name: s for s in item.specs}
        out.extend(real_name(specs[c.name]) if c.name in specs else c.name for c in item.calls)
    return list(dict.fromkeys(out))


def benchmark_target(bench: Benchmark, data_dir: Path | None, subset: str | None,
                     limit: int | None, opaque: str | None = None) -> SweepTarget:
    """A benchmark's evaluation suite (``subset``: e.g. BFCL categories, comma-separated):
    the first ``limit`` queries of each category, and the tools they call. ``opaque``: the
    suite and tools as the benchmark shows them opaque (one that has an ``opaque_view``)."""
    if opaque:
        return _opaque_benchmark_target(bench, data_dir, subset, limit, opaque)
    suite = bench.eval_suite(data_dir, subset)
    if suite is None:
        raise UserError(f"p2p sweep supports a benchmark with an evaluation suite or a "
                        f"tools.json with --queries, got {bench.name!r}")
    suite = limit_items(suite, limit)
    if not suite.items:
        raise UserError(f"no {bench.name} query to evaluate in this subset")
    loaded = bench.optimize_tools(data_dir=data_dir, subset=subset, select=None, config=None)
    used = set(called_tools(suite))
    tools = [t for t in loaded.tools if t.name in used]
    return SweepTarget(f"{bench.name}-{'-'.join(suite.categories)}", suite, tools,
                       loaded.base_dir, loaded.exec_ctx)


def _opaque_benchmark_target(bench: Benchmark, data_dir: Path | None, subset: str | None,
                             limit: int | None, opaque: str) -> SweepTarget:
    """The benchmark's suite loaded under ``opaque`` and its tools optimized under it (their
    run-level names), matched by real name: the questions' names are their own."""
    view_of = getattr(bench, "opaque_view", None)
    if view_of is None:
        raise UserError(f"p2p sweep --opaque goes with a tools file or --benchmark bfcl; "
                        f"{bench.name} has no opaque evaluation")
    eval_suite: Any = bench.eval_suite
    suite = limit_items(eval_suite(data_dir, subset, opaque=opaque), limit)
    if not suite.items:
        raise UserError(f"no {bench.name} query to evaluate in this subset")
    optimize_tools: Any = bench.optimize_tools
    loaded = optimize_tools(data_dir=data_dir, subset=subset, select=None, config=None,
                            opaque=opaque)
    used = set(called_real_tools(suite))
    tools = [t for t in loaded.tools if real_name(t) in used]
    name = f"{bench.name}-{'-'.join(suite.categories)}-opaque-{suite.opaque}"
    return SweepTarget(name, suite, tools, loaded.base_dir, loaded.exec_ctx,
                       view=view_of(tools))


def tools_target(tools_file: Path, queries: Path, module: str | None = None,
                 limit: int | None = None, opaque: str | None = None) -> SweepTarget:
    """The user's tools.json and a JSON Lines query file (see ``p2p eval tools.json``);
    ``opaque``: the tools shown as ``--opaque`` shows them (every method optimizes and is
    evaluated on the opaque tools, the real ones run; :mod:`play2prompt.evaluation.opaque`)."""
    from play2prompt.evaluation.opaque import opaque_suite
    from play2prompt.evaluation.queries import load_queries, tools_suite
    from play2prompt.tools.loading import load_tools
    from play2prompt.tools.opacity import Opacity

    tools = load_tools(tools_file, module=module)
    query_file = load_queries(queries, tools)
    opacity = Opacity.parse(opaque)
    if opacity:
        suite = opaque_suite(tools, query_file, opacity, tools_file.stem, tools_file.parent)
        tools = list(suite.tools.values())
    else:
        suite = tools_suite(tools, query_file, tools_file.stem, tools_file.parent)
    suite = limit_items(suite, limit)
    used = set(called_tools(suite))
    return SweepTarget(tools_file.stem, suite, [t for t in tools if t.name in used],
                       tools_file.parent)


def suite_named(suite: EvalSuite, key: str) -> EvalSuite:
    """The suite under its own name in the sweep's evaluation store (``name@key``), so every
    evaluated configuration keeps its own records there."""
    return replace(suite, name=f"{suite.name}@{key}")
