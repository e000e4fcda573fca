"""The tool-set check asked again on finished runs, from their logs only: its decisions and the
task model's calls as the code now asks them, beside what each run recorded.

    python bench/bench_set_check.py runs/q62 runs/fresh22
    python bench/bench_set_check.py runs/* --json

For each run folder: a copy of its store (nothing is written to the run), its config and
tools, its results as the check saw them (an adopted proposal put back as the proposal of a
tool kept as given), and a task model that answers from the run's call log only (the same
model spec and settings, never loaded). A request the run never logged stops that run's
replay ("miss": the code now asks something the run did not, so its decisions cannot be
compared from the log). A run whose check undid a change is skipped: the store keeps the
doc it undid only as a reason.

Reported per run: the check's task-model calls then (the logged calls tagged with it) and
now, and each decision then and now (undone, adopted, kept; with the counts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.engine import build_engine
from play2prompt.lm._base import ChatRequest, ChatResponse, Generation
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.results import ToolResult
from play2prompt.set_check_run import SET_CHECK_TAG, finish_run
from play2prompt.store.db import RunStore
from play2prompt.store.meta import Meta
from play2prompt.tools.loading import parse_tools


class Miss(Exception):
    """The replay asked a request the run never logged."""


class LogOnly(EmbeddedLM):
    """The run's embedded task model, answering only from the call log."""

    def __init__(self, spec: str) -> None:
        super().__init__(spec.removeprefix("embedded:"))
        self.asked = 0

    async def chat(self, request: ChatRequest) -> ChatResponse:
        self.asked += 1
        return await super().chat(request)

    async def _generate(self, request: ChatRequest) -> Generation:
        raise Miss(request.messages[-1].get("content", "")[:80])


def as_checked(result: ToolResult) -> ToolResult:
    """The result as the check saw it: an adopted doc put back (the tool kept as given; the
    check rebuilds the proposal from the facts in its stats)."""
    mark = result.stats.get("set_check") or {}
    if not mark.get("adopted"):
        return result
    stats = {k: v for k, v in result.stats.items() if k != "set_check"}
    return replace(result, doc=result.original.doc, doc_changed=False,
                   doc_reason=mark.get("was", ""), stats=stats)


def decisions(check: dict[str, Any] | None) -> dict[str, str]:
    out = {}
    for d in (check or {}).get("decisions", []):
        verdict = ("undone" if d.get("undone") else "adopted" if d.get("adopted")
                   else "kept")
        gate = d.get("gate")
        where = f" gate {gate['fixed']}/{gate['asked']} of {gate['cases']}" if gate else ""
        out[d["tool"]] = f"{verdict} ({d['with_change']} vs {d['without']}{where})"
    return out


def replay(run_dir: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("run.db", "run.db-wal", "run.db-shm"):
            if (run_dir / name).exists():
                shutil.copy(run_dir / name, Path(tmp) / name)
        store = RunStore(Path(tmp) / "run.db")
        meta = store.run_meta()
        then = meta.set_check
        row = {"run": run_dir.name, "decisions_then": decisions(then)}
        if not then or not meta.tools:
            return {**row, "skipped": "no tool-set check"}
        if then.get("undone"):
            return {**row, "skipped": "the check undid a change (not kept in the store)"}
        tools = parse_tools(meta.tools, source=run_dir.name)
        stored = store.results()
        results = {t.name: as_checked(ToolResult.from_dict(stored[t.name])) for t in tools
                   if t.name in stored}
        config = OptimizeConfig.from_dict(meta.config)
        task = LogOnly(meta.models["task_model"]).with_log(store)
        engine = build_engine(tools, store, config, generator=task, task_model=task,
                              base_dir=Path(meta.base_dir or "."))
        store.set_meta(Meta.SET_CHECK, None)     # as before the check: it asks again
        calls_then = store._query("SELECT count(*) FROM llm_calls WHERE tag = ?",
                                  (SET_CHECK_TAG,))[0][0]
        try:
            asyncio.run(finish_run(results, engine))
        except Miss as exc:
            return {**row, "calls_then": calls_then, "miss": str(exc)}
        finally:
            store.close()
        now = RunStore(Path(tmp) / "run.db").get_meta(Meta.SET_CHECK)
        return {**row, "calls_then": calls_then, "calls_now": task.asked,
                "decisions_now": decisions(now),
                "same": (then.get("adopted"), then.get("undone"))
                == (now.get("adopted"), now.get("undone"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [replay(r) for r in args.runs if (r / "run.db").exists()]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        head = f"{r['run']}: "
        if "skipped" in r:
            print(head + "skipped: " + r["skipped"])
            continue
        if "miss" in r:
            print(head + f"miss (a request the run never logged: {r['miss']!r})")
            continue
        print(head + f"calls {r['calls_then']} -> {r['calls_now']}, shipped the same: "
              f"{'yes' if r['same'] else 'NO'}")
        for tool, then in r["decisions_then"].items():
            print(f"  {tool}: {then} -> {r['decisions_now'].get(tool, 'not tried')}")
    done = [r for r in rows if "calls_now" in r]
    if done:
        print(f"{len(done)} runs replayed: calls {sum(r['calls_then'] for r in done)} -> "
              f"{sum(r['calls_now'] for r in done)}, the same decisions in "
              f"{sum(r['same'] for r in done)}")


if __name__ == "__main__":
    main()
