"""The run report (and a comparison of methods) as one self-contained HTML file.

Jinja2 templates (``templates/``) with autoescaping: every value from a run (docs, queries,
tool outputs, reasons) is escaped unless it is marked safe here (the word diffs, which
:func:`~play2prompt.report.diff.diff_html` escapes itself). Charts are inlined as data URIs.
This module turns the report's data into what the templates show; the Markdown twin is
:mod:`~play2prompt.report.markdown`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from play2prompt.report.compare import Comparison
from play2prompt.report.data import DemoView, RunReport, ToolView
from play2prompt.report.diff import diff_html
from play2prompt.report.evals import EvalView, SideScore, side_label
from play2prompt.report.plots import Charts, no_chart_lines
from play2prompt.report.summary import (
    HELPED,
    HURT,
    FirstScreen,
    cost_items,
    first_screen,
    p_text,
    pct,
)
from play2prompt.store.meta import Meta

COST_COLUMNS = ["method", "LLM samples", "tokens", "tool calls", "doc chosen because"]


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _one(value: Any) -> Any:
    return f"{value:.1f}" if isinstance(value, float) else value


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=PackageLoader("play2prompt.report", "templates"),
                      autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["cell"] = fmt
    return env


# -- shared with the Markdown ----------------------------------------------------------------
def doc_rows(view: ToolView) -> list[tuple[str, str, str]]:
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


def demo_rows(demos: Sequence[DemoView]) -> list[list[str]]:
    return [[d.query, "; ".join(c.to_python() for c in d.calls),
             " | ".join(_output(o) for o in d.outputs), d.answer or ""] for d in demos]


def play_row(view: ToolView) -> list[Any]:
    play = view.play
    return [play.get("attempts"), play.get("valid_invocations"), play.get("success_rate")]


PAIR_COLUMNS = ["side", "accuracy", "wins vs original", "losses", "McNemar p"]


def pair_rows(scores: Sequence[SideScore]) -> list[list[Any]]:
    """Each side's accuracy, and but for the original its wins, losses and p."""
    return [[s.label, pct(s.accuracy), "-" if s.wins is None else s.wins,
             "-" if s.losses is None else s.losses, p_text(s.p_value)] for s in scores]


def eval_tables(ev: EvalView, primary: bool = False) -> dict[str, Any]:
    """The comparison against the baseline, accuracy per category and cost of one evaluation,
    sides named as the report names them (original, optimized, oracle). The ``primary`` one
    (the first screen's) has no comparison table: the first screen shows it."""
    def rename(col: str) -> str:
        for side in ev.sides:
            if col.startswith(side + " "):
                return side_label(side, ev.optimized) + col[len(side):]
        return col

    acc_cols = list(ev.accuracy[0]) if ev.accuracy else []
    cost_cols = list(ev.cost[0]) if ev.cost else []
    return {
        "title": ev.title + (" (compared at the top)" if primary else ""),
        "pair_cols": PAIR_COLUMNS,
        "pair_rows": [] if primary else pair_rows(ev.scores()),
        "acc_cols": [rename(c) for c in acc_cols],
        "acc_rows": [[_one(r.get(c)) for c in acc_cols] for r in ev.accuracy],
        "cost_cols": cost_cols,
        "cost_rows": [[side_label(str(r.get(c)), ev.optimized) if c == "side" else r.get(c)
                       for c in cost_cols] for r in ev.cost],
    }


# -- the first screen ------------------------------------------------------------------------
def _verdict(screen: FirstScreen) -> dict[str, str] | None:
    if screen.verdict is None:
        return None
    cls = {HELPED: "helped", HURT: "hurt"}.get(screen.verdict, "unclear")
    return {"cls": cls, "text": screen.verdict}


def _cards(screen: FirstScreen) -> list[dict[str, Any]]:
    ev = screen.evaluation
    out = []
    for s in screen.sides:
        sub = "docs as given" if s.name == "baseline" else "hand-written correct docs" \
            if s.name == "oracle" else "this run's docs and demos"
        if s.wins is not None:
            sub = f"+{s.wins} / -{s.losses} queries vs original, {p_text(s.p_value)}"
        out.append({"label": f"{s.label} docs", "value": pct(s.accuracy), "sub": sub,
                    "main": ev is not None and s.name == ev.optimized})
    return out


def _accuracy_cells(screen: FirstScreen, acc: Sequence[float | None]) -> list[tuple[str, str]]:
    """Each side's accuracy on the tool; the optimized one green (up) or red (down)."""
    base = acc[0] if acc else None
    optimized = screen.evaluation.optimized if screen.evaluation else None
    cells = []
    for side, value in zip(screen.sides, acc):
        cls = "muted" if side.name == "oracle" else ""
        if side.name == optimized and value is not None and base is not None:
            cls = "up" if value > base else "down" if value < base else ""
        cells.append((pct(value), cls))
    return cells


def _run_line(report: RunReport) -> list[str]:
    models = report.meta.get(Meta.MODELS, {}) or {}
    parts = [("", report.meta.get(Meta.STATUS)), ("created ", report.meta.get(Meta.CREATED)),
             ("generator ", models.get("generator")), ("task model ", models.get("task_model"))]
    return [f"{label}{value}" for label, value in parts if value]


def _tool(view: ToolView, charts: Mapping[str, Path]) -> dict[str, Any]:
    r = view.result
    return {"name": r.name, "changed": r.doc_changed, "reason": r.doc_reason,
            "diffs": [(f, Markup(diff_html(a, b))) for f, a, b in doc_rows(view)],
            "demo_rows": demo_rows(view.demos), "play": play_row(view),
            "facts": [list(f) for f in view.facts], "search": no_chart_lines(view, charts),
            "charts": [(p.stem, _data_uri(p)) for p in charts.values()]}


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def render_html(report: RunReport, charts: Charts) -> str:
    screen = first_screen(report)
    per_tool = screen.per_tool
    return environment().get_template("report.html.j2").render(
        run={"id": report.run_id, "line": _run_line(report)}, screen=screen,
        verdict=_verdict(screen), cards=_cards(screen),
        acc_headers=[s.label for s in screen.sides] if per_tool else [],
        tool_rows=[{"name": t.name, "changed": t.changed, "reason": t.reason,
                    "demos": t.demos,
                    "acc": _accuracy_cells(screen, t.accuracy) if per_tool else []}
                   for t in screen.tools],
        cost=cost_items(report.cost),
        evals=[eval_tables(ev, ev is screen.evaluation) for ev in report.evals],
        tools=[_tool(v, charts.of(v.result.name)) for v in report.tools],
        run_charts=[(p.stem, _data_uri(p)) for p in charts.run.values()],
        why_no_chart=charts.why_none,
        config_json=json.dumps(report.meta.get(Meta.CONFIG, {}), indent=2, default=str))


def render_compare_html(comparison: Comparison) -> str:
    head = ["field", *(c.title for c in comparison.columns)]
    return environment().get_template("compare.html.j2").render(
        title=comparison.title, head=head, cost_columns=COST_COLUMNS,
        tools=[{"name": t, "rows": comparison.rows(t), "cost_rows": comparison.cost_rows(t)}
               for t in comparison.tools])
