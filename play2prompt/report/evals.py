"""The evaluations a run report shows: each once, with its sides side by side.

An evaluation is recorded once per side (``p2p eval`` writes ``suite:baseline``,
``suite:full``, ``suite:oracle`` with the same summary) or once per sweep trial (in the run's
own store). Records with the same source, config and summary are one evaluation here.

Each side's accuracy comes from the summary's accuracy table (``<side> exec %``; the weighted
average row is the accuracy over all queries), its wins and losses against the baseline and
McNemar's p from the summary's ``paired`` list (written since the comparison exists; for an
older evaluation folder, read from its ``summary.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.jsonutil import canonical

BASELINE = "baseline"
ORACLE = "oracle"
WEIGHTED_AVERAGE = "weighted average"
PLAIN_AVERAGE = "plain average"
EXEC = " exec %"


@dataclass(frozen=True)
class SideScore:
    """One side of an evaluation: its accuracy and, but for the baseline, how it compares."""

    name: str                     # the side's name in the evaluation: baseline, full, oracle
    label: str                    # what the report calls it: original, optimized, oracle
    accuracy: float | None        # percent, over all queries
    wins: int | None = None       # queries it gets right and the baseline does not
    losses: int | None = None
    p_value: float | None = None  # McNemar's exact test on wins vs losses


@dataclass(frozen=True)
class EvalView:
    id: str
    source: str                               # "run" (its own store) or an eval folder
    config: Mapping[str, Any]
    accuracy: Sequence[Mapping[str, Any]]     # per category, then the averages
    cost: Sequence[Mapping[str, Any]] = ()
    paired: Sequence[Mapping[str, Any]] = ()
    created: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def sides(self) -> list[str]:
        """The sides in the order of the accuracy table's columns."""
        cols = list(self.accuracy[0]) if self.accuracy else []
        return [c[: -len(EXEC)] for c in cols if c.endswith(EXEC)]

    @property
    def optimized(self) -> str | None:
        """The side with the run's prompts (neither the baseline nor the oracle)."""
        return next((s for s in self.sides if s not in (BASELINE, ORACLE)), None)

    @property
    def n(self) -> int | None:
        row = self.overall_row()
        return None if row is None else row.get("n")

    @property
    def title(self) -> str:
        cfg = self.config
        where = "" if self.source == "run" else f" ({self.source})"
        parts = [f"task model {cfg.get('task_model')}"]
        if cfg.get("demos") is not None:
            parts.append(f"{cfg.get('demos')} demos")
        if cfg.get("sweep"):
            parts.append(f"sweep {cfg.get('sweep')}")
        return f"{self.id}: " + ", ".join(parts) + where

    def overall_row(self) -> Mapping[str, Any] | None:
        rows = [r for r in self.accuracy if r.get("category") == WEIGHTED_AVERAGE]
        if rows:
            return rows[0]
        plain = [r for r in self.accuracy if r.get("category") != PLAIN_AVERAGE]
        return plain[0] if len(plain) == 1 else None

    def categories(self) -> dict[str, Mapping[str, Any]]:
        return {str(r.get("category")): r for r in self.accuracy
                if r.get("category") not in (WEIGHTED_AVERAGE, PLAIN_AVERAGE)}

    def scores(self) -> list[SideScore]:
        """Original, optimized and oracle (when evaluated), in that order."""
        overall = self.overall_row() or {}
        pairs = {str(p.get("side")): p for p in self.paired}
        out = []
        for side in sorted(self.sides, key=_side_order):
            p = pairs.get(side, {})
            wins, losses = p.get("wins"), p.get("losses")
            out.append(SideScore(
                side, side_label(side, self.optimized), overall.get(side + EXEC),
                _count(wins), _count(losses), p.get("p_value")))
        return out


def _side_order(side: str) -> int:
    return 0 if side == BASELINE else 2 if side == ORACLE else 1


def _count(value: Any) -> int | None:
    if value is None:
        return None
    return len(value) if isinstance(value, (list, tuple)) else int(value)


def side_label(side: str, optimized: str | None = None) -> str:
    if side == BASELINE:
        return "original"
    if side == ORACLE:
        return "oracle"
    return "optimized" if side == optimized and side == "full" else f"optimized ({side})"


def _folder_paired(source: str, config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``paired`` list of an eval folder's ``summary.json`` when it is this evaluation's."""
    path = Path(source) / "summary.json"
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if canonical(data.get("config") or {}) != canonical(dict(config)):
        return []
    return list(data.get("paired") or [])


def _name(record: Mapping[str, Any]) -> str:
    """``tools:full`` (one record per side of an evaluation) is evaluation ``tools``."""
    eval_id = str(record["id"])
    side = str(record.get("config", {}).get("variant") or "")
    for suffix in (BASELINE, ORACLE, side):
        if suffix and eval_id.endswith(":" + suffix) and record.get("source") != "run":
            return eval_id[: -len(suffix) - 1]
    return eval_id


def eval_views(records: Iterable[Mapping[str, Any]]) -> list[EvalView]:
    """One view per evaluation (records of its sides merged), oldest first."""
    seen: dict[str, EvalView] = {}
    for rec in records:
        summary = rec.get("summary") or {}
        accuracy = summary.get("accuracy") or []
        if not accuracy:
            continue
        config, source = rec.get("config") or {}, str(rec.get("source", "run"))
        key = canonical([source, config, accuracy])
        if key in seen:
            continue
        paired = summary.get("paired") or (
            _folder_paired(source, config) if source != "run" else [])
        seen[key] = EvalView(_name(rec), source, config, accuracy, summary.get("cost") or [],
                             paired, float(rec.get("created") or 0.0))
    return sorted(seen.values(), key=lambda v: v.created)


def primary(views: Sequence[EvalView]) -> EvalView | None:
    """The evaluation the first screen shows: the latest of the run's full prompts (docs and
    demos), else the latest."""
    full = [v for v in views if v.optimized == "full"]
    chosen = full or [v for v in views if v.optimized] or list(views)
    return chosen[-1] if chosen else None
