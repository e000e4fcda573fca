"""``p2p runs list`` and ``p2p runs show``."""

from __future__ import annotations

from pathlib import Path

import typer

from play2prompt.cli._common import console, fmt, table
from play2prompt.store.meta import Meta

app = typer.Typer(help="List and inspect runs.", no_args_is_help=True)


@app.command("list")
def list_command(runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR")) -> None:
    """List the runs in the runs folder."""
    from play2prompt.store.runs import list_runs

    infos = list_runs(runs_dir)
    if not infos:
        console.print(f"no runs in {runs_dir}")
        return
    rows = [[i.run_id, i.created, i.status, i.tools, i.samples] for i in infos]
    console.print(table("runs", ["run", "created", "status", "tools done", "LLM samples"], rows))


@app.command("show")
def show_command(run: str, runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR")
                 ) -> None:
    """Show a run: config, per-tool results and cost."""
    from play2prompt.scrub import Scrubber
    from play2prompt.store.runs import open_run, shown_status

    store = open_run(run, runs_dir, read_only=True)
    meta = store.all_meta()
    status = shown_status(store.run_dir, store.run_meta())
    console.print(f"run {meta.get(Meta.RUN_ID)} ({status}), created "
                  f"{meta.get(Meta.CREATED)}")
    console.print(f"models: {Scrubber().value(meta.get(Meta.MODELS))}")  # keys in URLs
    origin = meta.get(Meta.REFRESHED_FROM)
    if origin:
        console.print(f"refreshed from run {origin.get('run')}: re-optimized "
                      f"{', '.join(origin.get('reoptimized') or []) or 'none'}; reused "
                      f"{', '.join(origin.get('reused') or []) or 'none'}")
    rows = []
    for name, r in store.results().items():
        s = r.get("stats", {})
        rows.append([name, s.get("valid_invocations"), s.get("demos"), fmt(s.get("best_reward")),
                     "yes" if r.get("doc_changed") else "no", r.get("doc_reason", "")])
    console.print(table("tools", ["tool", "valid calls", "demos", "best reward", "doc changed",
                                  "why"], rows))
    calls = store.call_stats()
    console.print(f"logged LLM samples: {calls['total']}")
    execs = store.execution_stats()
    console.print(f"tool executions: {sum(v['total'] for v in execs.values())} "
                  f"({sum(v['ok'] for v in execs.values())} ok)")
