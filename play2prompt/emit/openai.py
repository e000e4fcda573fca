"""OpenAI Chat Completions: the ``tools=`` list, and a sidecar with the run and the demos.

The export is a plain list, ready for ``client.chat.completions.create(tools=...)`` as loaded:
each tool's name, its exported description and its parameters schema with the per-parameter
descriptions replaced (everything else in the schema is left as it was). The sidecar
(``<name>.meta.json``) holds ``play2prompt`` (the run and which docs) and ``messages``: the demos
as one system message, rendered as the task model saw them during optimization; prepend it (or
merge it into your system prompt). With ``--demos-inline`` the demos sit in the descriptions and
``messages`` is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter, all_demos_text
from play2prompt.results import RunResult


def demos_text(tools: Sequence[ExportTool], options: ExportOptions) -> str:
    """The demos for a system prompt: empty when they sit in the descriptions."""
    return "" if options.demos_inline else all_demos_text(tools)


def demo_messages(tools: Sequence[ExportTool], options: ExportOptions) -> list[dict[str, str]]:
    text = demos_text(tools, options)
    return [{"role": "system", "content": text}] if text else []


def run_info(run: RunResult, options: ExportOptions) -> dict[str, Any]:
    return {"run_id": run.run_id, "docs": "original" if options.original else "optimized"}


class OpenAIExporter(JsonExporter):
    name = "openai"
    help = "OpenAI Chat Completions tools= list; the demos as a system message in the sidecar"
    sidecar_demos = True

    def build(self, tools: Sequence[ExportTool], run: RunResult,
              options: ExportOptions) -> list[dict[str, Any]]:
        return [t.inline_tool(options.demos_inline).to_openai() for t in tools]

    def build_sidecar(self, tools: Sequence[ExportTool], run: RunResult,
                      options: ExportOptions) -> dict[str, Any]:
        return {"play2prompt": run_info(run, options), "messages": demo_messages(tools, options)}
