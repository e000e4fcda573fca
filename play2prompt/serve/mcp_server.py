"""An MCP server exposing the *real* tools with a run's optimized documentation.

Tools are executed through their executors (:class:`~play2prompt.tools.runtime.ToolRuntime`:
arguments validated against the schema first, a bad call is an error result, never a crash).
An agent connected to it gets the optimized docs without changing anything else. Demos go
where clients read them: appended to the descriptions (``demos="description"``, the default:
every client passes a tool's description to its model), or served as resources
``p2p://demos/<tool>`` (``"resources"``: only clients that read resources see them), or left out
(``"none"``). Unless left out they are also MCP prompts (``prompts/list``, ``prompts/get``):
one prompt ``<tool>-examples`` per tool with demos, the verified requests and calls as one user
message, which clients such as Claude Desktop offer to the user. The tools are listed with the
annotations the runtime decides on (:meth:`ToolRuntime.preflight`: the stricter of the
recorded and the server's live ones), and the server names itself ``play2prompt`` at the
package's version. Transports: stdio (default) or
streamable HTTP bound to loopback. Every answer (descriptions, schemas, demos, tool outputs and
errors) goes through the run's scrubber. Needs the ``mcp`` extra (the official SDK, version 2).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from play2prompt.emit._base import ExportTool, task_mode
from play2prompt.emit.mcp import DEMOS_URI, demo_records
from play2prompt.errors import UserError, require
from play2prompt.results import RunResult
from play2prompt.scrub import Scrubber, for_tools
from play2prompt.serve.jsonrpc import CheckedReadStream
from play2prompt.serve.stdio import StdinLines, claimed_stdio
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.preflight import check_tools_start
from play2prompt.tools.runtime import ToolRuntime

DEMO_MODES = ("description", "resources", "none")
PROMPT_NAME = "{name}-examples"


@dataclass(frozen=True)
class ServedTools:
    """What the server exposes: the tools (optimized docs applied) and their demos."""

    tools: tuple[ExportTool, ...]
    demo_mode: str = "description"
    skipped: tuple[str, ...] = ()   # run tools absent from the given tools file
    scrubber: Scrubber = field(default_factory=Scrubber)  # every answer goes through it

    def by_name(self) -> dict[str, ExportTool]:
        return {t.name: t for t in self.tools}

    def description(self, tool: ExportTool) -> str:
        return self.scrubber.text(tool.description(inline=self.demo_mode == "description"))

    def runtime_tools(self) -> list[Tool]:
        return [t.tool for t in self.tools]


def served_tools(run: RunResult, tools: Sequence[Tool] | None = None,
                 demo_mode: str = "description", demos: int | None = None) -> ServedTools:
    """The run's tools (or ``tools``, e.g. from a tools.json) with the run's docs and demos.

    A tool of ``tools`` the run did not optimize is served with its own documentation.
    """
    if demo_mode not in DEMO_MODES:
        raise UserError(f"demo mode must be one of {', '.join(DEMO_MODES)}, got {demo_mode!r}")
    mode = task_mode(run)
    source = list(tools) if tools is not None else run.original_tools()
    out = []
    for tool in source:
        result = run.tools.get(tool.name)
        if result is None:
            out.append(ExportTool(tool, _bare_result(tool), (), mode))
            continue
        chosen = result.demos if demos is None else result.demos[:demos]
        kept = () if demo_mode == "none" else tuple(chosen)
        out.append(ExportTool(tool.with_doc(result.doc), result, kept, mode))
    names = {t.name for t in source}
    skipped = tuple(n for n in run.tools if n not in names)
    return ServedTools(tuple(out), demo_mode, skipped, run.scrubber(for_tools(source)))


def _bare_result(tool: Tool) -> Any:
    from play2prompt.results import ToolResult

    return ToolResult(tool.name, tool, tool.doc)


def observation_result(obs: Observation, scrubber: Scrubber | None = None,
                       output_schema: Mapping[str, Any] | None = None) -> Any:
    """An MCP ``CallToolResult`` for a tool's observation (errors flagged ``is_error``), its
    texts through ``scrubber``. With the original server's ``output_schema``, the structured
    content that schema describes (a value the SDK wrapped as ``{"result": ...}`` wrapped
    again), as that server gave it."""
    import mcp_types as types

    scrubber = scrubber or Scrubber()
    if not obs.ok:
        text = scrubber.text(f"{obs.error_type}: {obs.error}")
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    is_error=True)
    output = scrubber.value(obs.output)
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    structured = output if isinstance(output, dict) else None
    if output_schema is not None and _wraps_result(output_schema) and \
            not (isinstance(output, dict) and set(output) == {"result"}):
        structured = {"result": output}
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=structured, is_error=False)


def _wraps_result(schema: Mapping[str, Any]) -> bool:
    """Whether an output schema is the SDK's wrapper of a value that is not an object."""
    props = schema.get("properties")
    return isinstance(props, Mapping) and set(props) == {"result"}


def original_listing(tool: Tool, scrubber: Scrubber) -> dict[str, Any]:
    """What the tool's original MCP server listed besides its doc (``title``,
    ``annotations``, ``outputSchema``; recorded by ``p2p tools from-mcp`` in
    ``meta["mcp"]``), as ``mcp_types.Tool`` fields."""
    import mcp_types as types

    meta = tool.meta.get("mcp") if isinstance(tool.meta, Mapping) else None
    if not isinstance(meta, Mapping):
        return {}
    fields: dict[str, Any] = {}
    if isinstance(meta.get("title"), str):
        fields["title"] = scrubber.text(meta["title"])
    if isinstance(meta.get("annotations"), Mapping):
        fields["annotations"] = types.ToolAnnotations.model_validate(dict(meta["annotations"]))
    if isinstance(meta.get("outputSchema"), Mapping):
        fields["output_schema"] = dict(meta["outputSchema"])
    return fields


def demo_prompts(served: ServedTools) -> dict[str, ExportTool]:
    """Prompt name -> tool, for each served tool with demos."""
    return {PROMPT_NAME.format(name=t.name): t for t in served.tools if t.demos}


def prompt_listing(tool: ExportTool, scrubber: Scrubber) -> Any:
    """The ``Prompt`` entry of ``prompts/list`` for a tool's demos."""
    import mcp_types as types

    return types.Prompt(name=PROMPT_NAME.format(name=tool.name),
                        title=f"Examples of {tool.name}",
                        description=scrubber.text(f"Verified example requests and the calls of "
                                                  f"{tool.name} that answer them"))


def prompt_result(tool: ExportTool, scrubber: Scrubber) -> Any:
    """The ``prompts/get`` answer for a tool's demos: one user message with them."""
    import mcp_types as types

    text = scrubber.text(f"Examples of requests and the calls of the tool {tool.name} that "
                         f"answer them (verified by running the tool):\n\n{tool.demos_text()}")
    return types.GetPromptResult(
        description=f"Verified examples for {tool.name}",
        messages=[types.PromptMessage(role="user",
                                      content=types.TextContent(type="text", text=text))])


def build_server(served: ServedTools, runtime: ToolRuntime, name: str = "play2prompt") -> Any:
    """The low-level MCP server (``mcp.server.lowlevel.Server``) over ``served``; the tools
    listed with the runtime's annotations (after its :meth:`~ToolRuntime.preflight`)."""
    require("mcp", "mcp", "p2p mcp")
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from play2prompt import __version__

    tools = served.by_name()
    resources = {DEMOS_URI.format(name=t.name): t for t in tools.values()
                 if t.demos and served.demo_mode == "resources"}
    prompts = demo_prompts(served)

    async def list_tools(ctx: Any, params: Any) -> Any:
        await asyncio.to_thread(runtime.preflight)     # once: the live annotations
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, description=served.description(t),
                       input_schema=served.scrubber.value(dict(t.tool.parameters)),
                       **original_listing(runtime.tools.get(t.name, t.tool), served.scrubber))
            for t in tools.values()])

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in tools:  # as the specification and the original servers answer
            raise MCPError(-32602, f"Unknown tool: {params.name}")
        obs = await runtime.run(Invocation(params.name, dict(params.arguments or {})))
        schema = original_listing(tools[params.name].tool, served.scrubber).get("output_schema")
        return observation_result(obs, served.scrubber, schema)

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=f"{t.name} demos", mime_type="application/json",
                           description=f"Verified example requests and calls for {t.name}")
            for uri, t in resources.items()])

    async def read_resource(ctx: Any, params: Any) -> Any:
        tool = resources.get(str(params.uri))
        if tool is None:
            raise MCPError(-32602, f"no resource {params.uri!s}")
        text = json.dumps(served.scrubber.value(demo_records(tool)), ensure_ascii=False,
                          indent=2)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=str(params.uri), mime_type="application/json", text=text)])

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=[prompt_listing(t, served.scrubber)
                                                for t in prompts.values()])

    async def get_prompt(ctx: Any, params: Any) -> Any:
        tool = prompts.get(params.name)
        if tool is None:
            raise MCPError(-32602, f"no prompt {params.name!r}")
        return prompt_result(tool, served.scrubber)

    return Server(name, version=__version__, instructions="Tools documented by play2prompt.",
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)


def _check_sdk() -> None:
    mcp = require("mcp", "mcp", "p2p mcp")
    try:
        import mcp_types  # noqa: F401
        from mcp.server.lowlevel import Server  # noqa: F401
    except ImportError as exc:  # the 1.x SDK has another layout
        raise UserError(f"p2p mcp needs the MCP SDK version 2 (found "
                        f"{getattr(mcp, '__version__', 'an older one')}): "
                        "pip install -U 'play2prompt[mcp]'") from exc


async def _serve_stdio(server: Any, lines: StdinLines, wire: TextIO) -> None:
    """The SDK's stdio transport over the streams :func:`claimed_stdio` gave the protocol."""
    import anyio
    from mcp.server.stdio import stdio_server

    transport = stdio_server(stdin=lines, stdout=anyio.wrap_file(wire))  # type: ignore[arg-type]
    async with transport as (read_stream, write_stream):
        checked = CheckedReadStream(read_stream, write_stream)  # malformed lines answered
        await server.run(checked, write_stream, server.create_initialization_options())


def run_server(served: ServedTools, base_dir: Path, *, transport: str = "stdio",
               host: str = "127.0.0.1", port: int = 8701) -> None:
    """Check that the tools start, then serve until the client disconnects (stdio) or until
    interrupted (HTTP)."""
    _check_sdk()
    ctx = ExecContext(base_dir=base_dir, scrubber=served.scrubber)
    runtime = ToolRuntime(served.runtime_tools(), ctx, store=None, fail_after=None,
                          lenient=True)
    try:
        check_tools_start(served.runtime_tools(), ctx)
        runtime.preflight()     # clients are told the annotations the runtime decides on
    except BaseException:
        runtime.close()
        raise
    server = build_server(served, runtime)
    print(f"p2p mcp: {len(served.tools)} tools ready ({transport})", file=sys.stderr)
    try:
        if transport == "stdio":
            with claimed_stdio() as (lines, wire):   # tools' prints never reach the protocol
                asyncio.run(_serve_stdio(server, lines, wire))
        elif transport == "http":
            from play2prompt.serve.asgi import serve_asgi

            app = server.streamable_http_app(host=host)
            print(f"MCP streamable HTTP on http://{host}:{port}/mcp", file=sys.stderr)
            serve_asgi(app, host=host, port=port, log_level="warning")
        else:
            raise UserError(f"transport must be stdio or http, got {transport!r}")
    finally:
        runtime.close()
