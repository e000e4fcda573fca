"""A sweep's plots: a fixed 0-100 % axis, each side named by its method in tables and plots."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd

from play2prompt.sweep.plots import calls_figure, per_method_figure, write_plots
from play2prompt.sweep.tables import trials_table

ROWS = [  # a study's older row carries the method's name as "label"
    {"trial": 0, "variant": "full", "label": "P2P", "accuracy": 42.0, "llm_calls": 40},
    {"trial": 1, "variant": "desc-only", "accuracy": 40.0, "llm_calls": 30},
    {"trial": 2, "variant": "baseline", "accuracy": 41.0, "llm_calls": 10},
]


@contextmanager
def closing(fig: Any) -> Iterator[Any]:
    """The figure's axes; the figure closed after (pyplot as the plots loaded it: Agg)."""
    try:
        yield fig.axes[0]
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_trials_name_each_variant_by_its_method():
    df = trials_table(ROWS)
    assert list(df.columns[:3]) == ["trial", "variant", "method"] and "label" not in df
    assert df["method"].tolist() == ["P2P", "P2P-Desc", "baseline"]


def test_accuracy_vs_calls_on_a_fixed_axis_by_method():
    with closing(calls_figure(trials_table(ROWS))) as ax:
        assert ax.get_ylim() == (0.0, 100.0)          # 40-42 % is not blown up to fill it
        assert [t.get_text() for t in ax.get_legend().get_texts()] == [
            "P2P", "P2P-Desc", "baseline", "frontier"]


def test_accuracy_per_method_on_a_fixed_axis_with_values():
    df = trials_table(ROWS)
    summary = pd.DataFrame([{"method": "baseline", "overall": 41.0},
                            {"method": "P2P-Desc", "overall": 40.0},
                            {"method": "P2P", "overall": None}])
    with closing(per_method_figure(df, summary)) as ax:
        assert ax.get_ylim() == (0.0, 100.0)
        assert [t.get_text() for t in ax.get_xticklabels()] == ["baseline", "P2P-Desc", "P2P"]
        assert [t.get_text() for t in ax.texts] == ["41.0", "40.0", "-"]


def test_written_as_png(tmp_path):
    df = trials_table(ROWS)
    summary = pd.DataFrame([{"method": "baseline", "overall": 41.0}])
    files = write_plots(df, summary, tmp_path / "plots")
    assert sorted(files) == ["accuracy_per_variant", "accuracy_vs_calls"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in files.values())
