"""Where the evaluations of a run's prompts are: recorded in the run, read back by the report.

``p2p eval ... --prompts RUN`` (any folder, ``-o`` or the default ``runs/eval-*``) appends
one line to the run folder's ``evaluations.jsonl``: the evaluation folder, as an absolute path
and relative to the run folder (a runs folder moved as a whole keeps its links), with the suite
and the time. The file is only ever appended to, one line per write, so two evaluations ending
at once do not clobber each other and the run's store is never opened for writing. The report
(:func:`recorded_folders`) reads it back: each folder once, those that still hold an
evaluation.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from play2prompt.store.db import DB_NAME

EVALUATIONS_FILE = "evaluations.jsonl"


def record_evaluation(run_dir: Path, eval_dir: Path, suite: str = "") -> Path:
    """Append ``eval_dir`` to ``run_dir``'s list of evaluations (once: a resumed evaluation
    is already there); returns the list's path."""
    run_dir, eval_dir = Path(run_dir).resolve(), Path(eval_dir).resolve()
    path = run_dir / EVALUATIONS_FILE
    if eval_dir in recorded_folders(run_dir):
        return path
    line = {"folder": str(eval_dir), "relative": _relative(eval_dir, run_dir),
            "suite": suite, "created": _dt.datetime.now().isoformat(timespec="seconds")}
    text = json.dumps(line, ensure_ascii=False) + "\n"
    with path.open("a+b") as fh:     # appends go to the end whatever was read
        if fh.seek(0, os.SEEK_END):
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                text = "\n" + text    # after a line cut short: a line of its own
        fh.write(text.encode("utf-8"))
    return path


def _relative(folder: Path, start: Path) -> str | None:
    try:
        return os.path.relpath(folder, start)
    except ValueError:   # another drive (Windows): no relative path
        return None


def _candidates(run_dir: Path, entry: object) -> list[Path]:
    if not isinstance(entry, dict):
        return []
    out = []
    if isinstance(entry.get("relative"), str):
        out.append(run_dir / entry["relative"])
    if isinstance(entry.get("folder"), str):
        out.append(Path(entry["folder"]))
    return out


def recorded_folders(run_dir: Path) -> list[Path]:
    """The evaluation folders recorded in ``run_dir`` that still hold an evaluation, each once,
    in the order they were recorded. A line that is not JSON (a write cut short) is skipped."""
    run_dir = Path(run_dir).resolve()
    path = run_dir / EVALUATIONS_FILE
    if not path.is_file():
        return []
    found: dict[Path, None] = {}
    for text in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(text)
        except ValueError:
            continue
        folder = next((f for f in _candidates(run_dir, entry) if (f / DB_NAME).is_file()),
                      None)
        if folder is not None:
            found.setdefault(folder.resolve())
    return list(found)
