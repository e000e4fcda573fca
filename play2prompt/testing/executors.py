"""The contract every executor keeps, as a reusable test suite.

Subclass :class:`ExecutorContract` and give it a fixture ``case`` returning an
:class:`ExecutorCase`: a tool run by the executor, an execution context, arguments that work
and a way to make a call fail. Every ``test_*`` method then runs against it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import (
    ExecContext,
    Executor,
    executor_kind,
    find_executor,
    make_executor,
)
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.runtime import ToolRuntime


@dataclass
class ExecutorCase:
    """One executor under test.

    ``good``: arguments the tool answers, ``check``: what its output must satisfy;
    ``bad``: arguments (for ``bad_tool`` when given, else the tool) whose call fails."""

    tool: Tool
    ctx: ExecContext
    good: Mapping[str, Any]
    bad: Mapping[str, Any]
    check: Callable[[Any], bool] = field(default=lambda output: output is not None)
    bad_tool: Tool | None = None


class ExecutorContract:
    """What every executor guarantees: outcomes are observations, never exceptions."""

    def test_its_kind_is_registered(self, case: ExecutorCase) -> None:
        kind = executor_kind(case.tool.executor, case.tool.name)
        assert find_executor(kind) is not None
        assert isinstance(make_executor(case.tool, case.ctx), Executor)

    def test_a_good_call_is_an_ok_observation(self, case: ExecutorCase) -> None:
        obs = make_executor(case.tool, case.ctx).execute(case.good)
        assert isinstance(obs, Observation) and obs.ok, obs.error
        assert case.check(obs.output), obs.output
        assert obs.latency_s >= 0

    def test_the_async_path_agrees(self, case: ExecutorCase) -> None:
        executor = make_executor(case.tool, case.ctx)
        obs = asyncio.run(executor.aexecute(case.good))
        assert obs.ok and case.check(obs.output), obs.error

    def test_a_failing_call_is_an_error_observation(self, case: ExecutorCase) -> None:
        executor = make_executor(case.bad_tool or case.tool, case.ctx)
        for obs in (executor.execute(case.bad), asyncio.run(executor.aexecute(case.bad))):
            assert isinstance(obs, Observation) and not obs.ok
            assert obs.error_type and obs.error

    def test_the_runtime_logs_it_and_serves_a_repeat(self, case: ExecutorCase,
                                                     tmp_path: Path) -> None:
        store = RunStore(tmp_path / "exec" / "run.db")
        runtime = ToolRuntime([case.tool], case.ctx, store)
        try:
            inv = Invocation(case.tool.name, dict(case.good))
            first = asyncio.run(runtime.run(inv))
            again = asyncio.run(runtime.run(inv))
            assert first.ok and again.ok and again.output == first.output
            assert runtime.executions == 1 and runtime.cache_hits == 1
            assert store.execution_stats()[case.tool.name]["total"] == 1
        finally:
            store.close()

    def test_closing_is_safe(self, case: ExecutorCase) -> None:
        executor = make_executor(case.tool, case.ctx)
        executor.execute(case.good)
        executor.close()
        executor.close()
