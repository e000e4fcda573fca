"""The library entry point: ``optimize()`` (``await optimize_async()`` in an event loop), the
lifecycle of a run.

It opens the run store (a new run, or the resumed one with what it recorded at its start:
:mod:`play2prompt.opening`), builds the models and the engine, hands the tools to a runner
(``local``: concurrently in this process; ``ray``: one Ray task per tool), and records the
outcome: status, the session's cost, ``result.json``. The runner asks the method registry
(:mod:`play2prompt.optimizers`) for the run's method; what Play2Prompt does to one tool is
:func:`play2prompt.pipeline.optimize_tool`.

Every LLM call, tool execution and candidate goes to the run store; a tool whose result is
stored is not redone, and a resumed run replays its logged calls for free, so a killed run picks
up where it stopped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from play2prompt.aio import run_sync
from play2prompt.config import OptimizeConfig, preset
from play2prompt.engine import Engine, build_engine, lm_session_stats
from play2prompt.errors import UserError
from play2prompt.lm._base import LM
from play2prompt.lm.registry import LMPool
from play2prompt.lm.speed import lm_speed
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.calibration import Calibration, calibrate, calibration_cases
from play2prompt.opening import Opened, open_optimization
from play2prompt.optimizers import check_method, uses_llm_grading
from play2prompt.progress import Reporter
from play2prompt.results import RunResult, ToolResult
from play2prompt.runners import Launch, WorkerStats, finish_run, optimize_tools, runner
from play2prompt.store.calibrations import calibration_key, load_calibration, save_calibration
from play2prompt.store.db import RunStore
from play2prompt.store.meta import Meta, Status
from play2prompt.store.reuse import resolve_sources, reuse_of, seed_run
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Tool
from play2prompt.tools.preflight import check_tools_start
from play2prompt.tools.runtime import ToolRuntime

# True in the event loop that optimize() starts for the run (nothing else runs there).
_OWN_LOOP: ContextVar[bool] = ContextVar("play2prompt_own_loop", default=False)
T = TypeVar("T")


async def optimize_async(
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
    reuse_calls: Sequence[str] = (),
) -> RunResult:
    """:func:`optimize`, awaitable: the run in the caller's event loop (a Jupyter cell, an
    ``async def`` web handler), with the same arguments and result. The tools are optimized
    concurrently in that loop; the slow synchronous parts (the tools' start check, ``prepare``,
    the ``ray`` runner) run in a worker thread, so the loop is never blocked for long."""
    if method is not None:
        config = replace(config or preset("default"), method=check_method(method))
    elif config is not None and not resume:
        check_method(config.method)
    sources = resolve_sources(reuse_calls, runs_dir)   # before a new run's folder exists
    run = open_optimization(tools, generator, task_model, doc_generator, config, runs_dir,
                            run_id, resume, label, base_dir)
    try:
        seed_run(run.store, (run.gen, run.task, run.docgen), sources)
        if resume and method is not None and method != run.config.method:
            raise UserError(f"run {resume!r} was made with method {run.config.method!r}, not "
                            f"{method!r}")
        if prepare is not None and not resume:
            await asyncio.to_thread(_prepare, run.store, prepare)
        return await _optimize(run, metaprompts_dir, reporter, exec_ctx, executor, ray_address,
                               recompute)
    finally:
        run.pool.close()
        run.lock.release()


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
    reuse_calls: Sequence[str] = (),
) -> RunResult:
    """Optimize ``tools`` (or resume run ``resume``) and write ``runs/<run-id>/``.

    ``method``: the optimization method by name (:mod:`play2prompt.optimizers`; default
    ``config.method``, Play2Prompt), e.g. ``easytool`` or ``draft`` for the baselines.
    ``executor``: ``local`` (tools concurrently in this process) or ``ray`` (one Ray task per
    tool, on the cluster at ``ray_address`` or a local instance). ``recompute``: with
    ``resume``, redo every tool from the run's log (logged calls are free). One process at a
    time works on a run (a second one is refused, naming the first one's pid). ``prepare``:
    for a new run, called with its store once it is created, before any LLM call (``p2p
    refresh`` stores there the results it reuses and the facts play starts from).
    ``reuse_calls``: earlier runs (ids or folders) whose logged samples of the same models
    (id and fingerprint) seed this run's call log before it starts, so an identical request
    is answered from it (:mod:`play2prompt.store.reuse`). Returns the published result
    (scrubbed, as written to ``result.json``).

    :func:`optimize_async` run to completion (:func:`play2prompt.aio.run_sync`: called where
    an event loop is running, it waits for a worker thread; there, ``await optimize_async``)."""
    async def on_its_own_loop() -> RunResult:
        _OWN_LOOP.set(True)
        return await optimize_async(
            tools, generator=generator, task_model=task_model, doc_generator=doc_generator,
            config=config, runs_dir=runs_dir, run_id=run_id, resume=resume, label=label,
            base_dir=base_dir, metaprompts_dir=metaprompts_dir, reporter=reporter,
            exec_ctx=exec_ctx, executor=executor, ray_address=ray_address,
            recompute=recompute, method=method, prepare=prepare, reuse_calls=reuse_calls)

    return run_sync(on_its_own_loop())


def _check_tools_start(run: Opened, ctx: ExecContext) -> None:
    """Before the first LLM call: every tool still to optimize can start (its command, module,
    server or database: :mod:`play2prompt.tools.preflight`), else the run fails on one line.
    ``ctx`` is the run's own: what the check starts (an MCP server) the run reuses."""
    todo = [t for t in run.tools if run.store.get_result(t.name) is None]
    try:
        check_tools_start(todo, ctx)
    except UserError as exc:
        run_id = run.store.get_meta(Meta.RUN_ID)
        run.store.set_meta(Meta.STATUS, Status.FAILED)
        run.store.set_meta(Meta.ERROR, str(exc)[:1000])
        raise UserError(f"{exc} (run {run_id!r} is saved: once fixed, continue it with "
                        f"--resume {run_id})") from None


def _prepare(store: RunStore, prepare: Callable[[RunStore], None]) -> None:
    try:
        prepare(store)
    except BaseException as exc:
        store.set_meta(Meta.STATUS, Status.FAILED)
        store.set_meta(Meta.ERROR, f"{type(exc).__name__}: {exc}"[:1000])
        raise


async def _optimize(run: Opened, metaprompts_dir: str | Path | None,
                    reporter: Reporter | None, exec_ctx: ExecContext | None, executor: str,
                    ray_address: str | None, recompute: bool) -> RunResult:
    store, config, tools, base_dir = run.store, run.config, run.tools, run.base_dir
    if recompute:
        store.clear_results()
        store.set_meta(Meta.SET_CHECK, None)
    store.set_meta(Meta.STATUS, Status.RUNNING)
    engine = build_engine(tools, store, config, generator=run.gen, task_model=run.task,
                          doc_generator=run.docgen, metaprompts_dir=metaprompts_dir,
                          reporter=reporter, base_dir=base_dir, exec_ctx=exec_ctx)
    try:   # one execution context: the tools' start check and the run share what it starts
        await _off_loop(_check_tools_start, run, engine.runtime.ctx)
        await _off_loop(engine.runtime.preflight)   # the MCP servers' annotations now
        engine.calibration = await run_calibration(store, config, run.gen, metaprompts_dir)
        start = time.perf_counter()
        launch = Launch(run.models, run.pool.max_concurrency, metaprompts_dir, base_dir,
                        ray_address)
        try:
            results, workers = await run_tools(executor, tools, engine, launch)
            results = await finish_run(results, engine)
        except BaseException as exc:
            store.set_meta(Meta.STATUS, Status.FAILED)
            store.set_meta(Meta.ERROR, f"{type(exc).__name__}: {exc}"[:1000])
            raise
    finally:
        engine.runtime.close()
    wall = time.perf_counter() - start
    if not workers:   # (a worker's hits are not marked here: keep what it may have used)
        store.prune_unused_seeds()
    stats = run_stats(store, run.pool, wall, engine.runtime, workers)
    store.set_meta(Meta.STATUS, Status.DONE)
    store.set_meta(Meta.LAST_STATS, stats)
    store.add_session(stats)
    result = RunResult(store.get_meta(Meta.RUN_ID), store.run_dir, results, config.to_dict(), stats)
    return result.write(engine.scrubber)


async def run_calibration(store: RunStore, config: OptimizeConfig, generator: LM,
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
        found = await calibrate(generator.tagged("calibration"), prompts)
        save_calibration(key, found.to_dict())
    store.set_meta(Meta.CALIBRATION, found.to_dict())
    return found


async def run_tools(executor: str, tools: Sequence[Tool], engine: Engine,
                    launch: Launch) -> tuple[dict[str, ToolResult], WorkerStats]:
    """The tools through the runner named ``executor``: ``local`` awaits them in this event
    loop (:func:`~play2prompt.runners.optimize_tools`; ``run_local`` is its synchronous
    form). Another runner (``ray``) is synchronous, waiting on the cluster: under
    :func:`optimize` it runs right here (the loop is the run's own, and Ray's driver keeps the
    main thread and its signal handlers), under a caller's loop in a worker thread."""
    chosen = runner(executor)
    if executor == "local":
        return await optimize_tools(tools, engine), []
    return await _off_loop(chosen, tools, engine, launch)


async def _off_loop(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, synchronous and slow: right here on the run's own loop
    (:func:`optimize`: nothing else runs there), in a worker thread under a caller's loop."""
    if _OWN_LOOP.get():
        return function(*args)
    return await asyncio.to_thread(function, *args)


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
    checked = store.get_meta(Meta.SET_CHECK)
    if checked is not None:
        stats["set_check"] = checked
    reused = reuse_of(store)
    if reused is not None:
        stats["reused_calls"] = reused.to_dict()
    speed = {lm.model_id: found for lm in pool.all() if (found := lm_speed(lm)) is not None}
    if speed:
        stats["speed"] = speed
    if workers:
        stats["workers"] = list(workers)
    return stats
