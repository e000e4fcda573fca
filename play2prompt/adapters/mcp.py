"""Import the tools of an MCP server as play2prompt tools (``p2p tools from-mcp``).

:func:`load_mcp_tools` starts the server (stdio command or streamable-HTTP URL), lists its tools
and returns them as :class:`~play2prompt.tools.model.Tool` objects whose executor calls the same
server (``{"mcp": {...}}``): names, descriptions and input schemas (type names normalised, the
SDK's generated ``title`` fields dropped) as the server publishes them, its ``title``,
annotations and ``outputSchema`` kept in ``meta["mcp"]`` (``p2p mcp`` serves them again), a
bare command name written as the full path that answered (:func:`resolved_command`), each marked
``side_effects`` unless the server annotates it ``readOnlyHint: true`` (no annotations: not
read-only, as the MCP specification says). Dumped with :func:`dump_with_flags` they make a
tools.json that ``p2p optimize`` takes as is.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError, require
from play2prompt.tools import effects
from play2prompt.tools.executors._base import ToolCallError
from play2prompt.tools.executors._mcp_session import START_TIMEOUT, McpConnection, ServerSpec
from play2prompt.tools.loading import dump_tools
from play2prompt.tools.model import Tool
from play2prompt.tools.types import normalize_schema

_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64  # OpenAI function names: ^[a-zA-Z0-9_-]{1,64}$


def server_conf(command: str | None = None, args: Sequence[str] = (), *, url: str | None = None,
                env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
                base_dir: str | Path | None = None,
                start_timeout: float = START_TIMEOUT) -> dict[str, Any]:
    """The ``"mcp"`` executor spec for a server; ``cwd`` is written relative to ``base_dir``
    (the folder of the tools.json), as the executor reads it."""
    if url:
        conf: dict[str, Any] = {"url": url}
    elif command:
        conf = {"command": resolved_command(command)}
        if args:
            conf["args"] = [str(a) for a in args]
        base = Path(base_dir or Path.cwd()).resolve()
        run_in = Path(cwd or Path.cwd()).resolve()
        if run_in != base:
            conf["cwd"] = os.path.relpath(run_in, base)
    else:
        raise UserError("give the MCP server's command (after --) or --url")
    if env:
        conf["env"] = dict(env)
    if start_timeout != START_TIMEOUT:
        conf["start_timeout"] = start_timeout
    return conf


def resolved_command(command: str) -> str:
    """A bare command name (``python``, ``uvx``) as the full path it resolves to here: the
    program that answered the import is the one the tools file names, whatever PATH a later
    run has (``python`` outside the virtual environment is another interpreter). A path, or a
    name not found, is kept as given (the server's start then says why)."""
    if os.sep in command or (os.altsep and os.altsep in command):
        return command
    found = shutil.which(command)
    return str(Path(found).absolute()) if found else command


def load_mcp_tools(command: str | None = None, args: Sequence[str] = (), *,
                   url: str | None = None, env: Mapping[str, str] | None = None,
                   cwd: str | Path | None = None, base_dir: str | Path | None = None,
                   prefix: str = "", select: Sequence[str] | None = None,
                   start_timeout: float = START_TIMEOUT) -> list[Tool]:
    """The tools an MCP server lists, each with an ``mcp`` executor calling that server.

    ``base_dir``: where the tools.json will live (paths in the spec are relative to it).
    ``prefix`` is put before every tool name (the executor keeps the server's name), ``select``
    keeps only the named server tools. An unreachable server is a one-line UserError.
    """
    require("mcp", "mcp", "importing MCP tools")
    conf = server_conf(command, args, url=url, env=env, cwd=cwd, base_dir=base_dir,
                       start_timeout=start_timeout)
    server = ServerSpec.from_conf(conf, Path(base_dir) if base_dir else None)
    listed = list_server_tools(server)
    if select:
        names = {t.name for t in listed}
        unknown = [s for s in select if s not in names]
        if unknown:
            raise UserError(f"MCP server `{server.label}` has no tool {', '.join(unknown)} "
                            f"(it lists: {', '.join(sorted(names)) or 'none'})")
        listed = [t for t in listed if t.name in set(select)]
    if not listed:
        raise UserError(f"MCP server `{server.label}` lists no tools")
    tools = [mcp_tool(t, conf, prefix) for t in listed]
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise UserError(f"MCP server `{server.label}`: two tools are named {tool.name!r} "
                            "once made valid function names")
        seen.add(tool.name)
    return tools


def list_server_tools(server: ServerSpec) -> list[Any]:
    """The server's ``tools/list`` (all pages); the server is stopped afterwards."""
    conn = McpConnection(server)
    try:
        return conn.run(conn.list_tools(), 2 * server.start_timeout + 10)
    except ToolCallError as exc:
        raise UserError(str(exc)) from None
    finally:
        conn.close()


def mcp_tool(listed: Any, conf: Mapping[str, Any], prefix: str = "") -> Tool:
    """One listed MCP tool (``mcp_types.Tool``) as a play2prompt Tool calling ``conf``'s server."""
    name = local_name(listed.name, prefix)
    spec = dict(conf)
    if name != listed.name:
        spec["tool"] = listed.name
    meta: dict[str, Any] = {"mcp": {"tool": listed.name}}
    annotations = getattr(listed, "annotations", None)
    notes = None
    if annotations is not None:
        notes = annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
        meta["mcp"]["annotations"] = notes
    if getattr(listed, "title", None):          # what p2p mcp gives its clients again
        meta["mcp"]["title"] = str(listed.title)
    if getattr(listed, "output_schema", None):
        meta["mcp"]["outputSchema"] = dict(listed.output_schema)
    parameters = normalize_schema(drop_generated_titles(dict(listed.input_schema or {})))
    parameters.setdefault("properties", {})
    return Tool(name=name, description=(listed.description or "").strip(),
                parameters=parameters, executor={"mcp": spec}, meta=meta,
                side_effects=effects.mcp_reason(notes) is not None)


def local_name(name: str, prefix: str = "") -> str:
    """A valid function name (letters, digits, ``_``, ``-``; at most 64) for a server tool."""
    cleaned = _BAD_NAME_CHARS.sub("_", f"{prefix}{name}")[:MAX_NAME]
    return cleaned or "tool"


def drop_generated_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without the ``title`` keys pydantic generates (``addArguments``, ``City``):
    noise in a tool's documentation. Other titles are kept."""
    out = dict(schema)
    if str(out.get("title", "")).endswith("Arguments"):
        out.pop("title")
    props = out.get("properties")
    if isinstance(props, Mapping):
        cleaned = {}
        for pname, pschema in props.items():
            if isinstance(pschema, Mapping) and pschema.get("title") == _title_case(pname):
                pschema = {k: v for k, v in pschema.items() if k != "title"}
            cleaned[pname] = pschema
        out["properties"] = cleaned
    return out


def side_effect_tools(tools: Sequence[Tool]) -> list[tuple[str, str]]:
    """The tools that are not read-only, each with why (its MCP annotations, or none): p2p
    optimize executes them only with ``--allow-side-effects``."""
    return [(tool.name, effects.reason(tool)) for tool in tools if tool.side_effects]


def dump_with_flags(tools: Sequence[Tool]) -> dict[str, Any]:
    """The tools.json document, every tool with its ``"side_effects"`` written out."""
    doc = dump_tools(tools)
    for entry, tool in zip(doc["tools"], tools):
        entry["side_effects"] = bool(tool.side_effects)
    return doc


def _title_case(name: str) -> str:
    return " ".join(part.capitalize() for part in name.split("_"))
