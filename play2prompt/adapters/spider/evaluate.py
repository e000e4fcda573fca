"""Backup-plan evaluation: run the agent on every problem, without and with faults.

Each (prompt variant, fault setting, problem) is one episode of :func:`play2prompt.agent.run_agent`
in a fresh :class:`~.env.SpiderEnv`. The agent's seed depends on the problem only, so the
settings of one problem differ by the fault alone. Episodes are scored by
:func:`~.scoring.answer_matches` and stored in the run store as they finish (a resumed
evaluation skips the stored ones; LLM calls replay from the store's log).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from play2prompt.adapters.spider.env import SETTINGS, WORLDS, SpiderEnv, pick_distractors
from play2prompt.adapters.spider.problems import Problem
from play2prompt.adapters.spider.retrieval import ToolIndex
from play2prompt.adapters.spider.scoring import answer_matches
from play2prompt.agent import AgentConfig, run_agent
from play2prompt.errors import UserError
from play2prompt.evaluation.items import PromptSide
from play2prompt.jsonutil import derive_seed
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.model import Tool

EVAL_NAME = "spider"
WORLD_TEXT = {
    "closed": "The functions you can call are listed with their documentation.",
    "open": "Find functions with search_tools, read how to call one with get_info, then call "
            "it: functions you found become callable.",
}


@dataclass(frozen=True)
class EvalConfig:
    world: str = "closed"
    distractors: int = 4
    settings: tuple[str, ...] = ("none", "fault")
    mode: str = "function-calling"
    max_turns: int = 6
    seed: int = 0
    limit: int | None = None
    all_problems: bool = False      # also problems without a backup plan
    concurrency: int = 4
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if self.world not in WORLDS:
            raise UserError(f"--world must be one of {', '.join(WORLDS)}, got {self.world!r}")
        bad = [s for s in self.settings if s not in SETTINGS]
        if bad or not self.settings:
            raise UserError(f"--settings takes a comma list of {', '.join(SETTINGS)}, "
                            f"got {','.join(self.settings)!r}")
        if self.max_turns < 1 or self.distractors < 0:
            raise UserError("--max-turns must be >= 1 and --distractors >= 0")

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class ItemResult:
    variant: str
    setting: str
    problem_id: str
    correct: bool
    stop: str
    turns: int
    tool_calls: int
    fault_tool: str | None
    fault_messages: int
    answer: Any
    trajectory: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def gave_up(self) -> bool:
        return self.stop == "give_up"

    def row(self) -> dict[str, Any]:
        return {"variant": self.variant, "setting": self.setting, "problem": self.problem_id,
                "correct": self.correct, "gave_up": self.gave_up, "stop": self.stop,
                "turns": self.turns, "tool_calls": self.tool_calls,
                "fault_tool": self.fault_tool, "fault_messages": self.fault_messages,
                "answer": self.answer}

    def to_dict(self) -> dict[str, Any]:
        return {**self.row(), "trajectory": dict(self.trajectory)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ItemResult:
        return cls(d["variant"], d["setting"], d["problem"], bool(d["correct"]), d["stop"],
                   int(d["turns"]), int(d["tool_calls"]), d.get("fault_tool"),
                   int(d.get("fault_messages") or 0), d.get("answer"),
                   d.get("trajectory") or {})

    @property
    def key(self) -> str:
        return item_key(self.variant, self.setting, self.problem_id)


def item_key(variant: str, setting: str, problem_id: str) -> str:
    return f"{variant}/{setting}/{problem_id}"


def select_problems(problems: Sequence[Problem], cfg: EvalConfig) -> list[Problem]:
    chosen = [p for p in problems if cfg.all_problems or p.has_backup]
    if not chosen:
        raise UserError("no problem has a backup plan (a subquery or set operation giving a "
                        "second solution set); use --all-problems to evaluate the others")
    return chosen[: cfg.limit] if cfg.limit is not None else chosen


def system_text(prompts: MetaPrompts, problem: Problem, env: SpiderEnv, cfg: EvalConfig
                ) -> tuple[str, str]:
    demos = env.demos_text(cfg.mode) if cfg.world == "closed" else ""
    messages = prompts.render("agent_spider", db_id=problem.db_id, world=WORLD_TEXT[cfg.world],
                              demos=demos, question=problem.question)
    return messages[0]["content"], messages[-1]["content"]


async def run_item(lm: Any, problem: Problem, side: PromptSide, library: Mapping[str, Tool],
                   setting: str, cfg: EvalConfig, runtime: Any, index: ToolIndex,
                   prompts: MetaPrompts) -> ItemResult:
    """One episode: ``side`` decides the docs and demos of the ``library``'s tools."""
    distractors = (pick_distractors(index, problem, cfg.distractors)
                   if cfg.world == "closed" else [])
    env = SpiderEnv(problem, side.library(library), runtime, world=cfg.world, setting=setting,
                    index=index, distractors=distractors,
                    demos={n: side.demos_of(n) for n in side.demos}, seed=cfg.seed)
    system, question = system_text(prompts, problem, env, cfg)
    agent_cfg = AgentConfig(max_turns=cfg.max_turns, mode=cfg.mode,
                            temperature=cfg.temperature,
                            seed=derive_seed(cfg.seed, problem.id))
    traj = await run_agent(lm, env, question, system=system, config=agent_cfg,
                           tag=f"spider:{problem.id}")
    correct = traj.answered and answer_matches(traj.answer, problem.gold)
    return ItemResult(side.name, setting, problem.id, correct, traj.stop, traj.turns,
                      len(traj.tool_calls()), env.faults.injected, env.faults.fault_messages,
                      traj.answer, traj.to_dict())


async def evaluate(lm: Any, problems: Sequence[Problem], sides: Sequence[PromptSide],
                   library: Mapping[str, Tool], cfg: EvalConfig, runtime: Any, *,
                   store: Any = None,
                   prompts: MetaPrompts | None = None,
                   on_item: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """Every (side, setting, problem) episode; stored ones are read back, not rerun (a side's
    name is recorded as the item's ``variant``)."""
    prompts = prompts or MetaPrompts()
    sem = asyncio.Semaphore(max(1, cfg.concurrency))
    indexes = {s.name: ToolIndex(list(s.library(library).values())) for s in sides}

    async def one(problem: Problem, side: PromptSide, setting: str) -> ItemResult:
        key = item_key(side.name, setting, problem.id)
        stored = store.get_eval_item(EVAL_NAME, key) if store is not None else None
        if stored is not None:
            result = ItemResult.from_dict(stored)
        else:
            async with sem:
                result = await run_item(lm, problem, side, library, setting, cfg, runtime,
                                        indexes[side.name], prompts)
            if store is not None:
                store.put_eval_item(EVAL_NAME, key, result.to_dict())
        if on_item is not None:
            on_item(result)
        return result

    jobs = [one(p, v, s) for v in sides for s in cfg.settings for p in problems]
    return list(await asyncio.gather(*jobs))
