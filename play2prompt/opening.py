"""Opening a run for :func:`play2prompt.optimize.optimize`: a new one (its models built first,
then its folder created and what a resume needs recorded) or a resumed one (the tools, config,
model specs and folder it recorded), locked for this process either way. A resumed run executes
tools that may change things only with the resuming command's consent
(``config.allow_side_effects``): the consent it was started with is never reused
(:func:`recorded_consent` reads it, for a hint).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig, preset
from play2prompt.engine import resolve_models
from play2prompt.errors import UserError
from play2prompt.lm._base import LM
from play2prompt.lm.registry import LMPool
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.lock import RunLock
from play2prompt.store.meta import EVAL_KIND, Meta
from play2prompt.store.runs import (
    check_run_id,
    create_run,
    default_runs_dir,
    new_run_id,
    resolve_run,
    unfinished_hint,
)
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.model import Tool
from play2prompt.tools.transform import drop_param_descriptions


@dataclass
class Opened:
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
    return resolve_models(pool, {"generator": generator, "task_model": task_model,
                                 "doc_generator": doc_generator})


def open_optimization(tools: Sequence[Tool] | None, generator: str | LM,
                      task_model: str | LM | None, doc_generator: str | LM | None,
                      config: OptimizeConfig | None, runs_dir: Path | None, run_id: str | None,
                      resume: str | None, label: str, base_dir: Path | None) -> Opened:
    """Lock and open the resumed run; or build the models and only then create the new run's
    folder (a bad model spec leaves nothing behind)."""
    if resume:
        run_dir = resolve_run(resume, runs_dir)
        lock = RunLock.acquire(run_dir)
        try:
            store = RunStore(run_dir / DB_NAME)
            limits = config.max_concurrency if config is not None else None
            consent = tuple(config.allow_side_effects) if config is not None else ()
            tools, config, generator, task_model, base_dir = _resumed(store, generator,
                                                                      task_model, base_dir)
            if limits is not None:  # how hard to push the backends may change between sessions
                config = replace(config, max_concurrency=limits)
            # consent belongs to the command that executes: never the one the run started with
            config = replace(config, allow_side_effects=consent)
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
    return Opened(store, lock, list(tools), config, pool, gen, task, docgen, models, base_dir)


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


def recorded_consent(resume: str, runs_dir: Path | None) -> tuple[list[Tool], tuple[str, ...]]:
    """The tools of run ``resume`` and the consent it was started with (read only: shown as a
    hint where a resumed run refuses a tool, never applied)."""
    store = RunStore(resolve_run(resume, runs_dir) / DB_NAME, read_only=True)
    try:
        meta = store.run_meta()
        if meta.kind == EVAL_KIND or not (meta.config and meta.tools):
            return [], ()
        return (parse_tools(meta.tools, source=f"run {meta.run_id}"),
                tuple(meta.config.get("allow_side_effects") or ()))
    finally:
        store.close()


def check_resumed_inputs(resume: str, runs_dir: Path | None, tools: Sequence[Tool] | None,
                         source: str, preset_name: str | None,
                         overrides: dict[str, Any]) -> None:
    """One line when what is given with ``--resume`` differs from what run ``resume`` was
    started with (a resumed run keeps its tools and settings): a tools file (``source``)
    that lacks one of the run's tools or runs it otherwise, a preset or setting flag that
    would change a setting. Nothing to compare (no such run, not an optimization run):
    the run's own line comes when it is opened."""
    from play2prompt.config import resumed_difference

    store = RunStore(resolve_run(resume, runs_dir) / DB_NAME, read_only=True)
    try:
        meta = store.run_meta()
    finally:
        store.close()
    if meta.kind == EVAL_KIND or not (meta.config and meta.tools):
        return
    if tools is not None:
        given = {t.name: t for t in tools}
        for tool in parse_tools(meta.tools, source=f"run {meta.run_id}"):
            other = given.get(tool.name)
            why = "is not in it" if other is None else "runs another executor" if \
                dict(other.executor or {}) != dict(tool.executor or {}) else \
                "takes other parameters" if set(other.properties) != set(tool.properties) \
                else None
            if why:
                raise UserError(f"{source}: not the tools run {meta.run_id} was started with "
                                f"(tool {tool.name!r} {why}); a resumed run keeps its tools: "
                                "resume without a tools file, or with the run's own")
    changed = resumed_difference(OptimizeConfig.from_dict(meta.config), preset_name, overrides)
    if changed:
        raise UserError(f"run {meta.run_id} was started with other settings ({changed}); a "
                        "resumed run keeps its settings: leave out --preset and the setting "
                        "flags, or start a new run")
