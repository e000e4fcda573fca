"""The order of a position's two numbers, decided by executions (part of the component
``conventions``, issue 72: coordinate order).

A tool that takes a point as two numbers follows one of two orders: ``[latitude, longitude]``
as people say it, or ``[longitude, latitude]`` as GeoJSON, Mapbox and Turf have it (x before
y). Both run on most points, and the answer is silently wrong in the other order. Code decides
from two kinds of call:

- **ranges**: the point run as ``[100, 20]`` and as ``[20, 100]``; a latitude lies within
  +-90, a longitude within +-180, so a tool that refuses one and runs the other shows which
  number is the latitude;
- **a distance's ratio** (two positions, where the tool refuses neither): the positions 10
  degrees apart on the 60th parallel (``[0, 60]`` and ``[10, 60]`` read as longitude first),
  and the same numbers swapped (``[60, 0]`` and ``[60, 10]``, 10 degrees along a meridian);
  along the parallel the great circle is half as long (cos 60 = 0.5), so an output that is
  half (longitude first) or twice (latitude first) the other's says the order.

The fact is a ``rule`` valued ``("convention", "order", "lon-lat" | "lat-lon")``; Step 1b's
fact tests say the two numbers named, in the other order
(:func:`~play2prompt.evidence.convention_forms.position_form`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.numeric import close, is_number
from play2prompt.tools.model import Invocation, Observation, Tool

ORDER = "order"
LON_LAT, LAT_LON = "lon-lat", "lat-lon"
_RANGE_PROBES = ([100.0, 20.0], [20.0, 100.0])     # longitude first runs the first only
_PARALLEL = ([0.0, 60.0], [10.0, 60.0])            # 10 degrees on the 60th parallel, lon first
_MERIDIAN = ([60.0, 0.0], [60.0, 10.0])            # the same numbers swapped


def is_position(value: Any) -> bool:
    """Two numbers, each within +-180 (a point as a list)."""
    return isinstance(value, list) and len(value) == 2 and all(
        is_number(v) and not isinstance(v, bool) and abs(v) <= 180 for v in value)


def position_params(tool: Tool, calls: Sequence[tuple[Invocation, Observation]]) -> list[str]:
    """The parameters of ``tool`` whose value in a call that ran is a point (an array, or
    untyped), in the schema's order."""
    out = []
    for name, spec in tool.properties.items():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if kind in ("array", None) and any(
                obs.ok and is_position(inv.arguments.get(name)) for inv, obs in calls):
            out.append(name)
    return out


def order_sentence(param: str, order: str, example: bool = True) -> str:
    """The fact's text; ``example``: with Paris written in that order (said once a doc: the
    first point parameter's sentence has it)."""
    first, second = ("longitude", "latitude") if order == LON_LAT else ("latitude", "longitude")
    text = f"`{param}` is [{first}, {second}], {first} first"
    if not example:
        return text + "."
    paris = "[2.3522, 48.8566]" if order == LON_LAT else "[48.8566, 2.3522]"
    return f"{text}: {paris} is Paris (latitude 48.8566, longitude 2.3522)."


def stated_order(rule: str) -> tuple[str, str] | None:
    """The order a rule's :func:`order_sentence` states ("longitude", "latitude"), or None
    where it states none."""
    found = re.search(r"is \[(longitude|latitude), (longitude|latitude)\]", rule)
    return (found.group(1), found.group(2)) if found else None


def _fact(param: str, order: str, call: Invocation, obs: Observation, how: str,
          example: bool = True) -> Fact:
    return Fact(param, "rule", order_sentence(param, order, example),
                ("convention", ORDER, order),
                f"{how}; e.g. {evidence_of(call, obs)}"[:400], call.key(), "output")


def _numbers(obs: Observation) -> dict[str, float]:
    """The output's numbers by path: the output itself, or an object's number fields."""
    out = obs.output if obs.ok else None
    found = out.items() if isinstance(out, Mapping) else [("", out)]
    return {str(k): float(v) for k, v in found
            if is_number(v) and not isinstance(v, bool) and v}


def ratio_order(along: Observation, across: Observation) -> str | None:
    """The order an output on the parallel (``along``) against one on the meridian shows:
    half is longitude first, twice latitude first; None when no output number says either."""
    first, second = _numbers(along), _numbers(across)
    for path, value in first.items():
        other = second.get(path)
        if other and close(value / other, 0.5, rel_tol=0.02):
            return LON_LAT
        if other and close(value / other, 2.0, rel_tol=0.02):
            return LAT_LON
    return None


async def order_facts(engine: Any, tool: Tool, inv: Invocation, params: Sequence[str]
                      ) -> list[Fact]:
    """The order facts of the point parameters ``params``, from the call ``inv`` that ran:
    by ranges, each parameter on its own; else, for two, by a distance's ratio."""
    found: list[Fact] = []
    for param in params:
        calls = [inv.with_args({param: list(p)}) for p in _RANGE_PROBES]
        lon_first, lat_first = await run_seen(engine, calls)
        if lon_first.ok != lat_first.ok:
            order = LON_LAT if lon_first.ok else LAT_LON
            how = f"the tool run with {param}=[100, 20] and {param}=[20, 100]: only " \
                f"{'the first' if lon_first.ok else 'the second'} ran (a latitude is within 90)"
            worked = (calls[0], lon_first) if lon_first.ok else (calls[1], lat_first)
            found.append(_fact(param, order, *worked, how, example=not found))
    if found or len(params) != 2:
        return found
    p, q = params
    along = inv.with_args({p: list(_PARALLEL[0]), q: list(_PARALLEL[1])})
    across = inv.with_args({p: list(_MERIDIAN[0]), q: list(_MERIDIAN[1])})
    obs_along, obs_across = await run_seen(engine, [along, across])
    order = ratio_order(obs_along, obs_across)
    if order is None:
        return []
    how = f"the tool run on two points 10 degrees apart read both ways ({p}={_PARALLEL[0]}, " \
        f"{q}={_PARALLEL[1]} and swapped): the output on the parallel was " \
        f"{'half' if order == LON_LAT else 'twice'} the other"
    return [_fact(name, order, along, obs_along, how, example=i == 0)
            for i, name in enumerate(params)]


__all__ = ["LAT_LON", "LON_LAT", "ORDER", "is_position", "order_facts", "order_sentence",
           "position_params", "ratio_order", "stated_order"]
