"""One evaluation session for every benchmark, and the library entry point for suites.

:class:`EvalSession` is the frame every evaluation runs in (a suite of single-turn items,
Spider's backup-plan episodes, StableToolBench's ReAct queries): its run store, in a folder
created, named or resumed, with the evaluation's metadata and status; one model pool logging
to it (a model named twice is built once); the execution contexts it hands out. Items already
done are read back from its store instead of redone (``RunStore.get_eval_item`` with the
fingerprint of what produced the record).

:func:`run_evaluation` (``await evaluate_async`` in an event loop) evaluates a suite baseline
vs optimized. The evaluation's folder (``runs/eval-<suite>-<hash>/`` unless ``out_dir`` is
given) holds its run store (``run.db``: every LLM call, every tool execution, every item's
record) and its outputs. The hash covers everything that changes an item's answer (task
model, mode, temperature, seed, prompts, variant, demos, dropout), so running the same command
again resumes a killed evaluation and a larger ``limit`` reuses the items already done. When
every item is skipped (each ground truth failed or was refused) the outputs are written and the
evaluation fails on one line (:func:`check_evaluated`): nothing was evaluated. An evaluation
of a run's prompts is recorded in that run (:mod:`~play2prompt.evaluation.attached`), so the
run's report finds it wherever its folder is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from play2prompt.aio import run_sync
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalSuite, sides_for
from play2prompt.evaluation.opaque import opaque_sides
from play2prompt.evaluation.runner import EvalResult, EvalSettings, Evaluator
from play2prompt.jsonutil import stable_hash
from play2prompt.lm._base import LM
from play2prompt.lm.registry import LMPool
from play2prompt.lm.speed import lm_speed
from play2prompt.progress import Reporter
from play2prompt.scrub import for_tools
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.meta import EVAL_KIND, Meta, Status
from play2prompt.store.reuse import resolve_sources, reuse_of, seed_run
from play2prompt.store.runs import create_run, default_runs_dir, open_run
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Tool


class EvalSession:
    """The store, models, execution contexts and stored items of one evaluation (see the
    module docstring). A context manager: the status is ``done`` after a clean exit,
    ``failed`` after an exception, and everything is closed."""

    def __init__(self, store: RunStore, max_concurrency: int | None = None) -> None:
        self.store = store
        self.pool = LMPool(log=store, **({"max_concurrency": max_concurrency}
                                         if max_concurrency else {}))
        self._contexts: list[ExecContext] = []

    @classmethod
    def at(cls, folder: Path, db_name: str = DB_NAME, **options: Any) -> EvalSession:
        """The evaluation in ``folder`` (created, or resumed when it exists)."""
        store = RunStore(Path(folder) / db_name)
        if store.get_meta(Meta.CREATED) is None:
            import datetime as _dt

            store.set_meta(Meta.RUN_ID, Path(folder).name)
            store.set_meta(Meta.CREATED, _dt.datetime.now().isoformat(timespec="seconds"))
        return cls(store, **options)

    @classmethod
    def open(cls, runs_dir: Path | None, label: str, *, resume: str | None = None,
             run_id: str | None = None, **options: Any) -> EvalSession:
        """A new run folder under ``runs_dir`` (``resume``: an existing one, by id or path)."""
        store = open_run(resume, runs_dir) if resume else create_run(runs_dir, label, run_id)
        return cls(store, **options)

    @property
    def run_dir(self) -> Path:
        return self.store.run_dir

    def start(self, config: dict[str, Any], key: str = Meta.CONFIG) -> None:
        """Record what is evaluated (under ``key``) and that it runs."""
        self.store.set_meta(Meta.KIND, EVAL_KIND)
        self.store.set_meta(key, config)
        self.store.set_meta(Meta.STATUS, Status.RUNNING)

    def model(self, spec: str | LM) -> LM:
        """The model named by ``spec`` (or this LM object), logging to the store."""
        return self.pool.add(spec.model_id, spec) if isinstance(spec, LM) else self.pool.get(spec)

    def context(self, base_dir: Path | None = None, lm: LM | None = None,
                timeout: float = 10.0, allow_side_effects: Sequence[str] = ()) -> ExecContext:
        """An execution context logging to the store (closed with the session); a tool that
        may change things runs only when ``allow_side_effects`` names it (or ``all``)."""
        ctx = ExecContext(base_dir=base_dir or Path.cwd(), lm=lm, store=self.store,
                          default_timeout=timeout,
                          allow_side_effects=tuple(allow_side_effects))
        self._contexts.append(ctx)
        return ctx

    def reuse(self, task: LM, refs: Sequence[str], runs_dir: Path | None) -> None:
        """Record the task model's fingerprint and seed the log with the identical calls of
        the earlier runs or evaluations ``refs`` (:mod:`play2prompt.store.reuse`)."""
        seed_run(self.store, [task], resolve_sources(refs, runs_dir))

    def reused(self) -> dict[str, Any]:
        """After the evaluation: what it reused (``{}``: nothing seeded); the seeded samples
        it never asked for are dropped, so its log holds what it asked for."""
        found = reuse_of(self.store)
        if found is None:
            return {}
        self.store.prune_unused_seeds()
        return {"reused_calls": found.to_dict()}

    def close(self) -> None:
        for ctx in self._contexts:
            ctx.close()
        self.pool.close()
        self.store.close()

    def __enter__(self) -> EvalSession:
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        try:
            self.store.set_meta(Meta.STATUS, Status.DONE if exc is None else Status.FAILED)
        finally:
            self.close()


@dataclass(frozen=True)
class EvalOptions:
    task_model: str = "embedded"
    prompts: str | Path | None = None     # a finished optimization run (id or folder)
    variant: str = "full"
    demos: int = 5
    drop_param_desc: float = 0.0
    limit: int | None = None              # first N items of each category
    tool_timeout: float = 10.0
    max_concurrency: int | None = None
    oracle: str | Path | None = None      # a tools file with correct docs: the yardstick side
    allow_side_effects: tuple[str, ...] = ()  # tools executed although not read-only
    reuse_calls: tuple[str, ...] = ()     # earlier runs/evaluations whose identical calls reuse


def limit_items(suite: EvalSuite, limit: int | None) -> EvalSuite:
    if limit is None:
        return suite
    counts: dict[str, int] = {}
    kept = []
    for item in suite.items:
        counts[item.category] = counts.get(item.category, 0) + 1
        if counts[item.category] <= limit:
            kept.append(item)
    return replace(suite, items=kept)


def eval_config(suite: EvalSuite, options: EvalOptions, settings: EvalSettings,
                model_id: str, run: Any, oracle: Sequence[Tool] = ()) -> dict[str, Any]:
    config = {
        "suite": suite.name, "task_model": model_id, "mode": settings.mode,
        "temperature": settings.temperature, "seed": settings.seed,
        "max_tokens": settings.max_tokens,
        "prompts": str(run.run_id) if run is not None else None,
        "variant": options.variant if run is not None else "baseline",
        "demos": options.demos, "drop_param_desc": options.drop_param_desc,
    }
    if options.allow_side_effects:
        config["allow_side_effects"] = sorted(options.allow_side_effects)
    if suite.opaque:
        config["opaque"] = suite.opaque
    if oracle:
        config["oracle"] = {"file": str(options.oracle),
                            "docs": stable_hash([t.doc.to_dict() for t in oracle])}
    return config


def load_oracle(path: str | Path, suite: EvalSuite) -> list[Tool]:
    """The oracle docs: a tools file with the same tools as the suite and correct docs (only
    the docs are used, so its tools need no executors). A tool the suite does not evaluate is
    an error, unless the suite takes a benchmark-wide oracle file; then it is ignored."""
    from play2prompt.tools.loading import load_tools

    tools = load_tools(Path(path), check_executors=False)
    known = set(suite.tools) | {s.name for item in suite.items for s in item.specs} | set(
        suite.shown_names)
    unknown = sorted(t.name for t in tools if t.name not in known)
    if suite.oracle_covers_benchmark:
        if len(unknown) == len(tools):
            raise UserError(f"{path}: documents none of the evaluated tools")
    elif unknown:
        raise UserError(f"{path}: tool(s) not in the evaluated tools: {', '.join(unknown)}")
    return tools


def run_evaluation(suite: EvalSuite, options: EvalOptions | None = None,
                   settings: EvalSettings | None = None, *, lm: LM | None = None,
                   runs_dir: Path | None = None, out_dir: Path | None = None,
                   reporter: Reporter | None = None) -> tuple[EvalResult, Path]:
    """Evaluate ``suite`` and write the outputs; returns the result and the output folder.
    :func:`evaluate_async` run to completion (in an event loop, ``await`` that instead)."""
    return run_sync(evaluate_async(suite, options, settings, lm=lm, runs_dir=runs_dir,
                                   out_dir=out_dir, reporter=reporter))


async def evaluate_async(suite: EvalSuite, options: EvalOptions | None = None,
                         settings: EvalSettings | None = None, *, lm: LM | None = None,
                         runs_dir: Path | None = None, out_dir: Path | None = None,
                         reporter: Reporter | None = None) -> tuple[EvalResult, Path]:
    """:func:`run_evaluation`, awaitable: the items are evaluated in the caller's event loop
    (a Jupyter cell, an ``async def`` web handler)."""
    from play2prompt.evaluation.report import summary_for_store, write_outputs
    from play2prompt.results import load_run_result

    options = options or EvalOptions()
    settings = settings or EvalSettings()
    run = load_run_result(options.prompts, runs_dir) if options.prompts else None
    oracle = load_oracle(options.oracle, suite) if options.oracle else []
    suite = limit_items(suite, options.limit)
    model_id = lm.model_id if lm is not None else options.task_model
    config = eval_config(suite, options, settings, model_id, run, oracle)
    if out_dir is None:
        out_dir = Path(runs_dir or default_runs_dir()) / (
            f"eval-{suite.name}-{stable_hash(config, length=8)}")
    sides = sides_for(options.variant, run, options.demos, options.drop_param_desc,
                      settings.seed, oracle)
    if suite.shown_names:   # opaque: what the sides give, under the names the suite shows
        sides = opaque_sides(sides, run, suite, oracle)
    with EvalSession.at(Path(out_dir), max_concurrency=options.max_concurrency) as session:
        session.start(config)
        task = session.model(lm if lm is not None else options.task_model)
        session.reuse(task, options.reuse_calls, runs_dir)
        ctx = session.context(suite.base_dir, task, options.tool_timeout,
                              options.allow_side_effects)
        ctx.scrubber = ctx.scrubber.merged(for_tools(suite.tools.values()))  # what it prints
        evaluator = Evaluator(suite, task, session.store, settings, ctx, reporter)
        start = time.perf_counter()
        result = await evaluator.run(sides)
        speed = lm_speed(task)
        session.store.set_meta(Meta.LAST_STATS, {
            "wall_s": round(time.perf_counter() - start, 2),
            **({"speed": {task.model_id: speed}} if speed else {}), **session.reused()})
        result.config = config
        summary = summary_for_store(result)
        for side in result.sides:
            session.store.put_eval(f"{suite.name}:{side.side.name}", suite.name, config,
                                   summary)
        write_outputs(result, Path(out_dir), suite.notes, ctx.scrubber)
        check_evaluated(result, Path(out_dir))
    if run is not None:
        attach_to_run(run.run_dir, Path(out_dir), suite.name)
    return result, Path(out_dir)


def attach_to_run(run_dir: Path, out_dir: Path, suite: str) -> None:
    """Record the evaluation folder in the run whose prompts it evaluated (``p2p report``
    finds it there, wherever ``-o`` put it); a run folder that cannot be written to is
    warned about, the evaluation stands."""
    import logging

    from play2prompt.evaluation.attached import record_evaluation

    try:
        record_evaluation(run_dir, out_dir, suite)
    except OSError as exc:
        logging.getLogger("play2prompt.evaluation").warning(
            "%s: not recorded in the run (%s); p2p report %s --eval %s shows it",
            out_dir, exc, run_dir, out_dir)



def check_evaluated(result: EvalResult, out_dir: Path) -> None:
    """One line (exit status 2) when every item was skipped: nothing was evaluated. The
    reasons, scrubbed, are in the folder's summary.md."""
    if result.skipped and not any(side.records for side in result.sides):
        raise UserError(f"nothing to evaluate: all {len(result.skipped)} item(s) were skipped "
                        f"(first: {result.skipped[0].reason}; all: {out_dir}/summary.md)")


@dataclass(frozen=True)
class SuiteRequest:
    """``p2p eval`` of a suite (a benchmark's or the user's queries): what to run, checked
    by :meth:`check`; the CLI runs it with progress bars and prints its tables."""

    suite: EvalSuite
    task_model: str = "embedded"
    mode: str = "function-calling"
    prompts: str | None = None
    demos: int = 5
    variant: str = "full"
    drop_param_desc: float = 0.0
    seed: int = 0
    limit: int | None = None
    temperature: float = 0.0
    out: Path | None = None
    runs_dir: Path = Path("runs")
    quiet: bool = False
    max_concurrency: int | None = None
    oracle: Path | None = None        # a tools file with correct docs: the yardstick side
    allow_side_effects: tuple[str, ...] = ()  # tools executed although not read-only
    reuse_calls: tuple[str, ...] = ()  # earlier runs/evaluations (same model) to reuse from

    def check(self) -> None:
        """One clear line for a bad option."""
        from play2prompt import limits
        from play2prompt.agent.prompt import MODES
        from play2prompt.errors import UserError
        from play2prompt.evaluation.items import side_for

        if self.mode not in MODES:
            raise UserError(f"--mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        side_for(self.variant)
        limits.SHARE.check(self.drop_param_desc, "--drop-param-desc")
        limits.DEMOS.check(self.demos, "--demos")
        limits.TEMPERATURE.check(self.temperature, "--temperature")
        limits.SEED.check(self.seed, "--seed")
        if self.limit is not None:
            limits.QUERY_LIMIT.check(self.limit, "--limit")
        if self.max_concurrency is not None:
            limits.MAX_CONCURRENCY.check(self.max_concurrency, "--max-concurrency")

    def run(self, reporter: Reporter | None = None) -> tuple[EvalResult, Path]:
        options = EvalOptions(task_model=self.task_model, prompts=self.prompts,
                              variant=self.variant, demos=self.demos,
                              drop_param_desc=self.drop_param_desc, limit=self.limit,
                              max_concurrency=self.max_concurrency, oracle=self.oracle,
                              allow_side_effects=self.allow_side_effects,
                              reuse_calls=self.reuse_calls)
        settings = EvalSettings(mode=self.mode, temperature=self.temperature, seed=self.seed)
        return run_evaluation(self.suite, options, settings, runs_dir=self.runs_dir,
                              out_dir=self.out, reporter=reporter)
