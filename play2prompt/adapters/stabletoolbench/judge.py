"""The solvable pass rate, computed as StableToolBench computes it.

Per query and per evaluation run: a trajectory without ``Finish``, or one that gives up (or
finishes with an empty answer), is Unsolved without asking anyone. Otherwise the judge LM reads
the request and the final answer and says Solved, Unsure or Unsolved; when it is unsure it reads
the whole trajectory and decides again (it may stay unsure). Solved counts 1, Unsure 0.5,
Unsolved 0. A run's pass rate is the mean over queries; the reported pass rate is the mean over
``evaluate_times`` runs (with their standard deviation); the average over subsets is the mean of
the subsets' pass rates.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.agent import Trajectory
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.metaprompts import MetaPrompts

SOLVED, UNSURE, UNSOLVED = "Solved", "Unsure", "Unsolved"
SCORES = {SOLVED: 1.0, UNSURE: 0.5, UNSOLVED: 0.0}
JUDGE_SCHEMA = object_schema({
    "reason": {"type": "string", "maxLength": 300},
    "answer_status": {"type": "string", "enum": [SOLVED, UNSURE, UNSOLVED]},
})
JUDGE_TRIES = 3
TRAJECTORY_CHARS = 6000


@dataclass(frozen=True)
class Judgment:
    status: str
    reason: str
    detailed: bool = False        # the trajectory was read (the first answer was Unsure)

    @property
    def score(self) -> float:
        return SCORES[self.status]

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "score": self.score, "reason": self.reason,
                "detailed": self.detailed}


def precheck(traj: Trajectory) -> Judgment | None:
    """The verdicts code can give: no Finish, a give-up, an empty answer."""
    if traj.finish is None:
        return Judgment(UNSOLVED, f"no Finish ({traj.stop_reason}: {traj.detail})".strip())
    if traj.gave_up:
        return Judgment(UNSOLVED, "gave up")
    if not traj.final_answer:
        return Judgment(UNSOLVED, "empty final answer")
    return None


def restates(answer: str, query: str, share: float = 0.8) -> bool:
    """The answer's words are (nearly) all taken from the request."""
    words = re.findall(r"\w+", answer.lower())
    known = set(re.findall(r"\w+", query.lower()))
    return bool(words) and sum(w in known for w in words) / len(words) >= share


def code_check(traj: Trajectory) -> Judgment | None:
    """What code can tell about an answer a small judge would wave through: no function call
    succeeded (every query here needs API results), or the answer restates the request."""
    if not any(s.ok for s in traj.steps):
        return Judgment(UNSOLVED, "code check: no API call succeeded before the answer")
    if restates(traj.final_answer, traj.query):
        return Judgment(UNSOLVED, "code check: the answer only restates the request")
    return None


def trajectory_json(traj: Trajectory, limit: int = TRAJECTORY_CHARS) -> str:
    steps = [{"action": s.action, "action_input": s.action_input,
              "observation": s.observation[:800]} for s in traj.steps]
    text = json.dumps({"final_answer": traj.final_answer, "steps": steps}, ensure_ascii=False,
                      default=str)
    return text if len(text) <= limit else text[:limit] + "...(truncated)"


async def _ask(lm: Any, messages: list[dict[str, str]], seed: int,
               temperature: float) -> tuple[str, str] | None:
    for attempt in range(JUDGE_TRIES):
        (value,), _ = await chat_json(lm, messages, JUDGE_SCHEMA, role="judge",
                                      seed=derive_seed(seed, attempt), temperature=temperature,
                                      max_tokens=300)
        if isinstance(value, dict):
            return str(value["answer_status"]), str(value.get("reason", ""))
    return None


async def judge(lm: Any, traj: Trajectory, seed: int = 0, prompts: MetaPrompts | None = None,
                temperature: float = 0.7, code_checks: bool = False) -> Judgment:
    """One evaluation run's verdict on one trajectory (``code_checks``: see :func:`code_check`;
    StableToolBench itself leaves those to its judge)."""
    early = precheck(traj) or (code_check(traj) if code_checks else None)
    if early is not None:
        return early
    prompts = prompts or MetaPrompts()
    messages = prompts.render("judge_answer", query=traj.query, answer=traj.final_answer)
    first = await _ask(lm, messages, derive_seed("answer", traj.query_id, seed), temperature)
    if first is None:
        return Judgment(UNSOLVED, "the judge's verdict could not be read")
    if first[0] != UNSURE:
        return Judgment(first[0], first[1])
    messages = prompts.render("judge_trajectory", query=traj.query,
                              trajectory=trajectory_json(traj))
    second = await _ask(lm, messages, derive_seed("trajectory", traj.query_id, seed),
                        temperature)
    if second is None:
        return Judgment(UNSURE, first[1], detailed=True)
    return Judgment(second[0], second[1], detailed=True)


@dataclass(frozen=True)
class PassRate:
    mean: float                   # in [0, 1]
    std: float
    per_run: tuple[float, ...]
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {"pass_rate": self.mean, "std": self.std, "per_run": list(self.per_run),
                "n": self.n}


def pass_rate(scores: Sequence[Sequence[float]]) -> PassRate:
    """``scores[query][run]`` (1 / 0.5 / 0) -> mean over queries, then over runs."""
    if not scores:
        return PassRate(0.0, 0.0, (), 0)
    runs = max(len(s) for s in scores)
    per_run = tuple(sum(s[k] if k < len(s) else 0.0 for s in scores) / len(scores)
                    for k in range(runs))
    std = statistics.pstdev(per_run) if len(per_run) > 1 else 0.0
    return PassRate(sum(per_run) / len(per_run), std, per_run, len(scores))


def average(rates: Sequence[PassRate]) -> PassRate:
    """The average over subsets: the mean of their pass rates."""
    if not rates:
        return PassRate(0.0, 0.0, (), 0)
    runs = max(len(r.per_run) for r in rates)
    per_run = tuple(statistics.fmean(r.per_run[k] for r in rates if k < len(r.per_run))
                    for k in range(runs))
    std = statistics.pstdev(per_run) if len(per_run) > 1 else 0.0
    return PassRate(statistics.fmean(r.mean for r in rates), std, per_run,
                    sum(r.n for r in rates))
