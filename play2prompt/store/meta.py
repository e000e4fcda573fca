"""A run store's ``meta`` table: its keys, named once, and the typed record read from it.

An optimization run records its id, creation time, status, config, tools, model specs and base
folder (what ``--resume`` needs), and the names of every tool of the file it was started from;
a refreshed run also where it came from and the facts its play starts from; an evaluation
store records its ``kind`` and its config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


class Meta:
    """The keys of the ``meta`` table."""

    RUN_ID = "run_id"
    CREATED = "created"
    STATUS = "status"            # a Status
    KIND = "kind"                # "eval" for an evaluation's store; absent for a run
    CONFIG = "config"            # the OptimizeConfig (a run) or the evaluation's settings
    TOOLS = "tools"              # {"tools": [tool dicts]}: what a resumed run optimizes
    MODELS = "models"            # {"generator": spec, "task_model": spec}
    BASE_DIR = "base_dir"        # where the tools' executors resolve relative paths
    ERROR = "error"              # why the last session failed
    LAST_STATS = "last_stats"    # the last session's cost
    EVAL_CONFIG = "eval_config"  # a benchmark evaluation's settings (Spider, StableToolBench)
    CALIBRATION = "calibration"  # whether the generator judges and grades (measured once)
    REFRESHED_FROM = "refreshed_from"  # a refresh: the run it came from, what it reused
    SEED_FACTS = "seed_facts"    # {tool: [facts]}: what play starts from (a refresh's re-probed)
    FINGERPRINTS = "fingerprints"  # {model id: LM.fingerprint or None}: what may reuse calls
    REUSED_CALLS = "reused_calls"  # {"runs": [ids], "seeded": n}: samples copied from runs
    SET_CHECK = "set_check"      # the tool-set check's outcome (set_check_run.finish_run)
    SOURCE_TOOLS = "source_tools"  # {"names": [...]}: every tool of the file the run was
    #                                started from, optimized or not (verify tells them apart)


class Status:
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


EVAL_KIND = "eval"


@dataclass(frozen=True)
class RunMeta:
    """What the ``meta`` table holds, typed; absent keys are None (or empty)."""

    run_id: str | None = None
    created: str | None = None
    status: str | None = None
    kind: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    tools: Mapping[str, Any] | None = None
    models: Mapping[str, Any] = field(default_factory=dict)
    base_dir: str | None = None
    error: str | None = None
    last_stats: Mapping[str, Any] | None = None
    eval_config: Mapping[str, Any] | None = None
    calibration: Mapping[str, Any] | None = None
    refreshed_from: Mapping[str, Any] | None = None
    seed_facts: Mapping[str, Any] | None = None
    fingerprints: Mapping[str, Any] | None = None
    reused_calls: Mapping[str, Any] | None = None
    set_check: Mapping[str, Any] | None = None
    source_tools: Mapping[str, Any] | None = None

    @classmethod
    def from_dict(cls, meta: Mapping[str, Any]) -> RunMeta:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in meta.items() if k in known and v is not None}
        return cls(**values)
