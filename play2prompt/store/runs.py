"""Run folders: ``runs/<run-id>/`` with ``run.db``, ``run.lock`` and the exported results.

A run id is a name (letters, digits, ``.``, ``_``, ``-``), never a path, so a run is always a
folder of the runs folder. A folder whose start failed before anything was recorded can be
started again under the same id; :func:`unfinished_hint` says, on one line, what to do with a
run that has no result yet.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from play2prompt.errors import UserError
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.lock import lock_owner
from play2prompt.store.meta import EVAL_KIND, Meta, RunMeta, Status

DEFAULT_RUNS_DIR = Path("runs")
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
INTERRUPTED = "interrupted"     # status shown for a run left "running" by a dead process
NEVER_STARTED = "never started"


def default_runs_dir() -> Path:
    return Path(os.environ.get("P2P_RUNS_DIR", DEFAULT_RUNS_DIR))


def new_run_id(label: str = "run") -> str:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-")[:32] or "run"
    return f"{stamp}-{slug}-{secrets.token_hex(2)}"


def check_run_id(run_id: str) -> str:
    """``run_id`` if it is a name (not a path), else a one-line error."""
    if not _RUN_ID.fullmatch(run_id) or ".." in run_id:
        raise UserError(f"run id {run_id!r} must be a name: letters, digits, '.', '_' and '-' "
                        "(at most 128, no path)")
    return run_id


def create_run(runs_dir: Path | None = None, label: str = "run",
               run_id: str | None = None) -> RunStore:
    runs_dir = Path(runs_dir or default_runs_dir())
    run_id = check_run_id(run_id) if run_id else new_run_id(label)
    run_dir = runs_dir / run_id
    if (run_dir / DB_NAME).exists() and started(run_dir):
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


def read_meta(run_dir: Path) -> RunMeta:
    """The run's meta table (read-only)."""
    store = RunStore(Path(run_dir) / DB_NAME, read_only=True)
    try:
        return store.run_meta()
    finally:
        store.close()


def started(run_dir: Path) -> bool:
    """Whether the run recorded what it was started with (a failed start records nothing)."""
    meta = read_meta(run_dir)
    return meta.kind == EVAL_KIND or bool(meta.config and meta.tools)


def shown_status(run_dir: Path, meta: RunMeta) -> str:
    """The status to show: ``interrupted`` for a run left running by a dead process."""
    if meta.kind != EVAL_KIND and not (meta.config and meta.tools):
        return NEVER_STARTED
    if meta.status == Status.RUNNING and lock_owner(run_dir) is None:
        return INTERRUPTED
    return meta.status or "?"


def unfinished_hint(run_dir: Path) -> str:
    """Why a run has no result, and what to do, on one line."""
    name = run_dir.name
    meta = read_meta(run_dir)
    if meta.kind == EVAL_KIND:
        return f"{name!r} is an evaluation's folder, not an optimization run"
    status = shown_status(run_dir, meta)
    if status == NEVER_STARTED:
        return (f"run {name!r} never started (its start failed before anything was "
                f"recorded): start it again with p2p optimize TOOLS --run-id {name}")
    if status == Status.RUNNING:
        return (f"run {name!r} is still running (process {lock_owner(run_dir)}): wait for it "
                "to finish")
    return f"run {name!r} is not finished: resume it with p2p optimize --resume {name}"


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
    out: list[RunInfo] = []
    if runs_dir.exists() and not runs_dir.is_dir():
        raise UserError(f"{runs_dir}: a file, not a folder of runs")
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
                           shown_status(db.parent, meta), n_tools, samples))
    return out
