"""Identical LLM calls reused across runs (``p2p optimize --reuse-calls RUN,...``; a sweep's
trials): common random numbers, and no call paid twice.

A sample's key is the hash of the model id, the whole request (its seed included) and the
sample's index, and each sample's seed is derived from the request's, so an identical request
to the same model gives the same answer. Before a run's first call, its call log is seeded with
the logged samples of the given earlier runs whose model is the same: the same model id *and*
the same :attr:`~play2prompt.lm._base.LM.fingerprint` (the weights' hash), which every run
records in its meta (``Meta.FINGERPRINTS``), as the calibration cache keys by it
(:mod:`play2prompt.store.calibrations`). A model without a fingerprint, or a run that recorded
none, is never reused. A request the new run makes identically is answered from the log (a
cache hit, as on a resume); every other is generated. The seeded samples the finished run never
asked for are dropped from its log, so its logged cost stays its configuration's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from play2prompt.lm._base import LM
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.meta import Meta
from play2prompt.store.runs import read_meta, resolve_run


@dataclass(frozen=True)
class Reuse:
    """What a run took from earlier runs' call logs."""

    runs: tuple[str, ...]     # the runs its log was seeded from
    seeded: int               # samples copied into its log
    hit: int = 0              # of them, the requests it was answered from

    def to_dict(self) -> dict[str, Any]:
        return {"runs": list(self.runs), "seeded": self.seeded, "hit": self.hit}


def model_fingerprints(lms: Iterable[LM]) -> dict[str, str | None]:
    """Model id -> fingerprint (None where there is none, or two models share the id)."""
    out: dict[str, str | None] = {}
    for lm in lms:
        found = lm.fingerprint
        out[lm.model_id] = found if out.get(lm.model_id, found) == found else None
    return out


def matching_models(own: Mapping[str, str | None], theirs: Mapping[str, Any]) -> list[str]:
    """The model ids whose samples may be reused: the same id and the same fingerprint."""
    return sorted(m for m, fp in own.items() if fp and theirs.get(m) == fp)


def resolve_sources(refs: Sequence[str], runs_dir: Path | None) -> list[Path]:
    """The folders of the runs named (one line for one that is not there)."""
    return [resolve_run(ref, runs_dir) for ref in refs]


def seed_run(store: RunStore, lms: Iterable[LM], sources: Sequence[Path]) -> Reuse | None:
    """Record the run's models' fingerprints, then seed its log from ``sources`` (a run
    itself, or one with other models, gives nothing). Idempotent: a resumed run seeded again
    adds only what it lacks. Returns what the run has reused so far (None: nothing asked)."""
    own = model_fingerprints(lms)
    store.set_meta(Meta.FINGERPRINTS, own)
    before = store.get_meta(Meta.REUSED_CALLS) or {}
    runs, seeded = list(before.get("runs") or []), int(before.get("seeded") or 0)
    for folder in sources:
        if folder.resolve() == store.run_dir.resolve():
            continue
        meta = read_meta(folder)
        models = matching_models(own, meta.fingerprints or {})
        seeded += store.import_samples(folder / DB_NAME, models, meta.run_id or folder.name)
        if (meta.run_id or folder.name) not in runs:
            runs.append(meta.run_id or folder.name)
    if not runs:
        return None
    store.set_meta(Meta.REUSED_CALLS, {"runs": runs, "seeded": seeded})
    return reuse_of(store)


def reuse_of(store: RunStore) -> Reuse | None:
    """What the run reused (from its meta and its seeded samples), or None."""
    recorded = store.get_meta(Meta.REUSED_CALLS)
    if not recorded:
        return None
    try:
        hit = store.seeded_counts()[1]
    except sqlite3.OperationalError:  # a read-only store from before the migration
        hit = 0
    return Reuse(tuple(recorded.get("runs") or ()), int(recorded.get("seeded") or 0), hit)
