"""Exporters: a finished run's tools, docs and demos in the formats agents consume.

Exporters are a registry by name (``openai``, ``openai-responses``, ``anthropic``, ``mcp``,
``dspy``, ``python``, ``llm``, the agent frameworks' modules ``openai-agents``, ``pydantic-ai``,
``langchain``, ``llamaindex``, ``markdown``, and the gateway overrides ``toolhive-override``,
``toolhive-toolconfig``, ``ces-overrides``), imported only when used. Each format's file is
exactly what its consumer takes; :mod:`play2prompt.emit._base` says where the demos go.
Third-party formats register a :class:`~play2prompt.emit._base.Exporter` subclass under the
entry-point group ``play2prompt.exporters``.
"""

from __future__ import annotations

from pathlib import Path

from play2prompt.emit._base import Exporter, ExportOptions, ExportTool, JsonExporter, prepare
from play2prompt.errors import UserError
from play2prompt.plugins import load_target, registered
from play2prompt.results import RunResult

__all__ = ["ExportOptions", "ExportTool", "Exporter", "JsonExporter", "available_exporters",
           "export_run", "get_exporter", "prepare", "write_export"]

ENTRY_POINT_GROUP = "play2prompt.exporters"

BUILTIN_EXPORTERS: dict[str, str] = {
    "openai": "play2prompt.emit.openai:OpenAIExporter",
    "openai-responses": "play2prompt.emit.openai_responses:OpenAIResponsesExporter",
    "anthropic": "play2prompt.emit.anthropic:AnthropicExporter",
    "mcp": "play2prompt.emit.mcp:McpExporter",
    "dspy": "play2prompt.emit.dspy:DspyExporter",
    "python": "play2prompt.emit.python:PythonExporter",
    "llm": "play2prompt.emit.llm:LlmExporter",
    "openai-agents": "play2prompt.emit.frameworks:OpenAIAgentsExporter",
    "pydantic-ai": "play2prompt.emit.frameworks:PydanticAIExporter",
    "langchain": "play2prompt.emit.frameworks:LangChainExporter",
    "llamaindex": "play2prompt.emit.frameworks:LlamaIndexExporter",
    "markdown": "play2prompt.emit.markdown:MarkdownExporter",
    "toolhive-override": "play2prompt.emit.overrides:ToolhiveOverrideExporter",
    "toolhive-toolconfig": "play2prompt.emit.overrides:ToolhiveToolConfigExporter",
    "ces-overrides": "play2prompt.emit.overrides:CesOverridesExporter",
}


def available_exporters() -> dict[str, str]:
    """Format name -> ``module:Class``: the built-in ones and those from entry points."""
    return registered(BUILTIN_EXPORTERS, ENTRY_POINT_GROUP)


def get_exporter(name: str) -> Exporter:
    registry = available_exporters()
    if name not in registry:
        raise UserError(f"unknown export format {name!r} (known: {', '.join(registry)})")
    return load_target(registry[name])()


def export_run(run: RunResult, fmt: str, options: ExportOptions | None = None) -> str:
    """The run exported in format ``fmt``, as the file's text."""
    return get_exporter(fmt).export(run, options or ExportOptions())


def write_export(run: RunResult, fmt: str, out: Path,
                 options: ExportOptions | None = None) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(export_run(run, fmt, options), encoding="utf-8")
    return out
