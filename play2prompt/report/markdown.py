"""The run report (and a comparison of methods) as Markdown: the same sections as the HTML,
opening with the same answer (:mod:`~play2prompt.report.summary`), charts as linked files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.report.compare import Comparison
from play2prompt.report.data import RunReport, ToolView
from play2prompt.report.diff import diff_markdown
from play2prompt.report.plots import Charts, no_chart_lines
from play2prompt.report.render import (
    COST_COLUMNS,
    PAIR_COLUMNS,
    demo_rows,
    doc_rows,
    eval_tables,
    fmt,
    pair_rows,
    play_row,
)
from play2prompt.report.summary import FirstScreen, cost_items, first_screen, pct


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(v: Any) -> str:
        return fmt(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def first_screen_markdown(screen: FirstScreen) -> list[str]:
    verdict = f"**{screen.verdict.capitalize()}:** " if screen.verdict else ""
    lines = [f"{verdict}{screen.headline}", "", screen.detail, ""]
    per_tool = screen.per_tool
    columns = ["tool", "doc", "why", "demos", *([s.label for s in screen.sides]
                                                 if per_tool else [])]
    rows = [[t.name, "changed" if t.changed else "kept", t.reason, t.demos,
             *([pct(a) for a in t.accuracy] if per_tool else [])] for t in screen.tools]
    if screen.sides:
        lines += [table(PAIR_COLUMNS, pair_rows(screen.sides)), ""]
    return [*lines, table(columns, rows), ""]


def _tool_markdown(view: ToolView, charts: Mapping[str, Path], base: Path) -> list[str]:
    r = view.result
    lines = [f"## {r.name}", "", f"doc: {r.doc_reason}", "", "### Documentation (word diff)", "",
             table(["field", "diff"], [[f, diff_markdown(a, b)] for f, a, b in doc_rows(view)]),
             "", f"### Demonstrations ({len(view.demos)})", "",
             table(["query", "call", "executed output", "answer"], demo_rows(view.demos)), "",
             "### Tool play", "",
             table(["attempts", "valid invocations", "invocation success rate"],
                   [play_row(view)]), "",
             f"### What tool play established ({len(view.facts)})", "",
             table(["parameter", "kind", "fact"], [list(f) for f in view.facts]), "",
             "### Search", ""]
    for line in no_chart_lines(view, charts):
        lines += [line, ""]
    lines += [f"![{label}]({path.relative_to(base).as_posix()})"
              for label, path in charts.items()]
    return [*lines, ""]


def _charts_markdown(charts: Charts, base: Path) -> list[str]:
    """The run's charts (or why there is none), as linked files."""
    if charts.why_none:
        return [charts.why_none, ""]
    return [*(f"![{label}]({path.relative_to(base).as_posix()})"
              for label, path in charts.run.items()), ""]


def render_markdown(report: RunReport, charts: Charts, base: Path) -> str:
    screen = first_screen(report)
    lines = [f"# Run {report.run_id}", "", *first_screen_markdown(screen),
             "## Cost", "", table(["", "value"], cost_items(report.cost)), ""]
    for ev in report.evals:
        t = eval_tables(ev, ev is screen.evaluation)
        lines += [f"## Evaluation {t['title']}", ""]
        if t["pair_rows"]:
            lines += [table(t["pair_cols"], t["pair_rows"]), ""]
        lines += [table(t["acc_cols"], t["acc_rows"]), ""]
    lines += ["## Tool play and example search", "", *_charts_markdown(charts, base)]
    for view in report.tools:
        lines += _tool_markdown(view, charts.of(view.result.name), base)
    return "\n".join(lines)


def render_compare_markdown(comparison: Comparison) -> str:
    lines = [f"# {comparison.title}", ""]
    head = ["field", *(c.title for c in comparison.columns)]
    for tool in comparison.tools:
        lines += [f"## {tool}", "", table(head, comparison.rows(tool)), "",
                  "Cost for this tool:", "",
                  table(COST_COLUMNS, comparison.cost_rows(tool)), ""]
    return "\n".join(lines)
