"""``p2p serve`` (read-only HTTP API over runs) and ``p2p mcp`` (MCP server of the real tools)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from play2prompt.cli._common import console_err
from play2prompt.limits import PORT, check_host

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _warn_public(host: str) -> None:
    if host not in LOOPBACK:
        from rich.markup import escape

        console_err.print(f"[yellow]warning:[/] binding {escape(host)}: reachable from other "
                          "machines (no authentication)", highlight=False, markup=True)


def serve_command(
    runs: list[str] = typer.Argument(..., help="run ids or folders; the first is the default"),
    host: str = typer.Option("127.0.0.1", help="interface to bind (loopback by default)"),
    port: int = typer.Option(8700, **PORT.option(), help="HTTP port (1-65535)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
) -> None:
    """Serve finished runs over HTTP (read-only): GET /v1/tools?format=openai|anthropic|mcp,
    /v1/tools/{name}, /v1/runs/{id}, /health."""
    from play2prompt.errors import UserError
    from play2prompt.results import load_run_result
    from play2prompt.serve.http import serve

    check_host(host)
    results = [load_run_result(r, runs_dir) for r in runs]
    ids = [r.run_id for r in results]
    if len(set(ids)) != len(ids):
        raise UserError(f"the same run is mounted twice: {', '.join(ids)}")
    _warn_public(host)
    console_err.print(f"serving {', '.join(ids)} on http://{host}:{port}/v1/tools",
                      highlight=False)
    serve(results, host=host, port=port)


def mcp_command(
    run: str = typer.Argument(..., help="run id or run folder"),
    tools_file: Optional[Path] = typer.Option(
        None, "--tools", help="tools.json with the executors (default: the run's own tools, "
                              "paths relative to the folder the run was started from)"),
    module: Optional[str] = typer.Option(None, help="python module/file for tools without "
                                                    "executor (as in p2p optimize)"),
    demos: str = typer.Option("description", help="description (in each tool's description) | "
                                                  "resources (p2p://demos/TOOL) | none; unless "
                                                  "none, also MCP prompts TOOL-examples"),
    k: Optional[int] = typer.Option(None, "--demos-k", min=0, help="at most k demos per tool"),
    http: bool = typer.Option(False, "--http", help="streamable HTTP instead of stdio"),
    host: str = typer.Option("127.0.0.1", help="HTTP interface (loopback by default)"),
    port: int = typer.Option(8701, **PORT.option(), help="HTTP port (1-65535)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
) -> None:
    """Serve the real tools over MCP (stdio by default) with the run's optimized docs."""
    from play2prompt.results import load_run_result
    from play2prompt.serve.mcp_server import run_server, served_tools

    if http:
        check_host(host)
    result = load_run_result(run, runs_dir)
    tools, base_dir = None, _run_base_dir(result.run_dir)
    if tools_file is not None:
        from play2prompt.tools.loading import load_tools

        tools, base_dir = load_tools(tools_file, module=module), tools_file.parent
    served = served_tools(result, tools, demo_mode=demos, demos=k)
    if served.skipped:
        console_err.print(f"not in {tools_file}: {', '.join(served.skipped)} (not served)",
                          highlight=False)
    if http:
        _warn_public(host)
    run_server(served, base_dir, transport="http" if http else "stdio", host=host, port=port)


def _run_base_dir(run_dir: Path) -> Path:
    """The folder the run's executor paths are relative to (recorded at start)."""
    from play2prompt.store.db import DB_NAME, RunStore

    store = RunStore(run_dir / DB_NAME, read_only=True)
    try:
        recorded = store.run_meta().base_dir
    finally:
        store.close()
    return Path(recorded) if recorded else Path.cwd()


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
    app.command("mcp")(mcp_command)
