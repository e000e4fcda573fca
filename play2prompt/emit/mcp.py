"""MCP: the ``tools/list`` entries (``name``, ``description``, ``inputSchema``) and the demos.

``demos`` maps each tool to its demonstrations (query and calls), the content ``p2p mcp`` serves
as the resource ``p2p://demos/<tool>``; with ``--demos-inline`` they are in the descriptions
instead.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter
from play2prompt.emit.openai import run_info
from play2prompt.results import RunResult

DEMOS_URI = "p2p://demos/{name}"


def mcp_tool(tool: ExportTool, inline: bool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description(inline),
            "inputSchema": copy.deepcopy(dict(tool.tool.parameters))}


def demo_records(tool: ExportTool) -> list[dict[str, Any]]:
    return [{"query": d.query, "calls": [c.to_dict() for c in d.calls]} for d in tool.demos]


class McpExporter(JsonExporter):
    name = "mcp"
    help = "MCP tool list (inputSchema) and the demos per tool"

    def build(self, tools: Sequence[ExportTool], run: RunResult,
              options: ExportOptions) -> dict[str, Any]:
        demos = {} if options.demos_inline else {t.name: demo_records(t) for t in tools
                                                 if t.demos}
        return {
            "play2prompt": run_info(run, options),
            "tools": [mcp_tool(t, options.demos_inline) for t in tools],
            "demos": demos,
        }
