"""OpenAI Responses API (and the Agents SDK): the ``tools=`` list of function tools.

Each entry is a ``FunctionToolParam``: ``{"type": "function", "name", "description",
"parameters", "strict": false}`` (flat, unlike Chat Completions' nested ``function``), ready for
``client.responses.create(tools=...)`` as loaded. ``strict`` is false: strict mode needs every
property required and ``additionalProperties: false``, which tools' own schemas rarely say. The
sidecar (``<name>.meta.json``) holds ``play2prompt`` (the run and which docs) and
``instructions``: the demos as the Responses API's ``instructions=`` text (empty with
``--demos-inline``, where they sit in the descriptions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter
from play2prompt.emit.openai import demos_text, run_info
from play2prompt.results import RunResult


def responses_tool(tool: ExportTool, inline: bool) -> dict[str, Any]:
    return {"type": "function", "name": tool.name, "description": tool.description(inline),
            "parameters": dict(tool.tool.parameters), "strict": False}


class OpenAIResponsesExporter(JsonExporter):
    name = "openai-responses"
    help = ("OpenAI Responses API / Agents SDK tools= list (FunctionToolParam); the demos as "
            "instructions in the sidecar")
    sidecar_demos = True

    def build(self, tools: Sequence[ExportTool], run: RunResult,
              options: ExportOptions) -> list[dict[str, Any]]:
        return [responses_tool(t, options.demos_inline) for t in tools]

    def build_sidecar(self, tools: Sequence[ExportTool], run: RunResult,
                      options: ExportOptions) -> dict[str, Any]:
        return {"play2prompt": run_info(run, options),
                "instructions": demos_text(tools, options)}
