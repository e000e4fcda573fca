"""A Step-1 example E = (request, tool, call, output, answer) with its rewards and checks: the
record Step 1 produces, Step 1b adds to and Step 2 decides on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from play2prompt.agent.prompt import Demo
from play2prompt.method.requests import REREAD_PROBLEM
from play2prompt.tools.model import Invocation, Observation


@dataclass(frozen=True)
class Example:
    tool: str
    query: str
    invocation: Invocation
    observation: Observation
    answer: str
    r_q: float
    r_e: float
    reward: float
    checks: Any = field(default_factory=dict)
    grade: float | None = None
    solved: bool = False              # the task model answered it right with D0
    attempt: str = ""                 # the task model's raw answer
    reflection: str = ""
    refinement_round: int = 0
    problems: tuple[str, ...] = ()    # gates the request failed (empty: it passed)
    rederived: str = ""               # the call re-read from the request
    fact: str = ""                    # the fact it tests (Step 1b), "param: what the tool takes"

    def tests_fact(self, param: str, text: str) -> bool:
        """Whether this fact test checks the fact ``text`` about ``param`` (its ``fact`` is
        "param: rule sentences", cut at 300 characters)."""
        return self.fact.startswith(f"{param}: ") and text[:120] in self.fact

    @property
    def verified(self) -> bool:
        """Executed successfully, and the request passed every gate: it reads like a user's
        and re-reading it gives the same call."""
        return self.observation.ok and bool(self.query) and not self.problems

    @property
    def clean(self) -> bool:
        """Reads like a user's request (no code, identifiers or copied instructions)."""
        return not any(not p.startswith(REREAD_PROBLEM) for p in self.problems)

    def demo(self) -> Demo:
        return Demo(self.query, (self.invocation,), self.answer or None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool, "query": self.query, "invocation": self.invocation.to_dict(),
            "observation": self.observation.to_dict(), "answer": self.answer,
            "r_q": self.r_q, "r_e": self.r_e, "reward": self.reward, "checks": dict(self.checks),
            "grade": self.grade, "solved": self.solved, "attempt": self.attempt,
            "reflection": self.reflection, "refinement_round": self.refinement_round,
            "problems": list(self.problems), "rederived": self.rederived, "fact": self.fact,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Example:
        return cls(d["tool"], d["query"], Invocation.from_dict(d["invocation"]),
                   Observation.from_dict(d["observation"]), d["answer"], float(d["r_q"]),
                   float(d["r_e"]), float(d["reward"]), d.get("checks") or {}, d.get("grade"),
                   bool(d.get("solved")), d.get("attempt", ""), d.get("reflection", ""),
                   int(d.get("refinement_round", 0)), tuple(d.get("problems") or ()),
                   d.get("rederived", ""), d.get("fact", ""))
