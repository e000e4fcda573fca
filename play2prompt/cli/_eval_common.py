"""What ``p2p eval NAME`` (a benchmark's suite) and ``p2p eval tools.json`` share: running a
suite request with progress bars and printing the accuracy and cost tables, and the per-tool
lines (unasked optional arguments, tool confusions) as summary.json holds them, scrubbed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from play2prompt.cli._common import console, console_err, print_json
from play2prompt.cli._interrupt import resume_hint
from play2prompt.evaluation.session import SuiteRequest

# the evaluation's folder is named by what changes an answer: the same command finds it again
RESUME = "the queries done are saved; the same command again continues the evaluation"


def execute_eval(request: SuiteRequest, as_json: bool = False,
                 json_progress: bool = False) -> Any:
    """Run the evaluation; print its tables, or with ``as_json`` its summary.json (and where
    the results are) as one JSON document on stdout. ``json_progress``: progress as JSON
    lines on standard error."""
    from play2prompt.progress import progress_reporter

    request.check()
    for note in request.suite.notes:
        console_err.print(note, highlight=False, markup=False)
    with resume_hint(RESUME), \
            progress_reporter(not request.quiet, json_progress, unit="queries") as reporter:
        result, out_dir = request.run(reporter)
    if as_json:
        print_json(json_result(out_dir))
    else:
        print_result(result, out_dir)
    return result


def json_result(out_dir: Path) -> dict[str, Any]:
    """The evaluation's summary.json, with the folder of its files."""
    path = Path(out_dir) / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return {**summary, "results_dir": str(out_dir)}


def print_result(result: Any, out_dir: Path) -> None:
    import pandas as pd

    from play2prompt.evaluation.compare import comparison_rows, verdict
    from play2prompt.evaluation.report import (
        accuracy_table,
        comparison,
        cost_table,
        rich_table,
        skipped_summary,
    )
    from play2prompt.evaluation.tool_stats import stats_lines

    cfg = result.config
    title = (f"{result.suite.name}: exec accuracy (AST alongside), task model "
             f"{cfg.get('task_model')}, mode {cfg.get('mode')}")
    if cfg.get("prompts"):
        title += f", prompts {cfg['prompts']} ({cfg.get('variant')}, k={cfg.get('demos')})"
    console.print(rich_table(accuracy_table(result), title))
    pairs = comparison(result)
    if pairs:
        console.print(rich_table(pd.DataFrame(comparison_rows(pairs)),
                                 "Against the baseline, query by query"))
        for pair in pairs:
            console.print(verdict(pair), highlight=False, markup=False)
    for line in stats_lines(json_result(out_dir).get("tool_stats")):  # scrubbed in the file
        console.print(line, highlight=False, markup=False)
    console.print(rich_table(cost_table(result), "LLM calls per side"))
    for line in skipped_summary(result):
        console.print(line, highlight=False, markup=False)
    resumed = sum(s.resumed for s in result.sides)
    if resumed:
        console.print(f"resumed: {resumed} record(s) reused from {out_dir / 'run.db'}")
    console.print(f"results: {out_dir}/summary.md, summary.csv, cost.csv, queries.jsonl")
