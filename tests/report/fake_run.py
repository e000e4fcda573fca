"""A small finished run written by hand (no model): three tools, two docs changed, two demos,
and an evaluation folder of its prompts recorded the way ``p2p eval --oracle`` records one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from play2prompt.agent.prompt import Demo
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.meta import Meta
from play2prompt.tools.model import Invocation, Tool, ToolDoc

RUN_ID = "tiny"
REASONS = {
    "convert_units": "facts from tool play: accuracy on 3 verified examples 0.00 -> 1.00",
    "add_days": "kept the original: it already solves all 4 verified examples <no search>",
    "loan_payment": "facts from tool play: accuracy on 2 verified examples 0.50 -> 1.00",
}
# per tool (category): queries, original, optimized, oracle accuracy in percent
ACCURACY = {"convert_units": (10, 10.0, 70.0, 80.0), "add_days": (10, 50.0, 60.0, 60.0),
            "loan_payment": (10, 0.0, 50.0, 90.0)}
PAIRED = [{"side": "full", "n": 30, "accuracy": 60.0, "baseline": 20.0,
           "wins": [f"w{i}" for i in range(13)], "losses": ["l1"], "p_value": 0.0018,
           "headroom_recovered": 75.0},
          {"side": "oracle", "n": 30, "accuracy": 76.7, "baseline": 20.0,
           "wins": [f"o{i}" for i in range(17)], "losses": [], "p_value": 0.0,
           "headroom_recovered": None}]
HEADLINE = ("2 of 3 docs changed, 2 demos shipped; accuracy 20.0 % -> 60.0 % "
            "(+13/-1, p=0.002); oracle docs 76.7 %")


def _tool(name: str) -> Tool:
    return Tool(name, f"{name} tool.", {"type": "object", "properties": {
        "x": {"type": "number", "description": "a value"}}}, {"python": "tools.py:" + name})


def _result(name: str, changed: bool, demos: int) -> ToolResult:
    tool = _tool(name)
    doc = ToolDoc(f"{name}: what it does, in full.", {"x": "a value, in metres"}) \
        if changed else tool.doc
    demo = Demo(f"use {name} on 2", (Invocation(name, {"x": 2}),), "done")
    return ToolResult(name, tool, doc, (demo,) * demos, changed, REASONS[name],
                      stats={"play_attempts": 6, "valid_invocations": 4,
                             "invocation_success_rate": 0.67,
                             "best_reward_per_iteration": [1.0, 2.0],
                             "doc_score_per_iteration": [0.5]})


def write_run(runs_dir: Path, run_id: str = RUN_ID) -> Path:
    run_dir = runs_dir / run_id
    run_dir.mkdir(parents=True)
    store = RunStore(run_dir / DB_NAME)
    store.set_meta(Meta.RUN_ID, run_id)
    store.set_meta(Meta.STATUS, "done")
    store.set_meta(Meta.MODELS, {"generator": "fake-gen", "task_model": "fake-task"})
    store.add_session({"wall_s": 1696.0, "session": {"llm_calls": 336, "cache_hits": 16},
                       "tool_executions": 127, "tool_execution_cache_hits": 116})
    store.close()
    tools = {"convert_units": _result("convert_units", True, 0),
             "add_days": _result("add_days", False, 2),
             "loan_payment": _result("loan_payment", True, 0)}
    RunResult(run_id, run_dir, tools, {"method": "play2prompt"}).write()
    return run_dir


def eval_summary(with_oracle: bool = True) -> dict[str, Any]:
    sides = ["baseline", "full", *(["oracle"] if with_oracle else [])]
    rows = []
    for cat, (n, *acc) in ACCURACY.items():
        row: dict[str, Any] = {"category": cat, "n": n}
        for side, value in zip(sides, acc):
            row[f"{side} exec %"], row[f"{side} AST %"] = value, value
        rows.append(row)
    total: dict[str, Any] = {"category": "weighted average", "n": 30}
    for i, side in enumerate(sides):
        total[f"{side} exec %"] = round(sum(a[i + 1] for a in ACCURACY.values()) / 3, 1)
        total[f"{side} AST %"] = total[f"{side} exec %"]
    return {"accuracy": [*rows, total], "cost": [{"side": s, "requests": 30} for s in sides],
            "skipped": 0}


def write_eval(folder: Path, prompts: str = RUN_ID) -> Path:
    """An evaluation folder as ``p2p eval tools ... --prompts RUN --oracle FILE`` leaves it:
    one store record per side with the same summary (no comparison in the store, as before
    it was recorded there), the comparison in ``summary.json``."""
    folder.mkdir(parents=True)
    config = {"suite": "tools", "task_model": "fake-task", "prompts": prompts,
              "variant": "full", "demos": 5}
    summary = eval_summary()
    store = RunStore(folder / DB_NAME)
    store.set_meta(Meta.KIND, "eval")
    for side in ("baseline", "full", "oracle"):
        store.put_eval(f"tools:{side}", "tools", config, summary)
    store.close()
    (folder / "summary.json").write_text(json.dumps(
        {"suite": "tools", "config": config, **summary, "paired": PAIRED}))
    return folder
