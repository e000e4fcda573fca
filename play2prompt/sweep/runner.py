"""The library entry point: :func:`run_sweep` runs a sweep and writes its tables and plots.

``runs/sweeps/<name>/`` holds the Optuna study (``study.db``, unless another storage is given),
the evaluation store (``eval.db``: every evaluated query, its LLM calls and executions), one
folder of evaluation outputs per trial (``trials/``), the tables (``trials.csv/.md``,
``summary.csv/.md``, ``cost.json``) and the plots (``plots/*.png``). The optimization runs are
ordinary runs in ``runs/`` (``sweep-<name>-<key>``): ``p2p report`` and ``p2p runs show`` work
on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from play2prompt.errors import UserError
from play2prompt.evaluation.runner import EvalSettings
from play2prompt.evaluation.session import EvalSession
from play2prompt.lm._base import LM
from play2prompt.progress import NullReporter, Reporter
from play2prompt.store.db import RunStore
from play2prompt.store.meta import EVAL_KIND, Meta
from play2prompt.store.runs import default_runs_dir
from play2prompt.sweep import ablation
from play2prompt.sweep.plots import write_plots
from play2prompt.sweep.space import ORACLE_VARIANT
from play2prompt.sweep.study import LoopState, SweepSpec, completed_rows, open_study, run_loop
from play2prompt.sweep.tables import (
    cost_summary,
    summary_table,
    trials_table,
    write_tables,
)
from play2prompt.sweep.target import SweepTarget
from play2prompt.sweep.trial import ModelSpec, SweepContext

SWEEPS_FOLDER = "sweeps"


@dataclass
class SweepResult:
    name: str
    sweep_dir: Path
    trials: pd.DataFrame
    summary: pd.DataFrame
    cost: dict[str, Any]
    files: dict[str, Path] = field(default_factory=dict)
    ran: list[int] = field(default_factory=list)       # trial numbers run in this session
    failed: list[str] = field(default_factory=list)
    ablation: pd.DataFrame = field(default_factory=pd.DataFrame)   # evidence ablation table


def sweep_folder(name: str, runs_dir: Path | None = None) -> Path:
    return Path(runs_dir or default_runs_dir()) / SWEEPS_FOLDER / name


def run_sweep(spec: SweepSpec, target: SweepTarget, *, generator: ModelSpec = "embedded",
              task_model: ModelSpec = None, doc_generator: ModelSpec = None,
              settings: EvalSettings | None = None, runs_dir: Path | None = None,
              max_concurrency: int | None = None, reporter: Reporter | None = None,
              log: Any = print) -> SweepResult:
    """Run the sweep ``spec`` on ``target`` (resuming it with ``spec.resume``). With oracle
    docs on the target (:meth:`SweepTarget.with_oracle`) the ``oracle`` variant is added."""
    spec = with_oracle_side(spec, target)
    runs_dir = Path(runs_dir or default_runs_dir())
    sweep_dir = sweep_folder(spec.name, runs_dir)
    sweep_dir.mkdir(parents=True, exist_ok=True)
    study = open_study(spec, sweep_dir)
    session = EvalSession(RunStore(sweep_dir / "eval.db"), max_concurrency)
    session.store.set_meta(Meta.RUN_ID, f"sweep-{spec.name}-eval")
    session.store.set_meta(Meta.KIND, EVAL_KIND)
    task = task_model if task_model is not None else generator
    eval_lm = session.model(_detached(task) if isinstance(task, LM) else task or "embedded")
    eval_ctx = session.context(target.suite.base_dir, eval_lm)
    ctx = SweepContext(spec.name, target, runs_dir, sweep_dir, generator, task_model, eval_lm,
                       session.store, eval_ctx, settings or EvalSettings(), doc_generator,
                       reporter or NullReporter(), spec.reuse_calls)
    _write_spec(spec, target, sweep_dir, ctx)
    try:
        state = run_loop(spec, study, ctx, log)
    finally:
        session.close()
    return finish(spec, study, target, sweep_dir, state)


def with_oracle_side(spec: SweepSpec, target: SweepTarget) -> SweepSpec:
    """The oracle variant goes with oracle docs: added when they are given, refused without."""
    if target.oracle:
        return replace(spec, space=spec.space.with_variant(ORACLE_VARIANT))
    if ORACLE_VARIANT in spec.space.variants():
        raise UserError("the oracle variant needs the oracle docs: --oracle FILE (a tools "
                        "file with correct docs of the same tools)")
    return spec


def _detached(lm: LM) -> LM:
    """The task model object, logging to the evaluation store (not to an optimization run)."""
    return lm.with_log(None)


def finish(spec: SweepSpec, study: Any, target: SweepTarget, sweep_dir: Path,
           state: LoopState | None = None) -> SweepResult:
    """Rebuild the tables and plots from every finished trial of the study."""
    df = trials_table(completed_rows(study))
    summary = summary_table(df, spec.space.varying())
    cost = cost_summary(df)
    table = evidence_ablation(spec, df, sweep_dir)
    files: dict[str, Path] = {}
    if not df.empty:
        title = f"sweep {spec.name} ({target.suite.name}, {len(target.suite.items)} queries)"
        files.update(write_tables(df, summary, cost, sweep_dir, title, target.suite.notes,
                                  table))
        files.update(write_plots(df, summary, sweep_dir / "plots"))
    state = state or LoopState()
    return SweepResult(spec.name, sweep_dir, df, summary, cost, files, state.ran, state.failed,
                       table)


def evidence_ablation(spec: SweepSpec, df: pd.DataFrame, sweep_dir: Path) -> pd.DataFrame:
    """The evidence ablation table when the space has an evidence axis with ``all`` (empty
    otherwise), each row compared query by query with the records in ``eval.db``."""
    if df.empty or not ablation.applies(spec.space.values):
        return pd.DataFrame()
    ids = [str(i) for i in df["eval_id"].dropna()] if "eval_id" in df else []
    outcomes = ablation.load_outcomes(sweep_dir / "eval.db", ids)
    return ablation.ablation_table(df, spec.space.values[ablation.AXIS],
                                   spec.space.varying(), outcomes)


def _write_spec(spec: SweepSpec, target: SweepTarget, sweep_dir: Path,
                ctx: SweepContext) -> None:
    data = {"name": spec.name, "space": {k: list(v) for k, v in spec.space.values.items()},
            "sampler": spec.sampler, "n_trials": spec.n_trials, "metric": spec.metric,
            "minimize_calls": spec.minimize_calls, "base_config": spec.base.to_dict(),
            "target": target.describe(), "models": ctx.model_ids()}
    (sweep_dir / "sweep.json").write_text(json.dumps(data, indent=2, default=str) + "\n")
