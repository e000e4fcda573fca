"""Anthropic Messages API: the ``tools=`` list, and a sidecar with the run and the demos.

The export is a plain list of ``ToolParam`` entries (``name``, ``description``,
``input_schema`` and, for a tool with demos, ``input_examples``: the arguments of the demos'
verified calls of that tool that its schema accepts, each once), ready for
``client.messages.create(tools=...)`` as loaded. The sidecar
(``<name>.meta.json``) holds ``play2prompt`` (the run and which docs) and ``system``: the demos,
rendered as the task model saw them during optimization, for the ``system=`` parameter (or to
merge into yours); empty with ``--demos-inline``, where the demos sit in the descriptions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter
from play2prompt.emit.openai import demos_text, run_info
from play2prompt.results import RunResult


def anthropic_tool(tool: ExportTool, inline: bool) -> dict[str, Any]:
    entry = {"name": tool.name, "description": tool.description(inline),
             "input_schema": dict(tool.tool.parameters)}
    examples = tool.input_examples()
    if examples:
        entry["input_examples"] = examples
    return entry


class AnthropicExporter(JsonExporter):
    name = "anthropic"
    help = ("Anthropic tools= list (input_schema, input_examples from the demos); the demos as "
            "the system prompt in the sidecar")
    sidecar_demos = True

    def build(self, tools: Sequence[ExportTool], run: RunResult,
              options: ExportOptions) -> list[dict[str, Any]]:
        return [anthropic_tool(t, options.demos_inline) for t in tools]

    def build_sidecar(self, tools: Sequence[ExportTool], run: RunResult,
                      options: ExportOptions) -> dict[str, Any]:
        return {"play2prompt": run_info(run, options), "system": demos_text(tools, options)}
