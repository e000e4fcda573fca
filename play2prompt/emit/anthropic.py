"""Anthropic: the ``tools`` list (``name``, ``description``, ``input_schema``) and ``system``.

``system`` carries the demos (rendered as the task model saw them during optimization) for the
Messages API's ``system=`` parameter; empty with ``--demos-inline``, where the demos sit in the
descriptions.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter, all_demos_text
from play2prompt.emit.openai import run_info
from play2prompt.results import RunResult


def anthropic_tool(tool: ExportTool, inline: bool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description(inline),
            "input_schema": copy.deepcopy(dict(tool.tool.parameters))}


class AnthropicExporter(JsonExporter):
    name = "anthropic"
    help = "Anthropic tools list (input_schema) and the demos as a system prompt"

    def build(self, tools: Sequence[ExportTool], run: RunResult,
              options: ExportOptions) -> dict[str, Any]:
        return {
            "play2prompt": run_info(run, options),
            "tools": [anthropic_tool(t, options.demos_inline) for t in tools],
            "system": "" if options.demos_inline else all_demos_text(tools),
        }
