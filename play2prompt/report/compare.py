"""Several methods' docs for the same tools, side by side (``p2p report RUN RUN ...`` or
``p2p report --sweep NAME``).

Per tool: one row per doc field (the description, then every parameter) and one column per
method: the original doc, each run's optimized doc (labelled by its method: EasyTool, DRAFT,
P2P, P2P-Easy), and the hand-written oracle doc when there is one; then what each method cost
for the tool (LLM samples, tokens, tool calls) and why its doc was chosen.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.jsonutil import stable_hash
from play2prompt.results import RunResult, load_run_result
from play2prompt.tools.model import Tool, ToolDoc

METHOD_LABELS = {"play2prompt": "P2P", "easytool": "EasyTool", "draft": "DRAFT"}
ORIGINAL = "original"
ORACLE = "oracle"


def run_label(run: RunResult) -> str:
    """The method a run's docs come from, as the sweep tables name it."""
    method = str(run.config.get("method") or "play2prompt")
    label = METHOD_LABELS.get(method, method)
    if method == "play2prompt" and run.config.get("lam") == 0:
        label = "P2P-Easy"
    return label


@dataclass(frozen=True)
class Column:
    """One method's docs (and cost) for every tool it optimized."""

    label: str
    run_id: str | None = None
    docs: Mapping[str, ToolDoc] = field(default_factory=dict)
    stats: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return f"{self.label} ({self.run_id})" if self.run_id else self.label


@dataclass
class Comparison:
    title: str
    originals: dict[str, Tool]       # by tool name, the docs every method started from
    columns: list[Column]            # the original first, the oracle last
    tools: list[str]

    def rows(self, tool: str) -> list[list[str]]:
        """[field, text of each column] for the description and every parameter."""
        names = list(self.originals[tool].properties) or list(self.originals[tool].doc.params)
        out = [["description", *(c.docs[tool].description if tool in c.docs else "-"
                                 for c in self.columns)]]
        for name in names:
            out.append([f"param {name}", *(c.docs[tool].params.get(name, "") if tool in c.docs
                                           else "-" for c in self.columns)])
        return out

    def cost_rows(self, tool: str) -> list[list[Any]]:
        """[method, LLM samples, tokens, tool calls, why this doc] for the runs' columns."""
        out = []
        for c in self.columns:
            if tool not in c.stats:
                continue
            s = c.stats[tool]
            tokens = int(s.get("prompt_tokens", 0)) + int(s.get("completion_tokens", 0))
            out.append([c.title, s.get("llm_samples"), tokens,
                        s.get("tool_calls", s.get("play_attempts")), c.reasons.get(tool, "")])
        return out


def _column(run: RunResult) -> Column:
    return Column(run_label(run), run.run_id,
                  {n: r.doc for n, r in run.tools.items()},
                  {n: dict(r.stats) for n, r in run.tools.items()},
                  {n: r.doc_reason for n, r in run.tools.items()})


def compare_runs(runs: Sequence[RunResult], title: str,
                 oracle: Mapping[str, ToolDoc] | None = None,
                 tools: Sequence[str] | None = None) -> Comparison:
    """The runs' docs side by side, on the tools they all optimized (or ``tools``)."""
    if not runs:
        raise UserError("nothing to compare: give runs or a sweep")
    originals: dict[str, Tool] = {}
    for run in runs:
        for name, r in run.tools.items():
            originals.setdefault(name, r.original)
    common = [n for n in originals if all(n in run.tools for run in runs)]
    chosen = list(tools) if tools else common
    unknown = [n for n in chosen if n not in originals]
    if unknown:
        raise UserError(f"no tool {unknown[0]!r} in these runs (they have "
                        f"{', '.join(originals)})")
    if not chosen:
        raise UserError("these runs optimized no tool in common; pick one with --tool")
    columns = [Column(ORIGINAL, None, {n: t.doc for n, t in originals.items()})]
    columns += [_column(run) for run in runs]
    if oracle:
        columns.append(Column(ORACLE, None, dict(oracle)))
    return Comparison(title, originals, columns, chosen)


def from_runs(refs: Sequence[str | Path], runs_dir: Path | None = None,
              oracle_file: Path | None = None, tools: Sequence[str] | None = None
              ) -> Comparison:
    runs = [load_run_result(ref, runs_dir) for ref in refs]
    oracle = _oracle_docs(oracle_file) if oracle_file else None
    return compare_runs(runs, "methods compared: " + ", ".join(r.run_id for r in runs), oracle,
                        tools)


def _oracle_docs(path: Path) -> dict[str, ToolDoc]:
    from play2prompt.tools.loading import load_tools

    return {t.name: t.doc for t in load_tools(Path(path))}


def sweep_runs(sweep_dir: Path) -> list[str]:
    """The optimization runs of a finished sweep, in the summary's order of their variants."""
    from play2prompt.sweep.space import VARIANTS

    path = sweep_dir / "trials.csv"
    if not path.is_file():
        raise UserError(f"sweep {sweep_dir.name!r} has no finished trial ({path} is missing)")
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    order = list(VARIANTS)
    rows.sort(key=lambda r: order.index(r["variant"]) if r["variant"] in order else len(order))
    return list(dict.fromkeys(r["run_id"] for r in rows if r.get("run_id")))


def from_sweep(name: str, runs_dir: Path | None = None, tools: Sequence[str] | None = None
               ) -> Comparison:
    from play2prompt.sweep.runner import sweep_folder

    sweep_dir = sweep_folder(name, runs_dir)
    runs = [load_run_result(run_id, runs_dir) for run_id in sweep_runs(sweep_dir)]
    spec_path = sweep_dir / "sweep.json"
    spec = json.loads(spec_path.read_text()) if spec_path.is_file() else {}
    oracle = {n: ToolDoc.from_dict(d)
              for n, d in (spec.get("target", {}).get("oracle") or {}).items()}
    return compare_runs(runs, f"sweep {name}: methods compared", oracle, tools)


def default_folder(comparison: Comparison, runs_dir: Path) -> Path:
    ids = [c.run_id for c in comparison.columns if c.run_id]
    return Path(runs_dir) / f"compare-{stable_hash(ids, length=8)}"
