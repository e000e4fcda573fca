"""A finished run with the docs a test chooses (changed, kept, demos), written as a run
writes its result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from play2prompt.agent.prompt import Demo
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.runs import create_run
from play2prompt.tools.model import Tool, ToolDoc


def make_run(runs_dir: Path, tools: Sequence[Tool], docs: Mapping[str, Mapping],
             run_id: str = "r") -> str:
    """``docs``: tool -> {"description": ..., "params": {...}, "changed": bool,
    "demos": [(query, arguments), ...]}; a tool not named keeps its doc (not changed)."""
    store = create_run(runs_dir, run_id=run_id)
    store.close()
    results = {}
    for tool in tools:
        spec = docs.get(tool.name, {})
        params = {**tool.doc.params, **spec.get("params", {})}
        doc = ToolDoc(spec.get("description", tool.description), params)
        demos = tuple(Demo(q, (_call(tool.name, args),)) for q, args in spec.get("demos", []))
        results[tool.name] = ToolResult(tool.name, tool, doc, demos,
                                        bool(spec.get("changed", bool(spec))))
    RunResult(run_id, runs_dir / run_id, results).write()
    return run_id


def _call(name: str, args: Mapping):
    from play2prompt.tools.model import Invocation

    return Invocation(name, dict(args))
