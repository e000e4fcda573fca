"""The evidence ablation table of a sweep (``--space evidence=ablation``, or any evidence axis
with an ``all`` value): one row per evidence value, its accuracy, its queries against the
original docs and against the ``all`` row (query by query, on the queries both answered, from
the sweep's evaluation store), what its optimization cost in LLM calls, and a verdict.

Trials that differ in another swept setting (a variant, a depth) get a block of their own:
each block's rows are compared with that block's ``all`` row. Variants that optimize nothing
(baseline, oracle) do not depend on the evidence and are left out. An evidence value without a
finished trial yet (a sweep still running, or resumed later) is a row of ``-``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from play2prompt.evaluation.compare import BASELINE, mcnemar_exact, paired
from play2prompt.evaluation.report import markdown_table
from play2prompt.store.db import RunStore
from play2prompt.sweep.evidence_axis import ALL
from play2prompt.sweep.space import VARIANTS

AXIS = "evidence"
ALPHA = 0.05
EARNS = "earns the gain"
NO_EFFECT = "no measurable effect"
OFF_HELPS = "switching it off helps"
REFERENCE = "reference"
TITLE = "Evidence ablation"
CAPTION = (
    "One row per evidence value (`all`: every component on; `-NAME`: NAME off; `none`: the "
    "paper's method). `exec %`: accuracy over all queries. `wins/losses vs docs`: queries the "
    "row got right and the original docs not, and the reverse, `p vs docs` McNemar's exact "
    "test on them; `vs all`: the same against the `all` row of its block, on the queries both "
    "answered. `opt calls`: LLM samples in the optimization's log; `new calls`: backend calls "
    "made for it, `reused calls`: samples seeded from the sweep's earlier runs. Verdict: "
    f"\"{EARNS}\" when the row loses to `all` (losses vs all > wins vs all) with p vs all < "
    f"{ALPHA}: what it switches off earns the gain; \"{OFF_HELPS}\" when it wins with p < "
    f"{ALPHA}; \"{NO_EFFECT}\" otherwise. `-`: not evaluated yet.")


def applies(space: Mapping[str, Sequence[Any]]) -> bool:
    """A table is made when the evidence axis takes ``all`` and at least one other value."""
    values = list(space.get(AXIS, ()))
    return ALL in values and len(values) > 1


def ablation_verdict(wins: int, losses: int, alpha: float = ALPHA) -> str:
    """The verdict on a row that won ``wins`` and lost ``losses`` queries against ``all``."""
    if wins == losses or mcnemar_exact(wins, losses) >= alpha:
        return NO_EFFECT
    return EARNS if losses > wins else OFF_HELPS


def load_outcomes(store_path: Path, eval_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
    """Eval id -> (query id -> answered right), read from the sweep's evaluation store."""
    wanted = [i for i in dict.fromkeys(eval_ids) if i]
    if not wanted or not store_path.is_file():
        return {}
    store = RunStore(store_path, read_only=True)
    try:
        return {i: store.eval_outcomes(i) for i in wanted}
    finally:
        store.close()


def _records(outcomes: Mapping[str, bool]) -> list[dict[str, Any]]:
    return [{"id": i, "correct": c} for i, c in outcomes.items()]


def versus_all(mine: Mapping[str, bool], everything: Mapping[str, bool]
               ) -> tuple[int, int] | None:
    """Wins and losses of a row against the ``all`` row on the queries both answered (None
    when they share none)."""
    pairs = paired({BASELINE: _records(everything), "row": _records(mine)})
    return (len(pairs[0].wins), len(pairs[0].losses)) if pairs else None


def _p_text(wins: Any, losses: Any) -> str | None:
    if wins is None or losses is None or pd.isna(wins) or pd.isna(losses):
        return None
    return f"{mcnemar_exact(int(wins), int(losses)):.3f}"


def _int(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _run_cost(df: pd.DataFrame, row: Mapping[str, Any]) -> dict[str, Any]:
    """The optimization's calls, from the trial that ran it (not one that shared it)."""
    runs = df[df["run_id"] == row["run_id"]] if "run_id" in df else df.iloc[0:0]
    ran = runs[runs["opt_status"] != "shared"] if "opt_status" in runs else runs
    source = ran.iloc[0].to_dict() if len(ran) else dict(row)
    return {"opt calls": _int(source.get("opt_calls")),
            "new calls": _int(source.get("opt_new_calls")),
            "reused calls": _int(source.get("opt_reused_calls"))}


def _row(value: str, trial: Mapping[str, Any] | None, reference: Mapping[str, bool] | None,
         outcomes: Mapping[str, Mapping[str, bool]], df: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {AXIS: value, "trial": None, "exec %": None, "wins vs docs": None,
                           "losses vs docs": None, "p vs docs": None, "wins vs all": None,
                           "losses vs all": None, "p vs all": None, "opt calls": None,
                           "new calls": None, "reused calls": None, "verdict": None}
    if trial is None:
        return out
    out.update({"trial": _int(trial.get("trial")), "exec %": trial.get("accuracy"),
                "wins vs docs": _int(trial.get("wins")),
                "losses vs docs": _int(trial.get("losses"))})
    out["p vs docs"] = _p_text(out["wins vs docs"], out["losses vs docs"])
    out.update(_run_cost(df, trial))
    mine = outcomes.get(str(trial.get("eval_id") or ""))
    if value == ALL:
        out["verdict"] = REFERENCE
    elif mine and reference:
        split = versus_all(mine, reference)
        if split is not None:
            out["wins vs all"], out["losses vs all"] = split
            out["p vs all"] = _p_text(*split)
            out["verdict"] = ablation_verdict(*split)
    return out


def ablation_table(df: pd.DataFrame, values: Sequence[str], group_by: Sequence[str],
                   outcomes: Mapping[str, Mapping[str, bool]]) -> pd.DataFrame:
    """The table: a block per combination of the other swept settings (``group_by``), a row
    per evidence value in ``values``' order; ``outcomes``: :func:`load_outcomes`."""
    if df.empty or AXIS not in df:
        return pd.DataFrame()
    optimizing = df[df["variant"].map(lambda v: VARIANTS[v].optimizes if v in VARIANTS
                                      else True)] if "variant" in df else df
    optimizing = optimizing.sort_values("trial")
    groups = [g for g in group_by if g != AXIS and g in optimizing.columns]
    blocks = optimizing.groupby(groups, sort=True, dropna=False) if groups else \
        [((), optimizing)]
    rows = []
    for key, part in blocks:
        key = key if isinstance(key, tuple) else (key,)
        first: dict[str, dict[str, Any]] = {}
        for trial in part.to_dict("records"):     # the earliest trial of each value
            first.setdefault(str(trial[AXIS]), trial)
        reference = first.get(ALL)
        ref_outcomes = outcomes.get(str(reference.get("eval_id") or "")) if reference else None
        for value in values:
            row = _row(str(value), first.get(str(value)), ref_outcomes, outcomes, df)
            rows.append({**dict(zip(groups, key)), **row})
    return pd.DataFrame(rows, dtype=object)


def markdown_lines(table: pd.DataFrame) -> list[str]:
    """The table's section of ``summary.md``."""
    if table.empty:
        return []
    return [f"## {TITLE}", "", CAPTION, "", markdown_table(table), ""]
