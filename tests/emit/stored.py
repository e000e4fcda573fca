"""A small stored run for exporter and server tests: ``data/result.json`` in a real run folder.

The run holds three tools: ``loan_payment`` (doc rewritten, two demos; a real tool of
examples/tools.py), ``convert_units`` (doc kept, no demo; real too) and ``get-forecast`` (a name
that is not a Python identifier, an enum with a default, an array, a nullable parameter named
like a keyword, quotes and pipes in its texts; no executor exists for it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from play2prompt.store.db import DB_NAME, RunStore
from tests.conftest import EXAMPLES

DATA = Path(__file__).parent / "data"


def make_stored_run(runs_dir: Path, run_id: str = "golden", drop: tuple[str, ...] = ()) -> Path:
    """A finished run folder ``runs_dir/run_id`` (result.json + run.db); returns its path."""
    run_dir = runs_dir / run_id
    run_dir.mkdir(parents=True)
    data = json.loads((DATA / "result.json").read_text())
    data["run_id"] = run_id
    for name in drop:
        data["tools"].pop(name)
    (run_dir / "result.json").write_text(json.dumps(data, indent=2))
    store = RunStore(run_dir / DB_NAME)
    store.set_meta("run_id", run_id)
    store.set_meta("base_dir", str(EXAMPLES))
    store.set_meta("status", "done")
    store.close()
    return run_dir


def copy_tools_file(dest: Path) -> Path:
    """examples/tools.json and tools.py copied to ``dest`` (executors resolve next to it)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("tools.json", "tools.py"):
        shutil.copy(EXAMPLES / name, dest / name)
    return dest / "tools.json"
