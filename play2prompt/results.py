"""Records of a finished optimization: per-tool results and the run's result files.

``runs/<run-id>/result.json`` holds, per tool, the original tool, the optimized documentation,
the verified demonstrations and the scores; ``tools.optimized.json`` is a tools.json with the
optimized docs applied (usable as is by ``p2p optimize`` / ``p2p eval``). Exporters, servers and
evaluations read these through :func:`load_run_result`.

Both files are published: they are written through the run's scrubber (:mod:`play2prompt.scrub`:
the secrets of the tools' executors and anything shaped like a secret), and
:func:`load_run_result` scrubs again what it reads, so nothing that reads a run's result can
read around the scrubber (the run store keeps the raw observations: it is the resume log).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.agent.prompt import Demo
from play2prompt.errors import UserError
from play2prompt.scrub import Scrubber, for_tools
from play2prompt.tools.model import Tool, ToolDoc

RESULT_FILE = "result.json"
OPTIMIZED_TOOLS_FILE = "tools.optimized.json"


@dataclass(frozen=True)
class ToolResult:
    name: str
    original: Tool                       # the tool as optimized from (D0)
    doc: ToolDoc                         # the chosen documentation
    demos: tuple[Demo, ...] = ()
    doc_changed: bool = False
    doc_reason: str = ""
    scores: Mapping[str, Any] = field(default_factory=dict)
    stats: Mapping[str, Any] = field(default_factory=dict)

    @property
    def optimized(self) -> Tool:
        return self.original.with_doc(self.doc)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "original": self.original.to_dict(),
            "doc": self.doc.to_dict(),
            "demos": [d.to_dict() for d in self.demos],
            "doc_changed": self.doc_changed,
            "doc_reason": self.doc_reason,
            "scores": dict(self.scores),
            "stats": dict(self.stats),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolResult:
        return cls(
            name=d["name"],
            original=Tool.from_dict(d["original"]),
            doc=ToolDoc.from_dict(d["doc"]),
            demos=tuple(Demo.from_dict(x) for x in d.get("demos", [])),
            doc_changed=bool(d.get("doc_changed")),
            doc_reason=d.get("doc_reason", ""),
            scores=d.get("scores") or {},
            stats=d.get("stats") or {},
        )


@dataclass
class RunResult:
    run_id: str
    run_dir: Path
    tools: dict[str, ToolResult]
    config: Mapping[str, Any] = field(default_factory=dict)
    stats: Mapping[str, Any] = field(default_factory=dict)

    def optimized_tools(self) -> list[Tool]:
        return [r.optimized for r in self.tools.values()]

    def original_tools(self) -> list[Tool]:
        return [r.original for r in self.tools.values()]

    def demos(self, name: str, k: int | None = None) -> list[Demo]:
        demos = list(self.tools[name].demos) if name in self.tools else []
        return demos if k is None else demos[:k]

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "config": dict(self.config), "stats": dict(self.stats),
                "tools": {n: r.to_dict() for n, r in self.tools.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], run_dir: Path) -> RunResult:
        tools = {n: ToolResult.from_dict(r) for n, r in data["tools"].items()}
        return cls(data.get("run_id", run_dir.name), run_dir, tools, data.get("config", {}),
                   data.get("stats", {}))

    def scrubber(self, extra: Scrubber | None = None) -> Scrubber:
        """The run's scrubber: its tools' secrets (read from the environment), plus ``extra``."""
        own = for_tools(self.original_tools())
        return own.merged(extra) if extra is not None else own

    def published(self, scrubber: Scrubber | None = None) -> RunResult:
        """This result as it may be published: every text through the run's scrubber."""
        clean = self.scrubber(scrubber).value(json.loads(json.dumps(self.to_dict(),
                                                                    default=str)))
        return RunResult.from_dict(clean, self.run_dir)

    def write(self, scrubber: Scrubber | None = None) -> RunResult:
        """Write ``result.json`` and ``tools.optimized.json`` (scrubbed); the published result."""
        public = self.published(scrubber)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / RESULT_FILE).write_text(json.dumps(public.to_dict(), indent=2,
                                                           default=str) + "\n")
        optimized = {"tools": [t.to_dict() for t in public.optimized_tools()]}
        (self.run_dir / OPTIMIZED_TOOLS_FILE).write_text(json.dumps(optimized, indent=2) + "\n")
        return public


def load_run_result(ref: str | Path, runs_dir: Path | None = None) -> RunResult:
    """The result of a finished run, by id or path."""
    from play2prompt.store.runs import resolve_run, unfinished_hint

    run_dir = resolve_run(ref, runs_dir)
    path = run_dir / RESULT_FILE
    if not path.is_file():
        raise UserError(f"{unfinished_hint(run_dir)} (no {RESULT_FILE} yet)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return RunResult.from_dict(data, run_dir).published()
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UserError(f"{path}: not a result file play2prompt can read "
                        f"({type(exc).__name__}: {exc})") from exc
