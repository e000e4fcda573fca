"""The tool-set check (``config.set_check``): every tool's change asked together, as the user's
agent sees them, and a change undone where the set does better without it.

Each tool's doc and demos are chosen on its own examples, the task model seeing the tool alone
or beside K siblings with their original docs (:mod:`play2prompt.method.siblings`). A user's
agent sees every tool with its new doc at once: a doc that now says what its tool does can
draw requests meant for another tool, and a tool whose requests go elsewhere loses its own
gain. On the seven example tools made opaque (sweep ``opq-ex``, Qwen2.5-Coder-1.5B) three
correct docs shipped, yet the agent sent body-mass-index requests to the loan tool 12 times of
13, and the run scored 14.8 % against 29.6 % for the docs as given.

After every tool is optimized, the check asks the verified examples of all tools (up to
``config.set_check`` per tool, held-out ones first) with all tools shown in the run's order,
each with the doc and demos it would ship. A changed tool is *implicated* when one of its own
examples is answered wrong or another tool's example is answered with a call to it. For each
implicated tool, most implicated first, the examples are asked again with its change undone
(its original doc, no demos); the change is undone when that gets more of them right. The
tool's own training examples are left out of that count: its doc and demos were chosen on them.
A tie keeps the change: the tool's own examples already showed what it gains, and the check is
there to find what it costs the others (on the example tools, undoing a change on a tie took
back convert_units' facts doc, which no other tool's example had shown to do harm). A tool
with no verified example has nothing to ask, so the check cannot protect its requests.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from play2prompt.agent.prompt import Demo
from play2prompt.jsonutil import derive_seed
from play2prompt.method.accuracy import shown_try
from play2prompt.method.example import Example
from play2prompt.tools.model import Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

SET_SEED = "tool-set"


@dataclass(frozen=True)
class SetCase:
    """One verified example of the run: the tool it belongs to, whether it was held out."""

    owner: str
    example: Example
    held_out: bool


@dataclass(frozen=True)
class SetEntry:
    """One tool as it would ship (``shown``: its chosen doc; ``demos``) and as given."""

    original: Tool
    shown: Tool
    demos: tuple[Demo, ...] = ()

    @property
    def name(self) -> str:
        return self.original.name

    @property
    def changed(self) -> bool:
        return bool(self.demos) or self.shown.doc != self.original.doc

    def undone(self) -> SetEntry:
        return SetEntry(self.original, self.original, ())


@dataclass(frozen=True)
class SetAnswer:
    """The task model's answer to one case with the whole set shown, checked."""

    correct: bool
    called: tuple[str, ...]   # the tools it called, in order


@dataclass(frozen=True)
class SetDecision:
    """One implicated tool: examples right with its change and without, of those counted."""

    tool: str
    implicated: int
    counted: int
    with_change: int
    without: int

    @property
    def undone(self) -> bool:
        return self.without > self.with_change

    def reason(self) -> str:
        return (f"kept the original: the tool-set check (all tools shown together) got "
                f"{self.without} of {self.counted} examples right without the change and "
                f"{self.with_change} with it")


@dataclass(frozen=True)
class SetCheck:
    """The check's outcome: the decisions, the tools undone, the set's accuracy on the cases
    before and after."""

    cases: int
    before: float
    after: float
    decisions: tuple[SetDecision, ...]

    @property
    def undone(self) -> tuple[str, ...]:
        return tuple(d.tool for d in self.decisions if d.undone)

    def to_dict(self) -> dict[str, object]:
        return {"cases": self.cases, "accuracy_before": round(self.before, 4),
                "accuracy_after": round(self.after, 4), "undone": list(self.undone),
                "decisions": [{"tool": d.tool, "implicated": d.implicated,
                               "counted": d.counted, "with_change": d.with_change,
                               "without": d.without, "undone": d.undone}
                              for d in self.decisions]}


def pick_cases(cases: Sequence[SetCase], per_tool: int) -> list[SetCase]:
    """Up to ``per_tool`` cases of each tool, held-out ones first, then in the given order
    (the verified examples ranked best first)."""
    out: list[SetCase] = []
    for owner in dict.fromkeys(c.owner for c in cases):
        mine = [c for c in cases if c.owner == owner]
        out += sorted(mine, key=lambda c: not c.held_out)[:per_tool]
    return out


async def set_answer(engine: Engine, entries: Sequence[SetEntry], case: SetCase) -> SetAnswer:
    """Ask ``case`` with every entry's tool shown and all their demos, checked as every
    request of the method is (:func:`~play2prompt.method.accuracy.shown_try`): a call to
    another tool than the case's is wrong and never executed."""
    shown = [e.shown for e in entries]
    owner = next(t for t in shown if t.name == case.owner)
    tried = await shown_try(engine, shown, owner, case.example,
                            [d for e in entries for d in e.demos],
                            derive_seed(engine.config.seed, SET_SEED))
    return SetAnswer(tried.correct, tried.called)


async def ask_set(engine: Engine, entries: Sequence[SetEntry],
                  cases: Sequence[SetCase]) -> list[SetAnswer]:
    return list(await asyncio.gather(*(set_answer(engine, entries, c) for c in cases)))


def implicated(entries: Sequence[SetEntry], cases: Sequence[SetCase],
               answers: Sequence[SetAnswer]) -> Counter[str]:
    """Changed tools by how many answers implicate them: one of their own cases wrong, or
    another tool's case answered with a call to them."""
    changed = {e.name for e in entries if e.changed}
    counts: Counter[str] = Counter()
    for case, answer in zip(cases, answers):
        if answer.correct:
            continue
        blamed = {case.owner} | {n for n in answer.called if n != case.owner}
        counts.update(blamed & changed)
    return counts


async def check_tool_set(engine: Engine, entries: Sequence[SetEntry],
                         cases: Sequence[SetCase]) -> SetCheck:
    """The tool-set check (see the module's docstring) over ``cases`` (already picked)."""
    current = list(entries)
    answers = await ask_set(engine, current, cases)
    before = _accuracy(answers)
    decisions: list[SetDecision] = []
    tried: set[str] = set()
    while True:
        blame = {n: k for n, k in implicated(current, cases, answers).items() if n not in tried}
        if not blame:
            break
        name = min(blame, key=lambda n: (-blame[n], n))
        tried.add(name)
        trial = [e.undone() if e.name == name else e for e in current]
        trial_answers = await ask_set(engine, trial, cases)
        counted = [i for i, c in enumerate(cases) if c.owner != name or c.held_out]
        decision = SetDecision(name, blame[name], len(counted),
                               sum(answers[i].correct for i in counted),
                               sum(trial_answers[i].correct for i in counted))
        decisions.append(decision)
        if decision.undone:
            current, answers = trial, trial_answers
    return SetCheck(len(cases), before, _accuracy(answers), tuple(decisions))


def _accuracy(answers: Sequence[SetAnswer]) -> float:
    return sum(a.correct for a in answers) / len(answers) if answers else 0.0


def undo_map(check: SetCheck) -> Mapping[str, SetDecision]:
    """The decisions that undid a change, by tool."""
    return {d.tool: d for d in check.decisions if d.undone}


__all__ = ["SetAnswer", "SetCase", "SetCheck", "SetDecision", "SetEntry", "ask_set",
           "check_tool_set", "implicated", "pick_cases", "set_answer", "undo_map"]
