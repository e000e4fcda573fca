"""What ``p2p eval bfcl`` and ``p2p eval tools.json`` share: running a suite and printing the
accuracy and cost tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from play2prompt.cli._common import console, console_err, progress_bars
from play2prompt.errors import UserError
from play2prompt.method.task_prompt import MODES


def execute_eval(suite: Any, *, task_model: str, mode: str, prompts: str | None, demos: int,
                 variant: str, drop_param_desc: float, seed: int, limit: int | None,
                 temperature: float, out: Path | None, runs_dir: Path, quiet: bool,
                 max_concurrency: int | None = None, oracle: Path | None = None) -> Any:
    from play2prompt.evaluation.items import make_side
    from play2prompt.evaluation.runner import EvalSettings
    from play2prompt.evaluation.session import EvalOptions, run_evaluation
    from play2prompt.progress import NullReporter, RichReporter

    if mode not in MODES:
        raise UserError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    make_side(variant)
    if not 0.0 <= drop_param_desc <= 1.0:
        raise UserError("--drop-param-desc must be in [0, 1]")
    if demos < 0:
        raise UserError("--demos must be >= 0")
    if limit is not None and limit < 1:
        raise UserError("--limit must be >= 1")
    options = EvalOptions(task_model=task_model, prompts=prompts, variant=variant, demos=demos,
                          drop_param_desc=drop_param_desc, limit=limit,
                          max_concurrency=max_concurrency, oracle=oracle)
    settings = EvalSettings(mode=mode, temperature=temperature, seed=seed)
    for note in suite.notes:
        console_err.print(note, highlight=False, markup=False)
    with progress_bars(not quiet) as prog:
        reporter = RichReporter(prog) if prog is not None else NullReporter()
        result, out_dir = run_evaluation(suite, options, settings, runs_dir=runs_dir,
                                         out_dir=out, reporter=reporter)
    print_result(result, out_dir)
    return result


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
    console.print(rich_table(cost_table(result), "LLM calls per side"))
    for line in skipped_summary(result):
        console.print(line, highlight=False, markup=False)
    resumed = sum(s.resumed for s in result.sides)
    if resumed:
        console.print(f"resumed: {resumed} record(s) reused from {out_dir / 'run.db'}")
    console.print(f"results: {out_dir}/summary.md, summary.csv, cost.csv, queries.jsonl")
