"""The Optuna study behind ``p2p sweep``: storage, resume, and the trial loop.

A grid sweep runs every point of the space once; a sampler sweep (``tpe``, ``random``) runs a
trial budget, maximizing the chosen metric (optionally also minimizing the configuration's LLM
calls: a multi-objective study). Storage defaults to SQLite under the sweep folder; any database
URL works, so several machines can work on one sweep (``worker=True``: join without touching
the trials the others are running). Every finished trial stores its row (run id, accuracies,
cost) in the study, so the tables are rebuilt from the study alone.

``resume=True`` continues a killed sweep: trials the killed process left running are marked
failed and their parameters run again (their optimization resumes from its call log);
finished trials are not rerun.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.errors import UserError, describe_failure
from play2prompt.sweep.space import SweepSpace, plan_trial
from play2prompt.sweep.trial import SweepContext, run_trial

SAMPLERS = ("grid", "tpe", "random")
ROW_ATTR = "row"


@dataclass(frozen=True)
class SweepSpec:
    name: str
    space: SweepSpace
    base: OptimizeConfig
    sampler: str = "grid"
    n_trials: int | None = None        # budget of a sampler sweep (grid: the grid's size)
    metric: str = "accuracy"           # a column of the trial rows (accuracy, ast, acc:<cat>)
    minimize_calls: bool = False
    storage: str | None = None
    resume: bool = False
    worker: bool = False
    seed: int = 0
    reuse_calls: tuple[str, ...] = ()  # runs (ids or folders) whose calls seed every trial

    def __post_init__(self) -> None:
        from play2prompt import limits

        if self.n_trials is not None:
            limits.TRIALS.check(self.n_trials, "--n-trials")

    def directions(self) -> list[str]:
        return ["maximize", "minimize"] if self.minimize_calls else ["maximize"]


@dataclass
class LoopState:
    done: int = 0
    failed: list[str] = field(default_factory=list)
    ran: list[int] = field(default_factory=list)


def storage_url(spec: SweepSpec, sweep_dir: Path) -> str:
    if spec.storage:
        return spec.storage
    sweep_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(sweep_dir / 'study.db').resolve()}"


def open_study(spec: SweepSpec, sweep_dir: Path) -> Any:
    """Create the study, or load it with ``resume``/``worker`` (an existing study without
    either is an error, so that a sweep is never mixed up with an older one by accident)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if spec.sampler not in SAMPLERS:
        raise UserError(f"unknown sampler {spec.sampler!r} (one of {', '.join(SAMPLERS)})")
    url = storage_url(spec, sweep_dir)
    try:
        storage = optuna.storages.RDBStorage(url)
    except Exception as exc:  # noqa: BLE001 - a bad URL or unreachable database
        raise UserError(f"cannot open sweep storage {url}: {exc}") from exc
    exists = spec.name in {s.study_name for s in storage.get_all_studies()}
    if exists and not (spec.resume or spec.worker):
        raise UserError(f"sweep {spec.name!r} exists in {url}; continue it with --resume "
                        f"(or pick another --name)")
    sampler = (optuna.samplers.TPESampler(seed=spec.seed) if spec.sampler == "tpe"
               else optuna.samplers.RandomSampler(seed=spec.seed))
    study = optuna.create_study(study_name=spec.name, storage=storage, sampler=sampler,
                                directions=spec.directions(), load_if_exists=True)
    if list(study.directions) and len(study.directions) != len(spec.directions()):
        raise UserError(f"sweep {spec.name!r} was created with {len(study.directions)} "
                        f"objective(s); keep --minimize-calls as it was")
    study.set_user_attr("space", {k: list(v) for k, v in spec.space.values.items()})
    study.set_user_attr("sampler", spec.sampler)
    study.set_user_attr("metric", spec.metric)
    return study


def _key(params: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in params.items()))


def reclaim(study: Any) -> list[dict[str, Any]]:
    """Mark trials left running by a killed process as failed; return the parameters of failed
    trials never completed since (to run them again)."""
    from optuna.trial import TrialState

    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
    complete = {_key(t.params) for t in study.get_trials(states=(TrialState.COMPLETE,))}
    pending: dict[tuple, dict[str, Any]] = {}
    for t in study.get_trials(states=(TrialState.FAIL,)):
        if _key(t.params) not in complete and t.params:
            pending.setdefault(_key(t.params), dict(t.params))
    return list(pending.values())


def stored_distributions(study: Any, wanted: dict[str, Any], name: str) -> dict[str, Any]:
    """The distributions trials are asked with: a resumed study's own where a setting's values
    are the same set in another order (the grid then runs in the new order; Optuna refuses a
    categorical whose choices changed order), and one line where they are another set."""
    out = dict(wanted)
    for trial in study.get_trials(deepcopy=False):
        for param, dist in trial.distributions.items():
            new = out.get(param)
            if new is None or dist == new or not hasattr(dist, "choices"):
                continue
            if set(map(str, dist.choices)) != set(map(str, new.choices)):
                raise UserError(
                    f"sweep {name!r} was run with {param}={','.join(map(str, dist.choices))}; "
                    f"a resumed sweep keeps its values (any order), or pick another --name")
            out[param] = dist
    return out


def _next_grid_point(study: Any, points: list[dict[str, Any]], skip: set[tuple]
                     ) -> dict[str, Any] | None:
    from optuna.trial import TrialState

    taken = {_key(t.params) for t in study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.RUNNING))}
    for point in points:
        if _key(point) not in taken and _key(point) not in skip:
            return point
    return None


def _objective(row: Mapping[str, Any], spec: SweepSpec) -> list[float]:
    if spec.metric not in row:
        metrics = [k for k in row if k in ("accuracy", "ast", "delta") or k.startswith("acc:")]
        raise UserError(f"unknown metric {spec.metric!r} (one of {', '.join(metrics)})")
    value = float(row[spec.metric] if row[spec.metric] is not None else 0.0)
    return [value, float(row["llm_calls"])] if spec.minimize_calls else [value]


def run_loop(spec: SweepSpec, study: Any, ctx: SweepContext, log: Any = print) -> LoopState:
    """Run trials until the grid is covered or the budget is spent."""
    from optuna.trial import TrialState

    state = LoopState()
    pending = reclaim(study) if spec.resume else []
    points = spec.space.grid()
    budget = len(points) if spec.sampler == "grid" else spec.n_trials or len(points)
    distributions = stored_distributions(study, spec.space.distributions(), spec.name)
    max_demos = spec.space.max_demos(spec.base.demos_per_tool)
    skip: set[tuple] = set()
    while True:
        if spec.sampler == "grid":
            point = _next_grid_point(study, points, skip)
            if point is None:
                break
            study.enqueue_trial(point)
        else:
            complete = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
            if complete >= budget:
                break
            if pending:
                study.enqueue_trial(pending.pop(0))
        trial = study.ask(distributions)
        params = dict(trial.params)
        plan = plan_trial(params, spec.base, max_demos)
        log(f"trial {trial.number}: {_describe(params)}")
        try:
            row = run_trial(trial.number, plan, ctx)
        except Exception as exc:
            study.tell(trial, state=TrialState.FAIL)
            skip.add(_key(params))
            why = _keep_failure(ctx.sweep_dir, trial.number, exc)
            state.failed.append(f"trial {trial.number} ({_describe(params)}): {why}")
            log(f"trial {trial.number} failed: {why}")
            if spec.sampler != "grid" and len(state.failed) >= budget:
                break
            continue
        except BaseException:
            study.tell(trial, state=TrialState.FAIL)
            raise
        trial.set_user_attr(ROW_ATTR, row)
        study.tell(trial, _objective(row, spec))
        state.ran.append(trial.number)
        log(f"trial {trial.number}: accuracy {row['accuracy']} (baseline {row['baseline']}), "
            f"optimization {row['opt_status']} ({row['opt_new_calls']} new calls, "
            f"{row['opt_saved_calls']} saved)")
    return state


def _keep_failure(sweep_dir: Path, number: int, exc: Exception) -> str:
    """The failure in one line; a bug's whole traceback goes to ``trials/NNNN-failed.txt``."""
    why = describe_failure(exc)
    if not isinstance(exc, UserError):
        import traceback

        path = sweep_dir / "trials" / f"{number:04d}-failed.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
        why += f" (traceback: {path})"
    return why


def _describe(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def completed_rows(study: Any) -> list[dict[str, Any]]:
    from optuna.trial import TrialState

    rows = [dict(t.user_attrs[ROW_ATTR]) for t in study.get_trials(states=(TrialState.COMPLETE,))
            if ROW_ATTR in t.user_attrs]
    return sorted(rows, key=lambda r: r["trial"])
