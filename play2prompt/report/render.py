"""The run report as one self-contained HTML file (charts inlined) and as Markdown."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.report.compare import Comparison
from play2prompt.report.data import DemoView, RunReport, ToolView
from play2prompt.report.diff import diff_html, diff_markdown
from play2prompt.store.meta import Meta

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;
text-align:left;vertical-align:top}del{background:#fdd;color:#900}ins{background:#dfd;
color:#060;text-decoration:none}pre{background:#f6f6f6;padding:.4em;white-space:pre-wrap}
section.tool{border-top:2px solid #888;margin-top:2em}img{max-width:48%;margin-right:1%}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _table_html(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(_fmt(v))}</td>" for v in r) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _table_md(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(v: Any) -> str:
        return _fmt(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def _doc_rows(view: ToolView) -> list[tuple[str, str, str]]:
    """(field, original, optimized) for the description and every parameter."""
    orig, new = view.result.original.doc, view.result.doc
    rows = [("description", orig.description, new.description)]
    for name in dict.fromkeys([*orig.params, *new.params]):
        rows.append((f"param {name}", orig.params.get(name, ""), new.params.get(name, "")))
    return rows


def _output(obs: Any) -> str:
    if obs is None:
        return "(not executed in this run)"
    if obs.ok:
        return json.dumps(obs.output, ensure_ascii=False, default=str)[:600]
    return f"error ({obs.error_type}): {obs.error}"[:600]


def _demo_rows(demos: Sequence[DemoView]) -> list[list[str]]:
    return [[d.query, "; ".join(c.to_python() for c in d.calls),
             " | ".join(_output(o) for o in d.outputs), d.answer or ""] for d in demos]


def _play_row(view: ToolView) -> list[Any]:
    play = view.play
    return [play.get("attempts"), play.get("valid_invocations"), play.get("success_rate")]


def _eval_tables(evals: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str], list]]:
    out = []
    for ev in evals:
        acc = ev.get("summary", {}).get("accuracy") or []
        if not acc:
            continue
        columns = list(acc[0].keys())
        cfg = ev.get("config", {})
        title = (f"{ev['id']}: task model {cfg.get('task_model')}, variant {cfg.get('variant')}, "
                 f"k={cfg.get('demos')}")
        out.append((title, columns, [[r.get(c) for c in columns] for r in acc]))
    return out


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img src="data:image/png;base64,{data}" alt="{_e(path.stem)}">'


def _tool_html(view: ToolView, charts: Mapping[str, Path]) -> str:
    r = view.result
    diffs = "".join(f"<tr><td>{_e(f)}</td><td>{diff_html(a, b)}</td></tr>"
                    for f, a, b in _doc_rows(view))
    return (f'<section class="tool" id="tool-{_e(r.name)}"><h2>{_e(r.name)}</h2>'
            f"<p>doc: {_e(r.doc_reason)}</p>"
            f"<h3>Documentation (word diff, original to optimized)</h3>"
            f"<table><thead><tr><th>field</th><th>diff</th></tr></thead><tbody>{diffs}"
            f"</tbody></table>"
            f"<h3>Demonstrations ({len(view.demos)})</h3>"
            + _table_html(["query", "call", "executed output", "answer"], _demo_rows(view.demos))
            + "<h3>Tool play</h3>"
            + _table_html(["attempts", "valid invocations", "invocation success rate"],
                          [_play_row(view)])
            + f"<h3>What tool play established ({len(view.facts)})</h3>"
            + _table_html(["parameter", "kind", "fact"], [list(f) for f in view.facts])
            + "<h3>Search</h3><p>" + "".join(_img(p) for p in charts.values()) + "</p></section>")


def render_html(report: RunReport, charts: Mapping[str, Mapping[str, Path]]) -> str:
    cost = report.cost
    cfg = report.meta.get(Meta.CONFIG, {})
    models = report.meta.get(Meta.MODELS, {})
    parts = [f"<h1>Run {_e(report.run_id)}</h1>",
             f"<p>created {_e(report.meta.get(Meta.CREATED))}, status "
             f"{_e(report.meta.get(Meta.STATUS))}, generator {_e(models.get('generator'))}, "
             f"task model {_e(models.get('task_model'))}</p>",
             "<h2>Cost</h2>", _table_html(list(cost), [list(cost.values())]),
             "<h2>Tools</h2><ul>" + "".join(
                 f'<li><a href="#tool-{_e(v.result.name)}">{_e(v.result.name)}</a></li>'
                 for v in report.tools) + "</ul>"]
    for title, columns, rows in _eval_tables(report.evals):
        parts += [f"<h2>Evaluation</h2><p>{_e(title)}</p>", _table_html(columns, rows)]
    parts += [_tool_html(v, charts.get(v.result.name, {})) for v in report.tools]
    parts += ["<h2>Config</h2>", f"<pre>{_e(json.dumps(cfg, indent=2, default=str))}</pre>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>play2prompt run {_e(report.run_id)}</title><style>{STYLE}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")


def render_markdown(report: RunReport, charts: Mapping[str, Mapping[str, Path]],
                    base: Path) -> str:
    cost = report.cost
    lines = [f"# Run {report.run_id}", "", "## Cost", "",
             _table_md(list(cost), [list(cost.values())]), ""]
    for title, columns, rows in _eval_tables(report.evals):
        lines += ["## Evaluation", "", title, "", _table_md(columns, rows), ""]
    for view in report.tools:
        r = view.result
        lines += [f"## {r.name}", "", f"doc: {r.doc_reason}", "",
                  "### Documentation (word diff)", "",
                  _table_md(["field", "diff"],
                            [[f, diff_markdown(a, b)] for f, a, b in _doc_rows(view)]), "",
                  f"### Demonstrations ({len(view.demos)})", "",
                  _table_md(["query", "call", "executed output", "answer"],
                            _demo_rows(view.demos)), "", "### Tool play", "",
                  _table_md(["attempts", "valid invocations", "invocation success rate"],
                            [_play_row(view)]), "",
                  f"### What tool play established ({len(view.facts)})", "",
                  _table_md(["parameter", "kind", "fact"], [list(f) for f in view.facts]), "",
                  "### Search", ""]
        for label, path in charts.get(r.name, {}).items():
            lines.append(f"![{label}]({path.relative_to(base).as_posix()})")
        lines.append("")
    return "\n".join(lines)


# -- several methods side by side ------------------------------------------------------------
COST_COLUMNS = ["method", "LLM samples", "tokens", "tool calls", "doc chosen because"]


def render_compare_html(comparison: Comparison) -> str:
    parts = [f"<h1>{_e(comparison.title)}</h1>",
             "<p>Each method's documentation of a tool, side by side: the original doc, the "
             "docs of the runs, the oracle doc when given.</p>",
             "<ul>" + "".join(f'<li><a href="#tool-{_e(t)}">{_e(t)}</a></li>'
                              for t in comparison.tools) + "</ul>"]
    head = ["field", *(c.title for c in comparison.columns)]
    for tool in comparison.tools:
        parts += [f'<section class="tool" id="tool-{_e(tool)}"><h2>{_e(tool)}</h2>',
                  _table_html(head, comparison.rows(tool)),
                  "<h3>Cost for this tool</h3>",
                  _table_html(COST_COLUMNS, comparison.cost_rows(tool)), "</section>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(comparison.title)}</title><style>{STYLE}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")


def render_compare_markdown(comparison: Comparison) -> str:
    lines = [f"# {comparison.title}", ""]
    head = ["field", *(c.title for c in comparison.columns)]
    for tool in comparison.tools:
        lines += [f"## {tool}", "", _table_md(head, comparison.rows(tool)), "",
                  "Cost for this tool:", "",
                  _table_md(COST_COLUMNS, comparison.cost_rows(tool)), ""]
    return "\n".join(lines)
