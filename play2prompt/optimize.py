"""The library entry point: ``optimize()`` runs Step 1 and Step 2 for every tool.

Tools are optimized concurrently (the LMs bound the requests in flight). Every LLM call, tool
execution and candidate goes to the run store; a tool whose result is stored is not redone, and
a resumed run replays its logged calls for free, so a killed run picks up where it stopped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig, preset
from play2prompt.errors import LMError, UserError
from play2prompt.lm._base import LM
from play2prompt.lm.registry import LMPool
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.doc_search import search_doc
from play2prompt.method.example_search import distinct_examples, search_examples, select_demos
from play2prompt.method.task_prompt import TaskPrompter
from play2prompt.progress import NullReporter, Reporter
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from play2prompt.store.runs import create_run, open_run
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.model import Tool
from play2prompt.tools.runtime import ToolRuntime
from play2prompt.tools.transform import drop_param_descriptions


@dataclass
class Engine:
    """Everything the steps need, passed explicitly."""

    generator: Any
    task_model: Any
    doc_generator: Any
    runtime: ToolRuntime
    store: RunStore
    config: OptimizeConfig
    prompts: MetaPrompts
    prompter: TaskPrompter
    reporter: Reporter
    llm_grading: bool

    def for_tool(self, name: str) -> Engine:
        """A view whose LM calls are tagged with the tool's name (per-tool accounting)."""
        return replace(self, generator=_tag(self.generator, name),
                       task_model=_tag(self.task_model, name),
                       doc_generator=_tag(self.doc_generator, name))


def _tag(lm: Any, name: str) -> Any:
    inner = getattr(lm, "inner", lm)
    return inner.tagged(name)


def auto_setting(setting: bool | None, default: bool) -> bool:
    return default if setting is None else setting


def tool_budget(config: OptimizeConfig) -> int:
    return config.examples.budget() + config.docs.budget()


async def optimize_tool(tool: Tool, engine: Engine) -> ToolResult:
    stored = engine.store.get_result(tool.name)
    if stored is not None:
        engine.reporter.done(tool.name, "done (from store)")
        return ToolResult.from_dict(stored)
    eng = engine.for_tool(tool.name)
    cfg = eng.config
    eng.reporter.start(tool.name, tool_budget(cfg))
    search, space = await search_examples(tool, eng)
    history = search.history
    demos = select_demos(history, cfg.demos_per_tool)
    examples = sorted(distinct_examples(history), key=lambda e: not e.verified)
    errors = [e for p in space.plays for e in p.errors()]
    doc_stopped = False
    if cfg.optimize_docs:
        outcome = await search_doc(tool, eng, examples, errors)
        doc, changed, reason, scores = outcome.doc, outcome.changed, outcome.reason, outcome.scores
        doc_curve, doc_stopped = list(outcome.best_per_iteration), outcome.stopped_early
    else:
        doc, changed, reason, scores, doc_curve = tool.doc, False, "doc search off", {}, []
    attempts = [a for p in space.plays for a in p.attempts]
    tag_stats = eng.store.samples_by_tag().get(tool.name, {})
    stats = {
        "play_attempts": len(attempts),
        "valid_invocations": sum(1 for p in space.plays if p.ok),
        "invocation_success_rate": (sum(1 for a in attempts if a.verdict == 0) / len(attempts)
                                    if attempts else 0.0),
        "examples": len(history),
        "verified_examples": sum(1 for n in history if n.item.verified),
        "demos": len(demos),
        "verified_demos": sum(1 for d in demos if d.verified),
        "best_reward": search.best.reward if search.best else None,
        "best_reward_per_iteration": search.best_reward_per_iteration(),
        "doc_score_per_iteration": doc_curve,
        "stopped_early": {"examples": search.stopped_early, "docs": doc_stopped},
        "repeated_calls_avoided": {
            "explored": sum(1 for a in attempts if a.observation.error_type == "duplicate"),
            "siblings": space.sibling_duplicates},
        "llm_samples": tag_stats.get("samples", 0),
        "prompt_tokens": tag_stats.get("prompt_tokens", 0),
        "completion_tokens": tag_stats.get("completion_tokens", 0),
    }
    result = ToolResult(tool.name, tool, doc, tuple(d.demo() for d in demos), changed, reason,
                        dict(scores), stats)
    eng.store.put_result(tool.name, result.to_dict())
    eng.reporter.done(tool.name, f"{stats['valid_invocations']} valid calls, {len(demos)} demos")
    return result


async def optimize_tools(tools: Sequence[Tool], engine: Engine) -> dict[str, ToolResult]:
    """Optimize the tools concurrently. A tool that fails does not stop the others (their work
    is stored); the first failure is raised once all are finished."""
    outcomes = await asyncio.gather(*(optimize_tool(t, engine) for t in tools),
                                    return_exceptions=True)
    return collect_results(tools, outcomes, engine.store.get_meta("run_id"))


def collect_results(tools: Sequence[Tool], outcomes: Sequence[Any],
                    run_id: str | None) -> dict[str, ToolResult]:
    """The results by tool name, or the first failure, naming the tool and how to go on."""
    failed = [(t.name, o) for t, o in zip(tools, outcomes) if isinstance(o, BaseException)]
    for _, exc in failed:
        if not isinstance(exc, Exception):  # an interrupt: pass it on as it is
            raise exc
    if failed:
        name, exc = failed[0]
        if not isinstance(exc, UserError):
            raise exc  # a bug: keep its traceback
        done = len(tools) - len(failed)
        message = (f"tool {name!r}: {exc} ({len(failed)} of {len(tools)} tools failed, {done} "
                   f"stored; continue with --resume {run_id})")
        raise (LMError if isinstance(exc, LMError) else UserError)(message) from exc
    return {r.name: r for r in outcomes}


def build_engine(tools: Sequence[Tool], store: RunStore, config: OptimizeConfig, *,
                 generator: LM, task_model: LM, doc_generator: LM | None = None,
                 metaprompts_dir: str | Path | None = None, reporter: Reporter | None = None,
                 base_dir: Path | None = None, exec_ctx: ExecContext | None = None) -> Engine:
    ctx = exec_ctx or ExecContext(base_dir=base_dir or Path.cwd(), lm=generator, store=store,
                                  default_timeout=config.tool_timeout)
    runtime = ToolRuntime(tools, ctx, store)
    prompts = MetaPrompts(metaprompts_dir)
    return Engine(generator, task_model, doc_generator or generator, runtime, store, config,
                  prompts, TaskPrompter(prompts, config.task_mode), reporter or NullReporter(),
                  auto_setting(config.llm_grading, generator.can_judge))


def _open_store(tools: Sequence[Tool] | None, generator: str | LM, task_model: str | LM | None,
                config: OptimizeConfig | None, runs_dir: Path | None, run_id: str | None,
                resume: str | None, label: str, base_dir: Path | None) -> tuple:
    """A new run's store, or the resumed run's store with what it recorded at its start."""
    if resume:
        store = open_run(resume, runs_dir)
        limits = config.max_concurrency if config is not None else None
        tools, config, generator, task_model, base_dir = _resumed(store, generator, task_model,
                                                                  base_dir)
        if limits is not None:  # how hard to push the backends may change between sessions
            config = replace(config, max_concurrency=limits)
        return store, tools, config, generator, task_model, base_dir
    if not tools:
        raise ValueError("optimize() needs tools or resume=")
    config = config or preset("default")
    store = create_run(runs_dir, label, run_id)
    tools = drop_param_descriptions(tools, config.drop_param_desc, config.seed)
    return store, tools, config, generator, task_model, base_dir


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
) -> RunResult:
    """Optimize ``tools`` (or resume run ``resume``) and write ``runs/<run-id>/``.

    ``executor``: ``local`` (tools concurrently in this process) or ``ray`` (one Ray task per
    tool, on the cluster at ``ray_address`` or a local instance). ``recompute``: with
    ``resume``, redo every tool from the run's log (logged calls are free)."""
    store, tools, config, generator, task_model, base_dir = _open_store(
        tools, generator, task_model, config, runs_dir, run_id, resume, label, base_dir)
    if recompute:
        store.clear_results()
    pool = LMPool(log=store, max_concurrency=config.max_concurrency)
    gen = pool.add(generator.model_id, generator) if isinstance(generator, LM) else pool.get(
        generator)
    task = _resolve(pool, task_model, gen)
    docgen = _resolve(pool, doc_generator, gen)
    if not resume:
        _record_start(store, config, tools, generator, task_model, gen, task, base_dir)
    store.set_meta("status", "running")
    engine = build_engine(tools, store, config, generator=gen, task_model=task,
                          doc_generator=docgen, metaprompts_dir=metaprompts_dir,
                          reporter=reporter, base_dir=base_dir, exec_ctx=exec_ctx)
    start = time.perf_counter()
    models = {"generator": generator, "task_model": task_model, "doc_generator": doc_generator}
    try:
        results, workers = _run_tools(tools, engine, executor, ray_address, models, pool,
                                      metaprompts_dir, base_dir)
    except BaseException as exc:
        store.set_meta("status", "failed")
        store.set_meta("error", f"{type(exc).__name__}: {exc}"[:1000])
        raise
    finally:
        engine.runtime.close()
    wall = time.perf_counter() - start
    stats = run_stats(store, pool, wall, engine.runtime, workers)
    store.set_meta("status", "done")
    store.set_meta("last_stats", stats)
    store.add_session(stats)
    result = RunResult(store.get_meta("run_id"), store.run_dir, results, config.to_dict(), stats)
    result.write()
    pool.close()
    return result


def _record_start(store: RunStore, config: OptimizeConfig, tools: Sequence[Tool],
                  generator: str | LM, task_model: str | LM | None, gen: LM, task: LM,
                  base_dir: Path | None) -> None:
    """What a resumed run needs: config, tools, model specs, base folder."""
    store.set_meta("config", config.to_dict())
    store.set_meta("tools", {"tools": [t.to_dict() for t in tools]})
    gen_spec = generator if isinstance(generator, str) else gen.model_id
    task_spec = task_model if isinstance(task_model, str) else (
        task.model_id if task_model is not None else gen_spec)
    store.set_meta("models", {"generator": gen_spec, "task_model": task_spec})
    store.set_meta("base_dir", str(Path(base_dir or Path.cwd()).resolve()))


def _resumed(store: RunStore, generator: Any, task_model: Any, base_dir: Path | None
             ) -> tuple[list[Tool], OptimizeConfig, Any, Any, Path]:
    """What a resumed run was started with: its tools, config and model specs (live LM
    objects passed by the caller win over the recorded specs)."""
    meta = store.all_meta()
    config = OptimizeConfig.from_dict(meta["config"])
    tools = parse_tools(meta["tools"], source=f"run {meta.get('run_id')}")
    specs = meta.get("models", {})
    if isinstance(generator, str):
        generator = specs.get("generator", generator)
    if task_model is None or isinstance(task_model, str):
        task_model = specs.get("task_model", task_model)
    return tools, config, generator, task_model, Path(meta.get("base_dir") or base_dir
                                                       or Path.cwd())


def _run_tools(tools: Sequence[Tool], engine: Engine, executor: str, ray_address: str | None,
               models: dict[str, Any], pool: LMPool, metaprompts_dir: str | Path | None,
               base_dir: Path | None) -> tuple[dict[str, ToolResult], list[dict[str, Any]]]:
    """Run every tool here (asyncio) or as Ray tasks; results and the workers' stats."""
    if executor == "local":
        return asyncio.run(optimize_tools(tools, engine)), []
    if executor != "ray":
        raise UserError(f"unknown executor {executor!r} (local or ray)")
    from play2prompt.distributed import ToolJob, optimize_tools_on_ray

    ctx = engine.runtime.ctx
    job = ToolJob(config=engine.config.to_dict(), models=models,
                  max_concurrency=pool.max_concurrency,
                  base_dir=str(Path(base_dir or Path.cwd()).resolve()),
                  run_dir=str(engine.store.run_dir.resolve()),
                  tool_timeout=ctx.default_timeout,
                  metaprompts_dir=str(metaprompts_dir) if metaprompts_dir else None,
                  exec_base_dir=str(Path(ctx.base_dir).resolve()),
                  exec_lm=ctx.lm if isinstance(ctx.lm, LM) and ctx.lm is not engine.generator
                  else None)
    return optimize_tools_on_ray(list(tools), engine, job, ray_address)


def _resolve(pool: LMPool, spec: str | LM | None, default: LM) -> LM:
    if spec is None:
        return default
    if isinstance(spec, LM):
        return pool.add(spec.model_id, spec)
    return pool.get(spec)


def lm_session_stats(lms: Sequence[LM]) -> dict[str, int]:
    """What these LMs cost in this session (backend calls, tokens, cache hits)."""
    keys = ("calls", "samples", "cache_hits", "dedup_hits", "prompt_tokens",
            "completion_tokens", "cached_prompt_tokens", "failures")
    names = {"calls": "llm_calls", "samples": "llm_samples"}
    return {names.get(k, k): sum(getattr(lm.stats, k) for lm in lms) for k in keys}


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
    if workers:
        stats["workers"] = list(workers)
    return stats
