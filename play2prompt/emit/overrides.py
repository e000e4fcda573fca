"""Gateway overrides: the descriptions a run changed, as an MCP gateway overrides a server's.

A gateway in front of an MCP server can replace what the server lists for a tool without
forking the server. Each format here is one gateway's documented override file, and carries
only the tools whose documentation the run changed (a kept original is never overridden):

- ``toolhive-override``: ToolHive's tools override file, ``thv run --tools-override FILE``:
  ``{"toolsOverride": {"<server's tool name>": {"description": "..."}}}``;
- ``toolhive-toolconfig``: the same overrides as ToolHive's Kubernetes resource
  ``MCPToolConfig`` (``toolhive.stacklok.dev/v1beta1``, ``spec.toolsOverride``), a JSON
  manifest for ``kubectl apply -f``, referenced by an ``MCPServer``'s ``spec.toolConfigRef``;
- ``ces-overrides``: Google Gemini Enterprise for CX (``ces.googleapis.com``) Toolset
  ``mcpToolset.toolOverrides`` (``tool``, ``descriptionOverride``), the body of
  ``toolsets.patch`` with ``updateMask=mcpToolset.toolOverrides``.

A gateway overrides a tool's description only, never its parameters' texts, so the parameter
docs the run changed are written into the description after it (``Parameters:``, one line
each). The key is the tool's name on its server (a tools file from ``p2p tools from-mcp
--prefix`` keeps it in the executor). Demos have no place in these files: they go to the
sidecar (``messages``, as for ``openai``) unless ``--demos-inline`` puts them in the
description, which then overrides every tool that has demos too.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.emit._base import ExportOptions, ExportTool, JsonExporter, prepare
from play2prompt.emit.openai import demo_messages, run_info
from play2prompt.results import RunResult
from play2prompt.tools.model import Tool

TOOLHIVE_API = "toolhive.stacklok.dev/v1beta1"
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


@dataclass(frozen=True)
class Override:
    """One tool's override: its name on its server and the description to list instead."""

    tool: str           # the name the server lists
    description: str


def server_name(tool: Tool) -> str:
    """The tool's name on its MCP server (``from-mcp --prefix`` renames only the local one)."""
    spec = (tool.executor or {}).get("mcp")
    if isinstance(spec, Mapping) and spec.get("tool"):
        return str(spec["tool"])
    listed = tool.meta.get("mcp")
    if isinstance(listed, Mapping) and listed.get("tool"):
        return str(listed["tool"])
    return tool.name


def override_text(tool: ExportTool, inline: bool) -> str:
    """The description a gateway lists for ``tool``: the exported one, then the parameter docs
    that differ from the original's (a gateway has no other place for them)."""
    text = tool.description(inline)
    before = tool.result.original.doc.params
    changed = [(p, d) for p, d in tool.tool.doc.params.items()
               if d.strip() and d != before.get(p, "")]
    if not changed:
        return text
    lines = "\n".join(f"- {p}: {' '.join(d.split())}" for p, d in changed)
    return f"{text.rstrip()}\n\nParameters:\n{lines}" if text.strip() else f"Parameters:\n{lines}"


def overrides(tools: Sequence[ExportTool], options: ExportOptions) -> list[Override]:
    """The tools whose exported description differs from the one their server lists, in the
    run's order (none with ``original``; never an empty text: to a gateway it overrides
    nothing)."""
    out = []
    for tool in tools:
        text = override_text(tool, options.demos_inline)
        if text.strip() and text != tool.result.original.description:
            out.append(Override(server_name(tool.result.original), text))
    return out


class OverrideExporter(JsonExporter):
    """An override file of one gateway: only the overridden tools, the demos in the sidecar."""

    sidecar_demos = True

    def exported_names(self, run: RunResult, options: ExportOptions | None = None
                       ) -> list[str]:
        options = options or ExportOptions()
        found = {o.tool for o in overrides(prepare(run, options), options)}
        return [n for n, r in run.tools.items() if server_name(r.original) in found]

    def build(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> Any:
        return self.document_of(overrides(tools, options), run)

    @abstractmethod
    def document_of(self, found: Sequence[Override], run: RunResult) -> Any:
        """The gateway's file for the overrides ``found``."""

    def build_sidecar(self, tools: Sequence[ExportTool], run: RunResult,
                      options: ExportOptions) -> dict[str, Any]:
        found = {o.tool for o in overrides(tools, options)}
        names = [server_name(t.result.original) for t in tools]
        return {"play2prompt": run_info(run, options),
                "overridden": [n for n in names if n in found],
                "kept": [n for n in names if n not in found],
                "messages": demo_messages(tools, options)}


class ToolhiveOverrideExporter(OverrideExporter):
    name = "toolhive-override"
    help = "ToolHive tools override file (thv run --tools-override FILE): changed tools only"

    def document_of(self, found: Sequence[Override], run: RunResult) -> dict[str, Any]:
        return {"toolsOverride": {o.tool: {"description": o.description} for o in found}}


class ToolhiveToolConfigExporter(OverrideExporter):
    name = "toolhive-toolconfig"
    help = "ToolHive MCPToolConfig resource (Kubernetes, spec.toolsOverride): changed tools only"

    def document_of(self, found: Sequence[Override], run: RunResult) -> dict[str, Any]:
        return {"apiVersion": TOOLHIVE_API, "kind": "MCPToolConfig",
                "metadata": {"name": resource_name(run.run_id),
                             "labels": {"app.kubernetes.io/managed-by": "play2prompt"}},
                "spec": {"toolsOverride": {o.tool: {"description": o.description}
                                           for o in found}}}


class CesOverridesExporter(OverrideExporter):
    name = "ces-overrides"
    help = ("Google CX Agent Studio Toolset mcpToolset.toolOverrides (toolsets.patch): "
            "changed tools only")

    def document_of(self, found: Sequence[Override], run: RunResult) -> dict[str, Any]:
        return {"mcpToolset": {"toolOverrides": [
            {"tool": o.tool, "descriptionOverride": o.description} for o in found]}}


def resource_name(run_id: str) -> str:
    """A Kubernetes object name (DNS-1123 label) for the run's resource."""
    name = _NOT_DNS.sub("-", f"p2p-{run_id}".lower()).strip("-")[:63].rstrip("-")
    return name or "p2p"
