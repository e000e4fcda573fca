"""Whether a rate is a percentage or a fraction, decided by executions (part of the component
``conventions``, issue 72: percent / fraction).

A tool that takes a rate (a tax, a tip, a discount) as a fraction reads 8 for "8 %" as eight
times the amount and answers without a word; one that takes a percentage reads 0.08 as 0.08 %.
The answers show which: a part of the answer that moves in a straight line with the rate
moves by the amount times the rate's step where the rate is a fraction, by a hundredth of that
where it is a percentage. For a number parameter named as a rate (``data/conventions.json``'s
``share_params``), the call is run with the rate doubled and tripled; an answer's number that
moves by the same step twice (within :data:`TOLERANCE`, money is rounded) gives the slope,
and the slope divided by another number argument of the call (the amount) is 1 (a fraction)
or 0.01 (a percentage). A rate whose answers move otherwise (compound interest), or a slope
that matches no argument, gets no fact.

The fact is a ``rule`` valued ``("convention", "share", "percent" | "fraction")`` in the
words :func:`~play2prompt.evidence.everyday.tool_unit` reads ("`tax_rate` is a percentage (5
means 5 %)."); Step 1b's fact tests say the rate with a percent sign.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from play2prompt.evidence.convention_names import pattern
from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.evidence.output_units import unit_sentence
from play2prompt.numeric import is_number
from play2prompt.tools.model import Invocation, Observation, Tool

SHARE = "share"
TOLERANCE = 0.05         # relative: a slope within 5 % of the amount's share (rounded money)
SHARES = {"fraction": 1.0, "percent": 0.01}


def share_params(tool: Tool, params: Sequence[str]) -> list[str]:
    """Those of ``params`` named as a rate or a share."""
    return [p for p in params if pattern("share_params").search(p.replace("_", " "))]


def _numbers(obs: Observation) -> dict[str, float]:
    out = obs.output if obs.ok else None
    if is_number(out) and not isinstance(out, bool):
        return {"": float(out)}
    if isinstance(out, dict):
        return {str(k): float(v) for k, v in out.items()
                if is_number(v) and not isinstance(v, bool)}
    return {}


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b))


def share_kind(x: float, ran: Sequence[Observation], amounts: Sequence[float]) -> str | None:
    """percent or fraction, from the answers ``ran`` at the rate ``x``, ``2x`` and ``3x``:
    a number that moves by the same step twice, whose slope is an amount's share; None
    otherwise (or where two kinds fit)."""
    one, two, three = (_numbers(o) for o in ran)
    found = set()
    for path in one.keys() & two.keys() & three.keys():
        step, again = two[path] - one[path], three[path] - two[path]
        if not step or not _near(step, again):
            continue
        slope = step / x
        found |= {kind for kind, share in SHARES.items()
                  for amount in amounts if amount and _near(slope, amount * share)}
    return found.pop() if len(found) == 1 else None


async def share_facts(engine: Any, tool: Tool, params: Sequence[str],
                      calls: Sequence[tuple[Invocation, Observation]]) -> list[Fact]:
    """The share facts of the rate ``params`` (those of no known unit), from the first call
    that ran with each set to a number other than 0."""
    found = []
    for param in share_params(tool, params):
        first = next(((i, o) for i, o in calls if o.ok and is_number(i.arguments.get(param))
                      and not isinstance(i.arguments.get(param), bool)
                      and i.arguments.get(param)), None)
        if first is None:
            continue
        inv, obs = first
        x = inv.arguments[param]
        amounts = [float(v) for k, v in inv.arguments.items()
                   if k != param and is_number(v) and not isinstance(v, bool)]
        tries = [inv.with_args({param: x * k}) for k in (2, 3)]
        ran = [obs, *await run_seen(engine, tries)]
        kind = share_kind(x, ran, amounts) if all(o.ok for o in ran) else None
        if kind is None:
            continue
        how = f"the tool run with {param}={x}, {x * 2} and {x * 3}: an answer moved by the " \
            f"same step each time, the amount's {'whole' if kind == 'fraction' else 'hundredth'}" \
            f" times the rate; e.g. {evidence_of(tries[0], ran[1])}"
        found.append(Fact(param, "rule", unit_sentence(param, kind), ("convention", SHARE, kind),
                          how[:400], tries[0].key(), "output"))
    return found


__all__ = ["SHARE", "share_facts", "share_kind", "share_params"]
