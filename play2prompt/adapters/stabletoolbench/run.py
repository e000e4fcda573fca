"""Running a StableToolBench evaluation from the command line's request, and its table."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.adapters.stabletoolbench.data import load_queries, resolve_source
from play2prompt.adapters.stabletoolbench.evaluate import (
    EvalReport,
    Models,
    Settings,
    evaluate,
    play2prompt_side,
    write_outputs,
)
from play2prompt.benchmarks import Line, Output, Table
from play2prompt.errors import UserError
from play2prompt.evaluation.items import PromptSide
from play2prompt.evaluation.session import EvalSession
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


def sides_for(req: EvalRequest) -> list[PromptSide]:
    sides = [PromptSide("baseline")] if req.baseline else []
    if req.prompts:
        from play2prompt.results import load_run_result

        sides.append(play2prompt_side(load_run_result(req.prompts, req.runs_dir),
                                      req.demos_per_tool))
    if not sides:
        raise UserError("nothing to evaluate: --no-baseline needs --prompts RUN")
    return sides


def open_session(req: EvalRequest) -> EvalSession:
    """The output folder's session (resumed when it exists), or a new run folder."""
    if req.output is None:
        return EvalSession.open(req.runs_dir, "eval-stabletoolbench")
    return EvalSession.at(Path(req.output))


def run_eval(req: EvalRequest) -> tuple[EvalReport, Output]:
    """Evaluate as ``req`` asks; the report and what to show of it."""
    from play2prompt.metaprompts import MetaPrompts

    source = resolve_source(req.stb_dir, req.tools_dir, req.cache_dir)
    subsets = req.subsets or source.subsets()
    if not subsets:
        raise UserError(f"no StableToolBench query files in {source.root}")
    queries = [q for s in subsets for q in load_queries(source, s)[: req.limit]]
    sides = sides_for(req)
    prompts = MetaPrompts(req.metaprompts)
    with open_session(req) as session:
        task = session.model(req.task_model)
        models = Models(task, session.model(req.judge or req.task_model),
                        session.model(req.simulator or req.task_model))
        checks = req.code_checks if req.code_checks is not None else not models.judge.can_judge
        settings = Settings(max_steps=req.max_steps, evaluate_times=req.evaluate_times,
                            fmt=auto_format(req.fmt, task), seed=req.seed, server=req.server,
                            code_checks=checks)
        config = {**{k: str(v) if isinstance(v, Path) else v for k, v in asdict(req).items()},
                  "subsets": subsets, "format": settings.fmt, "code_checks": checks,
                  "source": str(source.root)}
        session.start(config, key=Meta.EVAL_CONFIG)
        report = _run(queries, sides, models, source, session.store, settings, prompts,
                      len(queries) * len(sides), req.quiet)
        for side in sides:
            session.store.put_eval(f"stabletoolbench-{side.name}", "stabletoolbench", config,
                                   {"pass_rates": {s: r.to_dict() for s, r in
                                                   report.rates[side.name].items()},
                                    "llm_calls": report.calls.get(side.name, {})})
        paths = write_outputs(session.run_dir, report, config)
    return report, report_output(report, settings, paths)


def _run(queries: Any, sides: Any, models: Models, source: Any, store: Any,
         settings: Settings, prompts: Any, total: int, quiet: bool) -> EvalReport:
    with progress_bars(not quiet) as prog:
        task = prog.add_task("stabletoolbench queries", total=total) if prog else None

        def done(_res: Any) -> None:
            if prog is not None:
                prog.advance(task)

        return asyncio.run(evaluate(queries, sides, models, source, store, settings,
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
