"""Tools spread over a Ray cluster: ``p2p optimize --executor ray [--ray-address ADDR]``.

Ray is an optional extra (``play2prompt[ray]``), imported only when this executor is chosen.
Each tool's optimization (Step 1 and Step 2) is one Ray task. A task builds its own models from
the run's specs (or gets a pickled copy of the LM objects the caller passed), its own tool
runtime and its own run store, ``runs/<id>/workers/<tool>.db`` (a temporary folder when the run
folder is not reachable from the worker's machine), seeded with what the run store already holds
for that tool. It returns the tool's result together with every row it logged (LLM calls, tool
executions, candidates) and the driver merges them into the one run store, so the run folder
looks the same as after a single-process run.

A lost worker (node failure, killed process) is retried by Ray (``max_retries``); the retry
replays the calls the lost attempt logged in its worker store when the run folder is shared,
and a resumed run (``--resume``) seeds every task with the tool's rows from the run store, so
reruns are cheap. A task that fails with an error still returns the rows it logged.

Each task takes one CPU of its node (Ray's default); an embedded model inside a task runs with
that many threads, so tasks sharing a node do not oversubscribe it.

Requirements on the cluster: play2prompt (and the tools' Python modules, at ``base_dir``)
importable on every node; the model endpoints reachable from the nodes. Of a caller's
execution context, the base folder, the timeout and a simulator LM travel to the workers;
other shared resources are recreated there by the executors that need them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.engine import (
    Engine,
    build_engine,
    lm_session_stats,
    resolve_model,
    resolve_models,
)
from play2prompt.errors import UserError, require
from play2prompt.lm._base import LM
from play2prompt.lm.registry import Concurrency, LMPool
from play2prompt.method.calibration import Calibration
from play2prompt.method.siblings import siblings_of
from play2prompt.optimizers import load_optimizer
from play2prompt.progress import Reporter
from play2prompt.results import ToolResult
from play2prompt.runners import Launch, WorkerStats, collect_results
from play2prompt.store.db import RunStore
from play2prompt.store.meta import Meta
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Tool

WORKERS_DIR = "workers"
MAX_RETRIES = 3  # Ray retries of a task whose worker died


@dataclass(frozen=True)
class ToolJob:
    """Everything a worker needs to optimize one tool (picklable)."""

    config: dict[str, Any]
    models: dict[str, str | LM | None]      # generator / task_model / doc_generator
    max_concurrency: Concurrency
    base_dir: str
    run_dir: str
    tool_timeout: float
    metaprompts_dir: str | None = None
    exec_base_dir: str | None = None        # where the tools' executors resolve paths
    exec_lm: LM | None = None               # a simulator LM of the caller's ExecContext
    tool: dict[str, Any] = field(default_factory=dict)
    seed_rows: dict[str, Any] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None  # the run's measured judges (see calibration)
    # the tool-set context (config.siblings): the other tools the task model sees beside the
    # tool, chosen on the driver from all the run's tools (the worker's runtime has these only)
    siblings: tuple[dict[str, Any], ...] = ()

    @property
    def tool_name(self) -> str:
        return str(self.tool.get("function", {}).get("name") or self.tool.get("name"))


def worker_store_path(run_dir: str | Path, tool_name: str) -> Path:
    """``runs/<id>/workers/<tool>.db``, or a temporary file when that folder is not writable
    (a node that does not share the run folder)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", tool_name)[:80] or "tool"
    folder = Path(run_dir) / WORKERS_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="p2p-worker-"))
    return folder / f"{safe}.db"


def run_tool_job(job: ToolJob) -> dict[str, Any]:
    """Run one tool's optimization here (the body of the Ray task)."""
    start = time.perf_counter()
    _threads_for_this_task()
    store = RunStore(worker_store_path(job.run_dir, job.tool_name))
    store.import_rows(job.seed_rows)
    pool = LMPool(log=store, max_concurrency=job.max_concurrency)
    gen, task, docgen = resolve_models(pool, job.models, copy_objects=True)
    tool = Tool.from_dict(job.tool)
    config = OptimizeConfig.from_dict(job.config)
    ctx = ExecContext(base_dir=Path(job.exec_base_dir or job.base_dir),
                      lm=resolve_model(pool, job.exec_lm, gen, copy_objects=True), store=store,
                      default_timeout=job.tool_timeout)
    siblings = [Tool.from_dict(s) for s in job.siblings]
    engine = build_engine([tool, *siblings], store,
                          replace(config, tool_timeout=job.tool_timeout),
                          generator=gen, task_model=task, doc_generator=docgen,
                          metaprompts_dir=job.metaprompts_dir, base_dir=Path(job.base_dir),
                          exec_ctx=ctx, calibration=Calibration.from_dict(job.calibration)
                          if job.calibration else None)
    outcome: dict[str, Any] = {"tool": tool.name}
    try:
        result = asyncio.run(load_optimizer(config.method).optimize_tool(tool, engine))
        outcome["result"] = result.to_dict()
    except UserError as exc:  # the rows logged so far still go back to the driver
        outcome["error"] = (type(exc).__name__, str(exc))
    finally:
        engine.runtime.close()
        pool.close()
    outcome["rows"] = store.export_rows()
    outcome["stats"] = {**lm_session_stats(pool.all()),
                        "tool_executions": engine.runtime.executions,
                        "tool_execution_cache_hits": engine.runtime.cache_hits,
                        "wall_s": round(time.perf_counter() - start, 2),
                        "node": socket.gethostname(), "worker_store": str(store.path)}
    store.close()
    return outcome


def _threads_for_this_task() -> None:
    """Inside a Ray task, the embedded model gets the task's CPUs, not the node's: tasks share
    a node, and llama.cpp threads that outnumber the free cores collapse."""
    if "ray" not in sys.modules or "P2P_EMBEDDED_THREADS" in os.environ:
        return
    try:
        cpus = sys.modules["ray"].get_runtime_context().get_assigned_resources().get("CPU")
    except Exception:  # noqa: BLE001 - not in a Ray worker
        return
    if cpus:
        os.environ["P2P_EMBEDDED_THREADS"] = str(max(1, int(cpus)))


def run_on_ray(tools: Sequence[Tool], engine: Engine,
               launch: Launch) -> tuple[dict[str, ToolResult], WorkerStats]:
    """The ``ray`` runner (:class:`~play2prompt.runners.ToolRunner`): one Ray task per tool,
    on the cluster at ``launch.address`` or a local instance."""
    ctx = engine.runtime.ctx
    job = ToolJob(config=engine.config.to_dict(), models=dict(launch.models),
                  max_concurrency=launch.max_concurrency,
                  base_dir=str(Path(launch.base_dir or Path.cwd()).resolve()),
                  run_dir=str(engine.store.run_dir.resolve()),
                  tool_timeout=ctx.default_timeout,
                  metaprompts_dir=str(launch.metaprompts_dir) if launch.metaprompts_dir
                  else None,
                  exec_base_dir=str(Path(ctx.base_dir).resolve()),
                  exec_lm=ctx.lm if isinstance(ctx.lm, LM) and ctx.lm is not engine.generator
                  else None, calibration=engine.calibration.to_dict())
    return optimize_tools_on_ray(list(tools), engine, job, launch.address)


def optimize_tools_on_ray(tools: list[Tool], engine: Engine, job: ToolJob,
                          address: str | None = None) -> tuple[dict[str, ToolResult],
                                                                WorkerStats]:
    """Optimize ``tools`` as Ray tasks; merge their logs into ``engine.store``.

    Returns the results by tool and each worker's statistics."""
    ray = require("ray", "ray", "--executor ray")
    store, reporter = engine.store, engine.reporter
    started = not ray.is_initialized()
    if started:
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise UserError(f"cannot start or reach the Ray cluster at "
                            f"{address or 'a local instance'}: {exc}") from exc
    try:
        remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(run_tool_job)
        outcomes: dict[str, Any] = {}
        pending: dict[Any, str] = {}
        for tool in tools:
            stored = store.get_result(tool.name)
            if stored is not None:
                outcomes[tool.name] = ToolResult.from_dict(stored)
                reporter.done(tool.name, "done (from store)")
                continue
            reporter.start(tool.name, load_optimizer(engine.config.method).tool_budget(
                engine.config))
            rows = store.export_rows(tool.name)
            shown = siblings_of(tool, engine.runtime.tools.values(), engine.config.siblings,
                                engine.config.seed, engine.config.sibling_pick)
            ref = remote.remote(replace(job, tool=tool.to_dict(), seed_rows=rows,
                                        siblings=tuple(s.to_dict() for s in shown)))
            pending[ref] = tool.name
        worker_stats = _collect(ray, pending, store, reporter, outcomes)
        results = collect_results(tools, [outcomes[t.name] for t in tools],
                                  store.get_meta(Meta.RUN_ID))
        return results, worker_stats
    finally:
        if started:
            ray.shutdown()


def _collect(ray: Any, pending: dict[Any, str], store: RunStore, reporter: Reporter,
             outcomes: dict[str, Any]) -> WorkerStats:
    """Merge each task's rows and result into the run store as the tasks finish."""
    stats = []
    while pending:
        (ref,), _ = ray.wait(list(pending), num_returns=1)
        name = pending.pop(ref)
        try:
            out = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # a bug in the task: keep its traceback
            outcomes[name] = getattr(exc, "cause", None) or exc
            reporter.done(name, "failed")
            continue
        except Exception as exc:  # noqa: BLE001 - the worker died, retries exhausted
            outcomes[name] = UserError(f"its Ray worker was lost after {MAX_RETRIES} retries: "
                                       f"{type(exc).__name__}: {str(exc)[:300]}")
            reporter.done(name, "failed (worker lost)")
            continue
        store.import_rows(out["rows"])
        stats.append(out["stats"])
        if "error" in out:
            kind, message = out["error"]
            outcomes[name] = _rebuild_error(kind, message)
            reporter.done(name, "failed")
            continue
        store.put_result(name, out["result"])
        _drop_worker_store(out["stats"]["worker_store"], store.run_dir)
        outcomes[name] = ToolResult.from_dict(out["result"])
        s = outcomes[name].stats
        reporter.done(name, f"{s.get('valid_invocations')} valid calls, {s.get('demos')} demos "
                            f"(on {out['stats']['node']})")
    return stats


def _drop_worker_store(path: str, run_dir: Path) -> None:
    """A finished tool's worker store is merged: remove it (when it is in this run folder)."""
    db = Path(path)
    if db.parent.resolve() != (Path(run_dir) / WORKERS_DIR).resolve():
        return
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # the last one out removes the folder
        db.parent.rmdir()


def _rebuild_error(kind: str, message: str) -> UserError:
    from play2prompt import errors

    cls = getattr(errors, kind, UserError)
    return cls(message) if isinstance(cls, type) and issubclass(cls, UserError) else \
        UserError(message)
