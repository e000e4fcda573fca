"""The exporter interface: a finished run in, one text (a file's content) out.

An exporter sees the run's tools already prepared by :func:`prepare`: each with the chosen
documentation applied (optimized, or the original D0 with ``original=True``) and at most ``k``
demonstrations. How demos travel is the exporter's business: a separate field (a system-prompt
snippet, MCP resources, docstring examples) or, with ``demos_inline``, inside the description.

The rule every format keeps: its file is exactly what its consumer takes (a ``tools=`` list
loads straight into the SDK, a module imports). Demos go where the consumer has a place for them
(a module's data, MCP's ``_meta``, the descriptions with ``demos_inline``); where it has none
they go to the sidecar, and ``p2p export`` says so when it writes to standard output. A
parameter without documentation is exported without a ``description`` key, never with ``""``.

Every export is published: the run goes through its scrubber first
(:meth:`~play2prompt.results.RunResult.published`) and the exporter's output once more at the
end (every string of a JSON document, the whole text of the others), so no exporter, built-in
or third-party, can write a secret the scrubber knows or recognises.
"""

from __future__ import annotations

import copy
import json
import pprint
import textwrap
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from play2prompt.agent.prompt import MODES, Demo, render_demos
from play2prompt.results import RunResult, ToolResult
from play2prompt.tools.model import Tool
from play2prompt.tools.validate import validation_errors


@dataclass(frozen=True)
class ExportOptions:
    """``demos``: at most this many demos per tool (None: all the run kept);
    ``demos_inline``: demos inside each tool's description instead of a separate field;
    ``original``: export the documentation the run started from (D0), without demos."""

    demos: int | None = None
    demos_inline: bool = False
    original: bool = False

    def __post_init__(self) -> None:
        if self.demos is not None and self.demos < 0:
            raise ValueError("demos must be >= 0")


@dataclass(frozen=True)
class ExportTool:
    """One tool as exported: its documentation applied, its demos chosen."""

    tool: Tool                # the tool with the exported doc (no demos in it)
    result: ToolResult        # everything the run knows about it
    demos: tuple[Demo, ...]
    mode: str = "function-calling"  # how the task model saw demos during the run

    @property
    def name(self) -> str:
        return self.tool.name

    def demos_text(self) -> str:
        """The demos rendered as the task model saw them during optimization."""
        return render_demos(self.demos, self.mode).strip()

    def description(self, inline: bool) -> str:
        """The tool description, with the demos appended when ``inline``."""
        text = self.tool.description
        if inline and self.demos:
            text = f"{text.rstrip()}\n\n{self.demos_text()}" if text.strip() else self.demos_text()
        return text

    def input_examples(self) -> list[dict[str, Any]]:
        """The arguments of the demos' calls of this tool that its exported schema accepts,
        each once, in the demos' order (what Anthropic's ``input_examples`` and JSON Schema's
        ``examples`` hold)."""
        out: list[dict[str, Any]] = []
        for call in (c for d in self.demos for c in d.calls if c.name == self.name):
            args = dict(call.arguments)
            if args not in out and not validation_errors(self.tool.parameters, args):
                out.append(args)
        return out

    def inline_tool(self, inline: bool) -> Tool:
        """The tool whose description carries the demos when ``inline``."""
        return replace(self.tool, description=self.description(inline)) if inline else self.tool


def documented_parameters(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a parameters schema without the empty ``description`` of each undocumented
    parameter (an empty text documents nothing; consumers take the key's absence)."""
    params = copy.deepcopy(dict(parameters))
    props = params.get("properties")
    if isinstance(props, dict):
        for schema in props.values():
            if isinstance(schema, dict) and not str(schema.get("description", "x")).strip():
                del schema["description"]
    return params


def task_mode(run: RunResult) -> str:
    mode = str(run.config.get("task_mode") or "function-calling")
    return mode if mode in MODES else "function-calling"


def prepare(run: RunResult, options: ExportOptions) -> list[ExportTool]:
    """The run's tools in export form, in the run's order."""
    mode = task_mode(run)
    out = []
    for result in run.tools.values():
        if options.original:
            out.append(ExportTool(_documented(result.original), result, (), mode))
            continue
        demos = result.demos if options.demos is None else result.demos[:options.demos]
        out.append(ExportTool(_documented(result.optimized), result, tuple(demos), mode))
    return out


def _documented(tool: Tool) -> Tool:
    return replace(tool, parameters=documented_parameters(tool.parameters))


def all_demos_text(tools: Sequence[ExportTool]) -> str:
    """Every tool's demos as one block (the separate system-prompt snippet)."""
    demos = [d for t in tools for d in t.demos]
    if not demos:
        return ""
    return render_demos(demos, tools[0].mode).strip()


def python_literal(value: list[Any]) -> str:
    """A Python literal of a list of JSON data, one item per block (for generated modules)."""
    if not value:
        return "[]"
    items = [pprint.pformat(v, width=92, sort_dicts=False) for v in value]
    return "[\n" + "".join(textwrap.indent(i, "    ") + ",\n" for i in items) + "]"


def sidecar_path(path: Path) -> Path:
    """Where the sidecar of an export written to ``path`` goes: ``tools.json`` ->
    ``tools.meta.json``."""
    return path.with_name(f"{path.stem}.meta.json")


def source_note(run: RunResult, options: ExportOptions) -> str:
    which = "original (D0) documentation" if options.original else "optimized documentation"
    return f"play2prompt run {run.run_id}: {which}"


class Exporter(ABC):
    """Render a finished run into one export format."""

    name: ClassVar[str]
    suffix: ClassVar[str]                       # the usual file suffix, e.g. ".json"
    media_type: ClassVar[str] = "text/plain"    # what an HTTP server answers with
    help: ClassVar[str] = ""

    def export(self, run: RunResult, options: ExportOptions | None = None) -> str:
        options = options or ExportOptions()
        public = run.published()
        return public.scrubber().text(self.render(prepare(public, options), public, options))

    @abstractmethod
    def render(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> str:
        """The file content."""

    def demos_outside(self, run: RunResult, options: ExportOptions | None = None) -> int:
        """How many demos the export's own file leaves to its sidecar (0: the file carries
        every demo it exports)."""
        return 0

    def exported_names(self, run: RunResult, options: ExportOptions | None = None
                       ) -> list[str]:
        """The run's tools the file carries: every one, but in an override file (only the
        tools whose documentation the export changes)."""
        return list(run.tools)

    def sidecar(self, run: RunResult, options: ExportOptions | None = None) -> str | None:
        """A second file that goes with the export (what cannot sit in the main file, e.g.
        the run's metadata and the demos next to a bare ``tools=`` list), or None. It is
        written next to the export as ``<name>.meta.json`` (:func:`sidecar_path`)."""
        return None


class JsonExporter(Exporter):
    """An exporter whose output is one JSON document (servers answer it as is)."""

    suffix = ".json"
    media_type = "application/json"
    sidecar_demos: ClassVar[bool] = False   # the demos go to the sidecar (no place in the file)

    def demos_outside(self, run: RunResult, options: ExportOptions | None = None) -> int:
        options = options or ExportOptions()
        if not self.sidecar_demos or options.demos_inline or options.original:
            return 0
        return sum(len(t.demos) for t in prepare(run, options))

    def document(self, run: RunResult, options: ExportOptions | None = None) -> Any:
        options = options or ExportOptions()
        public = run.published()
        return public.scrubber().value(self.build(prepare(public, options), public, options))

    def export(self, run: RunResult, options: ExportOptions | None = None) -> str:
        return json.dumps(self.document(run, options), indent=2, ensure_ascii=False) + "\n"

    def sidecar_document(self, run: RunResult, options: ExportOptions | None = None) -> Any:
        """The sidecar as JSON (scrubbed), or None."""
        options = options or ExportOptions()
        public = run.published()
        found = self.build_sidecar(prepare(public, options), public, options)
        return None if found is None else public.scrubber().value(found)

    def build_sidecar(self, tools: Sequence[ExportTool], run: RunResult,
                      options: ExportOptions) -> Any:
        """The sidecar document, if the format has one."""
        return None

    def sidecar(self, run: RunResult, options: ExportOptions | None = None) -> str | None:
        found = self.sidecar_document(run, options)
        return None if found is None else json.dumps(found, indent=2, ensure_ascii=False) + "\n"

    @abstractmethod
    def build(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> Any:
        """The JSON document."""

    def render(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> str:
        return json.dumps(self.build(tools, run, options), indent=2, ensure_ascii=False) + "\n"
