"""Range search: where a number parameter's accepted range ends, found by running the tool
(component ``range-search``, issue 27: what only a tool's limits say).

A probe that makes a tool refuse a number (the negative of a rate) says that a bound exists,
not where it is. Where it is can be the one fact that tells a scale: a savings tool that takes
its rate in percent accepts 0.05 and 5 alike and refuses -0.05 with "annual_rate out of range:
-0.05"; only its upper bound, 100, says that 5 means 5 %. No error states it, no output shows
it to a model that does not know the formula, and a 1.5B generator does not.

For each number parameter that a probe of a working call made the tool refuse (at most
:data:`MAX_PARAMS` a tool), code looks for both ends of the range, varying that one argument of
the working call:

- the side where a value was refused is searched between the nearest value that worked and
  that one; the other side is first stretched by powers of ten (at most :data:`SCALE_STEPS`
  calls; no refusal there, no bound);
- the search tries the *roundest* number between the two (:func:`roundest`: 0, then the
  fewest significant digits, a leading 1, 5 or 2 first), so a limit people set (0, 1, 100,
  30000) is met in a few calls; once an end of the interval is the roundest number in it, the
  value next to it says whether the bound is there (100 works and 100.00001 is refused: at
  most 100);
- at most :data:`MAX_CALLS` calls a side; an unclear answer (a timeout, an empty result)
  ends the search with no fact.

When both ends are found the tool's range is a fact ("annual_rate must be between 0 and
100", a rule like one an error states), so the facts doc states it. A number (an integer may
be a count) accepted from exactly 0 to 100 is said to be a percentage, which Step 1b's fact
tests say the everyday way ("5 %" for 5: :func:`play2prompt.evidence.everyday.tool_unit`), the
request a thin doc fails (a model reading "interest rate" writes 0.05); one from 0 to 1 is a
fraction, said as a percentage too. A range found with
the other arguments as one call has them may depend on them (a resting heart rate below the
maximum for an age): both ends are run again in up to :data:`MAX_OTHERS` other calls that
worked, and a range that moves is no fact. A range a rule of the tool's own already states
("tip must be between 0 and 1") is not said twice. The tool runs as the probes run it
(a tool with side effects only with the user's consent). A refresh does not re-derive the fact
from one call, so it keeps it only when play finds it again.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.facts import Fact, FactBook, evidence_of
from play2prompt.evidence.observed import seen
from play2prompt.method.play import code_verdict, found_nothing
from play2prompt.method.rewards import value_in_text
from play2prompt.numeric import is_number
from play2prompt.tools.effects import CONSENT
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.observations import is_transient

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

MAX_PARAMS = 3       # number parameters searched per tool
MAX_CALLS = 16       # calls searching one end of one parameter's range
MAX_OTHERS = 2       # other working calls each end is checked on (2 calls each)
SCALE_STEPS = 6      # x10 steps tried for a refusal on the side no probe was refused
REL_TOL = 1e-6       # a float interval this narrow (relative) is an end found
_PREFERRED = (1, 5, 2)   # leading digits of the roundest numbers, best first

Run = Callable[[float], Awaitable["bool | None"]]


def refused(obs: Observation) -> bool | None:
    """True when the tool refused the call, False when it worked, None when unclear (a
    transient failure, a call refused for want of consent, an empty result)."""
    if not obs.ok:
        return None if is_transient(obs) or obs.error_type == CONSENT else True
    if obs.output in (None, "", [], {}) or found_nothing(obs.output):
        return None
    return code_verdict(obs)[0] != 0


def _clean(x: float) -> float:
    return float(f"{x:.12g}")


def roundest(lo: float, hi: float, integer: bool = False) -> float | None:
    """The roundest number in ``[lo, hi]``: 0 if there; else the one on the coarsest power-of-
    ten grid, a leading 1, then 5, then 2 preferred, then the one nearest the middle. None when
    the interval holds no number of the kind (no integer)."""
    if lo > hi:
        lo, hi = hi, lo
    if lo <= 0 <= hi:
        return 0.0
    top = math.floor(math.log10(max(abs(lo), abs(hi))))
    bottom = 0 if integer else top - 12
    mid = (lo + hi) / 2
    for exp in range(top, bottom - 1, -1):
        step = 10.0 ** exp
        first, last = math.ceil(_clean(lo / step)), math.floor(_clean(hi / step))
        if first <= last:   # fewer than 10: no coarser grid has a point here
            ranked = [(*_roundness(k), abs(k * step - mid), k) for k in range(first, last + 1)]
            return _clean(min(ranked)[-1] * step)
    return None


def _roundness(k: int) -> tuple[int, int]:
    """How round ``k`` is (smaller is rounder): its significant digits, then its last one."""
    digits = str(abs(k)).rstrip("0")
    last = int(digits[-1])
    if len(digits) == 1:
        return 1, _PREFERRED.index(last) if last in _PREFERRED else len(_PREFERRED)
    return len(digits), 0 if last == 5 else 1


def _next_to(x: float, toward: float, integer: bool) -> float:
    if integer:
        return x + (1 if toward > x else -1)
    return _clean(x + math.copysign(max(abs(x), 1.0) * REL_TOL / 10, toward - x))


def _close(a: float, b: float, integer: bool) -> bool:
    if integer:
        return abs(a - b) <= 1
    return abs(a - b) <= REL_TOL * max(1.0, abs(a), abs(b))


async def edge(run: Run, ok: float, bad: float, integer: bool) -> tuple[float, float] | None:
    """The end of the accepted range between ``ok`` (works) and ``bad`` (refused): the last
    value that works and the first refused, next to each other; None when not found within
    :data:`MAX_CALLS` calls or an answer was unclear."""
    for _ in range(MAX_CALLS):
        if _close(ok, bad, integer):
            return ok, bad
        value = roundest(ok, bad, integer)
        if value is None:
            return None
        if value in (ok, bad):
            value = _next_to(value, bad if value == ok else ok, integer)
        verdict = await run(value)
        if verdict is None:
            return None
        ok, bad = (value, bad) if verdict else (ok, value)
    return (ok, bad) if _close(ok, bad, integer) else None


def _bound(ok: float, bad: float, integer: bool = False) -> tuple[float, bool]:
    """The bound an end states and whether the tool accepts it: the rounder of the two, or
    for an integer the last one accepted ("between 1 and 5", not "greater than 0")."""
    if integer:
        return ok, True
    best = roundest(ok, bad)
    if best == ok:
        return ok, True
    if best == bad:
        return bad, False
    return float(f"{ok:.6g}"), True


def _show(x: float, integer: bool) -> str:
    return str(int(x)) if integer or x == int(x) else f"{x:g}"


def range_text(param: str, low: tuple[float, bool], high: tuple[float, bool],
               integer: bool) -> str:
    """The range as a rule says it: "annual_rate must be between 0 and 100 (a percentage)".
    A number (not an integer: counts are) accepted from exactly 0 to 100 is a percentage."""
    (lo, lo_in), (hi, hi_in) = low, high
    if lo_in and hi_in:
        text = f"{param} must be between {_show(lo, integer)} and {_show(hi, integer)}"
        return text + (" (a percentage: 5 means 5 %)" if (lo, hi) == (0, 100) and not integer
                       else "")
    first = f"at least {_show(lo, integer)}" if lo_in else f"greater than {_show(lo, integer)}"
    second = f"at most {_show(hi, integer)}" if hi_in else f"less than {_show(hi, integer)}"
    return f"{param} must be {first} and {second}"


@dataclass(frozen=True)
class Searched:
    """One parameter's range search: the fact (None when no range was found, or one that
    moved with the other arguments) and the calls."""
    param: str
    fact: Fact | None
    tried: tuple[tuple[Invocation, Observation], ...]


def varied(start: Invocation, param: str, inv: Invocation) -> bool:
    """``inv`` is ``start`` with only ``param`` changed, to a number."""
    return inv.name == start.name and _is_number(inv.arguments.get(param)) \
        and inv.without(param).arguments == start.without(param).arguments


def candidates(tool: Tool, probed: Sequence[tuple[str, Invocation, Observation]],
               start: Invocation) -> list[str]:
    """The number parameters of ``start`` a probe of which (varying it alone) was refused."""
    out: list[str] = []
    for param, inv, obs in probed:
        spec = tool.properties.get(param) or {}
        if spec.get("type") in ("number", "integer") and param not in out \
                and _is_number(start.arguments.get(param)) and varied(start, param, inv) \
                and refused(obs):
            out.append(param)
    return out[:MAX_PARAMS]


def _is_number(value: Any) -> bool:
    return is_number(value) and math.isfinite(value)


async def search_range(tool: Tool, engine: Engine, start: Invocation, param: str,
                       probed: Sequence[tuple[str, Invocation, Observation]],
                       others: Sequence[Invocation] = (), said: Sequence[str] = ()
                       ) -> Searched:
    """Both ends of ``param``'s accepted range, varying it in the working call ``start``;
    then checked on up to :data:`MAX_OTHERS` other working calls (``others``): an end that
    moves with the other arguments (a resting heart rate below the maximum for an age) is no
    fact. ``said``: the param's rules already known; a range they state is not said again
    (only that a number from 0 to 100 is a percentage, if it is)."""
    integer = (tool.properties.get(param) or {}).get("type") == "integer"
    tried: list[tuple[Invocation, Observation]] = []

    async def run_in(call: Invocation, value: float) -> bool | None:
        inv = call.with_args({param: int(value) if integer else value})
        obs = seen(await engine.runtime.run(inv), engine.scrubber)
        tried.append((inv, obs))
        verdict = refused(obs)
        return None if verdict is None else not verdict

    async def run(value: float) -> bool | None:
        return await run_in(start, value)

    verdicts = [(float(inv.arguments[param]), refused(obs)) for p, inv, obs in probed
                if p == param and varied(start, param, inv)]
    seen_values = [(float(start.arguments[param]), False)] + [
        (value, verdict) for value, verdict in verdicts if verdict is not None]
    ends: list[tuple[float, float]] = []
    for side in (-1, 1):
        end = await _side(run, seen_values, side, integer)
        if end is None:
            return Searched(param, None, tuple(tried))
        ends.append(end)
    for call in [c for c in others if _is_number(c.arguments.get(param))][:MAX_OTHERS]:
        for ok, bad in ends:
            if await run_in(call, ok) is False or await run_in(call, bad) is True:
                return Searched(param, None, tuple(tried))
    low, high = _bound(*ends[0], integer), _bound(*ends[1], integer)
    text = range_text(param, low, high, integer)
    if any(value_in_text(low[0], t) and value_in_text(high[0], t) for t in said):
        text = f"{param} is a percentage: 5 means 5 %" if text.endswith("5 %)") else ""
    if not text:
        return Searched(param, None, tuple(tried))
    evidence = f"found by trying values of {param} in {start.to_python()[:160]}; e.g. " \
        f"{evidence_of(*tried[-1])}" if tried else start.to_python()
    ends = ("range", repr(low[0]), str(int(low[1])), repr(high[0]), str(int(high[1])))
    return Searched(param, Fact(param, "rule", text + ".", ends, evidence[:400],
                                tried[-1][0].key() if tried else start.key()), tuple(tried))


async def _side(run: Run, seen_values: Sequence[tuple[float, bool]], side: int,
                integer: bool) -> tuple[float, float] | None:
    """One end of the range (side -1: the lower, +1: the upper): the last value that works
    and the first refused."""
    works = [v for v, bad in seen_values if not bad]
    ok = max(works) if side > 0 else min(works)
    beyond = [v for v, bad in seen_values if bad and (v - ok) * side > 0]
    if beyond:
        bad = min(beyond, key=lambda v: abs(v - ok))
    else:
        bad = None
        for value in _stretch(ok, side):
            verdict = await run(value)
            if verdict is None:
                return None
            if not verdict:
                bad = value
                break
            ok = value
        if bad is None:
            return None
    return await edge(run, ok, bad, integer)


def _stretch(ok: float, side: int) -> list[float]:
    """Values ever further from ``ok`` on ``side``, by powers of ten."""
    base = max(abs(ok), 1.0)
    return [side * base * 10 ** k for k in range(1, SCALE_STEPS + 1)]


async def search_ranges(tool: Tool, engine: Engine, book: FactBook, start: Invocation,
                        probed: Sequence[tuple[str, Invocation, Observation]],
                        others: Sequence[Invocation] = ()) -> list[Searched]:
    """The range search of every candidate parameter of the working call ``start`` (one after
    the other: each is a chain of calls), checked on the ``others`` that worked; the ranges
    found are added to ``book``."""
    out = []
    for param in candidates(tool, probed, start):
        said = [f.text for f in book.facts if f.param == param and f.kind == "rule"]
        searched = await search_range(tool, engine, start, param, probed,
                                      [c for c in others if c.key() != start.key()], said)
        if searched.fact is not None:
            book.add(searched.fact)
        out.append(searched)
    return out


__all__ = ["MAX_CALLS", "MAX_PARAMS", "SCALE_STEPS", "Searched", "candidates", "edge",
           "range_text", "refused", "roundest", "search_range", "search_ranges"]
