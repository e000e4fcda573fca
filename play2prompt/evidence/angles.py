"""An angle's unit, decided by executions (part of the component ``conventions``, issue 72:
degrees, radians or turns).

A tool that takes an angle takes it in one unit and answers silently wrong in another: a
library's ``sin`` reads 30 as 30 radians, a compass tool reads 0.5 as half a degree. The
answers show the unit by their period: a quantity that depends on an angle repeats after a
full turn, 360 in degrees, 2 pi in radians, 1 in turns. The call is run with the angle moved
by each full turn (:data:`~play2prompt.evidence.everyday.ANGLE_TURNS`); where
exactly one gives the call's own answer back (or 1 and 360 alone: a period of 1 repeats after
360 too), and a quarter of that turn gives another (the answer depends on the angle at all),
that turn's unit is the angle's. A number with no
period, or with several, gets no fact.

The fact is a ``rule`` valued ``("convention", "angle", unit)`` that names the unit after "in"
(:func:`~play2prompt.evidence.everyday.tool_unit` reads it), with a worked conversion from
degrees; Step 1b's fact tests say the angle in degrees where the tool takes another unit (a
round number of degrees near play's value: :func:`~play2prompt.evidence.everyday.
typical_value`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.evidence.everyday import ANGLE_TURNS
from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.numeric import close, is_number
from play2prompt.tools.model import Invocation, Observation, Tool

ANGLE = "angle"


def periods() -> dict[str, float]:
    """Each angle unit's full turn (deg 360, rad 2 pi, turn 1)."""
    return dict(ANGLE_TURNS)


def _flat(out: Any, path: str = "") -> dict[str, Any]:
    if isinstance(out, Mapping):
        return {k: v for key, val in out.items() for k, v in _flat(val, f"{path}.{key}").items()}
    if isinstance(out, list):
        return {k: v for i, val in enumerate(out) for k, v in _flat(val, f"{path}[{i}]").items()}
    return {path: out}


def _near(x: Any, y: Any) -> bool:
    if is_number(x) and is_number(y) and not isinstance(x, bool) and not isinstance(y, bool):
        return close(float(x), float(y), rel_tol=1e-9, abs_tol=1e-9)
    return bool(x == y)


def same_answer(a: Observation, b: Observation, echoes: tuple[Any, Any] = (None, None)
                ) -> bool:
    """Two answers equal, their numbers within a float's rounding (a sine of 30 + 360), but
    for a field that echoes the angle each call was given (``echoes``)."""
    if not (a.ok and b.ok):
        return False
    one, two = _flat(a.output), _flat(b.output)
    if one.keys() != two.keys():
        return False
    return all(_near(one[k], two[k]) or (_near(one[k], echoes[0]) and _near(two[k], echoes[1]))
               for k in one)


def angle_unit(x: float, base: Observation, turned: Mapping[str, Observation],
               quarter: Mapping[str, Observation]) -> str | None:
    """The unit whose full turn alone gives ``base``'s answer (for the angle ``x``) back
    (``turned``: each unit's call), where its quarter turn gives another; None otherwise."""
    turns = periods()
    back = {u for u, o in turned.items() if same_answer(base, o, (x, x + turns[u]))}
    if back == {"turn", "deg"}:
        back = {"turn"}        # a period of 1 repeats after 360 too
    if len(back) != 1:
        return None
    (unit,) = back
    moved = quarter.get(unit)
    return unit if moved is not None and moved.ok and not same_answer(
        base, moved, (x, x + turns[unit] / 4)) else None


def angle_sentence(param: str, unit: str) -> str:
    """The fact's text: the unit after "in", a right angle and a full turn in it."""
    turn = periods()[unit]
    right = turn / 4
    if unit == "deg":
        return f"`{param}` is in degrees (a right angle is 90, a full turn 360)."
    name = {"rad": "radians", "turn": "turns"}.get(unit, unit)
    return f"`{param}` is in {name} (90 degrees is {right:.6g}, a full turn {turn:.6g})."


async def angle_facts(engine: Any, tool: Tool, params: Sequence[str],
                      calls: Sequence[tuple[Invocation, Observation]]) -> list[Fact]:
    """The angle facts of the number ``params`` (those of no known unit), from the first call
    that ran with each."""
    found = []
    turns = periods()
    for param in params:
        first = next(((i, o) for i, o in calls if o.ok and is_number(i.arguments.get(param))
                      and not isinstance(i.arguments.get(param), bool)), None)
        if first is None:
            continue
        inv, obs = first
        x = inv.arguments[param]
        integer = (tool.properties.get(param) or {}).get("type") == "integer"
        units = [u for u, p in turns.items() if not integer or p >= 90]   # 360 only
        tries = [inv.with_args({param: _plus(x, turns[u])}) for u in units]
        quarters = [inv.with_args({param: _plus(x, turns[u] / 4)}) for u in units]
        ran = await run_seen(engine, [*tries, *quarters])
        unit = angle_unit(x, obs, dict(zip(units, ran)), dict(zip(units, ran[len(units):])))
        if unit is None:
            continue
        at = units.index(unit)
        how = f"the tool run with {param}={x} moved by a full turn in each unit " \
            f"({', '.join(f'{turns[u]:.6g}' for u in units)}): only {turns[unit]:.6g} gave " \
            f"the same answer; e.g. {evidence_of(tries[at], ran[at])}"
        found.append(Fact(param, "rule", angle_sentence(param, unit), ("convention", ANGLE,
                          unit), how[:400], tries[at].key(), "output"))
    return found


def _plus(x: Any, step: float) -> Any:
    total = x + step
    return int(total) if isinstance(x, int) and float(total).is_integer() else total


__all__ = ["ANGLE", "angle_facts", "angle_sentence", "angle_unit", "periods", "same_answer"]
