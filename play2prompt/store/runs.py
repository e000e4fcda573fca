"""Run folders: ``runs/<run-id>/`` with ``run.db`` and the exported results."""

from __future__ import annotations

import datetime as _dt
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from play2prompt.errors import UserError
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.meta import Meta

DEFAULT_RUNS_DIR = Path("runs")


def default_runs_dir() -> Path:
    return Path(os.environ.get("P2P_RUNS_DIR", DEFAULT_RUNS_DIR))


def new_run_id(label: str = "run") -> str:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-")[:32] or "run"
    return f"{stamp}-{slug}-{secrets.token_hex(2)}"


def create_run(runs_dir: Path | None = None, label: str = "run",
               run_id: str | None = None) -> RunStore:
    runs_dir = Path(runs_dir or default_runs_dir())
    run_id = run_id or new_run_id(label)
    run_dir = runs_dir / run_id
    if (run_dir / DB_NAME).exists():
        raise UserError(f"run {run_id!r} already exists in {runs_dir} (use --resume {run_id})")
    store = RunStore(run_dir / DB_NAME)
    store.set_meta(Meta.RUN_ID, run_id)
    store.set_meta(Meta.CREATED, _dt.datetime.now().isoformat(timespec="seconds"))
    return store


def resolve_run(ref: str | Path, runs_dir: Path | None = None) -> Path:
    """The folder of a run given its id or its path."""
    candidates = [Path(ref), Path(runs_dir or default_runs_dir()) / str(ref)]
    for cand in candidates:
        if (cand / DB_NAME).is_file():
            return cand
        if cand.name == DB_NAME and cand.is_file():
            return cand.parent
    raise UserError(f"no run {str(ref)!r} (looked in {candidates[0]} and {candidates[1]})")


def open_run(ref: str | Path, runs_dir: Path | None = None, read_only: bool = False) -> RunStore:
    return RunStore(resolve_run(ref, runs_dir) / DB_NAME, read_only=read_only)


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    path: Path
    created: str
    status: str
    tools: int
    samples: int


def list_runs(runs_dir: Path | None = None) -> list[RunInfo]:
    runs_dir = Path(runs_dir or default_runs_dir())
    out = []
    if not runs_dir.is_dir():
        return out
    for db in sorted(runs_dir.glob(f"*/{DB_NAME}")):
        try:
            store = RunStore(db, read_only=True)
            meta = store.run_meta()
            samples = store.call_stats()["total"]["samples"]
            n_tools = len(store.results())
            store.close()
        except Exception:  # noqa: BLE001 - a broken folder is listed, not fatal
            out.append(RunInfo(db.parent.name, db.parent, "?", "unreadable", 0, 0))
            continue
        out.append(RunInfo(db.parent.name, db.parent, meta.created or "?",
                           meta.status or "?", n_tools, samples))
    return out
