"""A sweep's tables: one row per trial; the paper-style method x category summary with each
method's optimization cost and its paired test against the original docs; cost. Each variant
is named by its method (:func:`method_name`: ``full`` is P2P) here and in the plots
(:mod:`~play2prompt.sweep.plots`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from play2prompt.evaluation.compare import mcnemar_exact
from play2prompt.evaluation.report import markdown_table
from play2prompt.sweep.ablation import markdown_lines
from play2prompt.sweep.space import BASELINE_LABEL, ORACLE_VARIANT, VARIANTS

AVERAGE = "average"
OVERALL = "overall"
# Per method: its optimization's LLM calls and tokens (the mean over its trials' runs), and
# its queries against the baseline's (wins, losses and McNemar's p, pooled over its trials),
# and the share of the oracle's gain it recovers.
COST_COLUMNS = ("opt calls", "opt tokens")
PAIRED_COLUMNS = ("wins", "losses", "McNemar p", "headroom %")
# the summary's columns that are neither a category nor a swept setting
SUMMARY_FIXED = ("method", AVERAGE, OVERALL, "trials", *COST_COLUMNS, *PAIRED_COLUMNS)


def method_name(variant: Any) -> str:
    """What the tables and charts call a variant: the method's name (``full`` is P2P)."""
    return VARIANTS[variant].label if variant in VARIANTS else str(variant)


def _named(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row with its method's name beside the variant (a study's older rows carry it as
    ``label``)."""
    head = {k: row[k] for k in ("trial", "variant") if k in row}
    if "variant" in row:
        head["method"] = method_name(row["variant"])
    return {**head, **{k: v for k, v in row.items() if k not in (*head, "label")}}


def trials_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per trial; ``method`` names its variant as the summary and the plots do."""
    return pd.DataFrame([_named(r) for r in rows])


def categories_of(df: pd.DataFrame) -> list[str]:
    return [c[4:] for c in df.columns if c.startswith("acc:")]


def _mean(values: pd.Series) -> float | None:
    values = values.dropna()
    return round(float(values.mean()), 1) if len(values) else None


def _summary_row(method: str, part: pd.DataFrame, prefix: str, overall: str,
                 cats: list[str], group: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"method": method, **group}
    for cat in cats:
        row[cat] = _mean(part[f"{prefix}{cat}"])
    values = [row[c] for c in cats if row[c] is not None]
    row[AVERAGE] = round(sum(values) / len(values), 1) if values else None
    row[OVERALL] = _mean(part[overall])
    row["trials"] = len(part)
    is_base = prefix == "base:"
    runs = part.drop_duplicates("run_id") if "run_id" in part else part
    row["opt calls"] = 0 if is_base else _mean_int(runs, "opt_calls")
    row["opt tokens"] = 0 if is_base else _mean_int(runs, "opt_tokens")
    wins, losses = (None, None) if is_base else (_sum(part, "wins"), _sum(part, "losses"))
    row["wins"], row["losses"] = wins, losses
    # as text: three decimals (the tables print other floats with one)
    row["McNemar p"] = (None if wins is None or losses is None
                        else f"{mcnemar_exact(wins, losses):.3f}")
    return row


def _mean_int(part: pd.DataFrame, column: str) -> int | None:
    values = part[column].dropna() if column in part else pd.Series(dtype=float)
    return int(round(float(values.mean()))) if len(values) else None


def _sum(part: pd.DataFrame, column: str) -> int | None:
    values = part[column].dropna() if column in part else pd.Series(dtype=float)
    return int(values.sum()) if len(values) else None


def _headroom(rows: list[dict[str, Any]]) -> None:
    """The share of the oracle's gain over the baseline each method recovers (overall)."""
    by_label = {r["method"]: r for r in rows}
    base = by_label.get(BASELINE_LABEL, {}).get(OVERALL)
    oracle = by_label.get(VARIANTS[ORACLE_VARIANT].label, {}).get(OVERALL)
    gain = None if base is None or oracle is None else oracle - base
    for r in rows:
        usable = gain is not None and gain > 0 and r[OVERALL] is not None
        skip = r["method"] in (BASELINE_LABEL, VARIANTS[ORACLE_VARIANT].label)
        r["headroom %"] = None if skip or not usable else round(
            100 * (r[OVERALL] - base) / gain, 1)


def summary_table(df: pd.DataFrame, group_by: Sequence[str] = ()) -> pd.DataFrame:
    """The paper's Table 4/5 layout: the baseline and each variant (rows) x categories, with
    the plain average of the categories and the accuracy over all queries, then each method's
    optimization cost and paired test against the baseline. Trials of the same variant that
    differ in ``group_by`` parameters get rows of their own; others are averaged."""
    if df.empty:
        return pd.DataFrame()
    cats = categories_of(df)
    group_by = [g for g in group_by if g in df.columns and g not in ("variant", "demos")]
    groups = df.groupby(group_by, sort=True, dropna=False) if group_by else [((), df)]
    rows = []
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        group = dict(zip(group_by, key))
        block = [_summary_row(BASELINE_LABEL, part, "base:", "baseline", cats, group)]
        for name, variant in VARIANTS.items():
            sub = part[part["variant"] == name]
            if len(sub) and name != "baseline":   # the baseline variant is the first row
                block.append(_summary_row(variant.label, sub, "acc:", "accuracy", cats, group))
        _headroom(block)
        rows.extend(block)
    out = pd.DataFrame(rows)
    for column in ("opt calls", "opt tokens", "wins", "losses"):   # counts, not floats
        out[column] = pd.Series([None if pd.isna(v) else int(v) for v in out[column]],
                                dtype=object)
    return out


def verdicts(summary: pd.DataFrame, alpha: float = 0.05) -> list[str]:
    """One sentence per method: ahead of, level with or behind the baseline (McNemar's exact
    test on the queries one got right and the other not), at what optimization cost."""
    out = []
    for r in summary.to_dict("records"):
        wins, losses = r.get("wins"), r.get("losses")
        if wins is None or losses is None or pd.isna(wins) or pd.isna(losses):
            continue
        wins, losses = int(wins), int(losses)
        p = mcnemar_exact(wins, losses)
        if wins == losses:
            word = "level with"
        else:
            word = "ahead of" if wins > losses else "behind"
            if p >= alpha:
                word += " (within noise)"
        cost = (f"{_count(r.get('opt calls'))} LLM calls, {_count(r.get('opt tokens'))} tokens "
                f"to optimize") if r["method"] != VARIANTS[ORACLE_VARIANT].label else \
            "hand-written docs"
        out.append(f"{r['method']}: {word} the baseline, +{wins} -{losses} queries, McNemar p = "
                   f"{p:.3f}; {cost}")
    return out


def _count(value: Any) -> str:
    return "-" if value is None or pd.isna(value) else f"{int(value):,}"


def cost_summary(df: pd.DataFrame) -> dict[str, Any]:
    """What the sweep cost and what sharing optimization runs saved."""
    if df.empty:
        return {}
    runs = df[df["run_id"] != ""].drop_duplicates("run_id")
    return {
        "trials": int(len(df)),
        "optimization_runs": int(len(runs)),
        "optimization_calls_made": int(df["opt_new_calls"].sum()),
        "optimization_calls_saved_by_sharing": int(
            df.loc[df["opt_status"] == "shared", "opt_saved_calls"].sum()),
        "optimization_calls_replayed_from_logs": int(
            df.loc[df["opt_status"] != "shared", "opt_saved_calls"].sum()),
        "optimization_logged_calls": int(runs["opt_calls"].sum()),
        "optimization_tokens": int(runs["opt_tokens"].sum()),
        "eval_calls_made": int(df["eval_new_calls"].sum()),
        "eval_tokens": int(df["eval_tokens"].sum()),
        "wall_s": round(float(df["wall_s"].sum()), 1),
    }


def pareto_front(df: pd.DataFrame, x: str = "llm_calls", y: str = "accuracy") -> pd.DataFrame:
    """Trials no other trial beats on both fewer calls and higher accuracy."""
    pts = df[[x, y]].dropna().sort_values([x, y], ascending=[True, False])
    keep, best = [], float("-inf")
    for idx, row in pts.iterrows():
        if row[y] > best:
            keep.append(idx)
            best = row[y]
    return df.loc[keep].sort_values(x)


def write_tables(df: pd.DataFrame, summary: pd.DataFrame, cost: Mapping[str, Any],
                 out_dir: Path, title: str, notes: Sequence[str] = (),
                 ablation: pd.DataFrame | None = None) -> dict[str, Path]:
    """trials.csv/.md, summary.csv/.md and cost.json in ``out_dir``; with an evidence
    ablation table, its section in summary.md and evidence_ablation.csv."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {n: out_dir / n for n in ("trials.csv", "trials.md", "summary.csv", "summary.md",
                                      "cost.json")}
    df.to_csv(paths["trials.csv"], index=False)
    summary.to_csv(paths["summary.csv"], index=False)
    paths["trials.md"].write_text(f"# {title}: trials\n\n{markdown_table(df)}\n")
    lines = [f"# {title}", "", "Exec accuracy (%) per category; `average` is the plain mean "
             "of the categories, `overall` the accuracy over all queries. `opt calls` / "
             "`opt tokens`: what the method's optimization cost (LLM samples, prompt + "
             "completion tokens); `wins` / `losses`: queries the method got right and the "
             "baseline not, and the reverse; `McNemar p`: the exact test on them; "
             "`headroom %`: the share of the oracle's gain recovered.", "",
             markdown_table(summary), "", *(f"- {v}" for v in verdicts(summary)), ""]
    if ablation is not None and not ablation.empty:
        paths["evidence_ablation.csv"] = out_dir / "evidence_ablation.csv"
        ablation.to_csv(paths["evidence_ablation.csv"], index=False)
        lines += markdown_lines(ablation)
    lines += ["## Cost", "",
              *(f"- {k.replace('_', ' ')}: {v}" for k, v in cost.items()), ""]
    if notes:
        lines += ["## Notes", "", *(f"- {n}" for n in notes), ""]
    paths["summary.md"].write_text("\n".join(lines))
    paths["cost.json"].write_text(json.dumps(dict(cost), indent=2) + "\n")
    return paths
