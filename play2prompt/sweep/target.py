"""What a sweep optimizes and evaluates: a benchmark, or the user's tools.json plus a query file.

The tools optimized are the ones the evaluated queries call (after ``limit``), so a small sweep
optimizes only what it measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from play2prompt.benchmarks import Benchmark
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalSuite
from play2prompt.evaluation.session import limit_items
from play2prompt.jsonutil import stable_hash
from play2prompt.tools.model import Tool


@dataclass
class SweepTarget:
    name: str                      # label of the optimization runs
    suite: EvalSuite               # the queries evaluated (already limited)
    tools: list[Tool]              # the tools optimized
    base_dir: Path | None = None
    exec_ctx: Any = None
    oracle: list[Tool] = field(default_factory=list)   # hand-written correct docs (a side)

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


def benchmark_target(bench: Benchmark, data_dir: Path | None, subset: str | None,
                     limit: int | None) -> SweepTarget:
    """A benchmark's evaluation suite (``subset``: e.g. BFCL categories, comma-separated):
    the first ``limit`` queries of each category, and the tools they call."""
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
