"""What a run report shows, read from the run's folder: its result, store and attached evals.

Per tool: the original and the optimized doc, the kept demos with the outputs their calls gave
when executed, the best example reward and the doc score per iteration (from the candidates
table), and tool play's invocation success rate. For the run: its cost over every session
(calls, tokens, wall time, cache hits) and the evaluations that used its prompts (recorded in
its own store by ``p2p sweep``, the evaluation folders recorded in the run by ``p2p eval
--prompts RUN``, or ``runs/eval-*`` folders whose ``prompts`` is the run), each once
(:mod:`~play2prompt.report.evals`).
Everything is scrubbed: the result as :func:`load_run_result` reads it, the rest with the same
scrubber (the store keeps raw outputs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.jsonutil import canonical
from play2prompt.report.evals import EvalView, eval_views
from play2prompt.results import RunResult, ToolResult, load_run_result
from play2prompt.scrub import Scrubber
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.runs import resolve_run
from play2prompt.tools.model import Invocation, Observation
from play2prompt.tools.observations import cap


@dataclass(frozen=True)
class DemoView:
    query: str
    calls: tuple[Invocation, ...]
    outputs: tuple[Observation | None, ...]
    answer: str | None


@dataclass(frozen=True)
class ToolView:
    result: ToolResult
    demos: tuple[DemoView, ...]
    example_rewards: tuple[float | None, ...]     # best example reward per iteration
    doc_scores: tuple[float | None, ...]          # best doc score per iteration
    play: Mapping[str, Any]                       # attempts, valid calls, success rate
    facts: tuple[tuple[str, str, str], ...] = ()   # (parameter, kind, fact) play established


@dataclass
class RunReport:
    run_id: str
    run_dir: Path
    meta: dict[str, Any]
    tools: list[ToolView]
    cost: dict[str, Any]
    evals: list[EvalView] = field(default_factory=list)


def best_per_iteration(rows: Sequence[Mapping[str, Any]]) -> tuple[float | None, ...]:
    """The best reward among the candidates of each iteration (iterations 0..max)."""
    best: dict[int, float] = {}
    for row in rows:
        it, reward = int(row["iteration"]), row.get("reward")
        if it < 0 or reward is None:
            continue
        best[it] = max(best.get(it, float("-inf")), float(reward))
    return tuple(best.get(i) for i in range(max(best) + 1)) if best else ()


OUTPUT_LIMIT = 2000  # characters of one executed output shown in the report


def _outputs(store: RunStore, tool: str, calls: Sequence[Invocation], scrubber: Scrubber
             ) -> tuple[Observation | None, ...]:
    """The outputs the demos' calls gave, as logged (raw), scrubbed and bounded."""
    known = {canonical(args): obs for args, obs in store.executions(tool)}
    found = (known.get(canonical(dict(c.arguments))) for c in calls)
    return tuple(None if obs is None else Observation.from_dict(
        scrubber.value(cap(obs, OUTPUT_LIMIT).to_dict())) for obs in found)


def tool_view(store: RunStore, result: ToolResult, scrubber: Scrubber | None = None
              ) -> ToolView:
    scrubber = scrubber or Scrubber()
    demos = tuple(DemoView(d.query, d.calls, _outputs(store, result.name, d.calls, scrubber),
                           d.answer) for d in result.demos)
    examples = best_per_iteration(store.candidates(result.name, "example"))
    docs = best_per_iteration(store.candidates(result.name, "doc"))
    stats = result.stats
    examples = examples or tuple(stats.get("best_reward_per_iteration") or ())
    docs = docs or tuple(stats.get("doc_score_per_iteration") or ())
    play = {"attempts": stats.get("play_attempts"),
            "valid_invocations": stats.get("valid_invocations"),
            "success_rate": stats.get("invocation_success_rate")}
    facts = tuple((str(f.get("param") or "(tool)"), str(f.get("kind", "")),
                   scrubber.text(str(f.get("text", "")), 300))
                  for f in stats.get("facts") or () if f.get("kind") != "example")
    return ToolView(result, demos, examples, docs, play, facts)


def run_cost(store: RunStore, result: RunResult) -> dict[str, Any]:
    """The logged totals and the sum over the run's sessions (a resumed run has several)."""
    logged = store.call_stats()["total"]
    sessions = store.sessions() or ([dict(result.stats)] if result.stats else [])
    calls = sum(s.get("session", {}).get("llm_calls", 0) for s in sessions)
    hits = sum(s.get("session", {}).get("cache_hits", 0) for s in sessions)
    return {
        "sessions": len(sessions),
        "wall_s": round(sum(float(s.get("wall_s", 0.0)) for s in sessions), 2),
        "llm_calls": calls,
        "cache_hits": hits,
        "logged_samples": logged["samples"],
        "failed_calls": logged["failed"],
        "prompt_tokens": logged["prompt_tokens"],
        "completion_tokens": logged["completion_tokens"],
        "tool_executions": sum(int(s.get("tool_executions", 0)) for s in sessions),
        "tool_execution_cache_hits": sum(int(s.get("tool_execution_cache_hits", 0))
                                         for s in sessions),
    }


def _records(store: RunStore, source: str) -> list[dict[str, Any]]:
    return [{"id": e["id"], "config": e["config"], "summary": e["summary"],
             "created": e.get("created"), "source": source} for e in store.evals()]


def folder_evals(folder: Path, run_id: str | None = None) -> list[dict[str, Any]]:
    """The evaluations recorded in an eval folder's store (``p2p eval ... --prompts RUN``);
    with ``run_id``, only those of that run's prompts."""
    db = Path(folder) / DB_NAME
    if not db.is_file():
        raise UserError(f"{folder}: no evaluation here ({DB_NAME} is missing)")
    store = RunStore(db, read_only=True)
    try:
        found = _records(store, str(Path(folder)))
    finally:
        store.close()
    return [e for e in found if run_id is None or str(e["config"].get("prompts")) == run_id]


def _folder_evals(folder: Path, run_id: str) -> list[dict[str, Any]]:
    """A found folder's evaluations of this run's prompts; none from an unreadable one."""
    try:
        return folder_evals(folder, run_id)
    except Exception:  # noqa: BLE001 - an unreadable folder is not this report's concern
        return []


def attached_evals(store: RunStore, run_id: str, runs_dir: Path,
                   folders: Sequence[Path] = (), scrubber: Scrubber | None = None,
                   run_dir: Path | None = None) -> list[EvalView]:
    """Evaluations of this run's prompts, each once: its own store's (sweeps record theirs
    there), the folders recorded in ``run_dir`` (``p2p eval --prompts RUN``, wherever ``-o``
    put them), ``runs/eval-*`` folders' whose ``prompts`` is the run, and ``folders``'."""
    from play2prompt.evaluation.attached import recorded_folders

    found = _records(store, "run")
    given = {Path(f).resolve() for f in folders}
    searched = [*(recorded_folders(run_dir) if run_dir is not None else []),
                *(db.parent for db in sorted(Path(runs_dir).glob(f"eval-*/{DB_NAME}")))]
    for folder in dict.fromkeys(f.resolve() for f in searched):
        if folder not in given:
            found += _folder_evals(folder, run_id)
    for folder in folders:
        evals = [e for e in folder_evals(folder) if e["config"].get("prompts")]
        other = {str(e["config"]["prompts"]) for e in evals} - {run_id}
        if other:
            raise UserError(f"{folder} evaluated the prompts of {', '.join(sorted(other))}, "
                            f"not of run {run_id}")
        found += evals
    return eval_views((scrubber or Scrubber()).value(found))


def collect(ref: str | Path, runs_dir: Path | None = None,
            eval_dirs: Sequence[Path] = ()) -> RunReport:
    """What the report shows. The result is read scrubbed (:func:`load_run_result`); what
    comes from the store (logged outputs, meta, evaluations) goes through the same scrubber.
    ``eval_dirs``: evaluation folders of this run's prompts kept outside ``runs_dir``."""
    run_dir = resolve_run(ref, runs_dir)
    result = load_run_result(run_dir)
    scrubber = result.scrubber()
    store = RunStore(run_dir / DB_NAME, read_only=True)
    try:
        meta = scrubber.value(store.all_meta())
        tools = [tool_view(store, r, scrubber) for r in result.tools.values()]
        cost = run_cost(store, result)
        evals = attached_evals(store, result.run_id, Path(runs_dir or run_dir.parent),
                               eval_dirs, scrubber, run_dir)
    finally:
        store.close()
    return RunReport(result.run_id, run_dir, meta, tools, cost, evals)
