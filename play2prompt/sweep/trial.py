"""One trial of a sweep: find (or run) its optimization, evaluate baseline and variant, and
return the trial's row.

Optimization runs are named by the hash of everything that changes them
(``sweep-<name>-<key>``): a trial whose settings differ from an earlier one only at inference
(desc-only vs demo-only vs full, the number of demos) reuses that run, and a run left
unfinished by a killed sweep is resumed from its call log. A new (or resumed) run's call log is
first seeded from the sweep's earlier finished runs (:mod:`play2prompt.store.reuse`: the same
models, by id and fingerprint): an identical request to the same model with the same derived
seed gives the same answer, so it is answered from the log, and trials that differ in one
setting (an evidence ablation's rows) share every call up to where that setting first changes
a prompt: common random numbers, and those calls paid once. Evaluations go to the sweep's own
store (``eval.db``), one record per (configuration, side, query): the baseline is evaluated
once per (task model, dropout, seed) and an evaluated configuration is never redone.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from play2prompt.evaluation.items import ORACLE, PromptSide, side_for
from play2prompt.evaluation.report import (
    accuracy_table,
    comparison,
    summary_for_store,
    write_outputs,
)
from play2prompt.evaluation.runner import EvalResult, EvalSettings, Evaluator, SideResult
from play2prompt.jsonutil import stable_hash
from play2prompt.lm._base import LM, LMStats
from play2prompt.progress import NullReporter, Reporter
from play2prompt.results import RESULT_FILE, RunResult, load_run_result
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.sweep.space import TrialPlan
from play2prompt.sweep.target import SweepTarget, suite_named

ModelSpec = str | LM | None


@dataclass
class SweepContext:
    """What every trial of a sweep shares (pass it explicitly; nothing global)."""

    name: str
    target: SweepTarget
    runs_dir: Path
    sweep_dir: Path
    generator: ModelSpec
    task_model: ModelSpec
    eval_lm: Any                   # the task model, logging to the evaluation store
    eval_store: RunStore
    eval_ctx: Any                  # ExecContext of the evaluations
    settings: EvalSettings = field(default_factory=EvalSettings)
    doc_generator: ModelSpec = None
    reporter: Reporter = field(default_factory=NullReporter)
    reuse_calls: tuple[str, ...] = ()  # runs outside the sweep whose calls seed its trials

    def model_ids(self) -> list[str | None]:
        return [m.model_id if isinstance(m, LM) else m
                for m in (self.generator, self.task_model, self.doc_generator)]


@dataclass(frozen=True)
class OptInfo:
    """The optimization run a trial used and what it cost."""

    run_id: str
    status: str              # new | resumed | shared
    new_calls: int           # backend calls made for it in this trial
    saved_calls: int         # calls served from an earlier trial's run (or its log)
    logged_calls: int        # the configuration's whole cost (samples in its log)
    tokens: int
    wall_s: float
    reused: int = 0          # of saved_calls, samples seeded from the sweep's earlier runs


NO_RUN = OptInfo("", "none", 0, 0, 0, 0, 0.0)   # a reference variant optimizes nothing


def _fresh(model: ModelSpec) -> ModelSpec:
    """A live LM object reused across runs: detach the previous run's log, reset its stats."""
    if isinstance(model, LM):
        model.with_log(None)
        model.stats = LMStats()
    return model


def ensure_run(plan: TrialPlan, ctx: SweepContext) -> tuple[RunResult, OptInfo]:
    """The trial's optimization run: shared when finished, resumed when unfinished, else new."""
    from play2prompt.optimize import optimize

    key = plan.opt_key(ctx.target.fingerprint(), ctx.model_ids())
    run_id = f"sweep-{ctx.name}-{key}"
    run_dir = ctx.runs_dir / run_id
    start = time.perf_counter()
    if (run_dir / RESULT_FILE).is_file():
        result, status, session = load_run_result(run_dir), "shared", {}
    else:
        common = dict(generator=_fresh(ctx.generator), task_model=_fresh(ctx.task_model),
                      doc_generator=_fresh(ctx.doc_generator), runs_dir=ctx.runs_dir,
                      reporter=ctx.reporter, reuse_calls=_earlier_runs(ctx, run_id))
        if (run_dir / DB_NAME).is_file():
            result = optimize(resume=run_id, config=plan.config, **common)
            status = "resumed"
        else:
            result = optimize(ctx.target.tools, config=plan.config, run_id=run_id,
                              label=ctx.target.name, base_dir=ctx.target.base_dir,
                              exec_ctx=ctx.target.exec_ctx, **common)
            status = "new"
        session = dict(result.stats.get("session", {}))
    logged = _logged(run_dir)
    new_calls = int(session.get("llm_calls", 0))
    saved = logged["samples"] if status == "shared" else int(session.get("cache_hits", 0))
    wall = float(result.stats.get("wall_s", 0.0)) if status != "shared" else round(
        time.perf_counter() - start, 2)
    reused = int((result.stats.get("reused_calls") or {}).get("hit", 0))
    return result, OptInfo(run_id, status, new_calls, saved, logged["samples"],
                           logged["prompt_tokens"] + logged["completion_tokens"], wall,
                           0 if status == "shared" else reused)


def _earlier_runs(ctx: SweepContext, run_id: str) -> list[str]:
    """The runs a new trial's call log is seeded from: those given (``--reuse-calls``), then
    the sweep's finished optimization runs other than ``run_id``, oldest first."""
    found = [d for d in ctx.runs_dir.glob(f"sweep-{ctx.name}-*")
             if d.name != run_id and (d / RESULT_FILE).is_file()]
    return [*ctx.reuse_calls,
            *(str(d) for d in sorted(found, key=lambda d: (d.stat().st_mtime, d.name)))]


def _logged(run_dir: Path) -> dict[str, Any]:
    store = RunStore(run_dir / DB_NAME, read_only=True)
    try:
        return store.call_stats()["total"]
    finally:
        store.close()


def _eval_side(ctx: SweepContext, key: str, side: PromptSide, settings: EvalSettings,
               drop: float = 0.0) -> tuple[SideResult, list[Any]]:
    """``side`` evaluated under ``key``; ``drop``: the dropout a target's view applies (a
    plain evaluator's sides carry theirs)."""
    suite = suite_named(ctx.target.suite, key)
    ctx.eval_lm.with_log(ctx.eval_store)  # an LM object shared with the optimization
    view = ctx.target.view
    if view is not None:
        evaluator = view.evaluator(suite, ctx.eval_lm, ctx.eval_store, settings, ctx.eval_ctx,
                                   ctx.reporter, drop=drop)
    else:
        evaluator = Evaluator(suite, ctx.eval_lm, ctx.eval_store, settings, ctx.eval_ctx,
                              ctx.reporter)
    result = asyncio.run(evaluator.run([side]))
    return result.sides[0], result.skipped


def evaluate(plan: TrialPlan, run: RunResult | None, ctx: SweepContext
             ) -> tuple[EvalResult, str]:
    """Baseline and the variant's side on the sweep's queries (the baseline alone for the
    ``baseline`` variant; the oracle docs for ``oracle``); returns the result and the key of
    the variant's evaluation."""
    settings = replace(ctx.settings, seed=plan.seed)
    model = ctx.eval_lm.model_id
    setting = (settings.mode, settings.temperature, settings.max_tokens)
    side = plan.variant.side
    shown = _opacity(ctx)     # an opaque target's evaluations are its own (not a clear one's)
    base_key = stable_hash("baseline", model, setting, plan.drop, plan.seed, *shown, length=10)
    oracle = ctx.target.oracle if side == ORACLE else ()
    source = run.run_id if run is not None else stable_hash(
        [t.to_dict() for t in oracle], length=12)
    var_key = stable_hash(source, side, plan.demos, plan.drop, plan.seed, model, setting,
                          *shown, length=10)
    base_side = _shown(ctx, side_for("baseline", None, plan.demos, plan.drop, plan.seed))
    baseline, skipped = _eval_side(ctx, base_key, base_side, settings, plan.drop)
    sides = [baseline]
    if side != "baseline":
        var_side = _shown(ctx, side_for(side, run, plan.demos, plan.drop, plan.seed, oracle),
                          run, oracle)
        sides.append(_eval_side(ctx, var_key, var_side, settings, plan.drop)[0])
    else:
        var_key = base_key
    result = EvalResult(ctx.target.suite, sides, skipped)
    result.config = {"suite": ctx.target.suite.name, "task_model": model,
                     "mode": settings.mode, "temperature": settings.temperature,
                     "seed": plan.seed, "prompts": run.run_id if run is not None else None,
                     "variant": side, "demos": plan.demos, "drop_param_desc": plan.drop,
                     "sweep": ctx.name, "sweep_variant": plan.variant.name}
    return result, var_key


def _opacity(ctx: SweepContext) -> tuple[str, ...]:
    return (f"opaque:{ctx.target.suite.opaque}",) if ctx.target.suite.opaque else ()


def _shown(ctx: SweepContext, side: PromptSide, run: RunResult | None = None,
           oracle: Any = ()) -> PromptSide:
    """``side`` as an opaque target shows it (a run's docs and the oracle's under the shown
    names, the parameters play discovered; a target's view: as it keys them, its evaluator
    shows them); as it is for a clear target."""
    if ctx.target.view is not None:
        return ctx.target.view.side(side, run, oracle)
    if not ctx.target.suite.shown_names:
        return side
    from play2prompt.evaluation.opaque import opaque_sides

    return opaque_sides([side], run, ctx.target.suite, oracle)[0]


def attach_eval(run: RunResult, result: EvalResult, key: str) -> None:
    """Record the evaluation in the optimization run's store (``p2p report`` shows it)."""
    store = RunStore(Path(run.run_dir) / DB_NAME)
    try:
        store.put_eval(f"sweep:{result.config.get('sweep')}:{key}", result.suite.name,
                       dict(result.config), summary_for_store(result))
    finally:
        store.close()


def run_trial(number: int, plan: TrialPlan, ctx: SweepContext) -> dict[str, Any]:
    """Run the trial and return its row (parameters, accuracies, cost)."""
    start = time.perf_counter()
    run, opt = ensure_run(plan, ctx) if plan.variant.optimizes else (None, NO_RUN)
    calls_before = ctx.eval_lm.stats.calls
    result, key = evaluate(plan, run, ctx)
    eval_calls = ctx.eval_lm.stats.calls - calls_before
    if run is not None:
        attach_eval(run, result, key)
    write_outputs(result, ctx.sweep_dir / "trials" / f"{number:04d}-{plan.variant.name}",
                  ctx.target.suite.notes)
    eval_id = f"{suite_named(ctx.target.suite, key).name}:{result.sides[-1].side.name}"
    return trial_row(number, plan, opt, result, eval_calls, time.perf_counter() - start,
                     eval_id)


def trial_row(number: int, plan: TrialPlan, opt: OptInfo, result: EvalResult,
              eval_calls: int, wall: float, eval_id: str = "") -> dict[str, Any]:
    """The trial's row; ``eval_id``: where the variant's per-query records are in the sweep's
    evaluation store (the evidence ablation table compares rows query by query with them)."""
    acc = accuracy_table(result)
    base, var = result.sides[0], result.sides[-1]
    row: dict[str, Any] = {"trial": number, "variant": plan.variant.name,
                           "method": plan.variant.label}
    row.update({k: v for k, v in plan.params.items() if k != "variant"})
    row.update({"demos": plan.demos, "run_id": opt.run_id, "opt_status": opt.status})
    by_cat = {r["category"]: r for r in acc.to_dict("records")}
    for cat in result.suite.category_order():
        row[f"acc:{cat}"] = by_cat[cat].get(f"{var.side.name} exec %")
        row[f"base:{cat}"] = by_cat[cat].get(f"{base.side.name} exec %")
    row["accuracy"] = _pct(sum(r["correct"] for r in var.records), len(var.records))
    row["ast"] = _pct(sum(r["ast_ok"] for r in var.records), len(var.records))
    row["baseline"] = _pct(sum(r["correct"] for r in base.records), len(base.records))
    row["delta"] = (None if row["accuracy"] is None or row["baseline"] is None
                    else round(row["accuracy"] - row["baseline"], 1))
    row.update(_paired_columns(result))
    vcost = var.cost()
    row.update({
        "opt_calls": opt.logged_calls, "opt_tokens": opt.tokens,
        "opt_new_calls": opt.new_calls, "opt_saved_calls": opt.saved_calls,
        "opt_reused_calls": opt.reused,
        "opt_wall_s": opt.wall_s,
        "eval_requests": vcost["requests"],
        "eval_new_calls": eval_calls,
        "eval_tokens": vcost["prompt tok"] + vcost["compl tok"],
        "llm_calls": opt.logged_calls + vcost["requests"],
        "wall_s": round(wall, 2),
        "eval_id": eval_id,
    })
    return row


def _paired_columns(result: EvalResult) -> dict[str, Any]:
    """The variant against the baseline query by query: wins, losses, McNemar's p (none for
    the baseline itself)."""
    pairs = comparison(result) if len(result.sides) > 1 else []
    if not pairs:
        return {"n": len(result.sides[0].records), "wins": None, "losses": None,
                "p_value": None}
    pair = pairs[0]
    return {"n": pair.n, "wins": len(pair.wins), "losses": len(pair.losses),
            "p_value": round(pair.p_value, 4)}


def _pct(hits: int, total: int) -> float | None:
    return round(100.0 * hits / total, 1) if total else None
