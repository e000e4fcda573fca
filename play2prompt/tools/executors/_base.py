"""The executor interface and registry.

An executor runs one tool. A backend implements ``_call(arguments, timeout)`` and returns the
tool's output or raises; the base turns every outcome (output, exception, timeout, crash) into an
:class:`~play2prompt.tools.model.Observation`, so executing a tool never crashes a run.

Executors are chosen by the key of the tool's executor spec (``{"python": ...}``,
``{"http": ...}``, ...): the built-in ones below, then those registered under the entry-point
group ``play2prompt.executors`` (the built-in benchmarks' kinds are declared there, in
pyproject.toml), then those added with :func:`register_executor` (a benchmark's
``executors``, added when it is loaded). This registry never asks the benchmark registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from play2prompt.errors import ToolsFileError
from play2prompt.plugins import Registry, load_target
from play2prompt.scrub import Scrubber
from play2prompt.tools.model import Observation, Tool
from play2prompt.tools.observations import DEFAULT_LIMIT

ENTRY_POINT_GROUP = "play2prompt.executors"

BUILTIN_EXECUTORS: dict[str, str] = {
    "python": "play2prompt.tools.executors.python:PythonExecutor",
    "callable": "play2prompt.tools.executors.callable:CallableExecutor",
    "http": "play2prompt.tools.executors.http:HttpExecutor",
    "sqlite": "play2prompt.tools.executors.sqlite:SqliteExecutor",
    "mcp": "play2prompt.tools.executors.mcp:McpExecutor",
    "simulated": "play2prompt.tools.executors.simulated:SimulatedExecutor",
}

EXECUTORS = Registry(BUILTIN_EXECUTORS, ENTRY_POINT_GROUP)

# Keys of an executor spec that configure the base rather than name a backend.
COMMON_KEYS = {"timeout", "isolation", "match", "sandbox"}


class ToolCallError(Exception):
    """Raised by an executor for a typed failure (``error_type`` names it)."""

    def __init__(self, message: str, error_type: str = "exception") -> None:
        super().__init__(message)
        self.error_type = error_type


@dataclass
class ExecContext:
    """What executors may need besides their spec: where paths are relative to, an LM for
    simulated APIs, the run store, in-process callables by key (the ``callable`` executor),
    shared resources (worker processes) to close at the end, the bound on one observation
    (characters) and the run's scrubber (its secrets: whatever publishes tool output or error
    text passes it through ``scrubber.text``/``.value``).

    ``allow_side_effects``: the tools that may change things when executed (names, or
    ``"all"``); None, the default, sets no gate (the user's own calls, as ``p2p mcp`` makes).
    Play, evaluation and verify set a tuple, so a tool that is not read-only runs only with
    consent (:mod:`play2prompt.tools.effects`)."""

    base_dir: Path = field(default_factory=Path.cwd)
    lm: Any = None
    store: Any = None
    default_timeout: float = 10.0
    resources: dict[str, Any] = field(default_factory=dict)
    observation_limit: int | None = DEFAULT_LIMIT
    scrubber: Scrubber = field(default_factory=Scrubber)
    callables: dict[str, Any] = field(default_factory=dict)
    allow_side_effects: tuple[str, ...] | None = None

    def close(self) -> None:
        for res in list(self.resources.values()):
            closer = getattr(res, "close", None)
            if callable(closer):
                with contextlib.suppress(Exception):  # closing must not fail a finished run
                    closer()
        self.resources.clear()


class Executor(ABC):
    """Run one tool. Implement :meth:`_call`; everything else lives here.

    ``needs_lm``: the executor may ask a language model (``ctx.lm``) for an answer (an
    LLM-simulated API); what must not call a model (``p2p verify``) leaves such tools out."""

    needs_lm: bool = False

    def __init__(self, tool: Tool, spec: Mapping[str, Any], ctx: ExecContext) -> None:
        self.tool = tool
        self.spec = spec
        self.ctx = ctx
        self.timeout = float(spec.get("timeout", ctx.default_timeout))

    @abstractmethod
    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        """Run the tool and return its output; raise on failure."""

    async def _acall(self, arguments: dict[str, Any], timeout: float) -> Any:
        """The async form of :meth:`_call`: by default :meth:`_call` in a worker thread.
        Executors whose work is itself async (an LLM-simulated API awaiting the run's LM)
        override it, so no worker thread blocks on the event loop."""
        return await asyncio.to_thread(self._call, arguments, timeout)

    def execute(self, arguments: Mapping[str, Any], timeout: float | None = None) -> Observation:
        start = time.perf_counter()
        try:
            output = self._call(dict(arguments), timeout or self.timeout)
        except Exception as exc:  # noqa: BLE001 - a tool's failure is an observation
            return _failure(exc, start)
        return Observation.success(output, time.perf_counter() - start)

    async def aexecute(self, arguments: Mapping[str, Any],
                       timeout: float | None = None) -> Observation:
        """What :class:`~play2prompt.tools.runtime.ToolRuntime` awaits: :meth:`execute`'s
        guarantees (every outcome is an observation) on top of :meth:`_acall`."""
        start = time.perf_counter()
        try:
            output = await self._acall(dict(arguments), timeout or self.timeout)
        except Exception as exc:  # noqa: BLE001 - a tool's failure is an observation
            return _failure(exc, start)
        return Observation.success(output, time.perf_counter() - start)

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (connections, processes)."""


def _failure(exc: Exception, start: float) -> Observation:
    if isinstance(exc, ToolCallError):
        return Observation.failure(exc.error_type, str(exc), time.perf_counter() - start)
    message = f"{type(exc).__name__}: {exc}"
    return Observation.failure("exception", message, time.perf_counter() - start)


def executor_kind(spec: Mapping[str, Any] | None, tool_name: str = "?") -> str:
    """The backend name of an executor spec: its one key that is not a common option."""
    if not spec:
        raise ToolsFileError(f"tool {tool_name!r}: no executor (add 'executor' or use --module)")
    kinds = [k for k in spec if k not in COMMON_KEYS]
    if len(kinds) != 1:
        raise ToolsFileError(
            f"tool {tool_name!r}: executor must name exactly one kind, got {sorted(kinds)}"
        )
    return kinds[0]


def register_executor(kind: str, target: str) -> None:
    """Make executor ``kind`` (``module:Class``) known, unless the kind is taken."""
    EXECUTORS.add(kind, target)


def available_executors() -> dict[str, str]:
    """Kind -> ``module:Class``: built-in, entry points, then the registered ones."""
    return EXECUTORS.targets()


def find_executor(kind: str) -> str | None:
    """Where executor ``kind`` lives (None: unknown)."""
    return EXECUTORS.find(kind)


def executor_class(kind: str, tool_name: str = "?") -> type[Executor]:
    target = find_executor(kind)
    if target is None:
        known = available_executors()
        raise ToolsFileError(
            f"tool {tool_name!r}: unknown executor {kind!r} (known: {', '.join(sorted(known))})"
        )
    return cast("type[Executor]", load_target(target))


def make_executor(tool: Tool, ctx: ExecContext) -> Executor:
    """The executor of ``tool`` (its kind's class); the runtime wraps one with a folder
    sandbox in :func:`play2prompt.tools.sandbox.executor_for`."""
    kind = executor_kind(tool.executor, tool.name)
    cls = executor_class(kind, tool.name)
    return cls(tool, tool.executor or {}, ctx)
