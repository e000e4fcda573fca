"""A finished run's tools bound to what really runs them, for the agent-framework integrations.

Every framework integration (:mod:`~play2prompt.integrations.openai_agents`,
:mod:`~play2prompt.integrations.pydantic_ai`, :mod:`~play2prompt.integrations.langchain`,
:mod:`~play2prompt.integrations.llamaindex`) builds its framework's own tool objects from the
:class:`RunTool` records made here: the run's chosen documentation (the optimized one), the
parameter schema with the optimized parameter descriptions, the verified demos, and a call
that executes the tool for real:

- a tool whose executor is ``{"python": "module:function"}`` (or that ``module`` supplies) is
  called as that Python function, imported and called in this process: the framework's tool
  wraps the real callable (no worker process, no timeout: the user's own agent calls it);
- any other executor (``http``, ``mcp``, ``sqlite``, ...) goes through play2prompt's
  :class:`~play2prompt.tools.runtime.ToolRuntime`, as ``p2p mcp`` serves it (arguments coerced
  as a lax server would, then checked; no consent gate: the calls are the user's own).

Arguments are checked against the schema first (a violation is a :class:`ToolCallFailed` of
type ``schema``); a failure of the tool is a :class:`ToolCallFailed` naming its type. None of
the frameworks has a field for examples of a call (pydantic-ai's documentation says to put
few-shot examples in the description), so the demos go into the description, as the
``--demos-inline`` exports put them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, prepare
from play2prompt.emit.frameworks import recorded_base_dir, run_data
from play2prompt.errors import UserError
from play2prompt.results import RunResult, load_run_result
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.executors._worker import resolve_callable
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.runtime import ToolRuntime
from play2prompt.tools.validate import lax_arguments, validation_errors

RunRef = str | Path | RunResult | Mapping[str, Any]


class ToolCallFailed(Exception):
    """A tool call that did not produce an output: ``error_type`` is ``schema`` (the
    arguments do not fit the schema), ``exception`` (the function raised) or the runtime's
    observation type (``timeout``, ``http``, ``unavailable``, ...)."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.message = message


@dataclass(frozen=True)
class RunTool:
    """One tool of a run, documented as the run chose, bound to what executes it."""

    export: ExportTool
    function: Callable[..., Any] | None   # the real Python function, when it has one
    runtime: ToolRuntime | None = None    # what executes it otherwise

    @property
    def name(self) -> str:
        return self.export.name

    @property
    def description(self) -> str:
        """The run's description, with its verified demos appended (the inline form)."""
        return self.export.description(inline=True)

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters' JSON Schema with the run's parameter descriptions."""
        return dict(self.export.tool.parameters)

    @property
    def examples(self) -> list[dict[str, Any]]:
        """The arguments of each verified demo's call of this tool."""
        return [dict(c.arguments) for d in self.export.demos for c in d.calls
                if c.name == self.name]

    def checked(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """``arguments`` coerced as a lax server would, or :class:`ToolCallFailed`."""
        if not isinstance(arguments, Mapping | None):
            raise ToolCallFailed("schema", "the arguments must be a JSON object, got "
                                 f"{type(arguments).__name__}")
        args = lax_arguments(self.parameters, dict(arguments or {}))
        errors = validation_errors(self.parameters, args)
        if errors:
            raise ToolCallFailed("schema", "; ".join(errors[:5]))
        return dict(args)

    def call(self, arguments: Mapping[str, Any] | None = None) -> Any:
        """Execute the tool: its output, or :class:`ToolCallFailed`."""
        args = self.checked(arguments)
        if self.function is None:
            return _run_sync(self.acall(args))
        try:
            out = self.function(**args)
        except Exception as exc:  # noqa: BLE001 - the tool's own failure, typed
            raise ToolCallFailed("exception", f"{type(exc).__name__}: {exc}") from exc
        return _run_sync(out) if inspect.isawaitable(out) else out

    async def acall(self, arguments: Mapping[str, Any] | None = None) -> Any:
        """:meth:`call` for an event loop (a blocking function runs in a worker thread)."""
        args = self.checked(arguments)
        if self.function is not None:
            try:
                if inspect.iscoroutinefunction(self.function):
                    return await self.function(**args)
                return await asyncio.to_thread(self.function, **args)
            except Exception as exc:  # noqa: BLE001 - the tool's own failure, typed
                raise ToolCallFailed("exception", f"{type(exc).__name__}: {exc}") from exc
        assert self.runtime is not None
        obs = await self.runtime.run(Invocation(self.name, args))
        if not obs.ok:
            raise ToolCallFailed(obs.error_type or "error", obs.error or "")
        return obs.output


def run_tools(run: RunRef, module: Any = None, *, demos: bool | int = True,
              runs_dir: Path | None = None, base_dir: str | Path | None = None,
              original: bool = False) -> list[RunTool]:
    """The tools of ``run`` (a run id, a run folder, a :class:`RunResult` or its data, as
    the exported modules carry it), each bound to what executes it.

    ``module``: where the functions are when not (only) in the tools' executors: a module,
    a module name or ``.py`` file (as ``p2p optimize --module``), an object, or a mapping
    from tool name to callable; a function it has by the tool's name is used instead of the
    executor. ``demos``: the verified demos in each description (True: all the run kept, an
    int: at most that many, False: none). ``base_dir``: the folder the executors' relative
    paths start from (default: the one the run was started from, else the working folder).
    ``original``: the documentation the run started from, without demos."""
    result = as_run(run, runs_dir, base_dir)
    k = None if demos is True else int(demos)
    options = ExportOptions(demos=k, original=original)
    base = Path(base_dir or recorded_base_dir(result.run_dir) or Path.cwd())
    functions = _functions(module, base)
    exported = prepare(result, options)
    bound = {t.name: functions(t.name) or _python_function(t.tool, base) for t in exported}
    missing = [t.name for t in exported if bound[t.name] is None and not t.tool.executor]
    if missing:
        raise UserError(f"no function for {', '.join(missing)}: the tools name no executor; "
                        "pass module= (a module, a .py file or a mapping by tool name)")
    others = [t.tool for t in exported if bound[t.name] is None]
    runtime = _runtime(others, base) if others else None
    return [RunTool(t, bound[t.name], None if bound[t.name] else runtime) for t in exported]


def as_run(run: RunRef, runs_dir: Path | None = None,
           base_dir: str | Path | None = None) -> RunResult:
    """A published :class:`RunResult` for any of :func:`run_tools`'s run references."""
    if isinstance(run, RunResult):
        return run.published()
    if isinstance(run, Mapping):
        try:
            found = RunResult.from_dict(run, Path(base_dir or Path.cwd()))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise UserError(f"not a run's data ({type(exc).__name__}: {exc})") from exc
        return found.published()
    return load_run_result(run, runs_dir)


def _functions(module: Any, base: Path) -> Callable[[str], Callable[..., Any] | None]:
    """Tool name -> its function in ``module`` (see :func:`run_tools`), or None."""
    if module is None:
        return lambda name: None
    if isinstance(module, Mapping):
        found = dict(module)
        return lambda name: found.get(name) if callable(found.get(name)) else None
    source = _import(str(module), base) if isinstance(module, (str, Path)) else module

    def lookup(name: str) -> Callable[..., Any] | None:
        for attr in (name, name.replace("-", "_").replace(".", "_")):
            fn = getattr(source, attr, None)
            if callable(fn) and not isinstance(fn, type):
                return fn
        return None

    return lookup


def _import(ref: str, base: Path) -> ModuleType:
    from play2prompt.tools.executors._worker import _load_module

    try:
        return _load_module(ref, _search_paths(base))
    except (ImportError, OSError) as exc:
        raise UserError(f"module {ref!r}: cannot import it ({exc})") from exc


def _python_function(tool: Tool, base: Path) -> Callable[..., Any] | None:
    """The function a ``python`` executor names, imported here; None for other executors."""
    spec = tool.executor or {}
    target = spec.get("python")
    if target is None:
        return None
    ref = target.get("function") if isinstance(target, Mapping) else target
    try:
        return resolve_callable(str(ref), _search_paths(base))
    except (ImportError, AttributeError, TypeError, ValueError, OSError) as exc:
        raise UserError(f"tool {tool.name!r}: cannot load {ref!r} ({type(exc).__name__}: "
                        f"{exc}); pass module= or base_dir=") from exc


def _search_paths(base: Path) -> list[str]:
    base = Path(base).resolve()
    return [str(Path.cwd()), str(base), str(base.parent)]


def _runtime(tools: Sequence[Tool], base: Path) -> ToolRuntime:
    """A runtime for the tools without a Python function; its resources are released when
    it is no longer used (or at exit)."""
    ctx = ExecContext(base_dir=base)
    runtime = ToolRuntime(tools, ctx, store=None, fail_after=None, lenient=True)
    weakref.finalize(runtime, ctx.close)
    return runtime


def _run_sync(awaitable: Any) -> Any:
    """Run a coroutine to completion from synchronous code, also when this thread already
    runs an event loop (then in a thread of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(awaitable))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _awaited(awaitable)).result()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


__all__ = ["RunTool", "ToolCallFailed", "as_run", "recorded_base_dir", "run_data",
           "run_tools"]
