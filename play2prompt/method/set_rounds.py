"""The tool-set check's rounds: the run's verified examples (:class:`SetCase`) asked with every
tool shown as it would ship (:class:`SetEntry`), and a trial round that stops once its outcome is
known (:func:`ask_trial`). What the check decides from them is
:mod:`play2prompt.method.tool_set_check`'s."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
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
    proposal: Tool | None = None   # what an unchanged tool could ship instead (its facts doc)

    @property
    def name(self) -> str:
        return self.original.name

    @property
    def changed(self) -> bool:
        return bool(self.demos) or self.shown.doc != self.original.doc

    @property
    def can_propose(self) -> bool:
        return (not self.changed and self.proposal is not None
                and self.proposal.doc != self.original.doc)

    def undone(self) -> SetEntry:
        return SetEntry(self.original, self.original, ())

    def proposed(self) -> SetEntry:
        return SetEntry(self.original, self.proposal or self.original, ())


@dataclass(frozen=True)
class SetAnswer:
    """The task model's answer to one case with the whole set shown, checked."""

    correct: bool
    called: tuple[str, ...]   # the tools it called, in order


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


async def ask_set(engine: Engine, entries: Sequence[SetEntry], cases: Sequence[SetCase],
                  which: Sequence[int] | None = None) -> list[SetAnswer]:
    """The answers to the ``which`` cases (all by default), asked together; one at a time
    where each of the task model's slots caches its own prefix (``prefix_per_slot``): all
    tools shown are a prefix every round changes, which each slot in use would compute."""
    picked = [cases[i] for i in (range(len(cases)) if which is None else which)]
    if engine.task_model.prefix_per_slot:
        return [await set_answer(engine, entries, c) for c in picked]
    return list(await asyncio.gather(*(set_answer(engine, entries, c) for c in picked)))


@dataclass(frozen=True)
class Gate:
    """Where a trial stopped at its gate: of the ``cases`` it is for (counted, answered wrong
    now, laid to the tool tried), ``asked`` were asked first and ``fixed`` of them went right,
    too few to reach ``need`` once the rest were in (``asked`` 0: fewer cases than ``need``)."""

    cases: int
    need: int
    asked: int
    fixed: int

    def said(self, change: str) -> str:
        if not self.asked:
            return (f"laid {self.cases} wrong answer(s) to it, fewer than the {self.need} that "
                    f"would have to go right with {change}: nothing asked")
        return (f"asked {self.asked} of the {self.cases} wrong answer(s) laid to it with "
                f"{change}: {self.fixed} went right, {self.need} needed")


@dataclass(frozen=True)
class Trial:
    """A trial round's answers (None: not asked, the outcome being known without it), the
    cases it is decided on, and the gate it stopped at (None: it went past it)."""

    answers: tuple[SetAnswer | None, ...]
    counted: tuple[int, ...]
    gate: Gate | None = None

    @property
    def right(self) -> int:
        """Counted cases answered right, of those asked."""
        return sum(bool(a and a.correct) for a in (self.answers[i] for i in self.counted))

    @property
    def exact(self) -> bool:
        return all(self.answers[i] is not None for i in self.counted)

    @property
    def at_most(self) -> int:
        """The most counted cases the trial could have got right."""
        return self.right + sum(self.answers[i] is None for i in self.counted)

    def full(self) -> list[SetAnswer]:
        """Every case's answer (a trial that won is asked in full)."""
        assert all(a is not None for a in self.answers), "a lost trial has no full answers"
        return [a for a in self.answers if a is not None]


async def ask_trial(engine: Engine, entries: Sequence[SetEntry], cases: Sequence[SetCase],
                    counted: Sequence[int], need: int, now: Sequence[SetAnswer],
                    mine: Sequence[int] = (), need_mine: int = 0) -> Trial:
    """A trial round (see :mod:`~play2prompt.method.tool_set_check`): the ``counted`` cases,
    its gate's first (``mine``: those laid to the tool tried, all answered wrong ``now``), then
    the others ``now`` answered wrong, then the rest, until fewer than ``need`` of them can be
    right or fewer than ``need_mine`` of ``mine``; a trial that can still reach ``need`` once
    they are all in is asked every other case too. Each batch is as many cases as wrong
    answers the trial (or its gate) can still take before it loses, asked together: it stops
    where asking one at a time would, whatever the task model's concurrency, so a run logs the
    same calls however it is run."""
    got: dict[int, SetAnswer] = {}
    order = [*mine, *(i for i in sorted(counted, key=lambda i: now[i].correct)
                      if i not in mine)]
    slack = len(counted) - need      # wrong answers the trial can afford
    while order and _lost_gate(got, mine, need_mine) is None:
        short = slack + 1 - _wrong(got, counted)
        short_of = need_mine - sum(got[i].correct for i in mine if i in got)
        if short_of > 0:             # the gate is open: its own cases, until it is decided
            unasked = sum(i not in got for i in mine)
            short = min(short, unasked - short_of + 1)   # wrongs it can take, plus one
        if short <= 0:
            break
        batch, order = order[:short], order[short:]
        got.update(zip(batch, await ask_set(engine, entries, cases, batch)))
    gate = _lost_gate(got, mine, need_mine)
    if gate is None and _wrong(got, counted) <= slack:
        rest = [i for i in range(len(cases)) if i not in got]
        got.update(zip(rest, await ask_set(engine, entries, cases, rest)))
    return Trial(tuple(got.get(i) for i in range(len(cases))), tuple(counted), gate)


def _lost_gate(got: dict[int, SetAnswer], mine: Sequence[int], need: int) -> Gate | None:
    """The gate, once too few of ``mine`` can go right to reach ``need`` (else None)."""
    fixed = sum(got[i].correct for i in mine if i in got)
    asked = sum(i in got for i in mine)
    if fixed + len(mine) - asked >= need:
        return None
    return Gate(len(mine), need, asked, fixed)


def _wrong(got: dict[int, SetAnswer], among: Sequence[int]) -> int:
    return sum(not got[i].correct for i in among if i in got)

__all__ = ["SET_SEED", "Gate", "SetAnswer", "SetCase", "SetEntry", "Trial", "ask_set", "ask_trial",
           "set_answer"]
