"""The report's charts: per tool, the best example reward and the doc score per iteration.
One PNG file per chart (embedded in the HTML as data URIs, so the HTML stands alone).

A series with fewer than :data:`MIN_POINTS` values gets no chart (a quick run's single dot or
two-point line says nothing a number does not): the report states its values in words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from play2prompt.report.data import RunReport

MIN_POINTS = 3
SERIES = {"rewards": ("best example reward", "reward R", "example-reward"),
          "doc_scores": ("doc score", "accuracy", "doc-score")}


def points(values: Sequence[float | None]) -> int:
    return sum(v is not None for v in values)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "tool"


def line_chart(values: Sequence[float | None], title: str, ylabel: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 2.6))
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
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_charts(report: RunReport, out_dir: Path) -> dict[str, dict[str, Path]]:
    """``{tool: {"rewards": png, "doc_scores": png}}``, only the series with enough points."""
    charts: dict[str, dict[str, Path]] = {}
    for view in report.tools:
        name = view.result.name
        series = {"rewards": view.example_rewards, "doc_scores": view.doc_scores}
        for key, values in series.items():
            if points(values) < MIN_POINTS:
                continue
            title, ylabel, stem = SERIES[key]
            charts.setdefault(name, {})[key] = line_chart(
                values, f"{name}: {title}", ylabel, out_dir / f"{_slug(name)}-{stem}.png")
    return charts
