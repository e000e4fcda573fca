"""The unit a number parameter takes, from how an output that names its unit scales with it
(component ``dimensions``, issue 27): dimensional analysis by execution, no LLM call.

A tool that takes a room in centimetres accepts 10 x 15 x 7 and returns ``wall_area_m2``
0.04; no error says centimetres, and the 1.5B's textbook formulas (``output-units``) fit none
of the held-out tools. Code needs no formula. Where an output field names a metric unit
(``wall_area_m2``, ``distance_km``, ``weight_kg``, ``time_s``), play's call is run again with
each small set of its number parameters multiplied by 10 and by 100 (:data:`STEPS`): the set
whose tenfold step multiplies the field by 10 ** power (100 for an area) is the field's
dimension (length, width and height are lengths). Then the size: the field, in its family's
base unit (square metres), divided by the set's typical value (their geometric mean) to that
power is a shape constant (2 (l + w) h of a room is about 4 M ** 2), which for a unit that
fits is near 1 and for the others a power of ten away (in metres, the room above would be
1/3000 of that). The unit whose constant is nearest 1 is said (``length`` is in centimetres),
and Step 1b's fact tests say it the everyday way ("4 m" is 400).

Guards, since a wrong unit makes its own tests: one smallest set has the field's power (two
sets, as in ``distance_km = speed * hours``, say nothing); the constant of the unit chosen is
within :data:`FIT` decades of 1 and every other unit's at least :data:`MARGIN` decades
further; only the metric units the fact reader scales are weighed (an output in metres says
nothing of inches); a parameter a fact already gives a unit keeps it.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence.error_text import words
from play2prompt.evidence.everyday import family
from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.evidence.output_units import number_params, unit_sentence, unknown_units
from play2prompt.numeric import close, is_number
from play2prompt.tools.model import Invocation, Observation, Tool

STEPS = (10.0, 100.0)   # the set's values times these; the fields' ratio gives the power
MAX_SET = 4             # parameters scaled together at most
FIT = 1.3               # the chosen unit's constant within 20x of 1
MARGIN = 1.0            # every other unit's at least ten times further
FORMS = "everyday_forms.json"
EVIDENCE = "the tool's outputs with its number inputs scaled"
# a metric unit closing an output field's name, with an optional power: "_m2", "_sq_m", "_kg"
_FIELD = re.compile(r"(?:^|_)(sq_?)?(mm|cm|m|km|g|kg|ms|s|min|h)(2|3)?$")
_PER = re.compile(r"(?:^|_)per_[a-z0-9]+$")     # "pace_per_km": a rate, not kilometres


@dataclass(frozen=True)
class FieldUnit:
    """An output field's named unit: ``unit`` (the fact reader's) to the ``power``."""

    field: str
    unit: str
    power: int


@dataclass(frozen=True)
class Dimension:
    """The parameters ``params`` carry ``field``'s dimension, in ``unit`` (what the probe
    ``call`` -> ``obs`` showed)."""

    field: FieldUnit
    params: tuple[str, ...]
    unit: str
    constant: float
    call: Invocation
    obs: Observation

    def facts(self) -> list[Fact]:
        shown = (f"{EVIDENCE}: {self.field.field} grows {10 ** self.field.power:g}-fold "
                 f"when {', '.join(self.params)} grow tenfold, and "
                 f"{evidence_of(self.call, self.obs)}"[:300])
        return [Fact(p, "rule", unit_sentence(p, self.unit), (), shown, self.call.key())
                for p in self.params]


def field_unit(field: str) -> FieldUnit | None:
    """The unit ``field``'s name ends in, where the fact reader scales it ("wall_area_m2":
    m squared; "litres": none)."""
    found = _FIELD.search(field.lower())
    if found is None or _PER.search(field.lower()):
        return None
    power = int(found.group(3) or (2 if found.group(1) else 1))
    unit = found.group(2)
    if power > 1 and family(unit) != family("m"):
        return None                     # an area or volume is of lengths only
    return FieldUnit(field, unit, power)


def unit_fields(output: Any) -> list[tuple[FieldUnit, float]]:
    """The number fields of ``output`` that name a unit, with their values."""
    if not isinstance(output, Mapping):
        return []
    out = []
    for key, value in output.items():
        named = field_unit(str(key))
        if named is not None and is_number(value) and value:
            out.append((named, float(value)))
    return out


def scaled(inv: Invocation, params: Sequence[str], factor: float) -> Invocation:
    """``inv`` with each of ``params`` times ``factor`` (a whole number stays whole)."""
    args = dict(inv.arguments)
    for p in params:
        value = args[p] * factor
        args[p] = int(round(value)) if isinstance(args[p], int) else value
    return Invocation(inv.name, args)


def power_of(base: float, low: float, high: float) -> int | None:
    """The power ``n`` where each tenfold step multiplied the field by 10 ** n (from the
    field at steps 10 and 100, checked against the call itself where it is not rounded
    away), or None."""
    if not (low and high) or low * high < 0:
        return None
    n = math.log10(high / low)
    whole = round(n)
    if whole < 1 or not close(n, whole, abs_tol=0.02):
        return None
    if abs(base) >= 1 and not close(low, base * 10 ** whole, rel_tol=0.05):
        return None
    return whole


def best_unit(named: FieldUnit, values: Sequence[float], field_value: float
              ) -> tuple[str, float] | None:
    """The unit of ``named``'s family in which ``values`` give ``field_value`` with a shape
    constant near 1 (see the module's guards), with that constant; None: no unit stands
    out."""
    scales = words(FORMS)["scales"]
    if not values or any(v <= 0 for v in values):
        return None
    typical = math.exp(sum(math.log(v) for v in values) / len(values))
    in_base = abs(field_value) * scales[named.unit] ** named.power
    ranked = sorted((abs(math.log10(in_base / (scales[u] * typical) ** named.power)), u)
                    for u in family(named.unit))
    if len(ranked) < 2 or ranked[0][0] > FIT or ranked[1][0] - ranked[0][0] < MARGIN:
        return None
    best = ranked[0][1]
    return best, in_base / (scales[best] * typical) ** named.power


def _sets(params: Sequence[str]) -> list[tuple[str, ...]]:
    return [s for n in range(1, min(MAX_SET, len(params)) + 1)
            for s in itertools.combinations(params, n)]


async def _alone(engine: Any, call: Invocation, obs: Observation, field: str,
                 others: Sequence[str]) -> bool:
    """The field does not move when each of ``others`` doubles (a refused call says
    nothing): the shape constant is of the set's values alone, not of a rate beside them."""
    ran = await run_seen(engine, [scaled(call, [p], 2.0) for p in others])
    return all(not (o.ok and isinstance(o.output, Mapping)) or not is_number(
        o.output.get(field)) or close(o.output[field], obs.output[field], rel_tol=1e-6)
        for o in ran)


async def dimension(tool: Tool, engine: Any, inv: Invocation, obs: Observation,
                    params: Sequence[str]) -> list[Dimension]:
    """What scaling ``params`` of the call ``inv`` (which gave ``obs``) shows, per output
    field that names its unit: at most one :class:`Dimension` a field (the field moves with
    no parameter outside the set)."""
    fields = unit_fields(obs.output)
    usable = [p for p in params if is_number(inv.arguments.get(p))
              and not isinstance(inv.arguments.get(p), bool) and inv.arguments[p] > 0]
    sets = _sets(usable)
    if not fields or not sets:
        return []
    probes = [scaled(inv, s, f) for s in sets for f in STEPS]
    ran = await run_seen(engine, probes)
    found = []
    for named, base in fields:
        held = []
        for i, group in enumerate(sets):
            low, high = ran[2 * i], ran[2 * i + 1]
            got = [o.output.get(named.field) if o.ok and isinstance(o.output, Mapping)
                   else None for o in (low, high)]
            if all(is_number(g) for g in got) and power_of(base, *got) == named.power:
                held.append((group, high, probes[2 * i + 1]))
        smallest = [h for h in held if not any(set(o[0]) < set(h[0]) for o in held)]
        if len(smallest) != 1:
            continue
        group, high, call = smallest[0]
        if not await _alone(engine, call, high, named.field, [p for p in usable
                                                              if p not in group]):
            continue
        unit = best_unit(named, [float(call.arguments[p]) for p in group],
                         float(high.output[named.field]))
        if unit is not None:
            found.append(Dimension(named, group, unit[0], unit[1], call, high))
    return found


async def dimensions(tool: Tool, engine: Any, calls: Sequence[tuple[Invocation, Observation]],
                     ruled: Mapping[str, str]) -> list[Fact] | None:
    """The unit facts scaling shows, from the first call that ran with an output field that
    names its unit (one a tool); None: no such call yet, or no number parameter of unknown
    unit."""
    unknown = unknown_units(tool, ruled)
    first = next(((inv, obs) for inv, obs in calls if obs.ok and unit_fields(obs.output)),
                 None)
    if first is None or not unknown:
        return None
    out: list[Fact] = []
    for dim in await dimension(tool, engine, *first, number_params(tool)):
        out += [f for f in dim.facts()
                if f.param in unknown and f.param not in {o.param for o in out}]
    return out


__all__ = ["Dimension", "FieldUnit", "best_unit", "dimension", "dimensions", "family",
           "field_unit", "power_of", "scaled", "unit_fields"]
