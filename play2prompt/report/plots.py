"""The report's charts, one PNG file per chart (embedded in the HTML as data URIs, so the HTML
stands alone).

- The run's: what tool play and the example search gave per tool (play attempts that ran or
  failed; examples verified, stopped by a gate or neither). Every run that played has it, a
  quick one too.
- Per tool: the best example reward and the doc score per iteration, from two iterations on
  (a quick run's example search has two). A series with fewer points gets no chart and one
  line saying why (:func:`no_chart_lines`): no iteration, or one (no curve).

Fixed axes: a doc score on 0..1, example rewards on 0 up to the run's highest (at least
:data:`REWARD_TOP`, R_q's top), the same for every tool, so a flat line reads as flat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from play2prompt.report.data import RunReport, ToolView

MIN_POINTS = 2
REWARD_TOP = 3.0          # R_q's top (R = R_q + lambda * R_e may go above)
SERIES = {"rewards": ("best example reward", "reward R", "example-reward"),
          "doc_scores": ("doc score", "held-out accuracy", "doc-score")}
RUN_CHART = "play-and-examples"


@dataclass(frozen=True)
class Charts:
    """The report's PNG files: the run's (by name) and each tool's (``rewards``,
    ``doc_scores``); ``why_none``: one line when there is none at all."""

    tools: Mapping[str, Mapping[str, Path]] = field(default_factory=dict)
    run: Mapping[str, Path] = field(default_factory=dict)
    why_none: str = ""

    @property
    def count(self) -> int:
        return len(self.run) + sum(len(c) for c in self.tools.values())

    def of(self, tool: str) -> Mapping[str, Path]:
        return self.tools.get(tool, {})


def points(values: Sequence[float | None]) -> int:
    return sum(v is not None for v in values)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "tool"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90, bbox_inches="tight")    # a legend below the axes included
    _pyplot().close(fig)
    return path


def line_chart(values: Sequence[float | None], title: str, ylabel: str, path: Path,
               ylim: tuple[float, float] | None = None) -> Path:
    fig, ax = _pyplot().subplots(figsize=(4.5, 2.6))
    xs = [i for i, v in enumerate(values) if v is not None]
    ys = [v for v in values if v is not None]
    if ys:
        ax.plot(xs, ys, marker="o")
    else:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("iteration")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    if xs:
        ax.set_xticks(xs)
        ax.set_xlim(min(xs) - 0.3, max(xs) + 0.3)
    if ylim is not None:
        ax.set_ylim(*ylim)
    return _save(fig, path)


def play_counts(view: ToolView) -> tuple[int, int]:
    """(play attempts that made a valid call, that failed)."""
    attempts = int(view.play.get("attempts") or 0)
    rate = float(view.play.get("success_rate") or 0.0)
    ran = min(attempts, round(rate * attempts))
    return ran, attempts - ran


def example_counts(view: ToolView) -> tuple[int, int, int]:
    """(examples verified, stopped by a gate, neither) of the tool's example search."""
    stats = view.result.stats
    total = int(stats.get("examples") or 0)
    verified = int(stats.get("verified_examples") or 0)
    gated = min(int(stats.get("gated_examples") or 0), max(total - verified, 0))
    return verified, gated, max(total - verified - gated, 0)


def _stacked(ax: Any, names: Sequence[str], parts: Sequence[tuple[str, str, list[int]]],
             title: str) -> None:
    left = [0] * len(names)
    ys = list(range(len(names)))
    for label, color, values in parts:
        ax.barh(ys, values, left=left, color=color, label=label)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(ys, names, fontsize=8)
    ax.set_ylim(len(names) - 0.5, -0.5)     # the first tool on top
    ax.set_xlim(0, max([*left, 1]) * 1.05)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title, fontsize=9)
    from matplotlib.transforms import offset_copy

    below = offset_copy(ax.transAxes, ax.figure, y=-18, units="points")  # under the ticks
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below,
              ncol=len(parts), frameon=False)


def run_chart(report: RunReport, path: Path) -> Path:
    """Per tool: play attempts (valid call, failed) and examples (verified, gated, neither)."""
    names = [v.result.name for v in report.tools]
    play = [play_counts(v) for v in report.tools]
    examples = [example_counts(v) for v in report.tools]
    fig, (left, right) = _pyplot().subplots(
        1, 2, figsize=(8.0, 0.8 + 0.32 * len(names)), sharey=True)
    _stacked(left, names, [("valid call", "#4C72B0", [p[0] for p in play]),
                           ("failed", "#C44E52", [p[1] for p in play])], "tool play: attempts")
    _stacked(right, names, [("verified", "#55A868", [e[0] for e in examples]),
                            ("stopped by a gate", "#C44E52", [e[1] for e in examples]),
                            ("not verified", "#BBBBBB", [e[2] for e in examples])],
             "example search: examples")
    return _save(fig, path)


def _played(report: RunReport) -> bool:
    return any(sum(play_counts(v)) or sum(example_counts(v)) for v in report.tools)


def _reward_top(report: RunReport) -> float:
    values = [v for t in report.tools for v in t.example_rewards if v is not None]
    return max([REWARD_TOP, *values])


def y_limits(report: RunReport) -> dict[str, tuple[float, float]]:
    """Each series' fixed y axis, the same for every tool of the run (a margin of 5 % so the
    dots on 0 and on the top show whole)."""
    top = _reward_top(report)
    return {"rewards": (-0.05 * top, 1.05 * top), "doc_scores": (-0.05, 1.05)}


def _why_none(report: RunReport) -> str:
    if not report.tools:
        return "no chart: the run has no tools"
    if not _played(report):
        return "no chart: no tool was played (the method optimizes without play)"
    return "no chart: no search went past one iteration"


def write_charts(report: RunReport, out_dir: Path) -> Charts:
    """The run's chart when any tool was played; per tool, the series with enough points."""
    run = {RUN_CHART: run_chart(report, out_dir / f"{RUN_CHART}.png")} \
        if _played(report) else {}
    limits = y_limits(report)
    tools: dict[str, dict[str, Path]] = {}
    for view in report.tools:
        name = view.result.name
        series = {"rewards": view.example_rewards, "doc_scores": view.doc_scores}
        for key, values in series.items():
            if points(values) < MIN_POINTS:
                continue
            title, ylabel, stem = SERIES[key]
            tools.setdefault(name, {})[key] = line_chart(
                values, f"{name}: {title}", ylabel, out_dir / f"{_slug(name)}-{stem}.png",
                limits[key])
    charts = Charts(tools, run)
    return charts if charts.count else Charts(why_none=_why_none(report))


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def no_chart_lines(view: ToolView, charted: Mapping[str, Path]) -> list[str]:
    """One line per series of the tool that has no chart, saying why (and its value)."""
    lines = []
    for key, values in (("rewards", view.example_rewards), ("doc_scores", view.doc_scores)):
        if key in charted:
            continue
        title = SERIES[key][0]
        if points(values) == 0:
            what = "no example was scored" if key == "rewards" else \
                "no candidate doc was scored"
            lines.append(f"{title}: no chart, {what}")
        else:
            value = next(v for v in values if v is not None)
            lines.append(f"{title}: {_fmt(value)}, one iteration scored: no curve")
    return lines
