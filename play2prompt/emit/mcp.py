"""MCP: a ``tools/list`` result (``ListToolsResult``), the demos in each tool's ``_meta``.

The export is ``{"_meta": {"play2prompt/run": ...}, "tools": [...]}``: what an MCP server
answers to ``tools/list``, each entry a ``Tool`` (``name``, ``description``, ``inputSchema``).
MCP keeps extra data in ``_meta``, so the demos need no sidecar: each tool's
``_meta["play2prompt/demos"]`` lists its demonstrations (query and calls), the content
``p2p mcp`` serves as the resource ``p2p://demos/<tool>``. With ``--demos-inline`` they are in
the descriptions instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter
from play2prompt.emit.openai import run_info
from play2prompt.results import RunResult

DEMOS_URI = "p2p://demos/{name}"
DEMOS_META = "play2prompt/demos"
RUN_META = "play2prompt/run"


def mcp_tool(tool: ExportTool, inline: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": tool.name, "description": tool.description(inline),
                             "inputSchema": dict(tool.tool.parameters)}
    if tool.demos and not inline:
        entry["_meta"] = {DEMOS_META: demo_records(tool)}
    return entry


def demo_records(tool: ExportTool) -> list[dict[str, Any]]:
    return [{"query": d.query, "calls": [c.to_dict() for c in d.calls]} for d in tool.demos]


class McpExporter(JsonExporter):
    name = "mcp"
    help = "MCP tools/list result (inputSchema), the demos in each tool's _meta"

    def build(self, tools: Sequence[ExportTool], run: RunResult,
              options: ExportOptions) -> dict[str, Any]:
        return {"_meta": {RUN_META: run_info(run, options)},
                "tools": [mcp_tool(t, options.demos_inline) for t in tools]}
