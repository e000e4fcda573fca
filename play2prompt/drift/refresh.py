"""``p2p refresh RUN tools.json``: a new run that re-optimizes only the tools that drifted.

:func:`refresh` verifies RUN against the tools file (:mod:`play2prompt.drift.verify`) and
starts a new run (its own id and store) over the file's tools. Before any LLM call, the new
run's store receives (:class:`Preparation`, the ``prepare`` hook of
:func:`play2prompt.optimize.optimize`):

- the results of the tools that did not drift, copied from RUN (applied to the tool as the file
  has it now): those tools cost no LLM call, and their stats say where they came from;
- for every drifted tool, the facts play starts from: RUN's facts re-checked by executing again
  the calls that showed them (and the calls RUN recorded as working) with the current
  executor. A fact the tool still shows is kept, one it no longer shows is dropped (refuted),
  one whose call failed transiently is left out (unconfirmed); what the calls show now that RUN
  never saw (the new accepted values a rejection lists, the new range) is added. A parameter
  that looks renamed (one removed, one added, same type) is renamed in those calls, and a tool
  that says it replaces a gone one (``meta: {"replaces": NAME}``) starts from that one's facts;
- RUN's calibration (when the generator is the same), and where the run came from
  (``Meta.REFRESHED_FROM``: the run, the file, every tool's status and what was done with it).

The rest is an ordinary run: ``--resume`` continues a killed refresh, and tools gone from the
file are left out. Consent is the refresh's own (``allow_side_effects``, ``p2p refresh
--allow-side-effects``): verify, the re-checked facts and the new run's play execute a tool that
may change things only when the refresh names it; RUN's consent is never reused.

The file's tools RUN was not asked to optimize (``unoptimized``) are left out too: a refresh
optimizes no more than RUN did, and its new run records the file's tools as RUN did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.drift.recorded import RecordedRun, call_of, record_source
from play2prompt.drift.verify import GONE, UNOPTIMIZED, VerifyReport, renamed_params, replaced
from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.observed import seen
from play2prompt.method.discovery import DESCRIBES
from play2prompt.results import ToolResult
from play2prompt.scrub import Scrubber, for_tools
from play2prompt.store.db import RunStore
from play2prompt.store.meta import Meta
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.observations import is_transient
from play2prompt.tools.runtime import ToolRuntime

COST_KEYS = ("llm_samples", "prompt_tokens", "completion_tokens")
FactId = tuple[str, str, str]


@dataclass(frozen=True)
class RefreshPlan:
    """What a refresh does with each tool: reuse RUN's result, re-optimize, or drop it."""

    run_id: str
    reuse: tuple[str, ...]
    redo: tuple[str, ...]
    dropped: tuple[str, ...]
    report: VerifyReport
    seeds: Mapping[str, str] = field(default_factory=dict)   # redo tool -> RUN's tool
    unoptimized: tuple[str, ...] = ()   # the file's tools RUN did not optimize: left out

    def action(self, name: str) -> str:
        """What the refresh does with tool ``name``, in words."""
        return ("re-optimized" if name in self.redo else "dropped" if name in self.dropped
                else "left out" if name in self.unoptimized else "reused")

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run_id, "reused": list(self.reuse), "reoptimized": list(self.redo),
                "dropped": list(self.dropped), "seeded_from": dict(self.seeds),
                "not_optimized": list(self.unoptimized),
                "statuses": {t.name: t.status for t in self.report.tools}}


def plan_refresh(run: RecordedRun, tools: Sequence[Tool], report: VerifyReport) -> RefreshPlan:
    """Reuse what did not drift, re-optimize what did (and new tools), drop what is gone, leave
    out what RUN was not asked to optimize."""
    successors = {new: old for old, new in replaced(tools).items()}
    drifted = set(report.drifted)
    left = tuple(t.name for t in report.tools if t.status == UNOPTIMIZED)
    redo = tuple(t.name for t in tools if t.name in drifted)
    reuse = tuple(t.name for t in tools if t.name not in drifted and t.name not in left)
    dropped = tuple(t.name for t in report.tools if t.status == GONE)
    seeds = {n: successors.get(n, n) for n in redo if successors.get(n, n) in run.tools}
    return RefreshPlan(run.run_id, reuse, redo, dropped, report, seeds, left)


@dataclass(frozen=True)
class FactCheck:
    """RUN's facts of one tool, checked against the tool as it is now."""

    kept: tuple[Fact, ...] = ()
    refuted: tuple[Fact, ...] = ()
    unconfirmed: tuple[Fact, ...] = ()
    found: tuple[Fact, ...] = ()          # shown now, never shown in RUN
    seed: tuple[Fact, ...] = ()           # what play starts from: kept and found, once each

    def to_dict(self) -> dict[str, Any]:
        return {"kept": len(self.kept), "refuted": len(self.refuted),
                "unconfirmed": len(self.unconfirmed), "found": len(self.found),
                "refuted_facts": [f.text for f in self.refuted][:20]}


def _moved(inv: Invocation, name: str, renames: Mapping[str, str]) -> Invocation:
    return Invocation(name, {renames.get(k, k): v for k, v in inv.arguments.items()})


async def recheck_facts(tool: Tool, facts: Sequence[Fact], calls: Sequence[Invocation],
                        probes: Mapping[str, str], runtime: ToolRuntime,
                        renames: Mapping[str, str] | None = None) -> FactCheck:
    """Execute again the calls that showed ``facts`` and ``calls`` (RUN's calls that worked)
    against ``tool`` now; ``probes``: call key -> the argument a probe varied. A fact is kept
    when one of these calls still shows it, refuted when its own call ran and none does."""
    renames = dict(renames or {})
    facts = [f for f in facts if f.kind != DESCRIBES]   # the generator's words: not re-checkable
    keys = list(dict.fromkeys([*(f.call for f in facts if f.call), *(c.key() for c in calls)]))
    fresh = FactBook(tool)
    shown: dict[str, bool] = {}        # the calls that ran (not transiently failed)

    async def one(key: str) -> None:
        inv = _moved(call_of(key), tool.name, renames)
        obs = seen(await runtime.run(inv), runtime.scrubber)
        if is_transient(obs):
            return
        book = FactBook(tool)
        book.observe(inv, obs)
        if key in probes:
            book.observe(inv, obs, probed=renames.get(probes[key], probes[key]))
        shown[key] = True
        for fact in book.all_facts():
            fresh.add(fact)

    await asyncio.gather(*(one(k) for k in keys))
    now = {_fact_id(f) for f in fresh.all_facts()}
    kept, refuted, unconfirmed = [], [], []
    for fact in facts:
        if _fact_id(replace(fact, param=renames.get(fact.param, fact.param))) in now:
            kept.append(fact)           # the tool still shows it (by any of the calls)
        elif fact.call in shown:
            refuted.append(fact)        # its own call ran and no longer shows it
        else:
            unconfirmed.append(fact)    # its call failed transiently: nothing can be said
    old = {_fact_id(replace(f, param=renames.get(f.param, f.param))) for f in facts}
    found = [f for f in fresh.facts if _fact_id(f) not in old]
    return FactCheck(tuple(kept), tuple(refuted), tuple(unconfirmed), tuple(found),
                     tuple(fresh.facts))


def _fact_id(fact: Fact) -> FactId:
    return fact.param, fact.kind, fact.text.lower()


class Preparation:
    """The ``prepare`` hook of a refresh's new run (see the module docstring)."""

    def __init__(self, run: RecordedRun, plan: RefreshPlan, tools: Sequence[Tool],
                 config: OptimizeConfig, base_dir: Path, *, tools_file: str = "",
                 calibration: bool = True, limit: int = 10) -> None:
        self.run, self.plan = run, plan
        self.tools = {t.name: t for t in tools if t.name not in plan.unoptimized}
        self.source = [t.name for t in tools]       # the file's tools, as RUN recorded its
        self.config, self.base_dir, self.tools_file = config, base_dir, tools_file
        self.calibration, self.limit = calibration, limit
        self.facts: dict[str, FactCheck] = {}

    def __call__(self, store: RunStore) -> None:
        if self.calibration and self.run.meta.calibration:
            store.set_meta(Meta.CALIBRATION, dict(self.run.meta.calibration))
        record_source(store, self.source)
        for name in self.plan.reuse:
            if name in self.run.tools and self.run.result(name) is not None:
                store.put_result(name, self.reused(name).to_dict())
        self.facts = asyncio.run(self._recheck(store))
        store.set_meta(Meta.SEED_FACTS, {n: [f.to_dict() for f in c.seed]
                                         for n, c in self.facts.items()})
        store.set_meta(Meta.REFRESHED_FROM, {
            **self.plan.to_dict(), "run_dir": str(self.run.run_dir),
            "tools_file": self.tools_file,
            "facts": {n: c.to_dict() for n, c in self.facts.items()}})

    def reused(self, name: str) -> ToolResult:
        """RUN's result of ``name`` on the tool as the file has it now, at no LLM cost."""
        old = ToolResult.from_dict(self.run.result(name) or {})
        tool = self.tools[name]
        spent = {k: old.stats.get(k, 0) for k in COST_KEYS}
        stats = {**old.stats, **{k: 0 for k in COST_KEYS},
                 "reused_from": {"run": self.run.run_id, **spent}}
        doc = old.doc if old.doc_changed else tool.doc
        return replace(old, original=tool, doc=doc, stats=stats)

    async def _recheck(self, store: RunStore) -> dict[str, FactCheck]:
        tools = list(self.tools.values())
        scrubber: Scrubber = for_tools(tools).merged(for_tools(list(self.run.tools.values())))
        ctx = ExecContext(base_dir=self.base_dir, store=store,
                          default_timeout=self.config.tool_timeout,
                          observation_limit=self.config.observation_limit, scrubber=scrubber,
                          allow_side_effects=tuple(self.config.allow_side_effects))
        runtime = ToolRuntime(tools, ctx, store)
        try:
            names = list(self.plan.seeds)
            checks = await asyncio.gather(*(self._recheck_tool(n, runtime) for n in names))
        finally:
            runtime.close()
        return dict(zip(names, checks))

    async def _recheck_tool(self, name: str, runtime: ToolRuntime) -> FactCheck:
        source = self.plan.seeds[name]
        tool = self.tools[name]
        renames = renamed_params(self.run.tools[source], tool)
        calls = [c.invocation for c in self.run.calls(source, self.limit)]
        return await recheck_facts(tool, self.run.facts(source), calls,
                                   self.run.probe_params(source), runtime, renames)


@dataclass(frozen=True)
class RefreshOutcome:
    plan: RefreshPlan
    result: Any = None                    # the new run's RunResult; None: nothing drifted
    facts: Mapping[str, FactCheck] = field(default_factory=dict)


def refresh(run_ref: str | Path, tools_file: Path, *, runs_dir: Path | None = None,
            run_id: str | None = None, generator: Any = None, task_model: Any = None,
            doc_generator: Any = None, reporter: Any = None, match: str = "exact",
            match_by_tool: Mapping[str, str] | None = None, limit: int = 10,
            allow_side_effects: Sequence[str] = ()) -> RefreshOutcome:
    """Verify ``run_ref`` against ``tools_file`` and, when something drifted, make a new run
    that re-optimizes only that (see the module docstring). Models default to the run's
    (``generator`` etc.: a spec or an LM object). ``allow_side_effects``: the tools this
    refresh may execute although they may change things (verify, re-checked facts and the new
    run's play alike); RUN's own consent is never reused."""
    from play2prompt.drift.recorded import open_recorded
    from play2prompt.drift.verify import verify_run
    from play2prompt.optimize import optimize
    from play2prompt.tools.loading import load_tools

    tools = load_tools(tools_file)
    base_dir = Path(tools_file).parent
    with open_recorded(run_ref, runs_dir) as run:
        report = verify_run(run, tools, base_dir=base_dir, match=match,
                            match_by_tool=match_by_tool, limit=limit,
                            tools_file=str(tools_file),
                            allow_side_effects=tuple(allow_side_effects))
        plan = plan_refresh(run, tools, report)
        if not plan.redo:
            return RefreshOutcome(plan)
        models = run.meta.models
        recorded = models.get("generator", "embedded")
        same = generator is None or getattr(generator, "model_id", generator) == recorded
        config = replace(OptimizeConfig.from_dict(dict(run.meta.config)),
                         allow_side_effects=tuple(allow_side_effects))   # this command's
        prep = Preparation(run, plan, tools, config, base_dir, tools_file=str(tools_file),
                           calibration=same, limit=limit)
        result = optimize(list(prep.tools.values()), generator=generator or recorded,
                          task_model=task_model or models.get("task_model"),
                          doc_generator=doc_generator, config=prep.config, runs_dir=runs_dir,
                          run_id=run_id, label="refresh", base_dir=base_dir,
                          reporter=reporter, prepare=prep)
    return RefreshOutcome(plan, result, prep.facts)
