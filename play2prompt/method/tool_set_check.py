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
(its original doc, no demos); the change is undone when that gets at least
:data:`UNDO_MARGIN` (2) more of them right. The tool's own training examples are left out of
that count: its doc and demos were chosen on them. A tie keeps the change: the tool's own
examples already showed what it gains, and the check is there to find what it costs the others
(on the example tools, undoing a change on a tie took back convert_units' facts doc, which no
other tool's example had shown to do harm). So does a one-example difference, as one demo more
must earn two examples (``doc_choice.DEMO_MARGIN``): in the ablation sweep abl2 (all components
on, 1.5B) the check undid convert_units' facts doc on 19 examples right without it against 18
with it; its 21 queries got 1 right, against 18 in two rows whose check kept the doc (the run:
57.4 %, those rows 70.4 and 72.2 %). A tool with no verified example has nothing to ask, so
the check cannot protect its requests.

The check also *adopts*. A tool kept as given because it solved its own examples alone can lose
them in the set to a neighbour that now says what it does: on the opaque example tools (run
opq-var) the currency converter, kept blank, saw its requests go to the unit converter, whose
new doc the check rightly kept (13 vs 12), and its queries went 13 -> 2 right. An unchanged tool
with a proposal (its facts doc, written by code from what play established, never chosen on any
example) and with one of its own examples answered wrong is tried with the proposal shown; the
proposal ships when the set gets more examples right with it (all examples counted: none of them
chose it), else the tool stays as given. Where several tools are wronged, all their proposals
are tried in one round first (a large blank tool set would otherwise cost a round a tool); when
the set does better, each adopted tool still implicated is tried without its proposal and
dropped unless the set does worse without it; when it does not, each is tried alone, most
wronged first.

A trial round (a change undone, a proposal shown) asks no more than its outcome needs: its
counted examples go first, those the set now gets wrong before the others (they are the likeliest
to stay wrong), and the round stops once too few can be right for the trial to win; the rest of
its answers would be dropped unasked. A trial that wins is asked in full: its answers become the
set's. A lost trial's count is an upper bound (``SetDecision.inexact``). On the example tools'
quick run (run base, 1.5B) the full rounds asked 5 trial rounds of 29 examples.

Each trial has a *gate* (:class:`~play2prompt.method.set_rounds.Gate`): the counted examples it
is for, those answered wrong now and laid to the tool tried (for an undo, the ones that
implicate it: its own held-out ones, or another tool's answered with a call to it; for a
proposal, the tool's own), asked first. An undo goes on only when at least :data:`UNDO_MARGIN`
of them go right, a proposal when one does; otherwise the trial stops there and the tool stays
as it is. Past the gate the trial is decided on every counted example, as above. Without the
gate a trial could win only by examples the tool had no part in changing their answers, the
noise of a changed prompt rather than what the tool does to the set; and a trial that could not
win still asked until its wrong answers ran out (on run q62 seven trials, 106 calls, all lost).
``bench/bench_set_check.py`` asks the check again from finished runs' logs: on the eight runs
it could replay (q62, q66, fresh19s-fresh22), the same decisions, in 969 calls instead of 1,229
(q62: 85 instead of 143).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from play2prompt.method.contrast import Contrast, contrast_round
from play2prompt.method.set_rounds import (
    Gate,
    SetAnswer,
    SetCase,
    SetEntry,
    Trial,
    ask_set,
    ask_trial,
    set_answer,
)

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

UNDO_MARGIN = 2   # examples more right without a change before the check undoes it


@dataclass(frozen=True)
class SetDecision:
    """One implicated tool: examples right with its change and without, of those counted
    (``adopt``: the change is a proposal for a tool kept as given, ``implicated`` its own
    examples answered wrong)."""

    tool: str
    implicated: int
    counted: int
    with_change: int
    without: int
    adopt: bool = False
    inexact: str = ""   # the count ("with_change" or "without") that is an upper bound only:
    #                     its trial stopped once it could no longer win
    gate: Gate | None = None   # its trial stopped at its gate; the count it would have made
    #                            is then the cases it is for that went right, the rest as now

    @property
    def undone(self) -> bool:
        return (not self.adopt and self.gate is None
                and self.without >= self.with_change + UNDO_MARGIN)

    @property
    def adopted(self) -> bool:
        return self.adopt and self.gate is None and self.with_change > self.without

    def count(self, name: str) -> str:
        """``with_change`` or ``without`` as said: "at most" where the trial stopped early."""
        return ("at most " if self.inexact == name else "") + str(getattr(self, name))

    def reason(self) -> str:
        if self.gate is not None:
            kept = "the original" if self.adopt else "the change"
            change = "this doc" if self.adopt else "the change undone"
            return f"kept {kept}: the tool-set check {self.gate.said(change)}"
        if self.adopt:
            return (f"facts from tool play: the tool-set check (all tools shown together) got "
                    f"{self.count('with_change')} of {self.counted} examples right with this "
                    f"doc and {self.count('without')} with the original ({self.implicated} of "
                    f"its own examples went wrong beside the other tools)")
        return (f"kept the original: the tool-set check (all tools shown together) got "
                f"{self.count('without')} of {self.counted} examples right without the change "
                f"and {self.count('with_change')} with it")


@dataclass(frozen=True)
class SetCheck:
    """The check's outcome: the decisions, the tools undone, the set's accuracy on the cases
    before and after."""

    cases: int
    before: float
    after: float
    decisions: tuple[SetDecision, ...]
    contrast: Contrast | None = None     # the sibling contrast round, where one was tried

    @property
    def contrasted(self) -> Mapping[str, str]:
        """Tool -> the sentence the contrast round added (none where it was not kept)."""
        return self.contrast.sentences if self.contrast and self.contrast.kept else {}

    @property
    def undone(self) -> tuple[str, ...]:
        return tuple(d.tool for d in self.decisions if d.undone)

    @property
    def adopted(self) -> tuple[str, ...]:
        return tuple(d.tool for d in self.decisions if d.adopted)

    def to_dict(self) -> dict[str, object]:
        return {"cases": self.cases, "accuracy_before": round(self.before, 4),
                "accuracy_after": round(self.after, 4), "undone": list(self.undone),
                "adopted": list(self.adopted),
                "decisions": [{"tool": d.tool, "implicated": d.implicated,
                               "counted": d.counted, "with_change": d.with_change,
                               "without": d.without, "undone": d.undone,
                               "adopt": d.adopt, "adopted": d.adopted,
                               "at_most": d.inexact or None,
                               "gate": None if d.gate is None else
                               {"cases": d.gate.cases, "need": d.gate.need,
                                "asked": d.gate.asked, "fixed": d.gate.fixed}}
                              for d in self.decisions],
                "contrast": None if self.contrast is None else self.contrast.to_dict()}


def pick_cases(cases: Sequence[SetCase], per_tool: int) -> list[SetCase]:
    """Up to ``per_tool`` cases of each tool, held-out ones first, then in the given order
    (the verified examples ranked best first)."""
    out: list[SetCase] = []
    for owner in dict.fromkeys(c.owner for c in cases):
        mine = [c for c in cases if c.owner == owner]
        out += sorted(mine, key=lambda c: not c.held_out)[:per_tool]
    return out


def implicated(entries: Sequence[SetEntry], cases: Sequence[SetCase],
               answers: Sequence[SetAnswer]) -> Counter[str]:
    """Changed tools by how many answers implicate them: one of their own cases wrong, or
    another tool's case answered with a call to them."""
    changed = {e.name for e in entries if e.changed}
    counts: Counter[str] = Counter()
    for case, answer in zip(cases, answers):
        counts.update(_blamed(case, answer) & changed)
    return counts


def _blamed(case: SetCase, answer: SetAnswer) -> set[str]:
    """The tools a wrong answer is laid to: the case's own, and any other it called (none for
    a right answer)."""
    return set() if answer.correct else {case.owner, *answer.called}


async def check_tool_set(engine: Engine, entries: Sequence[SetEntry],
                         cases: Sequence[SetCase], contrast: bool = False) -> SetCheck:
    """The tool-set check (see the module's docstring) over ``cases`` (already picked);
    ``contrast``: then the sibling contrast round (:mod:`~play2prompt.method.contrast`)."""
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
        counted = [i for i, c in enumerate(cases) if c.owner != name or c.held_out]
        with_change = sum(answers[i].correct for i in counted)
        mine = [i for i in counted if name in _blamed(cases[i], answers[i])]
        asked = await ask_trial(engine, trial, cases, counted, with_change + UNDO_MARGIN,
                                answers, mine, UNDO_MARGIN)
        gate = asked.gate
        decision = SetDecision(name, blame[name], len(counted), with_change,
                               with_change + gate.fixed if gate else asked.at_most,
                               inexact="" if asked.exact or gate else "without", gate=gate)
        decisions.append(decision)
        if decision.undone:
            current, answers = trial, asked.full()
    current, answers = await adopt_proposals(engine, current, cases, answers, decisions)
    said = None
    if contrast:
        current, answers, said = await contrast_round(engine, current, cases, answers)
    return SetCheck(len(cases), before, _accuracy(answers), tuple(decisions), said)


def wronged(entries: Sequence[SetEntry], cases: Sequence[SetCase],
            answers: Sequence[SetAnswer]) -> Counter[str]:
    """Unchanged tools with a proposal, by how many of their own cases were answered wrong."""
    can = {e.name for e in entries if e.can_propose}
    return Counter(c.owner for c, a in zip(cases, answers) if not a.correct and c.owner in can)


async def adopt_proposals(engine: Engine, current: list[SetEntry], cases: Sequence[SetCase],
                          answers: list[SetAnswer], decisions: list[SetDecision]
                          ) -> tuple[list[SetEntry], list[SetAnswer]]:
    """The wronged tools' proposals (see the module's docstring): all of them tried at once
    first (one round where many tools are wronged, as on a large blank tool set); when that
    gets more of the cases right, each adopted tool still implicated is tried without its
    proposal and dropped where the set does better without; else each is tried alone, most
    wronged first."""
    wrong = wronged(current, cases, answers)
    if len(wrong) > 1:
        trial = [e.proposed() if e.name in wrong else e for e in current]
        asked = await ask_trial(engine, trial, cases, range(len(cases)), _right(answers) + 1,
                                answers, _own_wrong(cases, answers, wrong), 1)
        if asked.gate is None and asked.right > _right(answers):
            return await _prune(engine, trial, cases, asked.full(), wrong, _right(answers),
                                decisions)
    tried: set[str] = set()
    while True:
        wrong = {n: k for n, k in wronged(current, cases, answers).items() if n not in tried}
        if not wrong:
            return current, answers
        name = min(wrong, key=lambda n: (-wrong[n], n))
        tried.add(name)
        trial = [e.proposed() if e.name == name else e for e in current]
        asked = await ask_trial(engine, trial, cases, range(len(cases)), _right(answers) + 1,
                                answers, _own_wrong(cases, answers, {name}), 1)
        gate = asked.gate
        decision = SetDecision(name, wrong[name], len(cases),
                               _right(answers) + gate.fixed if gate else asked.at_most,
                               _right(answers), adopt=True, gate=gate,
                               inexact="" if asked.exact or gate else "with_change")
        decisions.append(decision)
        if decision.adopted:
            current, answers = trial, asked.full()


async def _prune(engine: Engine, current: list[SetEntry], cases: Sequence[SetCase],
                 answers: list[SetAnswer], adopted: Mapping[str, int], before: int,
                 decisions: list[SetDecision]) -> tuple[list[SetEntry], list[SetAnswer]]:
    """The proposals adopted together, each one still implicated tried without (most
    implicated first) and dropped when the set gets as many right without it. A tool tried
    alone is decided on its own numbers; one never implicated on those of the group
    (``before``: the cases right with none of the proposals)."""
    blame = implicated(current, cases, answers)
    outcome: dict[str, tuple[int, int, str]] = {}
    for name in sorted((n for n in adopted if blame[n]), key=lambda n: (-blame[n], n)):
        trial = [e.undone() if e.name == name else e for e in current]
        asked = await ask_trial(engine, trial, cases, range(len(cases)), _right(answers),
                                answers)
        outcome[name] = (_right(answers), asked.at_most, "" if asked.exact else "without")
        if asked.right >= _right(answers):   # a proposal ships only if it earns its place
            current, answers = trial, asked.full()
    for name in sorted(adopted, key=lambda n: (-adopted[n], n)):
        with_it, without, inexact = outcome.get(name, (_right(answers), before, ""))
        decisions.append(SetDecision(name, adopted[name], len(cases), with_it, without,
                                     adopt=True, inexact=inexact))
    return current, answers


def _own_wrong(cases: Sequence[SetCase], answers: Sequence[SetAnswer],
               owners: Collection[str]) -> list[int]:
    """The cases of ``owners`` answered wrong."""
    return [i for i, (c, a) in enumerate(zip(cases, answers))
            if c.owner in owners and not a.correct]


def _right(answers: Sequence[SetAnswer]) -> int:
    return sum(a.correct for a in answers)


def _accuracy(answers: Sequence[SetAnswer]) -> float:
    return sum(a.correct for a in answers) / len(answers) if answers else 0.0


def undo_map(check: SetCheck) -> Mapping[str, SetDecision]:
    """The decisions that undid a change, by tool."""
    return {d.tool: d for d in check.decisions if d.undone}


def adopt_map(check: SetCheck) -> Mapping[str, SetDecision]:
    """The decisions that adopted a proposal, by tool."""
    return {d.tool: d for d in check.decisions if d.adopted}


__all__ = ["Gate", "SetAnswer", "SetCase", "SetCheck", "SetDecision", "SetEntry", "Trial",
           "adopt_map", "adopt_proposals", "ask_set", "ask_trial", "check_tool_set",
           "implicated", "pick_cases", "set_answer", "undo_map", "wronged"]
