"""Before a tool's first real use: can it start at all? One line naming the tool otherwise.

Checked per executor kind, without executing any tool (so with no side effect, and without
judging any arguments: a tool that rejects values is no concern here):

- every kind: a valid executor spec of a known kind (:func:`check_tool_executors`);
- ``python``: the module loads and has the function (in a worker process, never here);
- ``mcp``: the server starts and answers ``initialize`` (its command exists, its URL answers);
- ``sqlite``: the database file exists and the SQL compiles against it (its tables and
  columns are there; nothing is run).

Other kinds (``http``, ``simulated``, ``callable``) are left to the run's watch over real
executions (:mod:`play2prompt.tools.health`). ``p2p optimize`` checks before its first LLM call
(a tool that cannot start costs no calibration or play), ``p2p mcp`` before it says it is
ready.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import ExecContext, ToolCallError, executor_kind
from play2prompt.tools.health import ToolCannotRun, fix_for
from play2prompt.tools.loading import check_tool_executors
from play2prompt.tools.model import Observation, Tool

DATABASE_FIX = "correct the executor's 'database' path (relative to the tools file's folder)"
SQL_FIX = "correct the executor's 'sql' to the database's tables and columns"


def _cannot_start(tool: Tool, why: str, fix: str) -> ToolCannotRun:
    return ToolCannotRun(f"cannot run tool {tool.name!r}: {why}; fix: {fix}")


def _check_mcp(tool: Tool, ctx: ExecContext, started: set[str]) -> None:
    from play2prompt.tools.executors.mcp import ServerSpec, connection

    server = ServerSpec.from_conf(tool.executor["mcp"], ctx.base_dir,  # type: ignore[index]
                                  f"tool {tool.name!r}: executor 'mcp'")
    if server.key in started:
        return
    conn = connection(ctx, server)
    try:
        conn.run(conn.session(), server.start_timeout + 5)
    except ToolCallError as exc:
        obs = Observation.failure(exc.error_type, str(exc))
        raise _cannot_start(tool, str(exc), fix_for(obs)) from None
    started.add(server.key)


def _check_sqlite(tool: Tool, base_dir: Path) -> None:
    conf = tool.executor["sqlite"]  # type: ignore[index]
    database = conf.get("database") if isinstance(conf, Mapping) else None
    if not database:
        raise ToolsFileError(f"tool {tool.name!r}: executor 'sqlite' needs 'database' and "
                             "'sql'")
    path = Path(str(database))
    path = path if path.is_absolute() else base_dir / path
    if not path.is_file():
        raise _cannot_start(tool, f"database not found: {path}", DATABASE_FIX)
    from play2prompt.tools.executors.sqlite import compile_check

    why = compile_check(conf, path)
    if why is not None:
        raise _cannot_start(tool, f"its SQL does not compile against {path.name} ({why})",
                            SQL_FIX)


def check_tools_start(tools: Sequence[Tool], ctx: ExecContext) -> None:
    """Raise a one-line :class:`~play2prompt.errors.UserError` naming the first of ``tools``
    that cannot start, and why. MCP servers started here stay in ``ctx.resources`` (the run
    that shares ``ctx`` reuses them; closing ``ctx`` stops them)."""
    check_tool_executors(tools, ctx.base_dir)
    started: set[str] = set()
    for tool in tools:
        kind = executor_kind(tool.executor, tool.name)
        if kind == "mcp":
            _check_mcp(tool, ctx, started)
        elif kind == "sqlite":
            _check_sqlite(tool, Path(ctx.base_dir))
