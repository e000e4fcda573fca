"""Tables and files of an evaluation: accuracy per category (baseline vs optimized side by
side), what each side cost, and a JSONL of every query.

Accuracy is the execution match (BFCL's executable metric); AST accuracy (same function and
arguments) is reported next to it. With several categories two summary rows follow: the plain
average of the category accuracies and the weighted average, where each category counts by its
number of queries (i.e. the accuracy over all queries).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from play2prompt.evaluation.compare import Paired, comparison_rows, paired, verdict
from play2prompt.evaluation.runner import EvalResult
from play2prompt.evaluation.tool_stats import stats_lines, tool_stats
from play2prompt.scrub import Scrubber

PLAIN_AVERAGE = "plain average"
WEIGHTED_AVERAGE = "weighted average"


def _pct(hits: int, total: int) -> float | None:
    return round(100.0 * hits / total, 1) if total else None


def accuracy_table(result: EvalResult) -> pd.DataFrame:
    """One row per category (+ plain and weighted averages), exec and AST accuracy per side."""
    categories = result.suite.category_order()
    rows: list[dict[str, Any]] = []
    for cat in categories:
        row: dict[str, Any] = {"category": cat}
        for side in result.sides:
            recs = [r for r in side.records if r["category"] == cat]
            row["n"] = len(recs)
            row[f"{side.side.name} exec %"] = _pct(sum(r["correct"] for r in recs), len(recs))
            row[f"{side.side.name} AST %"] = _pct(sum(r["ast_ok"] for r in recs), len(recs))
        rows.append(row)
    if len(categories) > 1 and rows:
        rows.extend(_average_rows(rows, result))
    df = pd.DataFrame(rows)
    if len(result.sides) == 2 and not df.empty:
        base, opt = (s.side.name for s in result.sides)
        df["Δ exec"] = (df[f"{opt} exec %"] - df[f"{base} exec %"]).round(1)
    return df


def _average_rows(rows: list[dict[str, Any]], result: EvalResult) -> list[dict[str, Any]]:
    plain: dict[str, Any] = {"category": PLAIN_AVERAGE, "n": sum(r["n"] for r in rows)}
    weighted: dict[str, Any] = {"category": WEIGHTED_AVERAGE, "n": plain["n"]}
    for side in result.sides:
        for metric, key in (("exec", "correct"), ("AST", "ast_ok")):
            col = f"{side.side.name} {metric} %"
            values = [r[col] for r in rows if r[col] is not None]
            plain[col] = round(sum(values) / len(values), 1) if values else None
            weighted[col] = _pct(sum(r[key] for r in side.records), len(side.records))
    return [plain, weighted]


def comparison(result: EvalResult) -> list[Paired]:
    """Each side against the baseline, query by query (see :mod:`.compare`)."""
    return paired({s.side.name: s.records for s in result.sides})


def comparison_table(result: EvalResult) -> pd.DataFrame:
    return pd.DataFrame(comparison_rows(comparison(result)))


def cost_table(result: EvalResult) -> pd.DataFrame:
    return pd.DataFrame([s.cost() for s in result.sides])


def skipped_summary(result: EvalResult) -> list[str]:
    """Lines saying how many items were left out, grouped by reason."""
    if not result.skipped:
        return []
    by_reason: dict[str, int] = {}
    for s in result.skipped:
        by_reason[s.reason] = by_reason.get(s.reason, 0) + 1
    lines = [f"skipped {len(result.skipped)} item(s):"]
    for reason, count in sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {count} x {reason}")
    return lines


# -- rendering ---------------------------------------------------------------------------------
def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def rich_table(df: pd.DataFrame, title: str) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), title_justify="left")
    for i, col in enumerate(df.columns):
        header = str(col).replace(" exec %", "\nexec %").replace(" AST %", "\nAST %")
        header = header.replace(" calls", "\ncalls").replace(" hits", "\nhits").replace(
            " tok", "\ntok")
        table.add_column(header, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for _, row in df.iterrows():
        bold = row.iloc[0] in (PLAIN_AVERAGE, WEIGHTED_AVERAGE)
        cells = [_cell(v) for v in row.tolist()]
        table.add_row(*(Text(c, style="bold") if bold else Text(c) for c in cells))
    return table


def markdown_table(df: pd.DataFrame) -> str:
    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(df.columns))) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body])


# -- files -------------------------------------------------------------------------------------
def write_outputs(result: EvalResult, out_dir: Path, notes: Sequence[str] = (),
                  scrubber: Scrubber | None = None) -> dict[str, Path]:
    """summary.csv, cost.csv, summary.md, summary.json and queries.jsonl in ``out_dir``; what
    tools returned passes ``scrubber`` (the suite's secrets; secret patterns without one).
    summary.json holds, by side, the unasked optional arguments and tool confusions
    (:mod:`.tool_stats`); summary.md their lines."""
    scrub = scrubber or Scrubber()
    out_dir.mkdir(parents=True, exist_ok=True)
    acc, cost = accuracy_table(result), cost_table(result)
    pairs = comparison(result)
    stats = tool_stats(result)
    paths = {name: out_dir / name for name in ("summary.csv", "cost.csv", "summary.md",
                                                 "summary.json", "queries.jsonl")}
    acc.to_csv(paths["summary.csv"], index=False)
    cost.to_csv(paths["cost.csv"], index=False)
    md = [f"# Evaluation: {result.suite.name}", "", markdown_table(acc), ""]
    if pairs:
        md += ["## Against the baseline, query by query", "",
               markdown_table(pd.DataFrame(comparison_rows(pairs))), "",
               *[f"- {verdict(p)}" for p in pairs], ""]
    lines = stats_lines(stats)
    if lines:
        md += ["## Per tool", "", "```", *lines, "```", ""]
    md += ["## Cost", "", markdown_table(cost), ""]
    extra = [*notes, *skipped_summary(result)]
    if extra:
        md += ["## Notes", "", *[f"    {line}" if line.startswith("  ") else f"- {line}"
                                 for line in extra], ""]
    paths["summary.md"].write_text(scrub.text("\n".join(md)))
    summary = {"suite": result.suite.name, "config": dict(result.config),
               "accuracy": json.loads(acc.to_json(orient="records")),
               "cost": json.loads(cost.to_json(orient="records")),
               "paired": [p.to_dict() for p in pairs], "tool_stats": stats,
               "skipped": [{"id": s.id, "category": s.category, "reason": s.reason}
                           for s in result.skipped],
               "notes": list(notes)}
    paths["summary.json"].write_text(json.dumps(scrub.value(summary), indent=2,
                                                ensure_ascii=False, default=str) + "\n")
    with paths["queries.jsonl"].open("w", encoding="utf-8") as fh:
        for side in result.sides:
            for record in side.records:
                fh.write(json.dumps(scrub.value(record), ensure_ascii=False, default=str) + "\n")
    return paths


def summary_for_store(result: EvalResult) -> dict[str, Any]:
    """What the store's ``evals`` table keeps: accuracy per category, cost per side, each side
    against the baseline (the numbers of wins and losses, McNemar p: ``p2p report`` shows
    them; the queries are in ``summary.json``)."""
    acc = accuracy_table(result)
    paired = [{**p.to_dict(), "wins": len(p.wins), "losses": len(p.losses)}
              for p in comparison(result)]
    return {"accuracy": json.loads(acc.to_json(orient="records")),
            "cost": [s.cost() for s in result.sides], "skipped": len(result.skipped),
            "paired": paired}
