"""The client side of one MCP server connection (used by the mcp executor and the importer).

:class:`McpConnection` owns a background thread running its own event loop; the client session
(stdio or streamable HTTP, official ``mcp`` SDK) lives there, so it outlives the event loops of
its callers. A start failure, a dead or wedged server, a call past its timeout: each becomes a
:class:`ToolCallError` (``crash`` / ``timeout``) whose one-line message names the server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import shlex
import tempfile
import threading
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError, require
from play2prompt.limits import SECONDS
from play2prompt.tools.executors._base import ToolCallError

START_TIMEOUT = 30.0
PING_TIMEOUT = 2.0
SHUTDOWN_TIMEOUT = 8.0
MAX_FAILED_STARTS = 3  # in a row: then the server is given up on for the rest of the run
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one MCP server: a command over stdio or a streamable-HTTP URL."""

    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    start_timeout: float = START_TIMEOUT

    @property
    def label(self) -> str:
        text = self.url or shlex.join([self.command or "", *self.args])
        return text if len(text) <= 120 else text[:117] + "..."

    @property
    def key(self) -> str:
        return "mcp:" + json.dumps([self.command, self.args, self.env, self.cwd, self.url])

    @classmethod
    def from_conf(cls, conf: Any, base_dir: Path | None = None,
                  where: str = "executor 'mcp'") -> ServerSpec:
        """Parse the ``"mcp"`` part of an executor spec; raises ToolsFileError (one line)."""
        if not isinstance(conf, Mapping):
            raise ToolsFileError(f"{where}: must be an object with 'command' or 'url'")
        command, url = conf.get("command"), conf.get("url")
        if (command is None) == (url is None):
            raise ToolsFileError(f"{where}: give exactly one of 'command' or 'url'")
        if not isinstance(command or url, str) or not (command or url).strip():
            raise ToolsFileError(f"{where}: 'command'/'url' must be a non-empty string")
        args, env = conf.get("args") or [], conf.get("env") or {}
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
            raise ToolsFileError(f"{where}: 'args' must be a list of strings")
        if not isinstance(env, Mapping):
            raise ToolsFileError(f"{where}: 'env' must be an object")
        try:
            start_timeout = float(conf.get("start_timeout", START_TIMEOUT))
        except (TypeError, ValueError):
            raise ToolsFileError(f"{where}: 'start_timeout' must be a number") from None
        if not SECONDS.holds(start_timeout):
            raise ToolsFileError(f"{where}: 'start_timeout' must be {SECONDS.describe()} "
                                 f"seconds, got {start_timeout:g}")
        base = Path(base_dir) if base_dir is not None else Path.cwd()
        cwd = conf.get("cwd")
        cwd_path = (base / str(cwd)) if cwd else base
        return cls(command=command, args=tuple(str(a) for a in args),
                   env=tuple(sorted((str(k), os.path.expandvars(str(v))) for k, v in env.items())),
                   cwd=str(cwd_path.resolve()) if command else None, url=url,
                   start_timeout=start_timeout)


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while getattr(exc, "exceptions", None):  # BaseExceptionGroup (Python 3.11+, anyio)
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


class McpConnection:
    """One client session to one MCP server, owned by a background event loop.

    Coroutines of this class run in that loop; :meth:`submit` schedules them from any thread.
    The session is opened on the first request and reopened after the server died.
    """

    def __init__(self, server: ServerSpec) -> None:
        self.server = server
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._live: _Live | None = None
        self._lives: list[_Live] = []  # every server started, for shutdown
        self._start_lock: asyncio.Lock | None = None
        self._failed_starts = 0
        self._last_error = ""

    # -- thread plumbing ------------------------------------------------------------------
    def submit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Schedule ``coro`` on the connection's loop; a ``concurrent.futures.Future``."""
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                                name=f"mcp {self.server.label[:40]}")
                self._thread.start()
            return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float | None = None) -> Any:
        """Run ``coro`` on the connection's loop and wait for it (synchronous callers)."""
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise ToolCallError(f"MCP server `{self.server.label}`: no answer within "
                                f"{timeout:g} s", "timeout") from None
        except concurrent.futures.CancelledError:
            raise ToolCallError(f"MCP server `{self.server.label}`: connection closed during "
                                "the call", "crash") from None

    async def arun(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Await ``coro`` run on the connection's loop (from any other event loop)."""
        future = self.submit(coro)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancelling = getattr(asyncio.current_task(), "cancelling", None)  # Python 3.11+
            if cancelling is None or cancelling():
                raise  # our caller was cancelled
            raise ToolCallError(f"MCP server `{self.server.label}`: connection closed during "
                                "the call", "crash") from None

    def close(self) -> None:
        """Stop the server (if started) and the background loop."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(SHUTDOWN_TIMEOUT + 2)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(SHUTDOWN_TIMEOUT)
        if not thread.is_alive():
            loop.close()

    # -- in the connection's loop -----------------------------------------------------------
    async def session(self) -> Any:
        """The live client session, started (or restarted) on demand."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._live is not None and not self._live.dead:
                return self._live.session
            if self._failed_starts >= MAX_FAILED_STARTS:
                raise ToolCallError(f"{self._last_error} (gave up after {MAX_FAILED_STARTS} "
                                    "failed starts)", "crash")
            live = _Live(self.server)
            self._lives.append(live)
            try:
                await live.open()
            except ToolCallError as exc:
                self._failed_starts += 1
                self._last_error = str(exc)
                raise
            self._failed_starts = 0
            self._live = live
            return live.session

    async def list_tools(self) -> list[Any]:
        session = await self.session()
        tools, cursor = [], None
        for _ in range(100):  # a paginator that never ends cannot hang the import
            params = _paginated(cursor)
            page = await self._request(session.list_tools(params=params), self.server.start_timeout)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Call ``name``: the server's ``CallToolResult``; raises ToolCallError."""
        session = await self.session()
        return await self._request(
            session.call_tool(name, arguments, read_timeout_seconds=timeout), timeout)

    async def _request(self, coro: Coroutine[Any, Any, Any], timeout: float) -> Any:
        from mcp.shared.exceptions import MCPError

        live = self._live
        try:  # the SDK times calls out itself; wait_for also bounds requests without a timeout
            return await asyncio.wait_for(coro, timeout + PING_TIMEOUT)
        except (MCPError, asyncio.TimeoutError) as exc:
            code = exc.code if isinstance(exc, MCPError) else REQUEST_TIMEOUT
            if code == REQUEST_TIMEOUT:
                await self._check_alive(live)
                raise ToolCallError(f"MCP server `{self.server.label}`: no answer within "
                                    f"{timeout:g} s", "timeout") from None
            if code == CONNECTION_CLOSED:
                raise ToolCallError(self._died(live, "closed the connection"), "crash") from None
            raise ToolCallError(_one_line(f"MCP error {code}: {exc}"), "exception") from None
        except ToolCallError:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure is an observation
            leaf = _leaf(exc)
            what = f"{type(leaf).__name__}: {leaf}"
            if isinstance(leaf, _transport_errors()):
                raise ToolCallError(self._died(live, f"failed: {what}"), "crash") from None
            raise ToolCallError(_one_line(f"MCP server `{self.server.label}`: {what}"),
                                "exception") from None

    async def _check_alive(self, live: _Live | None) -> None:
        """After a timeout: keep a server that still answers a ping, drop a wedged one."""
        if live is None or live.dead:
            return
        try:
            await asyncio.wait_for(live.session.send_ping(), PING_TIMEOUT)
        except Exception:  # noqa: BLE001 - no answer: restart on the next call
            self._died(live, "stopped answering")

    def _died(self, live: _Live | None, why: str) -> str:
        message = f"MCP server `{self.server.label}` {why}"
        if live is not None:
            message += live.stderr_tail()
            live.stop()
        self._last_error = _one_line(message)
        return self._last_error

    async def _shutdown(self) -> None:
        lives, self._lives, self._live = self._lives, [], None
        await asyncio.gather(*(live.close() for live in lives), return_exceptions=True)


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean the connection is gone (the server is then restarted)."""
    import anyio

    return (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)


def _paginated(cursor: str | None) -> Any:
    if cursor is None:
        return None
    import mcp_types

    return mcp_types.PaginatedRequestParams(cursor=cursor)


class _Live:
    """One started server and its session, held open by a task until :meth:`stop`."""

    def __init__(self, server: ServerSpec) -> None:
        self.server = server
        self.session: Any = None
        self.dead = False
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._cancelled = False
        # The server's stderr, for the last line of an error message; closed by close().
        self._stderr = tempfile.TemporaryFile(  # noqa: SIM115
            "w+", encoding="utf-8", errors="replace")

    async def open(self) -> None:
        require("mcp", "mcp", "the mcp executor")
        ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # always retrieved
        self._task = asyncio.create_task(self._hold(ready))
        label = self.server.label
        try:
            self.session = await asyncio.wait_for(asyncio.shield(ready),
                                                  self.server.start_timeout)
        except asyncio.TimeoutError:
            tail = self.stderr_tail()
            self.abandon()
            raise ToolCallError(f"MCP server `{label}` did not start within "
                                f"{self.server.start_timeout:g} s{tail}", "timeout") from None
        except Exception as exc:  # noqa: BLE001 - every start failure is one line
            tail = self.stderr_tail()
            self.abandon()
            raise ToolCallError(_one_line(f"cannot start MCP server `{label}`: "
                                          f"{_describe(exc)}{tail}"), "crash") from None

    async def _hold(self, ready: asyncio.Future[Any]) -> None:
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                ready.set_result(session)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported through ready / the next call
            self.dead = True
            if not ready.done():
                leaf = _leaf(exc)
                if isinstance(leaf, Exception):
                    ready.set_exception(leaf)
                else:
                    ready.cancel()
        finally:
            self.dead = True

    def _transport(self) -> Any:
        if self.server.url:
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.server.url)
        from mcp import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=self.server.command or "",
                                       args=list(self.server.args),
                                       env=dict(self.server.env) or None, cwd=self.server.cwd)
        return stdio_client(params, errlog=self._stderr)

    def stop(self) -> None:
        """Let the holder task leave the session (the SDK then ends the server process)."""
        self.dead = True
        self._stop.set()

    def abandon(self) -> None:
        """Give up on a server that failed to start (the holder is cancelled; the SDK still
        ends the process); :meth:`close` waits for it at shutdown."""
        self.stop()
        if self.session is None:
            self._cancel_once()

    def _cancel_once(self) -> None:
        # A second cancel() breaks the SDK's shielded process shutdown (it then hangs).
        if self._task is not None and not self._cancelled:
            self._cancelled = True
            self._task.cancel()

    async def close(self) -> None:
        self.stop()
        task = self._task
        if task is not None:
            if self.session is None:  # still starting: nothing to close gracefully
                self._cancel_once()
            _, pending = await asyncio.wait({task}, timeout=SHUTDOWN_TIMEOUT)
            if pending:
                self._cancel_once()
                await asyncio.wait({task}, timeout=SHUTDOWN_TIMEOUT)
        with contextlib.suppress(Exception):
            self._stderr.close()

    def stderr_tail(self) -> str:
        """``": <last line the server wrote to stderr>"`` or ``""``."""
        try:
            self._stderr.flush()
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 4000))
            lines = [ln.strip(" │|\t") for ln in self._stderr.read().splitlines()]
        except (OSError, ValueError):
            return ""
        lines = [ln for ln in lines if ln.strip()]
        return f" (stderr: {_one_line(lines[-1], 200)})" if lines else ""


def _describe(exc: BaseException) -> str:
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
        return "it exited before answering"
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.strerror or exc})"
    return f"{type(exc).__name__}: {exc}"


