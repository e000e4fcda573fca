"""The StableToolBench evaluation: ReAct on each query, the judge, the solvable pass rate.

The sides (:class:`~play2prompt.evaluation.items.PromptSide`, recorded as the ``condition``)
run one after the other on the same run store: ``baseline`` (the original docs) and, with an
optimization run, ``play2prompt`` (its optimized docs and ``demos_per_tool`` demos per tool, 1
as in the paper). Both see the same simulated environment: a call simulated for one side is
served from the store's execution log for the other. A query's record is stored with a
fingerprint of what made it (models, settings, the side's prompts, the query and its tools);
rerunning into the same output folder reads the records back instead of redoing them, and
every LLM call is in the store's call log besides.
"""

from __future__ import annotations

import asyncio
import csv
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from play2prompt.adapters.stabletoolbench.data import (
    Query,
    Source,
    ToolFiles,
    query_tools,
)
from play2prompt.adapters.stabletoolbench.judge import PassRate, average, judge, pass_rate
from play2prompt.agent.react import ReactAgent
from play2prompt.evaluation.items import PromptSide, run_side
from play2prompt.jsonutil import stable_hash
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Tool
from play2prompt.tools.runtime import ToolRuntime

TRAJECTORIES_FILE = "trajectories.jsonl"
RESULTS_CSV = "results.csv"
RESULTS_JSON = "results.json"


def play2prompt_side(run_result: Any, demos_per_tool: int = 1) -> PromptSide:
    """The run's optimized docs and its first demos of each tool (the paper: 1)."""
    return run_side("play2prompt", run_result, k=demos_per_tool)


@dataclass(frozen=True)
class Settings:
    max_steps: int = 8
    evaluate_times: int = 3
    fmt: str = "text"
    temperature: float = 0.0
    judge_temperature: float = 0.7
    seed: int = 0
    obs_limit: int = 1024
    server: str | None = None
    code_checks: bool = False     # on for judges too small to judge (the embedded model)


@dataclass
class Models:
    task: Any
    judge: Any
    simulator: Any


@dataclass
class QueryResult:
    condition: str
    subset: str
    query_id: str
    trajectory: dict[str, Any]
    judgments: list[dict[str, Any]]

    @property
    def scores(self) -> list[float]:
        return [float(j["score"]) for j in self.judgments]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> QueryResult:
        """Back from :meth:`to_dict` (a stored item)."""
        own = ("condition", "subset", "scores", "judgments", "fingerprint")
        return cls(d["condition"], d["subset"], d["query_id"],
                   {k: v for k, v in d.items() if k not in own}, list(d["judgments"]))

    def to_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "subset": self.subset, "query_id": self.query_id,
                "scores": self.scores, "judgments": self.judgments, **self.trajectory}


@dataclass
class EvalReport:
    results: list[QueryResult]
    rates: dict[str, dict[str, PassRate]]          # condition -> subset (and "Average")
    calls: dict[str, dict[str, Any]]               # condition -> LLM call accounting

    def to_dict(self) -> dict[str, Any]:
        return {"pass_rates": {c: {s: r.to_dict() for s, r in by.items()}
                               for c, by in self.rates.items()},
                "llm_calls": self.calls}


async def run_query(agent: ReactAgent, judge_lm: Any, side: PromptSide, query: Query,
                    tools: Sequence[Tool], settings: Settings) -> QueryResult:
    traj = await agent.run(query.query_id, query.query, side.tools_for(tools),
                           side.demos_for(tools), seed=settings.seed)
    verdicts = await asyncio.gather(*(judge(judge_lm, traj, seed=settings.seed + k,
                                            prompts=agent.prompts,
                                            temperature=settings.judge_temperature,
                                            code_checks=settings.code_checks)
                                      for k in range(settings.evaluate_times)))
    return QueryResult(side.name, query.subset, query.query_id, traj.to_dict(),
                       [v.to_dict() for v in verdicts])


def _stats(models: Models) -> dict[str, Any]:
    snap: dict[str, Any] = {"by_role": {}, "cache_hits": 0, "calls": 0, "seconds": 0.0}
    seen = set()
    for lm in (models.task, models.judge, models.simulator):
        base = getattr(lm, "inner", lm)
        if id(base) in seen:
            continue
        seen.add(id(base))
        st = base.stats
        snap["calls"] += st.calls
        snap["cache_hits"] += st.cache_hits
        snap["seconds"] += st.seconds
        for role, n in st.by_role.items():
            snap["by_role"][role] = snap["by_role"].get(role, 0) + n
    return snap


def _delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    roles = set(before["by_role"]) | set(after["by_role"])
    return {"calls": after["calls"] - before["calls"],
            "cache_hits": after["cache_hits"] - before["cache_hits"],
            "lm_seconds": round(after["seconds"] - before["seconds"], 2),  # incl. queueing
            "by_role": {r: after["by_role"].get(r, 0) - before["by_role"].get(r, 0)
                        for r in sorted(roles)}}


def fingerprint(models: Models, settings: Settings, side: PromptSide, query: Query,
                tools: Sequence[Tool]) -> str:
    """What a query's record depends on: a stored record made otherwise is not reused."""
    return stable_hash([getattr(lm, "model_id", "") for lm in
                        (models.task, models.judge, models.simulator)], asdict(settings),
                       side.to_dict(), query.query_id, query.query,
                       [t.to_dict() for t in tools])


async def evaluate(queries: Sequence[Query], sides: Sequence[PromptSide], models: Models,
                   source: Source, store: Any, settings: Settings,
                   prompts: MetaPrompts | None = None, on_done: Any = None) -> EvalReport:
    """Every (side, query); a query whose record is stored (made the same way) is read back,
    not rerun."""
    index = ToolFiles.scan(source.tools_dir)
    per_query = [(q, query_tools(q, source, index, settings.server)) for q in queries]
    all_tools = {t.name: t for _, tools in per_query for t in tools}
    ctx = ExecContext(base_dir=source.root, lm=models.simulator, store=store)
    runtime = ToolRuntime(list(all_tools.values()), ctx, store)
    prompts = prompts or MetaPrompts()
    agent = ReactAgent(models.task, runtime, prompts, fmt=settings.fmt,
                       max_steps=settings.max_steps, temperature=settings.temperature,
                       obs_limit=settings.obs_limit)
    results: list[QueryResult] = []
    calls: dict[str, dict[str, Any]] = {}
    try:
        for side in sides:
            before = _stats(models)

            async def one(q: Query, tools: list[Tool], side: PromptSide = side) -> QueryResult:
                eval_id, item_id = f"stabletoolbench-{side.name}", f"{q.subset}:{q.query_id}"
                mark = fingerprint(models, settings, side, q, tools)
                stored = store.get_eval_item(eval_id, item_id, mark) if store else None
                if stored is not None:
                    res = QueryResult.from_dict(stored)
                else:
                    res = await run_query(agent, models.judge, side, q, tools, settings)
                    if store is not None:
                        store.put_eval_item(eval_id, item_id,
                                            {**res.to_dict(), "fingerprint": mark})
                if on_done is not None:
                    on_done(res)
                return res

            start = time.perf_counter()
            results.extend(await asyncio.gather(*(one(q, t) for q, t in per_query)))
            calls[side.name] = {**_delta(before, _stats(models)),
                                "wall_s": round(time.perf_counter() - start, 1)}
    finally:
        runtime.close()
    return EvalReport(results, summarize(results, [s.name for s in sides]), calls)


def summarize(results: Sequence[QueryResult],
              conditions: Sequence[str]) -> dict[str, dict[str, PassRate]]:
    rates: dict[str, dict[str, PassRate]] = {}
    for cond in conditions:
        mine = [r for r in results if r.condition == cond]
        subsets = list(dict.fromkeys(r.subset for r in mine))
        by = {s: pass_rate([r.scores for r in mine if r.subset == s]) for s in subsets}
        by["Average"] = average(list(by.values()))
        rates[cond] = by
    return rates


def write_outputs(out_dir: Path, report: EvalReport, config: Mapping[str, Any]) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    traj_path = out_dir / TRAJECTORIES_FILE
    with traj_path.open("w", encoding="utf-8") as fh:
        for res in report.results:
            fh.write(json.dumps(res.to_dict(), ensure_ascii=False, default=str) + "\n")
    csv_path = out_dir / RESULTS_CSV
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["condition", "subset", "queries", "pass_rate", "std", "per_run"])
        for cond, by in report.rates.items():
            for subset, rate in by.items():
                writer.writerow([cond, subset, rate.n, f"{rate.mean:.4f}", f"{rate.std:.4f}",
                                 " ".join(f"{x:.4f}" for x in rate.per_run)])
    json_path = out_dir / RESULTS_JSON
    payload = {"config": dict(config), **report.to_dict(),
               "queries": [{k: v for k, v in r.to_dict().items() if k != "steps"}
                           for r in report.results]}
    json_path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n")
    return [traj_path, csv_path, json_path]
