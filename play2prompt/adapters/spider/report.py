"""The report of a backup-plan evaluation: accuracy per prompt variant and fault setting, the
relative drop under faults, give-up rate, turns, with bootstrap 95 % intervals (problems are
resampled; the drop's interval pairs each problem's runs across settings)."""

from __future__ import annotations

import csv
import json
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from play2prompt.adapters.spider.evaluate import ItemResult

SUMMARY_CSV = "summary.csv"
SUMMARY_JSON = "summary.json"
TRAJECTORIES = "trajectories.jsonl"


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def bootstrap_ci(data: Sequence[Sequence[int]], stat: Callable[..., np.ndarray], samples: int,
                 seed: int) -> tuple[float | None, float | None]:
    """Percentile 95 % interval of ``stat`` over resamples of the items, paired across the
    sequences of ``data`` (``scipy.stats.bootstrap``). ``stat(*arrays, axis=-1)`` is vectorized
    and NaN where undefined: those resamples are left out, where scipy's own interval would be
    NaN, so the interval comes from the resampled distribution."""
    n_items = len(data[0]) if data else 0
    if n_items == 0 or samples <= 0:
        return None, None
    from scipy.stats import DegenerateDataWarning, bootstrap

    arrays = tuple(np.asarray(d, dtype=float) for d in data)
    if n_items == 1:            # scipy needs two items; every resample is the one item
        values = np.atleast_1d(stat(*arrays, axis=-1))
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            values = bootstrap(arrays, stat, n_resamples=samples, paired=True, vectorized=True,
                               method="percentile",
                               rng=np.random.default_rng(seed)).bootstrap_distribution
    values = values[~np.isnan(values)]
    if not values.size:
        return None, None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def relative_drop(base: float, other: float) -> float | None:
    return (base - other) / base if base > 0 else None


def _drop_of(base: np.ndarray, faulted: np.ndarray, axis: int = -1) -> np.ndarray:
    """:func:`relative_drop` of resampled means, NaN where the base's mean is 0."""
    b, f = np.mean(base, axis=axis), np.mean(faulted, axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, (b - f) / b, np.nan)


def accuracy_ci(correct: Sequence[int], samples: int, seed: int
                ) -> tuple[float | None, float | None]:
    return bootstrap_ci([correct], np.mean, samples, seed)


def drop_ci(base: Sequence[int], faulted: Sequence[int], samples: int, seed: int
            ) -> tuple[float | None, float | None]:
    """Interval of the relative drop, resampling problems (paired across settings)."""
    return bootstrap_ci([base, faulted], _drop_of, samples, seed)


def summarize(results: Sequence[ItemResult], bootstrap: int = 1000, seed: int = 0
              ) -> list[dict[str, Any]]:
    """One row per (variant, setting)."""
    groups: dict[tuple[str, str], dict[str, ItemResult]] = {}
    for r in results:
        groups.setdefault((r.variant, r.setting), {})[r.problem_id] = r
    rows = []
    for (variant, setting), items in groups.items():
        ids = sorted(items)
        correct = [int(items[i].correct) for i in ids]
        lo, hi = accuracy_ci(correct, bootstrap, seed)
        row: dict[str, Any] = {
            "variant": variant, "setting": setting, "n": len(ids),
            "accuracy": _mean(correct), "accuracy_ci_low": lo, "accuracy_ci_high": hi,
            "give_up_rate": _mean([int(items[i].gave_up) for i in ids]),
            "answered_rate": _mean([int(items[i].stop in ("answer", "text")) for i in ids]),
            "turn_limit_rate": _mean([int(items[i].stop == "turn_limit") for i in ids]),
            "mean_turns": _mean([items[i].turns for i in ids]),
            "mean_tool_calls": _mean([items[i].tool_calls for i in ids]),
            "relative_drop": None, "drop_ci_low": None, "drop_ci_high": None,
        }
        base = groups.get((variant, "none"))
        if setting != "none" and base:
            paired = [i for i in ids if i in base]
            b = [int(base[i].correct) for i in paired]
            f = [int(items[i].correct) for i in paired]
            row["relative_drop"] = relative_drop(_mean(b), _mean(f))
            row["drop_ci_low"], row["drop_ci_high"] = drop_ci(b, f, bootstrap, seed)
        rows.append(row)
    order = {"none": 0, "fault": 1, "giveup": 2}
    rows.sort(key=lambda r: (r["variant"] != "original", r["variant"], order[r["setting"]]))
    return rows


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _ci(lo: float | None, hi: float | None) -> str:
    return "-" if lo is None or hi is None else f"[{_pct(lo)}, {_pct(hi)}]"


def table_rows(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    columns = ["prompts", "setting", "n", "accuracy %", "95% CI", "rel. drop %", "drop 95% CI",
               "give-up %", "turn limit %", "turns", "tool calls"]
    out = []
    for r in rows:
        out.append([r["variant"], r["setting"], str(r["n"]), _pct(r["accuracy"]),
                    _ci(r["accuracy_ci_low"], r["accuracy_ci_high"]), _pct(r["relative_drop"]),
                    _ci(r["drop_ci_low"], r["drop_ci_high"]), _pct(r["give_up_rate"]),
                    _pct(r["turn_limit_rate"]), f"{r['mean_turns']:.2f}",
                    f"{r['mean_tool_calls']:.2f}"])
    return columns, out


def write_outputs(out_dir: Path, rows: Sequence[dict[str, Any]],
                  results: Sequence[ItemResult], config: dict[str, Any]) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / SUMMARY_CSV
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["variant"])
        writer.writeheader()
        writer.writerows(rows)
    json_path = out_dir / SUMMARY_JSON
    json_path.write_text(json.dumps({"config": config, "summary": list(rows),
                                     "items": [r.row() for r in results]},
                                    indent=1, default=str) + "\n")
    traj_path = out_dir / TRAJECTORIES
    with traj_path.open("w", encoding="utf-8") as fh:
        for r in results:
            fh.write(json.dumps(r.to_dict(), ensure_ascii=False, default=str) + "\n")
    return [csv_path, json_path, traj_path]
