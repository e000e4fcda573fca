"""Running a StableToolBench evaluation from the command line's request, and its table."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.adapters.stabletoolbench.data import load_queries, resolve_source
from play2prompt.adapters.stabletoolbench.evaluate import (
    Condition,
    EvalReport,
    Models,
    Settings,
    evaluate,
    play2prompt_condition,
    write_outputs,
)
from play2prompt.benchmarks import Line, Output, Table
from play2prompt.errors import UserError
from play2prompt.lm._base import LM
from play2prompt.progress import progress_bars
from play2prompt.store.meta import Meta

LABELS = {"baseline": "baseline", "play2prompt": "+Play2Prompt"}


@dataclass
class EvalRequest:
    subsets: list[str] = field(default_factory=list)
    stb_dir: Path | None = None
    tools_dir: Path | None = None
    cache_dir: Path | None = None
    server: str | None = None
    task_model: str = "embedded"
    judge: str | None = None
    simulator: str | None = None
    prompts: str | None = None
    baseline: bool = True
    demos_per_tool: int = 1
    max_steps: int = 8
    limit: int | None = None
    evaluate_times: int = 3
    fmt: str = "auto"
    code_checks: bool | None = None
    seed: int = 0
    output: Path | None = None
    runs_dir: Path = Path("runs")
    metaprompts: Path | None = None
    quiet: bool = False


def auto_format(fmt: str, task_lm: LM) -> str:
    """A model that cannot keep a free format gets schema-constrained steps; others write
    text."""
    if fmt != "auto":
        return fmt
    return "json" if task_lm.constrained_steps else "text"


def conditions_for(req: EvalRequest) -> list[Condition]:
    conds = [Condition("baseline")] if req.baseline else []
    if req.prompts:
        from play2prompt.results import load_run_result

        conds.append(play2prompt_condition(load_run_result(req.prompts, req.runs_dir),
                                           req.demos_per_tool))
    if not conds:
        raise UserError("nothing to evaluate: --no-baseline needs --prompts RUN")
    return conds


def open_store(req: EvalRequest) -> Any:
    from play2prompt.store.db import DB_NAME, RunStore
    from play2prompt.store.runs import create_run

    if req.output is None:
        return create_run(req.runs_dir, "eval-stabletoolbench")
    return RunStore(Path(req.output) / DB_NAME)


def run_eval(req: EvalRequest) -> tuple[EvalReport, Output]:
    """Evaluate as ``req`` asks; the report and what to show of it."""
    from play2prompt.lm.registry import LMPool
    from play2prompt.metaprompts import MetaPrompts

    source = resolve_source(req.stb_dir, req.tools_dir, req.cache_dir)
    subsets = req.subsets or source.subsets()
    if not subsets:
        raise UserError(f"no StableToolBench query files in {source.root}")
    queries = [q for s in subsets for q in load_queries(source, s)[: req.limit]]
    conditions = conditions_for(req)
    prompts = MetaPrompts(req.metaprompts)
    store = open_store(req)
    pool = LMPool(log=store)
    try:
        task = pool.get(req.task_model)
        models = Models(task, pool.get(req.judge or req.task_model),
                        pool.get(req.simulator or req.task_model))
        checks = req.code_checks if req.code_checks is not None else not models.judge.can_judge
        settings = Settings(max_steps=req.max_steps, evaluate_times=req.evaluate_times,
                            fmt=auto_format(req.fmt, task), seed=req.seed, server=req.server,
                            code_checks=checks)
        config = {**{k: str(v) if isinstance(v, Path) else v for k, v in asdict(req).items()},
                  "subsets": subsets, "format": settings.fmt, "code_checks": checks,
                  "source": str(source.root)}
        store.set_meta(Meta.EVAL_CONFIG, config)
        report = _run(queries, conditions, models, source, store, settings, prompts,
                      len(queries) * len(conditions), req.quiet)
        for cond in conditions:
            store.put_eval(f"stabletoolbench-{cond.name}", "stabletoolbench", config,
                           {"pass_rates": {s: r.to_dict() for s, r in
                                           report.rates[cond.name].items()},
                            "llm_calls": report.calls.get(cond.name, {})})
        paths = write_outputs(store.run_dir, report, config)
        return report, report_output(report, settings, paths)
    finally:
        pool.close()
        store.close()


def _run(queries: Any, conditions: Any, models: Models, source: Any, store: Any,
         settings: Settings, prompts: Any, total: int, quiet: bool) -> EvalReport:
    with progress_bars(not quiet) as prog:
        task = prog.add_task("stabletoolbench queries", total=total) if prog else None

        def done(_res: Any) -> None:
            if prog is not None:
                prog.advance(task)

        return asyncio.run(evaluate(queries, conditions, models, source, store, settings,
                                    prompts, on_done=done))


def _pct(rate: Any) -> str:
    text = f"{100 * rate.mean:.1f}"
    return text + (f" ±{100 * rate.std:.1f}" if len(rate.per_run) > 1 else "")


def report_output(report: EvalReport, settings: Settings, paths: list[Path]) -> Output:
    """The pass-rate and LLM-call tables, and where the outputs are."""
    conds = list(report.rates)
    subsets = list(dict.fromkeys(s for by in report.rates.values() for s in by))
    rows = []
    for subset in subsets:
        rates = [report.rates[c].get(subset) for c in conds]
        n = next((r.n for r in rates if r is not None), 0)
        rows.append([subset, n, *(_pct(r) if r is not None else "-" for r in rates)])
    title = (f"StableToolBench solvable pass rate (%), mean over {settings.evaluate_times} "
             f"judge run(s) ± std; {settings.fmt} ReAct, max {settings.max_steps} steps"
             + ("; code checks on" if settings.code_checks else ""))
    rates = Table.of(title, ["subset", "queries", *(LABELS.get(c, c) for c in conds)], rows)
    call_rows = []
    for cond in conds:
        c = report.calls.get(cond, {})
        roles = c.get("by_role", {})
        call_rows.append([LABELS.get(cond, cond), c.get("calls", 0), roles.get("task", 0),
                          roles.get("simulator", 0), roles.get("judge", 0),
                          c.get("cache_hits", 0), c.get("wall_s", 0)])
    calls = Table.of("LLM calls", ["condition", "calls", "task", "simulator", "judge",
                                   "cache hits", "wall s"], call_rows)
    return [rates, calls, Line("outputs: " + ", ".join(str(p) for p in paths))]
