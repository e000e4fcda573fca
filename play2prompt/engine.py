"""The engine: everything Step 1 and Step 2 need, typed and passed explicitly.

One engine serves one run (or, on a Ray worker, one tool of it): the generator (G_E), the task
model (M_T) and the doc generator (G_D), the tool runtime, the run store, the settings, the
meta-prompts, the task model's prompter, a progress reporter and the trace the method's steps
tell their candidates to (:class:`StoreTrace`: into the run store). :meth:`Engine.for_tool`
gives the view one tool's optimization uses, whose LM calls are tagged with the tool's name.
The models come from the run's model specs through one resolver, :func:`resolve_models`, on the
driver (:mod:`play2prompt.opening`) and in every Ray worker (:mod:`play2prompt.distributed`).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.errors import UserError
from play2prompt.lm._base import LM, TaggedLM
from play2prompt.lm.registry import LMPool
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.calibration import Calibration
from play2prompt.method.task_prompt import TaskPrompter
from play2prompt.method.trace import NullTrace, Trace
from play2prompt.progress import NullReporter, Reporter
from play2prompt.scrub import Scrubber, for_tools
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Tool
from play2prompt.tools.runtime import ToolRuntime

Model = LM | TaggedLM  # an LM, or its view tagged with the tool being optimized


@dataclass
class Engine:
    """Everything the steps need, passed explicitly."""

    generator: Model
    task_model: Model
    doc_generator: Model
    runtime: ToolRuntime
    store: RunStore
    config: OptimizeConfig
    prompts: MetaPrompts
    prompter: TaskPrompter
    reporter: Reporter
    calibration: Calibration
    trace: Trace = field(default_factory=NullTrace)  # the steps' candidates
    uses: Counter[str] = field(default_factory=Counter)  # evidence components' calls, by name

    @property
    def llm_judge(self) -> bool:
        """m2 judges outputs (the generator judged well in the run's calibration)."""
        return self.calibration.judge

    @property
    def llm_grade(self) -> bool:
        """m5 grades requests (same)."""
        return self.calibration.grade

    @property
    def scrubber(self) -> Scrubber:
        """The run's scrubber: tool output or error text goes through ``scrubber.text(s,
        limit)`` before it enters a doc, a demo or anything else that is published."""
        return self.runtime.scrubber

    def for_tool(self, name: str, count_calls: bool = False) -> Engine:
        """A view whose LM calls are tagged with the tool's name (per-tool accounting).
        ``count_calls``: each answered LLM request advances the reporter's count of the tool
        by one (the progress of a method whose steps are its calls). The view counts the
        evidence components' calls afresh (``uses``: the tool's own)."""
        on_call = partial(self.reporter.advance, name) if count_calls else None
        return replace(self, generator=_tag(self.generator, name, on_call),
                       task_model=_tag(self.task_model, name, on_call),
                       doc_generator=_tag(self.doc_generator, name, on_call), uses=Counter())


class StoreTrace:
    """The run's trace: every candidate a step makes goes to the run store."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def candidate(self, kind: str, tool: str, id: str, *, iteration: int,
                  parent: str | None, state: str, reward: float | None,
                  payload: Mapping[str, Any]) -> None:
        self.store.put_candidate(id, tool=tool, stage=kind, iteration=iteration, parent=parent,
                                 state=state, reward=reward, payload=payload)

    def iteration_ended(self, kind: str, tool: str, iteration: int) -> None:
        return None


def _tag(lm: Model, name: str, on_call: Callable[[], None] | None = None) -> TaggedLM:
    inner = lm.inner if isinstance(lm, TaggedLM) else lm
    return inner.tagged(name, on_call)


def resolve_model(pool: LMPool, spec: str | LM | None, default: LM | None = None,
                  copy_objects: bool = False) -> LM:
    """The model for ``spec`` in ``pool``: a spec string built by the pool, an LM object added
    to it (a copy with ``copy_objects``: its own log, state and statistics, as after pickling to
    a worker), ``default`` when there is no spec."""
    if spec is None:
        if default is None:
            raise UserError("no generator model given")
        return default
    if isinstance(spec, LM):
        return pool.add(spec.model_id, copy.copy(spec) if copy_objects else spec)
    return pool.get(spec)


def resolve_models(pool: LMPool, models: Mapping[str, str | LM | None],
                   copy_objects: bool = False) -> tuple[LM, LM, LM]:
    """The generator, task model and doc generator of a run from its model specs (the one
    resolver: the driver's and every Ray worker's); the last two default to the generator."""
    gen = resolve_model(pool, models.get("generator"), None, copy_objects)
    return (gen, resolve_model(pool, models.get("task_model"), gen, copy_objects),
            resolve_model(pool, models.get("doc_generator"), gen, copy_objects))


def build_engine(tools: Sequence[Tool], store: RunStore, config: OptimizeConfig, *,
                 generator: LM, task_model: LM, doc_generator: LM | None = None,
                 metaprompts_dir: str | Path | None = None, reporter: Reporter | None = None,
                 base_dir: Path | None = None, exec_ctx: ExecContext | None = None,
                 calibration: Calibration | None = None) -> Engine:
    """The engine over ``tools``. ``calibration``: whether the generator judges outputs (m2)
    and grades requests (m5), measured at the start of a run
    (:func:`play2prompt.method.calibration.calibrate`); without one, the ``llm_grading``
    setting decides (off when unset)."""
    secrets = for_tools(tools)
    allow = tuple(config.allow_side_effects)  # play executes only what the user allowed
    if exec_ctx is None:
        ctx = ExecContext(base_dir=base_dir or Path.cwd(), lm=generator, store=store,
                          default_timeout=config.tool_timeout,
                          observation_limit=config.observation_limit, scrubber=secrets,
                          allow_side_effects=allow)
    else:
        ctx = exec_ctx
        ctx.scrubber = ctx.scrubber.merged(secrets)
        ctx.allow_side_effects = (*(ctx.allow_side_effects or ()), *allow)
    runtime = ToolRuntime(tools, ctx, store)
    prompts = MetaPrompts(metaprompts_dir)
    return Engine(generator, task_model, doc_generator or generator, runtime, store, config,
                  prompts, TaskPrompter(prompts, config.task_mode), reporter or NullReporter(),
                  calibration or Calibration.fixed(bool(config.llm_grading)), StoreTrace(store))


def lm_session_stats(lms: Sequence[LM]) -> dict[str, Any]:
    """What these LMs cost in this session (backend calls, tokens, cache hits, busy time)."""
    keys = ("calls", "samples", "cache_hits", "dedup_hits", "prompt_tokens",
            "completion_tokens", "cached_prompt_tokens", "failures")
    names = {"calls": "llm_calls", "samples": "llm_samples"}
    out: dict[str, Any] = {names.get(k, k): sum(getattr(lm.stats, k) for lm in lms)
                           for k in keys}
    out["busy_s"] = round(sum(lm.stats.busy_seconds for lm in lms), 2)
    return out
