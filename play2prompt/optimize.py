"""The library entry point: ``optimize()``, the lifecycle of a run.

It opens the run store (a new run, or the resumed one with what it recorded at its start),
builds the models and the engine, hands the tools to a runner (``local``: concurrently in this
process; ``ray``: one Ray task per tool), and records the outcome: status, the session's cost,
``result.json``. What happens to one tool is :func:`play2prompt.pipeline.optimize_tool`.

Every LLM call, tool execution and candidate goes to the run store; a tool whose result is
stored is not redone, and a resumed run replays its logged calls for free, so a killed run picks
up where it stopped.
"""

from __future__ import annotations

import asyncio
import importlib
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig, preset
from play2prompt.engine import build_engine, lm_session_stats
from play2prompt.errors import UserError
from play2prompt.lm._base import LM
from play2prompt.lm.registry import LMPool
from play2prompt.lm.speed import lm_speed
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.calibration import Calibration, calibrate, calibration_cases
from play2prompt.optimizers import check_method, uses_llm_grading
from play2prompt.pipeline import Launch, ToolRunner
from play2prompt.progress import Reporter
from play2prompt.results import RunResult
from play2prompt.store.calibrations import calibration_key, load_calibration, save_calibration
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.lock import RunLock
from play2prompt.store.meta import EVAL_KIND, Meta, Status
from play2prompt.store.runs import (
    check_run_id,
    create_run,
    default_runs_dir,
    new_run_id,
    resolve_run,
    unfinished_hint,
)
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.model import Tool
from play2prompt.tools.preflight import check_tools_start
from play2prompt.tools.runtime import ToolRuntime
from play2prompt.tools.transform import drop_param_descriptions

# Where the tools of a run are optimized, by name; each is a pipeline.ToolRunner, imported
# only when chosen (Ray is an optional extra).
RUNNERS: dict[str, str] = {
    "local": "play2prompt.pipeline:run_local",
    "ray": "play2prompt.distributed:run_on_ray",
}


@dataclass
class _Opened:
    """A run ready to start: its store (locked for this process), what it optimizes, with what."""

    store: RunStore
    lock: RunLock
    tools: list[Tool]
    config: OptimizeConfig
    pool: LMPool
    gen: LM
    task: LM
    docgen: LM
    models: dict[str, Any]       # the specs (or LM objects) as given or recorded
    base_dir: Path | None


def _models(pool: LMPool, generator: str | LM, task_model: str | LM | None,
            doc_generator: str | LM | None) -> tuple[LM, LM, LM]:
    gen = pool.add(generator.model_id, generator) if isinstance(generator, LM) else pool.get(
        generator)
    return gen, _resolve(pool, task_model, gen), _resolve(pool, doc_generator, gen)


def _open(tools: Sequence[Tool] | None, generator: str | LM, task_model: str | LM | None,
          doc_generator: str | LM | None, config: OptimizeConfig | None,
          runs_dir: Path | None, run_id: str | None, resume: str | None, label: str,
          base_dir: Path | None) -> _Opened:
    """Lock and open the resumed run; or build the models and only then create the new run's
    folder (a bad model spec leaves nothing behind)."""
    if resume:
        run_dir = resolve_run(resume, runs_dir)
        lock = RunLock.acquire(run_dir)
        try:
            store = RunStore(run_dir / DB_NAME)
            limits = config.max_concurrency if config is not None else None
            tools, config, generator, task_model, base_dir = _resumed(store, generator,
                                                                      task_model, base_dir)
            if limits is not None:  # how hard to push the backends may change between sessions
                config = replace(config, max_concurrency=limits)
            pool = LMPool(log=store, max_concurrency=config.max_concurrency)
            gen, task, docgen = _models(pool, generator, task_model, doc_generator)
        except BaseException:
            lock.release()
            raise
    else:
        if not tools:
            raise ValueError("optimize() needs tools or resume=")
        run_id = check_run_id(run_id) if run_id else new_run_id(label)
        config = config or preset("default")
        tools = drop_param_descriptions(tools, config.drop_param_desc, config.seed)
        pool = LMPool(max_concurrency=config.max_concurrency)
        gen, task, docgen = _models(pool, generator, task_model, doc_generator)
        store, lock = _create(Path(runs_dir or default_runs_dir()), label, run_id)
        try:
            _record_start(store, config, tools, generator, task_model, gen, task, base_dir)
        except BaseException:
            lock.release()
            raise
        pool.attach(store)
    models = {"generator": generator, "task_model": task_model, "doc_generator": doc_generator}
    return _Opened(store, lock, list(tools), config, pool, gen, task, docgen, models, base_dir)


def _create(runs_dir: Path, label: str, run_id: str) -> tuple[RunStore, RunLock]:
    """The new run's store, its folder locked by this process."""
    run_dir = runs_dir / run_id
    existed = run_dir.exists()
    lock = RunLock.acquire(run_dir)
    try:
        return create_run(runs_dir, label, run_id), lock
    except BaseException:
        lock.release()
        if not existed:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise


def optimize(
    tools: Sequence[Tool] | None = None,
    *,
    generator: str | LM = "embedded",
    task_model: str | LM | None = None,
    doc_generator: str | LM | None = None,
    config: OptimizeConfig | None = None,
    runs_dir: Path | None = None,
    run_id: str | None = None,
    resume: str | None = None,
    label: str = "run",
    base_dir: Path | None = None,
    metaprompts_dir: str | Path | None = None,
    reporter: Reporter | None = None,
    exec_ctx: ExecContext | None = None,
    executor: str = "local",
    ray_address: str | None = None,
    recompute: bool = False,
    method: str | None = None,
    prepare: Callable[[RunStore], None] | None = None,
) -> RunResult:
    """Optimize ``tools`` (or resume run ``resume``) and write ``runs/<run-id>/``.

    ``method``: the optimization method by name (:mod:`play2prompt.optimizers`; default
    ``config.method``, Play2Prompt), e.g. ``easytool`` or ``draft`` for the baselines.
    ``executor``: ``local`` (tools concurrently in this process) or ``ray`` (one Ray task per
    tool, on the cluster at ``ray_address`` or a local instance). ``recompute``: with
    ``resume``, redo every tool from the run's log (logged calls are free). One process at a
    time works on a run (a second one is refused, naming the first one's pid). ``prepare``:
    for a new run, called with its store once it is created, before any LLM call (``p2p
    refresh`` stores there the results it reuses and the facts play starts from). Returns the
    published result (scrubbed, as written to ``result.json``)."""
    if method is not None:
        config = replace(config or preset("default"), method=check_method(method))
    elif config is not None and not resume:
        check_method(config.method)
    run = _open(tools, generator, task_model, doc_generator, config, runs_dir, run_id, resume,
                label, base_dir)
    try:
        if resume and method is not None and method != run.config.method:
            raise UserError(f"run {resume!r} was made with method {run.config.method!r}, not "
                            f"{method!r}")
        if prepare is not None and not resume:
            _prepare(run.store, prepare)
        return _optimize(run, metaprompts_dir, reporter, exec_ctx, executor, ray_address,
                         recompute)
    finally:
        run.pool.close()
        run.lock.release()


def _check_tools_start(run: _Opened, exec_ctx: ExecContext | None) -> None:
    """Before the first LLM call: every tool still to optimize can start (its command, module,
    server or database: :mod:`play2prompt.tools.preflight`), else the run fails on one line."""
    todo = [t for t in run.tools if run.store.get_result(t.name) is None]
    ctx = exec_ctx or ExecContext(base_dir=run.base_dir or Path.cwd())
    try:
        check_tools_start(todo, ctx)
    except UserError as exc:
        run_id = run.store.get_meta(Meta.RUN_ID)
        run.store.set_meta(Meta.STATUS, Status.FAILED)
        run.store.set_meta(Meta.ERROR, str(exc)[:1000])
        raise UserError(f"{exc} (run {run_id!r} is saved: once fixed, continue it with "
                        f"--resume {run_id})") from None
    finally:
        if ctx is not exec_ctx:
            ctx.close()


def _prepare(store: RunStore, prepare: Callable[[RunStore], None]) -> None:
    try:
        prepare(store)
    except BaseException as exc:
        store.set_meta(Meta.STATUS, Status.FAILED)
        store.set_meta(Meta.ERROR, f"{type(exc).__name__}: {exc}"[:1000])
        raise


def _optimize(run: _Opened, metaprompts_dir: str | Path | None, reporter: Reporter | None,
              exec_ctx: ExecContext | None, executor: str, ray_address: str | None,
              recompute: bool) -> RunResult:
    store, config, tools, base_dir = run.store, run.config, run.tools, run.base_dir
    if recompute:
        store.clear_results()
    store.set_meta(Meta.STATUS, Status.RUNNING)
    _check_tools_start(run, exec_ctx)
    calibration = run_calibration(store, config, run.gen, metaprompts_dir)
    engine = build_engine(tools, store, config, generator=run.gen, task_model=run.task,
                          doc_generator=run.docgen, metaprompts_dir=metaprompts_dir,
                          reporter=reporter, base_dir=base_dir, exec_ctx=exec_ctx,
                          calibration=calibration)
    start = time.perf_counter()
    launch = Launch(run.models, run.pool.max_concurrency, metaprompts_dir, base_dir,
                    ray_address)
    try:
        results, workers = runner(executor)(tools, engine, launch)
    except BaseException as exc:
        store.set_meta(Meta.STATUS, Status.FAILED)
        store.set_meta(Meta.ERROR, f"{type(exc).__name__}: {exc}"[:1000])
        raise
    finally:
        engine.runtime.close()
    wall = time.perf_counter() - start
    stats = run_stats(store, run.pool, wall, engine.runtime, workers)
    store.set_meta(Meta.STATUS, Status.DONE)
    store.set_meta(Meta.LAST_STATS, stats)
    store.add_session(stats)
    result = RunResult(store.get_meta(Meta.RUN_ID), store.run_dir, results, config.to_dict(), stats)
    return result.write(engine.scrubber)


def run_calibration(store: RunStore, config: OptimizeConfig, generator: LM,
                    metaprompts_dir: str | Path | None) -> Calibration:
    """Whether the generator judges outputs and grades requests: the user's setting, else the
    run's stored calibration, else measured now (a few LLM calls) and stored. A method that
    asks for no grade (``uses_llm_grading = False``: the baselines) is not calibrated."""
    if config.llm_grading is not None:
        return Calibration.fixed(config.llm_grading)
    if not uses_llm_grading(config.method):
        return Calibration.fixed(False)
    stored = store.get_meta(Meta.CALIBRATION)
    if stored:
        return Calibration.from_dict(stored)
    prompts = MetaPrompts(metaprompts_dir)
    key = calibration_key(generator.fingerprint, [prompts.template("m2"),
                                                  prompts.template("m5")], calibration_cases())
    cached = load_calibration(key)
    if cached:
        found = Calibration.from_dict(cached)
    else:
        found = asyncio.run(calibrate(generator.tagged("calibration"), prompts))
        save_calibration(key, found.to_dict())
    store.set_meta(Meta.CALIBRATION, found.to_dict())
    return found


def _record_start(store: RunStore, config: OptimizeConfig, tools: Sequence[Tool],
                  generator: str | LM, task_model: str | LM | None, gen: LM, task: LM,
                  base_dir: Path | None) -> None:
    """What a resumed run needs: config, tools, model specs, base folder."""
    store.set_meta(Meta.CONFIG, config.to_dict())
    store.set_meta(Meta.TOOLS, {"tools": [t.to_dict() for t in tools]})
    gen_spec = generator if isinstance(generator, str) else gen.model_id
    task_spec = task_model if isinstance(task_model, str) else (
        task.model_id if task_model is not None else gen_spec)
    store.set_meta(Meta.MODELS, {"generator": gen_spec, "task_model": task_spec})
    store.set_meta(Meta.BASE_DIR, str(Path(base_dir or Path.cwd()).resolve()))


def _resumed(store: RunStore, generator: Any, task_model: Any, base_dir: Path | None
             ) -> tuple[list[Tool], OptimizeConfig, Any, Any, Path]:
    """What a resumed run was started with: its tools, config and model specs (live LM
    objects passed by the caller win over the recorded specs)."""
    meta = store.run_meta()
    if meta.kind == EVAL_KIND or not (meta.config and meta.tools):
        raise UserError(f"{unfinished_hint(store.run_dir)} (nothing to resume)")
    config = OptimizeConfig.from_dict(meta.config)
    tools = parse_tools(meta.tools, source=f"run {meta.run_id}")
    specs = meta.models
    if isinstance(generator, str):
        generator = specs.get("generator", generator)
    if task_model is None or isinstance(task_model, str):
        task_model = specs.get("task_model", task_model)
    return tools, config, generator, task_model, _tools_folder(meta.base_dir, base_dir,
                                                              meta.run_id)


def _tools_folder(recorded: str | None, given: Path | None, run_id: str) -> Path:
    """Where a resumed run's tools run from: the folder given now (the tools file's, when
    one is passed with --resume), else the one the run recorded, which must still exist."""
    folder = Path(given) if given is not None else Path(recorded or Path.cwd())
    if not folder.is_dir():
        raise UserError(f"run {run_id}: the folder its tools ran from ({folder}) is gone; "
                        f"resume with the tools file: p2p optimize TOOLS.json --resume {run_id}")
    return folder


def runner(name: str) -> ToolRunner:
    """The tool runner named ``name`` (imported only when chosen)."""
    if name not in RUNNERS:
        raise UserError(f"unknown executor {name!r} ({' or '.join(RUNNERS)})")
    module_name, _, attr = RUNNERS[name].partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _resolve(pool: LMPool, spec: str | LM | None, default: LM) -> LM:
    if spec is None:
        return default
    if isinstance(spec, LM):
        return pool.add(spec.model_id, spec)
    return pool.get(spec)


def run_stats(store: RunStore, pool: LMPool, wall: float, runtime: ToolRuntime,
              workers: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """This session's cost (backend calls, tokens, cache hits; the distributed workers'
    included) and the run's logged totals."""
    session = lm_session_stats(pool.all())
    executions, exec_hits = runtime.executions, runtime.cache_hits
    for w in workers:
        for key in session:
            session[key] += w.get(key, 0)
        executions += w.get("tool_executions", 0)
        exec_hits += w.get("tool_execution_cache_hits", 0)
    stats = {
        "wall_s": round(wall, 2),
        "session": session,
        "logged": store.call_stats()["total"],
        "tool_executions": executions,
        "tool_execution_cache_hits": exec_hits,
    }
    speed = {lm.model_id: found for lm in pool.all() if (found := lm_speed(lm)) is not None}
    if speed:
        stats["speed"] = speed
    if workers:
        stats["workers"] = list(workers)
    return stats
