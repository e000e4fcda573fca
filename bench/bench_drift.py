"""Benchmark of drift: does `p2p verify` flag exactly the drifted tools, what does `p2p refresh`
cost against a full re-optimization, and what does it recover in accuracy?

    python bench/bench_drift.py --base RUN                  # a finished run of examples/tools.json
    python bench/bench_drift.py --preset quick              # make the base run first
    python bench/bench_drift.py --base RUN --kinds rename,unit,values --tool unit=loan_payment

Steps (each resumable: run ids and folders are fixed by ``--name``, a finished step is read
back):
1. ``p2p drift simulate`` of the tools file and its query set (``--kinds``, ``--tool``);
2. ``p2p verify`` of the base run against the original tools (expected: no drift) and against
   the drifted ones: the flagged tools against the drifted ones;
3. ``p2p refresh`` of the base run on the drifted tools: LLM calls, per tool;
4. a full re-optimization of the drifted tool set with the same settings and models
   (``--skip-full`` leaves it out): its LLM calls;
5. one evaluation on the drifted tools (the queries of the drifted tools, ``--all-queries`` for
   every query): baseline (the drifted tools' own docs), stale (the base run's prompts),
   refreshed, and full re-optimization, side by side on the same items.

Writes ``<runs>/bench-drift-<name>/summary.md`` and ``summary.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig, preset
from play2prompt.drift.recorded import open_recorded
from play2prompt.drift.refresh import refresh
from play2prompt.drift.simulate import simulate
from play2prompt.drift.verify import verify_run
from play2prompt.evaluation.items import PromptSide, run_side
from play2prompt.evaluation.queries import load_queries, tools_suite
from play2prompt.evaluation.report import write_outputs
from play2prompt.evaluation.runner import EvalSettings, Evaluator
from play2prompt.evaluation.session import EvalSession
from play2prompt.optimize import optimize
from play2prompt.results import RESULT_FILE, load_run_result
from play2prompt.store.db import DB_NAME
from play2prompt.store.runs import open_run
from play2prompt.tools.loading import load_tools

ROOT = Path(__file__).resolve().parents[1]


def _args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", type=Path, default=ROOT / "examples" / "tools.json")
    p.add_argument("--queries", type=Path, default=ROOT / "examples" / "queries.jsonl")
    p.add_argument("--base", help="a finished run of --tools (default: made here)")
    p.add_argument("--preset", default="quick")
    p.add_argument("--model", default="embedded", help="generator and task model")
    p.add_argument("--kinds", default="rename,unit,values")
    p.add_argument("--tool", action="append", default=[], metavar="KIND=NAME")
    p.add_argument("--name", default="drift")
    p.add_argument("--runs-dir", type=Path, default=Path("runs"))
    p.add_argument("--skip-full", action="store_true")
    p.add_argument("--all-queries", action="store_true")
    return p.parse_args()


def _run(runs_dir: Path, run_id: str, make: Callable[[], Any]) -> Any:
    """The finished run ``run_id``: read back, resumed, or made with ``make()``."""
    if (runs_dir / run_id / RESULT_FILE).is_file():
        return load_run_result(run_id, runs_dir)
    if (runs_dir / run_id / DB_NAME).is_file():
        return optimize(resume=run_id, runs_dir=runs_dir)
    return make()


def _cost(result: Any) -> dict[str, Any]:
    """LLM calls of every session of the run, and LLM samples per tool."""
    per_tool = {n: r.stats.get("llm_samples", 0) for n, r in result.tools.items()}
    store = open_run(result.run_dir, read_only=True)
    try:
        calls = sum((s.get("session") or {}).get("llm_calls", 0) for s in store.sessions())
    finally:
        store.close()
    return {"run": result.run_id, "llm_calls": calls, "llm_samples": sum(per_tool.values()),
            "per_tool": per_tool}


def _verify(base: str, runs_dir: Path, tools_file: Path) -> dict[str, str]:
    with open_recorded(base, runs_dir) as run:
        report = verify_run(run, load_tools(tools_file), base_dir=tools_file.parent,
                            tools_file=str(tools_file))
    return {t.name: t.status for t in report.tools}


def _evaluate(out: Path, drifted: Path, queries: Path, model: str, sides: list[PromptSide]
              ) -> dict[str, Any]:
    tools = load_tools(drifted / "tools.json")
    suite = tools_suite(tools, load_queries(queries, tools), "drifted", drifted)
    with EvalSession.at(out) as session:
        session.start({"bench": "drift", "sides": [s.name for s in sides]})
        task = session.model(model)
        ctx = session.context(drifted, task, 20.0)
        result = asyncio.run(Evaluator(suite, task, session.store, EvalSettings(), ctx,
                                       None).run(sides))
    write_outputs(result, out)
    acc = {}
    for side in result.sides:
        by_cat: dict[str, list[bool]] = {}
        for r in side.records:
            by_cat.setdefault(r["category"], []).append(bool(r["correct"]))
        acc[side.side.name] = {"all": _pct(side.records),
                               **{c: round(100 * sum(v) / len(v), 1) for c, v in by_cat.items()}}
    return {"n": len(suite.items), "accuracy": acc}


def _pct(records: list[dict[str, Any]]) -> float:
    return round(100 * sum(bool(r["correct"]) for r in records) / max(1, len(records)), 1)


def _subset(queries: Path, names: set[str], out: Path) -> Path:
    lines = [q for q in queries.read_text().splitlines() if q.strip() and any(
        c["name"] in names for c in json.loads(q)["calls"])]
    out.write_text("\n".join(lines) + "\n")
    return out


def main() -> None:
    args = _args()
    runs, folder = args.runs_dir, args.runs_dir / f"bench-drift-{args.name}"
    config = preset(args.preset)
    base = args.base or _run(runs, f"{args.name}-base", lambda: optimize(
        load_tools(args.tools), generator=args.model, config=config, runs_dir=runs,
        run_id=f"{args.name}-base", base_dir=args.tools.parent)).run_id
    chosen = dict(t.split("=", 1) for t in args.tool)
    sim = simulate(args.tools, folder / "drifted", args.kinds.split(","),
                   queries=args.queries, chosen=chosen)
    drifted = folder / "drifted"
    summary: dict[str, Any] = {"base": base, "drifts": [d.describe() for d in sim.drifts]}
    summary["verify_original"] = _verify(base, runs, args.tools)
    summary["verify_drifted"] = _verify(base, runs, drifted / "tools.json")
    refreshed = _run(runs, f"{args.name}-refresh", lambda: refresh(
        base, drifted / "tools.json", runs_dir=runs, run_id=f"{args.name}-refresh").result)
    summary["refresh"] = _cost(refreshed)
    summary["base_cost"] = _cost(load_run_result(base, runs))
    sides = [PromptSide("baseline"), run_side("stale", load_run_result(base, runs), k=5),
             run_side("refreshed", refreshed, k=5)]
    if not args.skip_full:
        with open_recorded(base, runs) as run:
            cfg = OptimizeConfig.from_dict(dict(run.meta.config))
        full = _run(runs, f"{args.name}-full", lambda: optimize(
            load_tools(drifted / "tools.json"), generator=args.model, config=cfg,
            runs_dir=runs, run_id=f"{args.name}-full", base_dir=drifted))
        summary["full"] = _cost(full)
        sides.append(run_side("full", full, k=5))
    names = {n for d in sim.drifts for n in (d.tool, d.new) if n}
    queries = drifted / "queries.jsonl" if args.all_queries else _subset(
        drifted / "queries.jsonl", names, drifted / "queries.drifted.jsonl")
    summary["eval"] = _evaluate(folder / "eval", drifted, queries, args.model, sides)
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (folder / "summary.md").write_text(_markdown(summary))
    print(_markdown(summary))


def _markdown(s: dict[str, Any]) -> str:
    out = [f"# Drift of run {s['base']}", "", *[f"- {d}" for d in s["drifts"]], "",
           "| tool | verify (original tools) | verify (drifted tools) | base LLM samples | "
           "refresh LLM samples | full LLM samples |", "|---|---|---|---:|---:|---:|"]
    full = (s.get("full") or {}).get("per_tool", {})
    for name in sorted(set(s["verify_original"]) | set(s["verify_drifted"])):
        out.append(f"| {name} | {s['verify_original'].get(name, '-')} | "
                   f"{s['verify_drifted'].get(name, '-')} | "
                   f"{s['base_cost']['per_tool'].get(name, '-')} | "
                   f"{s['refresh']['per_tool'].get(name, '-')} | {full.get(name, '-')} |")
    calls = [f"base {s['base_cost']['llm_calls']}", f"refresh {s['refresh']['llm_calls']}"]
    if s.get("full"):
        calls.append(f"full re-optimization {s['full']['llm_calls']}")
    out += ["", f"LLM calls: {', '.join(calls)}", "",
            f"Accuracy (exec %, {s['eval']['n']} queries):", ""]
    acc = s["eval"]["accuracy"]
    cats = sorted({c for a in acc.values() for c in a})
    out += ["| side | " + " | ".join(cats) + " |", "|---|" + "---:|" * len(cats)]
    out += [f"| {side} | " + " | ".join(str(a.get(c, "-")) for c in cats) + " |"
            for side, a in acc.items()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
