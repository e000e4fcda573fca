"""Where the tools of a run are optimized: the runners, by name.

``optimize()`` hands the tools to a runner (``local``: concurrently in this process, here;
``ray``: one Ray task per tool, :mod:`play2prompt.distributed`); a runner asks the method
registry (:func:`play2prompt.optimizers.load_optimizer`, ``config.method``) for the method and
calls its ``optimize_tool`` for each tool. Every runner takes the same :class:`Launch` and
returns the results by tool and the workers' statistics.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from play2prompt.engine import Engine
from play2prompt.errors import LMError, UserError
from play2prompt.lm._base import LM
from play2prompt.lm.registry import Concurrency
from play2prompt.optimizers import load_optimizer
from play2prompt.results import ToolResult
from play2prompt.store.meta import Meta
from play2prompt.tools.model import Tool

# Each is a ToolRunner, imported only when chosen (Ray is an optional extra).
RUNNERS: dict[str, str] = {
    "local": "play2prompt.runners:run_local",
    "ray": "play2prompt.distributed:run_on_ray",
}


@dataclass(frozen=True)
class Launch:
    """What a runner needs besides the engine to rebuild it elsewhere (a Ray worker): the
    model specs (or LM objects) as the caller gave them, the concurrency bound, the folders."""

    models: Mapping[str, str | LM | None]   # generator / task_model / doc_generator
    max_concurrency: Concurrency = None
    metaprompts_dir: str | Path | None = None
    base_dir: Path | None = None
    address: str | None = None              # a cluster's address (ray)


WorkerStats = list[dict[str, Any]]


class ToolRunner(Protocol):
    """Where the tools of a run are optimized: their results and the workers' statistics."""

    def __call__(self, tools: Sequence[Tool], engine: Engine,
                 launch: Launch) -> tuple[dict[str, ToolResult], WorkerStats]: ...


def runner(name: str) -> ToolRunner:
    """The tool runner named ``name`` (imported only when chosen)."""
    if name not in RUNNERS:
        raise UserError(f"unknown executor {name!r} ({' or '.join(RUNNERS)})")
    module_name, _, attr = RUNNERS[name].partition(":")
    return getattr(importlib.import_module(module_name), attr)


async def optimize_tools(tools: Sequence[Tool], engine: Engine) -> dict[str, ToolResult]:
    """Optimize the tools concurrently with the run's method (``config.method``). A tool that
    fails does not stop the others (their work is stored); the first failure is raised once
    all are finished."""
    method = load_optimizer(engine.config.method)
    outcomes = await asyncio.gather(*(method.optimize_tool(t, engine) for t in tools),
                                    return_exceptions=True)
    return collect_results(tools, outcomes, engine.store.get_meta(Meta.RUN_ID))


async def finish_run(results: Mapping[str, ToolResult],
                     engine: Engine) -> dict[str, ToolResult]:
    """The run's method over the whole tool set once every tool is done: its optional
    ``finish_run(results, engine)`` (Play2Prompt's tool-set check), else the results as
    they are."""
    hook = getattr(load_optimizer(engine.config.method), "finish_run", None)
    return dict(results) if hook is None else await hook(results, engine)


def run_local(tools: Sequence[Tool], engine: Engine,
              launch: Launch) -> tuple[dict[str, ToolResult], WorkerStats]:
    """Every tool here, concurrently (asyncio); the synchronous form of
    :func:`optimize_tools`."""
    return asyncio.run(optimize_tools(tools, engine)), []


def collect_results(tools: Sequence[Tool], outcomes: Sequence[Any],
                    run_id: str | None) -> dict[str, ToolResult]:
    """The results by tool name, or the first failure, naming the tool and how to go on."""
    failed = [(t.name, o) for t, o in zip(tools, outcomes) if isinstance(o, BaseException)]
    for _, exc in failed:
        if not isinstance(exc, Exception):  # an interrupt: pass it on as it is
            raise exc
    if failed:
        name, exc = failed[0]
        done = len(tools) - len(failed)
        state = (f"({len(failed)} of {len(tools)} tools failed, {done} stored; continue with "
                 f"--resume {run_id})")
        if not isinstance(exc, UserError):  # a bug: keep its traceback, say where it happened
            exc.add_note(f"while optimizing tool {name!r} {state}")
            raise exc
        message = f"tool {name!r}: {exc} {state}"
        raise (LMError if isinstance(exc, LMError) else UserError)(message) from exc
    return {r.name: r for r in outcomes}
