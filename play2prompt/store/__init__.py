"""The run store: one SQLite database per run (``runs/<run-id>/run.db``), run folders, and the
run's metadata as a typed record."""

from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.meta import Meta, RunMeta, Status
from play2prompt.store.runs import (
    RunInfo,
    create_run,
    default_runs_dir,
    list_runs,
    open_run,
    resolve_run,
)

__all__ = ["DB_NAME", "Meta", "RunInfo", "RunMeta", "RunStore", "Status", "create_run",
           "default_runs_dir", "list_runs", "open_run", "resolve_run"]
