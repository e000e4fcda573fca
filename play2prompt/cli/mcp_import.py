"""``p2p tools from-mcp -- COMMAND [ARGS...]``: an MCP server's tools as a tools.json;
``p2p tools from-openapi SPEC``: an OpenAPI 3 spec's operations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from play2prompt.cli._common import console, console_err

app = typer.Typer(help="Make tools.json files.", no_args_is_help=True)


def _parse_env(pairs: list[str]) -> dict[str, str]:
    from play2prompt.errors import UserError

    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--env expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


@app.command("from-mcp", context_settings={"allow_interspersed_args": False})
def from_mcp_command(
    server: Optional[list[str]] = typer.Argument(
        None, help="the server's command and arguments, after -- (stdio)"),
    url: Optional[str] = typer.Option(None, help="streamable-HTTP endpoint instead of a command"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="tools.json to write "
                                       "(default: print it)"),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE for the server (repeatable; "
                                  "$VAR is expanded when the server starts)"),
    cwd: Optional[Path] = typer.Option(None, help="folder to start the server in (default: here)"),
    prefix: str = typer.Option("", help="put this before every tool name"),
    select: list[str] = typer.Option([], "--tool", help="import only these server tools"),
    start_timeout: float = typer.Option(30.0, help="seconds the server gets to start"),
) -> None:
    """List an MCP server's tools and write them as a tools.json that p2p optimize takes
    as is (each tool calls the server through the mcp executor)."""
    from play2prompt.adapters.mcp import load_mcp_tools

    command, args = (server[0], server[1:]) if server else (None, [])
    base_dir = out.resolve().parent if out is not None else Path.cwd()
    tools = load_mcp_tools(command, args, url=url, env=_parse_env(env), cwd=cwd,
                           base_dir=base_dir, prefix=prefix, select=select or None,
                           start_timeout=start_timeout)
    _write(tools, out)


@app.command("from-openapi")
def from_openapi_command(
    spec: Path = typer.Argument(..., help="the OpenAPI 3 spec (YAML or JSON)"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="tools.json to write "
                                       "(default: print it)"),
    base_url: Optional[str] = typer.Option(None, help="the API's URL (default: the spec's "
                                           "first server)"),
    select: list[str] = typer.Option([], "--tool", help="import only these operations "
                                     "(tool names)"),
) -> None:
    """Make one tool per operation of an OpenAPI 3 spec (run by the http executor) and write
    them as a tools.json that p2p optimize takes as is."""
    from play2prompt.tools.openapi import load_openapi, require_urls, select_tools

    tools = select_tools(load_openapi(spec, base_url), select, str(spec))
    require_urls(tools, str(spec))
    _write(tools, out)


def _write(tools: list, out: Optional[Path]) -> None:
    """Print or write the tools.json, name the tools that are not read-only."""
    from play2prompt.adapters.mcp import dump_with_flags, side_effect_tools

    text = json.dumps(dump_with_flags(tools), indent=2, ensure_ascii=False) + "\n"
    if out is None:
        console.print(text, markup=False, highlight=False, end="")
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        console_err.print(f"wrote {len(tools)} tools to {out}: {', '.join(t.name for t in tools)}",
                          highlight=False)
    risky = side_effect_tools(tools)
    for name, why in risky:
        console_err.print(f"not read-only: {name} ({why})", highlight=False, markup=False)
    if risky:
        names = ",".join(name for name, _ in risky)
        console_err.print(f'wrote "side_effects": true for {len(risky)} tool(s): p2p optimize '
                          f"executes them only with --allow-side-effects {names} (or set "
                          '"side_effects": false in the file for a tool you know is safe)',
                          highlight=False, markup=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="tools")
