"""ToolRuntime: validate, execute and log tool invocations for a set of tools.

Arguments are checked against the tool's JSON Schema first; a violation is a cheap ``schema``
rejection and the tool is not run. Every observation is capped (``ExecContext.observation_limit``
characters, the cut marked with the full size). Executions are logged in the run store and an
invocation already seen (same tool, same arguments) is served from the log instead of being run
again, unless it failed transiently (timeout, crash, unreachable, 5xx: tried again); identical
invocations in flight at the same time share one execution. A tool that may change things runs
only with consent (``ExecContext.allow_side_effects``, :mod:`play2prompt.tools.effects`):
without it every call is a ``consent`` observation, nothing is executed or logged, and
:attr:`ToolRuntime.refused` counts the calls refused per tool. Before its first execution or
consent decision the runtime reads its MCP tools' annotations from their servers
(:meth:`ToolRuntime.preflight`, :mod:`play2prompt.tools.live_annotations`): the stricter of
the recorded and the live annotations decides. A tool that cannot run
(:mod:`play2prompt.tools.health`: ``fail_after`` identical crashes, timeouts or start failures
and no execution that ran) raises :class:`~play2prompt.tools.health.ToolCannotRun` from
:meth:`ToolRuntime.run`, then and on every later call, so its optimization stops at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from play2prompt.scrub import Scrubber
from play2prompt.tools.effects import CONSENT, needs_consent, refusal_text
from play2prompt.tools.executors._base import ExecContext, Executor
from play2prompt.tools.health import FAIL_AFTER, ToolCannotRun, ToolHealth
from play2prompt.tools.live_annotations import checked_tools
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.observations import cap, is_transient
from play2prompt.tools.sandbox import executor_for
from play2prompt.tools.validate import lax_arguments, validation_errors


class ToolRuntime:
    def __init__(self, tools: Sequence[Tool], ctx: ExecContext | None = None,
                 store: Any = None, fail_after: int | None = FAIL_AFTER,
                 lenient: bool = False) -> None:
        """``fail_after``: identical failures of the environment (and nothing run) after which
        a tool is stopped (:class:`ToolCannotRun`); None: never (a server answering its user's
        calls one by one). ``lenient``: arguments checked no more strictly than the tool's own
        server would (a proxy): an MCP tool's go to its server as given, others are coerced as
        pydantic's lax mode does (:func:`~play2prompt.tools.validate.lax_arguments`) first."""
        self.tools = {t.name: t for t in tools}
        self.ctx = ctx or ExecContext()
        self.store = store if store is not None else self.ctx.store
        self._executors: dict[str, Executor] = {}
        self.executions = 0  # real executions (not served from the log)
        self.cache_hits = 0  # served from the log or shared with an identical one in flight
        self._inflight: dict[str, asyncio.Future[Observation]] = {}
        self.refused: dict[str, int] = {}  # calls not executed for want of consent, per tool
        self.fail_after = fail_after
        self._health: dict[str, ToolHealth] = {}
        self.stopped: dict[str, ToolCannotRun] = {}  # tools that cannot run, why
        self.lenient = lenient
        self._preflown = not any("mcp" in (t.executor or {}) for t in tools)

    def preflight(self) -> None:
        """Read the MCP tools' annotations from their servers, once (the stricter of those
        and the recorded ones decides consent from now on). Blocks: an event loop calls it in
        a worker thread (:meth:`run` does)."""
        if self._preflown:
            return
        checked = checked_tools(list(self.tools.values()), self.ctx)
        self.tools = {t.name: t for t in checked}
        self._preflown = True

    @property
    def scrubber(self) -> Scrubber:
        """The run's scrubber (what tools said, fit to publish)."""
        return self.ctx.scrubber

    def tool(self, name: str) -> Tool:
        return self.tools[name]

    def add(self, tool: Tool) -> None:
        self.tools[tool.name] = tool
        if "mcp" in (tool.executor or {}):
            self._preflown = False     # its annotations are read before its first use

    def executor(self, name: str) -> Executor:
        if name not in self._executors:
            self._executors[name] = executor_for(self.tools[name], self.ctx)
        return self._executors[name]

    def check(self, invocation: Invocation) -> Observation | None:
        """The rejection for an invocation that must not run (unknown tool, schema), or None."""
        tool = self.tools.get(invocation.name)
        if tool is None:
            return Observation.failure("unknown_tool", f"no tool named {invocation.name!r}")
        if self.lenient and "mcp" in (tool.executor or {}):
            return None   # its server validates (and coerces) the arguments itself
        errors = validation_errors(tool.parameters, invocation.arguments)
        if errors:
            return Observation.failure("schema", "; ".join(errors[:5]))
        return None

    def lax(self, invocation: Invocation) -> Invocation:
        """``invocation`` with its texts coerced where a lax server would (not for MCP tools:
        their server does it)."""
        tool = self.tools.get(invocation.name)
        if tool is None or "mcp" in (tool.executor or {}):
            return invocation
        return Invocation(invocation.name, lax_arguments(tool.parameters, invocation.arguments))

    def needs_consent(self, name: str) -> str | None:
        """Why tool ``name`` is not executed here (it may change things and the user did not
        allow it), or None when it may run."""
        self.preflight()
        tool = self.tools.get(name)
        return None if tool is None else needs_consent(tool, self.ctx.allow_side_effects)

    def refusal(self, invocation: Invocation) -> Observation | None:
        """The ``consent`` observation for a call that must not be executed, or None."""
        why = self.needs_consent(invocation.name)
        if why is None:
            return None
        self.refused[invocation.name] = self.refused.get(invocation.name, 0) + 1
        return Observation.failure(CONSENT, refusal_text(invocation.name, why))

    async def run(self, invocation: Invocation, timeout: float | None = None) -> Observation:
        if not self._preflown:
            await asyncio.to_thread(self.preflight)
        if self.lenient:
            invocation = self.lax(invocation)
        rejected = self.check(invocation) or self.refusal(invocation)
        if rejected is not None:
            return rejected
        if invocation.name in self.stopped:
            raise self.stopped[invocation.name]
        key = invocation.key()
        if self.store is not None:
            cached = self.store.get_execution(key)
            if cached is not None and not is_transient(cached):
                self.cache_hits += 1
                self._health.setdefault(invocation.name, ToolHealth(invocation.name)).record(
                    cached)
                return cached
        pending = self._inflight.get(key)
        if pending is not None and pending.get_loop() is asyncio.get_running_loop():
            self.cache_hits += 1
            return await asyncio.shield(pending)
        future: asyncio.Future[Observation] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            executor = self.executor(invocation.name)
            obs = cap(await executor.aexecute(dict(invocation.arguments), timeout),
                      self.ctx.observation_limit)
            self.executions += 1
            if self.store is not None:
                self.store.put_execution(key, invocation, obs)
            future.set_result(obs)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it, nobody else must
            raise
        finally:
            self._inflight.pop(key, None)
        self._watch(invocation.name, obs)
        return obs

    def _watch(self, name: str, obs: Observation) -> None:
        """Record a real execution; stop the tool when it cannot run."""
        if self.fail_after is None:
            return
        health = self._health.setdefault(name, ToolHealth(name))
        health.record(obs)
        try:
            health.check(obs, self.fail_after)
        except ToolCannotRun as exc:
            self.stopped[name] = exc
            raise

    def run_sync(self, invocation: Invocation, timeout: float | None = None) -> Observation:
        return asyncio.run(self.run(invocation, timeout))

    def close(self) -> None:
        for ex in self._executors.values():
            ex.close()
        self._executors.clear()
        self.ctx.close()
