"""What each value of a level parameter means, read from the outputs (component ``levels``,
issue 27's "what an output means"): executions only, no LLM call.

A tool that takes a level (a training zone 1 to 5, an intensity 1 to 10) states its range in an
error ("zone must be 1-5") and what a level *is* nowhere; people say a level by what it means
("70 to 80 % of my max heart rate" for zone 3), and a model reading a thin doc writes
``zone=70``. Where a rule bounds a whole-number parameter to between :data:`MIN_LEVELS` and
:data:`MAX_LEVELS` values, play's call is run at every level, first with its optional
arguments left out (an option can change what a level does: a resting rate moves every share)
and else as it was. Where an output number divided by another output number that the level
leaves put is a whole percentage at every level (within the outputs' rounding) and moves one
way with the level, the level is said by those shares: "Each zone is a share of max_hr
(low_bpm to high_bpm): zone 1 is 50 to 60 %, zone 2 is 60 to 70 %, ...". Step 1b's fact tests
then say a level the way people do ("70 to 80 % of max hr", :func:`~play2prompt.evidence.
convention_forms.level_form`), which the doc as given does not map back to 3.

Guards, since a wrong table makes its own tests: the same table from two calls that differ in
their other arguments (a share that is whole by chance at five levels of one call is not at
five levels of another); a denominator whose rounding leaves at most :data:`MAX_SLACK`
percentage points; no fact where no call ran at every level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.numeric import is_number
from play2prompt.tools.model import Invocation, Observation, Tool

MIN_LEVELS = 3          # fewer is a choice between two, not a scale
MAX_LEVELS = 10         # more is a number, not a level
MAX_SLACK = 0.5         # percentage points an integer output's rounding may move a share
CALLS = 2               # calls whose tables must agree
EVIDENCE = "the tool run at every level"
_RANGE = (re.compile(r"\bbetween\s+(\d+)\s+and\s+(\d+)\b"),
          re.compile(r"(?<![\d.-])(\d+)\s*(?:-|–|to)\s*(\d+)(?!\d|\.\d)"))


@dataclass(frozen=True)
class Levels:
    """``param``'s levels as shares of the output field ``base``: at each level, each of
    ``fields`` is the whole percentage ``table`` gives (seen on the call ``call``)."""

    param: str
    base: str
    fields: tuple[str, ...]
    table: tuple[tuple[int, tuple[int, ...]], ...]
    call: Invocation
    obs: Observation

    def sentence(self) -> str:
        rows = ", ".join(f"{self.param} {level} is {' to '.join(map(str, shares))} %"
                         for level, shares in self.table)
        return (f"Each {self.param} is a share of {self.base} ({' to '.join(self.fields)}): "
                f"{rows}.")

    def fact(self) -> Fact:
        shown = f"{EVIDENCE}: {evidence_of(self.call, self.obs)}"[:300]
        return Fact(self.param, "rule", self.sentence(), (), shown, self.call.key())


def level_range(rule: str) -> tuple[int, int] | None:
    """The whole numbers a rule bounds a parameter to ("zone must be 1-5", "must be between 1
    and 5"), where they are a level's few values; None otherwise."""
    for pattern in _RANGE:
        for found in pattern.finditer(rule):
            low, high = int(found.group(1)), int(found.group(2))
            if MIN_LEVELS <= high - low + 1 <= MAX_LEVELS:
                return low, high
    return None


def _numbers(output: Any) -> dict[str, float]:
    if not isinstance(output, Mapping):
        return {}
    return {str(k): float(v) for k, v in output.items() if is_number(v)}


def share_table(levels: Sequence[int], outputs: Sequence[Mapping[str, float]]
                ) -> tuple[str, tuple[str, ...], tuple[tuple[int, tuple[int, ...]], ...]] | None:
    """The base field, the fields that are whole shares of it at every level (moving one way
    with it) and the table, from the outputs at ``levels``; None where no field is."""
    common = [f for f in outputs[0] if all(f in o for o in outputs)]
    for base in common:
        value = outputs[0][base]
        if not value or any(o[base] != value for o in outputs):
            continue
        slack = 50 / abs(value) + 1e-9 if all(o[f].is_integer() for o in outputs for f in common) \
            else 1e-6
        if slack > MAX_SLACK:
            continue
        held = []
        for field in common:
            shares = [100 * o[field] / value for o in outputs]
            whole = [round(s) for s in shares]
            steps = {(b > a) - (b < a) for a, b in zip(whole, whole[1:])}
            if field != base and all(abs(s - w) <= slack for s, w in zip(shares, whole)) \
                    and steps in ({1}, {-1}):
                held.append((field, whole))
        if held:
            held.sort(key=lambda fw: fw[1][0])
            table = tuple((level, tuple(w[i] for _, w in held))
                          for i, level in enumerate(levels))
            return base, tuple(f for f, _ in held), table
    return None


def _bases(tool: Tool, param: str, inv: Invocation) -> list[Invocation]:
    """``inv`` without its optional arguments (those besides ``param``), then as it was."""
    kept = {k: v for k, v in inv.arguments.items() if k in tool.required or k == param}
    bare = Invocation(inv.name, kept)
    return [bare, inv] if kept != dict(inv.arguments) else [inv]


async def _levels_of(tool: Tool, engine: Any, param: str, inv: Invocation,
                     levels: Sequence[int]) -> Levels | None:
    for base in _bases(tool, param, inv):
        calls = [base.with_args({param: level}) for level in levels]
        ran = await run_seen(engine, calls)
        if not all(o.ok for o in ran):
            continue
        table = share_table(levels, [_numbers(o.output) for o in ran])
        if table is not None:
            return Levels(param, *table, calls[-1], ran[-1])
    return None


async def levels(tool: Tool, engine: Any, calls: Sequence[tuple[Invocation, Observation]],
                 ruled: Mapping[str, str]) -> list[Fact] | None:
    """The level facts of ``tool``'s whole-number parameters whose rules bound them to a few
    values, each from :data:`CALLS` calls that ran (differing in their other arguments) and
    agree; None while no such parameter has that many calls yet."""
    out: list[Fact] = []
    waiting = False
    for param in tool.properties:
        if tool.properties[param].get("type") != "integer":
            continue
        rule = ruled.get(param, "")
        bounds = level_range(rule)
        if bounds is None:            # no range yet (the next probes may find it), or a wide one
            waiting = waiting or not any(p.search(rule) for p in _RANGE)
            continue
        starts = _distinct([inv for inv, obs in calls if obs.ok and param in inv.arguments],
                           param)
        if len(starts) < CALLS:
            waiting = True
            continue
        found = [await _levels_of(tool, engine, param, inv, range(bounds[0], bounds[1] + 1))
                 for inv in starts[:CALLS]]
        if found[0] is not None and all(f is not None and f.table == found[0].table
                                        and f.base == found[0].base for f in found):
            out.append(found[0].fact())
    return None if waiting and not out else out


def _distinct(calls: Sequence[Invocation], param: str) -> list[Invocation]:
    """``calls`` with distinct arguments besides ``param``, in order."""
    seen_args: set[str] = set()
    out = []
    for inv in calls:
        key = Invocation(inv.name, {k: v for k, v in inv.arguments.items() if k != param}).key()
        if key not in seen_args:
            seen_args.add(key)
            out.append(inv)
    return out


def level_form_parts(value: Any, rule: str, param: str) -> tuple[str, tuple[int, ...]] | None:
    """How a level ``value`` of ``param`` is said by the shares its rule gives ("70 to 80 % of
    max hr", (70, 80)); None where the rule gives no shares for it."""
    if isinstance(value, bool) or not isinstance(value, int) or not param:
        return None
    head = re.search(rf"\bEach {re.escape(param)} is a share of (\w+)", rule)
    row = re.search(rf"\b{re.escape(param)} {value} is (\d+(?: to \d+)*) %", rule)
    if head is None or row is None:
        return None
    shares = tuple(int(n) for n in row.group(1).split(" to "))
    return f"{row.group(1)} % of {head.group(1).replace('_', ' ')}", shares


__all__ = ["Levels", "level_form_parts", "level_range", "levels", "share_table"]
