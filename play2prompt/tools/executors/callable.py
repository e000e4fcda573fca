"""In-process callables: ``{"callable": "<key>"}``, the function itself rather than a reference.

For tools that exist only as objects in the caller's process (a DSPy program's tools, a
closure, a bound method): the caller hands the callables to the run through
:attr:`ExecContext.callables <play2prompt.tools.executors._base.ExecContext>` under the key the
spec names (usually the tool's name). The spec stays plain JSON, so the run store records it
and a resumed run works as long as the caller passes the same callables again.

Each call runs in a daemon thread: an exception becomes an ``exception`` observation and a call
that does not return within the timeout becomes a ``timeout`` observation (the thread is
abandoned; Python cannot kill it), so a tool never crashes or hangs the run. What the call
prints goes to standard error (:mod:`._stdout`), never to standard output. An ``async def``
callable is run to completion in that thread's own event loop. Callables cannot travel to
another process: with ``--runner ray`` every call reports the tool ``unavailable``.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Mapping
from typing import Any

from play2prompt.tools.executors._base import Executor, ToolCallError
from play2prompt.tools.executors._stdout import tool_prints_to_stderr


def call_with_timeout(fn: Callable[..., Any], arguments: Mapping[str, Any],
                      timeout: float) -> Any:
    """``fn(**arguments)`` in a daemon thread, abandoned after ``timeout`` seconds.

    Raises :class:`ToolCallError` (``timeout`` or ``exception``) instead of the tool's own
    exception, so the caller never sees anything but an output or a typed failure."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            with tool_prints_to_stderr():   # stdout may be a protocol or a JSON document
                out = fn(**arguments)
                if inspect.isawaitable(out):
                    out = asyncio.run(_awaited(out))
            box["out"] = out
        except BaseException as exc:  # noqa: BLE001 - reported as an observation
            box["exc"] = exc

    thread = threading.Thread(target=run, daemon=True, name="p2p-tool-call")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise ToolCallError(f"no answer within {timeout:g} s (abandoned)", "timeout")
    if "exc" in box:
        exc = box["exc"]
        raise ToolCallError(f"{type(exc).__name__}: {exc}", "exception")
    return box.get("out")


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


class CallableExecutor(Executor):
    """Runs ``ctx.callables[spec["callable"]]`` with the call's arguments as keywords."""

    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        key = spec["callable"]
        self.key = str(key if isinstance(key, str) and key else tool.name)

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        fn = self.ctx.callables.get(self.key)
        if fn is None:
            raise ToolCallError(
                f"no callable {self.key!r} in this process: pass it in "
                f"ExecContext(callables=...); callables run only in-process (not on Ray)",
                "unavailable")
        return call_with_timeout(fn, arguments, timeout)
