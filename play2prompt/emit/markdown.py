"""Markdown: human-readable docs, the original next to the optimized, and the demos."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.emit._base import Exporter, ExportOptions, ExportTool, source_note
from play2prompt.results import RunResult


def _cell(text: Any) -> str:
    value = "" if text is None else str(text)
    return value.replace("|", "\\|").replace("\n", "<br>") or "-"


def _quote(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in (text.strip() or "(none)").splitlines()]


def _score(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, (int, float)) else "-"


def _scores_line(scores: Mapping[str, Any]) -> str:
    if not scores:
        return ""
    return (f"Task-model accuracy with the original / chosen doc: train "
            f"{_score(scores.get('d0_train'))} / {_score(scores.get('best_train'))}, holdout "
            f"{_score(scores.get('d0_holdout'))} / {_score(scores.get('best_holdout'))}.")


def _param_rows(tool: ExportTool, compare: bool) -> list[str]:
    props = tool.tool.properties
    if not props:
        return ["No parameters."]
    required = set(tool.tool.required)
    before = tool.result.original.properties
    head = "| parameter | type | required | " + ("original | optimized |" if compare
                                                 else "description |")
    rows = [head, "|" + "---|" * (5 if compare else 4)]
    for name, schema in props.items():
        kind = schema.get("type", "any") if isinstance(schema, Mapping) else "any"
        kind = " or ".join(map(str, kind)) if isinstance(kind, list) else kind
        cells = [f"`{name}`", _cell(kind), "yes" if name in required else "no"]
        old = before.get(name, {}).get("description", "") if name in before else ""
        cells += [_cell(old)] if compare else []
        cells.append(_cell(schema.get("description", "") if isinstance(schema, Mapping) else ""))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _demo_lines(tool: ExportTool) -> list[str]:
    lines = ["", "**Demonstrations**", ""]
    for i, demo in enumerate(tool.demos, 1):
        calls = "; ".join(c.to_python() for c in demo.calls)
        lines.append(f"{i}. {demo.query.strip()}".replace("\n", " "))
        lines.append(f"   `{calls}`")
    return lines


def tool_section(tool: ExportTool, options: ExportOptions) -> list[str]:
    result = tool.result
    compare = not options.original and result.doc_changed
    lines = [f"## {tool.name}", ""]
    if options.original:
        lines.append("Original documentation (D0).")
    else:
        why = f": {result.doc_reason}" if result.doc_reason else ""
        state = "changed" if result.doc_changed else "kept as it was"
        lines.append(f"Documentation {state}{why}.")
    score = _scores_line(result.scores)
    lines += ["", score] if score else []
    if compare:
        lines += ["", "**Original description**", ""] + _quote(result.original.description)
        lines += ["", "**Optimized description**", ""] + _quote(tool.tool.description)
    else:
        lines += ["", "**Description**", ""] + _quote(tool.tool.description)
    lines += ["", "**Parameters**", ""] + _param_rows(tool, compare)
    if tool.demos:
        lines += _demo_lines(tool)
    return lines + [""]


class MarkdownExporter(Exporter):
    name = "markdown"
    suffix = ".md"
    media_type = "text/markdown"
    help = "human-readable docs: before/after and the demos"

    def render(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> str:
        changed = sum(1 for t in tools if t.result.doc_changed)
        lines = [f"# Tool documentation ({run.run_id})", "",
                 f"Generated from {source_note(run, options)}. {len(tools)} tools, "
                 f"{changed} with a rewritten documentation.", ""]
        for tool in tools:
            lines += tool_section(tool, options)
        return "\n".join(lines).rstrip() + "\n"
