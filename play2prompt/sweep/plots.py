"""A sweep's plots: accuracy per method (each bar labelled with its value) and accuracy vs LLM
calls with the cost/benefit frontier.

Both on a fixed 0-100 % accuracy axis, so two sweeps' plots compare by eye and a small
difference looks small. Each side is named by its method, as the summary table names it
(:func:`~play2prompt.sweep.tables.method_name`: ``baseline``, ``P2P``, ``P2P-Desc``,
``oracle``), in both plots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from play2prompt.sweep.tables import (
    OVERALL,
    SUMMARY_FIXED,
    categories_of,
    method_name,
    pareto_front,
)

ACCURACY_AXIS = (0.0, 100.0)     # percent
ACCURACY_LABEL = "accuracy (%)"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _percent_axis(ax: Any) -> None:
    ax.set_ylim(*ACCURACY_AXIS)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel(ACCURACY_LABEL)


def bar_labels(df: pd.DataFrame, summary: pd.DataFrame) -> list[str]:
    """Each summary row's method, with the swept settings that split it (``P2P depth=2``)."""
    groups = [c for c in summary.columns if c not in SUMMARY_FIXED
              and c not in categories_of(df)]
    return [" ".join([str(r["method"]), *(f"{c}={r[c]}" for c in groups)])
            for r in summary.to_dict("records")]


def per_method_figure(df: pd.DataFrame, summary: pd.DataFrame) -> Any:
    """Bars: each summary row's accuracy over all queries, its value on top."""
    fig, ax = _pyplot().subplots(figsize=(6, 3.5))
    labels = bar_labels(df, summary)
    values = [None if pd.isna(v) else float(v) for v in summary[OVERALL].tolist()]
    xs = list(range(len(labels)))
    bars = ax.bar(xs, [v or 0.0 for v in values], color="#4C72B0")
    ax.bar_label(bars, ["-" if v is None else f"{v:.1f}" for v in values], fontsize=8)
    ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=8)
    _percent_axis(ax)
    ax.set_title("accuracy per method (all queries)")
    return fig


def calls_figure(df: pd.DataFrame) -> Any:
    """Each trial's accuracy against its LLM calls, by method, and the frontier."""
    fig, ax = _pyplot().subplots(figsize=(6, 3.5))
    methods = df["variant"].map(method_name)
    for name in dict.fromkeys(methods):
        part = df[methods == name]
        ax.scatter(part["llm_calls"], part["accuracy"], label=name, alpha=0.8)
    front = pareto_front(df)
    ax.plot(front["llm_calls"], front["accuracy"], "k--", linewidth=1, label="frontier")
    ax.set_xlim(left=0)
    ax.set_xlabel("LLM calls of the configuration (optimization + evaluation)")
    _percent_axis(ax)
    ax.set_title("accuracy vs LLM calls")
    ax.legend(fontsize=8)
    return fig


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    _pyplot().close(fig)
    return path


def write_plots(df: pd.DataFrame, summary: pd.DataFrame, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    return {"accuracy_per_variant": _save(per_method_figure(df, summary),
                                          out_dir / "accuracy_per_variant.png"),
            "accuracy_vs_calls": _save(calls_figure(df), out_dir / "accuracy_vs_calls.png")}
