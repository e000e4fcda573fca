"""The report's first screen: did the run help?

Per tool: whether its doc changed or was kept, and why (the result's reason), the demos it
ships and, when the run's prompts were evaluated, the tool's accuracy with the original, the
optimized and the oracle docs (an evaluation whose categories are the tools, as ``p2p eval``
of a tools file). For the run: a one-line headline, e.g. ``3 of 7 docs changed, 3 demos;
accuracy 22.2 % -> 55.6 % (+36/-0, p<0.001)``, a verdict (helped, hurt, no clear difference:
McNemar's p against ``ALPHA``) and the evaluation's sides side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.report.data import RunReport
from play2prompt.report.evals import EXEC, EvalView, SideScore, primary

ALPHA = 0.05
HELPED, HURT, UNCLEAR = "helped", "hurt", "no clear difference"


@dataclass(frozen=True)
class ToolLine:
    name: str
    changed: bool
    reason: str
    demos: int
    accuracy: tuple[float | None, ...] = ()    # per side of the evaluation, as its scores


@dataclass(frozen=True)
class FirstScreen:
    headline: str
    verdict: str | None                 # HELPED, HURT, UNCLEAR; None without a comparison
    detail: str                         # what was evaluated, on what, or how to evaluate
    tools: list[ToolLine]
    sides: list[SideScore]              # original, optimized, oracle (when evaluated)
    evaluation: EvalView | None = None

    @property
    def per_tool(self) -> bool:
        """Whether the evaluation's categories are the tools (a column per side)."""
        return any(any(a is not None for a in t.accuracy) for t in self.tools)


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} %"


def p_text(p: float | None) -> str:
    if p is None:
        return "-"
    return "p<0.001" if p < 0.001 else f"p={p:.3f}" if p < 0.01 else f"p={p:.2f}"


def verdict(score: SideScore) -> str | None:
    if score.wins is None or score.losses is None or score.p_value is None:
        return None
    if score.p_value >= ALPHA or score.wins == score.losses:
        return UNCLEAR
    return HELPED if score.wins > score.losses else HURT


def _optimized(sides: Sequence[SideScore], ev: EvalView) -> SideScore | None:
    return next((s for s in sides if s.name == ev.optimized), None)


def _eval_phrase(ev: EvalView, sides: Sequence[SideScore]) -> str:
    base = next((s for s in sides if s.name == "baseline"), None)
    opt = _optimized(sides, ev)
    if base is None or opt is None:
        return "; ".join(f"{s.label} {pct(s.accuracy)}" for s in sides)
    text = f"accuracy {pct(base.accuracy)} -> {pct(opt.accuracy)}"
    if opt.wins is not None and opt.losses is not None:
        text += f" (+{opt.wins}/-{opt.losses}, {p_text(opt.p_value)})"
    oracle = next((s for s in sides if s.name == "oracle"), None)
    if oracle is not None:
        text += f"; oracle docs {pct(oracle.accuracy)}"
    return text


def _tool_lines(report: RunReport, ev: EvalView | None, sides: Sequence[SideScore]
                ) -> list[ToolLine]:
    cats = ev.categories() if ev else {}
    out = []
    for view in report.tools:
        r = view.result
        row: Mapping[str, Any] = cats.get(r.name, {})
        out.append(ToolLine(r.name, r.doc_changed, r.doc_reason, len(r.demos),
                            tuple(row.get(s.name + EXEC) for s in sides)))
    return out


def first_screen(report: RunReport) -> FirstScreen:
    """What the report opens with (see the module's docstring)."""
    ev = primary(report.evals)
    sides = ev.scores() if ev else []
    tools = _tool_lines(report, ev, sides)
    changed = sum(t.changed for t in tools)
    demos = sum(t.demos for t in tools)
    head = (f"{changed} of {len(tools)} doc{'s' if len(tools) != 1 else ''} changed, "
            f"{demos} demo{'s' if demos != 1 else ''} shipped")
    if ev is None:
        return FirstScreen(head + "; not evaluated", None,
                           f"to measure it: p2p eval tools TOOLS_FILE --queries QUERIES "
                           f"--prompts {report.run_id}, then p2p report {report.run_id}",
                           tools, [])
    opt = _optimized(sides, ev)
    n = ev.n
    detail = (f"{ev.config.get('suite', ev.id)}: {n if n is not None else '?'} queries, "
              f"task model {ev.config.get('task_model')}"
              + ("" if ev.source == "run" else f", from {ev.source}"))
    return FirstScreen(f"{head}; {_eval_phrase(ev, sides)}", verdict(opt) if opt else None,
                       detail, tools, sides, ev)


# -- the cost, in words --------------------------------------------------------------------
COST_LABELS = {
    "wall_s": "wall time",
    "sessions": "sessions",
    "llm_calls": "LLM calls",
    "cache_hits": "LLM calls answered from the cache",
    "logged_samples": "LLM samples logged",
    "failed_calls": "failed LLM calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
    "tool_executions": "tool executions",
    "tool_execution_cache_hits": "tool executions reused",
}


def duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{seconds:.1f} s"
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h} h {m} min" if h else f"{m} min {s} s"


def cost_items(cost: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) for each figure of the run's cost, readable (``28 min 16 s``,
    ``123,455``)."""
    out = []
    for key, value in cost.items():
        label = COST_LABELS.get(key, key.replace("_", " "))
        if key == "wall_s" and isinstance(value, (int, float)):
            text = duration(float(value))
        elif isinstance(value, int):
            text = f"{value:,}"
        else:
            text = "-" if value is None else str(value)
        out.append((label, text))
    return out
