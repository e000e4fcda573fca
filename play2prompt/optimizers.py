"""Optimization methods by name: Play2Prompt and the baselines it is compared with.

A method optimizes one tool at a time: ``optimize_tool(tool, engine)`` returns the tool's
:class:`~play2prompt.results.ToolResult` (stored in the run store, so a finished tool is not
redone), ``tool_budget(config)`` is the number of progress steps of one tool (the built-in
methods' steps are their LLM calls, counted by ``engine.for_tool(name, count_calls=True)``,
so theirs is the calls one tool is expected to take). The run around
it (store, models, runner, ``result.json``, ``tools.optimized.json``, cost) is the same for
every method (:func:`play2prompt.optimize.optimize`), so export, serve, report and eval work
on every method's run folder unchanged. The run's ``config.method`` names the method; a runner
(:mod:`play2prompt.runners`) loads it here and calls its ``optimize_tool`` for each tool.

Built in: ``play2prompt`` (the default: tool play, example search, doc search;
:mod:`play2prompt.pipeline`), ``easytool`` (one rewrite per tool from its doc alone) and
``draft`` (explore, analyse, rewrite for a fixed number of rounds); see
:mod:`play2prompt.baselines`. A method is a module (or an object) with those two callables;
others register under the entry-point group ``play2prompt.optimizers`` as ``module`` or
``module:attr``; one that never asks the generator to judge or grade sets
``uses_llm_grading = False`` (the run then skips the generator's calibration); one that
looks at the whole tool set once every tool is done has an async ``finish_run(results,
engine)`` returning the results (Play2Prompt's tool-set check). Nothing is imported until a
method is chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from play2prompt.errors import UserError
from play2prompt.plugins import load_target, registered

if TYPE_CHECKING:
    from play2prompt.config import OptimizeConfig
    from play2prompt.engine import Engine
    from play2prompt.results import ToolResult
    from play2prompt.tools.model import Tool

ENTRY_POINT_GROUP = "play2prompt.optimizers"
DEFAULT_METHOD = "play2prompt"

BUILTIN_OPTIMIZERS: dict[str, str] = {
    "play2prompt": "play2prompt.pipeline",
    "easytool": "play2prompt.baselines.easytool",
    "draft": "play2prompt.baselines.draft",
}


class Optimizer(Protocol):
    """One optimization method (a module satisfies it with two functions)."""

    async def optimize_tool(self, tool: Tool, engine: Engine) -> ToolResult: ...

    def tool_budget(self, config: OptimizeConfig) -> int: ...


def available_optimizers() -> dict[str, str]:
    """Method name -> ``module`` or ``module:attr``: the built-in ones and the entry points'."""
    return registered(BUILTIN_OPTIMIZERS, ENTRY_POINT_GROUP)


def check_method(name: str) -> str:
    """``name`` when it is a known method, else one line naming the known ones."""
    known = available_optimizers()
    if name not in known:
        raise UserError(f"unknown method {name!r} (one of {', '.join(known)})")
    return name


def uses_llm_grading(name: str) -> bool:
    """Whether method ``name`` asks the generator to judge or grade (so a run measures whether
    it can: Play2Prompt's calibration). A method says no with ``uses_llm_grading = False``."""
    return bool(getattr(load_optimizer(name), "uses_llm_grading", True))


def load_optimizer(name: str) -> Optimizer:
    """The method named ``name`` (imported now)."""
    target = available_optimizers()[check_method(name)]
    obj = load_target(target)
    missing = [f for f in ("optimize_tool", "tool_budget") if not callable(getattr(obj, f, None))]
    if missing:
        raise UserError(f"method {name!r} ({target}) has no {' or '.join(missing)}")
    return cast(Optimizer, obj)
