"""Spider problems: a question, its gold answer and its solution sets (problems.jsonl).

A solution set is a sequence of calls that answers the question: the direct function, or a
composition of smaller functions where a call's list argument is the output of an earlier call
(``inputs``: argument name -> index of the producing call). Gold arguments are the values the
calls were verified with at generation time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.tools.model import Invocation

TOOLS_FILE = "tools.json"
PROBLEMS_FILE = "problems.jsonl"
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class SolutionCall:
    name: str
    arguments: Mapping[str, Any]
    inputs: Mapping[str, int] = field(default_factory=dict)

    def invocation(self) -> Invocation:
        return Invocation(self.name, dict(self.arguments))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "arguments": dict(self.arguments)}
        if self.inputs:
            out["inputs"] = dict(self.inputs)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SolutionCall:
        return cls(str(d["name"]), dict(d.get("arguments") or {}),
                   {str(k): int(v) for k, v in (d.get("inputs") or {}).items()})


@dataclass(frozen=True)
class Problem:
    id: str
    db_id: str
    question: str
    query: str                                       # the gold SQL
    columns: tuple[str, ...]
    gold: tuple[Mapping[str, Any], ...]              # the gold SQL's rows as records
    solutions: tuple[tuple[SolutionCall, ...], ...]  # [direct], [part, ..., outer], ...

    @property
    def solution_functions(self) -> set[str]:
        return {c.name for sol in self.solutions for c in sol}

    @property
    def has_backup(self) -> bool:
        """Whether disabling any one solution function leaves a solution set intact."""
        names = self.solution_functions
        return all(any(name not in {c.name for c in sol} for sol in self.solutions)
                   for name in names)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "db_id": self.db_id, "question": self.question,
                "query": self.query, "columns": list(self.columns),
                "gold": [dict(r) for r in self.gold],
                "solutions": [[c.to_dict() for c in sol] for sol in self.solutions]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Problem:
        return cls(str(d["id"]), str(d["db_id"]), str(d["question"]), str(d.get("query", "")),
                   tuple(d.get("columns") or ()), tuple(dict(r) for r in d["gold"]),
                   tuple(tuple(SolutionCall.from_dict(c) for c in sol)
                         for sol in d["solutions"]))


def write_problems(path: Path, problems: Iterable[Problem]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for p in problems:
            fh.write(json.dumps(p.to_dict(), ensure_ascii=False, default=str) + "\n")
            count += 1
    return count


def read_problems(path: Path) -> list[Problem]:
    if not path.is_file():
        raise UserError(f"no problems file at {path} (make one with: p2p data spider "
                        f"--spider-dir DIR -o {path.parent})")
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Problem.from_dict(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise UserError(f"{path}:{lineno}: not a problem record ({exc})") from exc
    return out
