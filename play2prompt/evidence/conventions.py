"""Silent conventions, decided by code from what a tool answers (component ``conventions``,
issue 72).

Most real APIs take a wrong form without a word: an amount in dollars where they take cents,
a time in seconds where they take milliseconds, a month counted from 1 where they count from
0. The call runs and the answer is wrong, so no error teaches it, yet the answers show it
when code compares them. For each parameter that may follow such a convention (by name, the
patterns of ``data/conventions.json``), the alternatives are turned into calls whose outputs
must differ if one holds, the tool is run, and code decides:

- **a restated scale** (a number parameter): an output restates it in another unit, the
  ratio holding on two values a factor apart (the call's value and twice it): a money
  text or money field at 1/100 of it says the parameter is in the currency's smallest unit
  (cents); a date (a text, or a number of seconds since 1970) at 1/1000 of it says
  milliseconds. A parameter whose unit a fact gives already keeps it.
- **a time shift's unit** (a number parameter that moves a time the output states: an offset,
  a delay): the call is run with the value stepped twice by one (then by 60); a time that moves
  by the same amount each step, one second, minute or hour a unit, says the unit (a UTC offset
  in minutes: 60 is one hour later), and a time that moves back says so;
- **a coordinate order** (a point as two numbers): latitude or longitude first
  (:mod:`play2prompt.evidence.coordinates`);
- **a rate's share** (a number parameter named as a rate): a percentage or a fraction, by the
  slope of an answer that moves in a straight line with it (:mod:`play2prompt.evidence.shares`);
- **an angle's unit** (a number parameter): degrees, radians or turns, by the full turn that
  gives the answer back (:mod:`play2prompt.evidence.angles`);
- **a range's end** (two parameters named as a range's start and end): whether the end is
  counted (:mod:`play2prompt.evidence.spans`);
- **an index base** (a whole number named as a position): 0 and 1 are run; the tool
  refusing 0, or answering nothing for it, says it counts from 1; for an optional one, which
  of the two gives what a call without it gives (its default is the first); for a month, the
  month of the date its output gives.

A convention no call separates is no fact. Each fact is a ``rule`` valued ``("convention",
family, alternative)``, so the facts doc states it and Step 1b's fact tests say the value the
everyday way (:mod:`play2prompt.evidence.everyday`: "12.50 dollars" for 1250, "page 3" for a
page counted from 0). Executions only, no LLM call; the tool runs as probes run it (a tool
with side effects only with the user's consent).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from play2prompt.evidence.angles import angle_facts
from play2prompt.evidence.convention_names import DATA, named, pattern
from play2prompt.evidence.coordinates import order_facts, position_params
from play2prompt.evidence.error_text import words
from play2prompt.evidence.everyday import DATA as FORMS
from play2prompt.evidence.everyday import tool_unit
from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.evidence.output_units import unit_sentence
from play2prompt.evidence.shares import share_facts
from play2prompt.evidence.spans import span_facts
from play2prompt.numeric import close, is_number
from play2prompt.tools.model import Invocation, Observation, Tool

CONVENTION = "convention"
MAX_LEAVES = 60          # output values read per answer
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


# -- what an answer says -------------------------------------------------------------------
def leaves(output: Any, path: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(path, value) of the scalars of ``output`` (objects and lists, three levels deep)."""
    if isinstance(output, Mapping) and depth < 3:
        for key, value in list(output.items())[:MAX_LEAVES]:
            yield from leaves(value, f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(output, list) and depth < 3:
        for i, value in enumerate(output[:10]):
            yield from leaves(value, f"{path}[{i}]", depth + 1)
    elif isinstance(output, (str, int, float)) and not isinstance(output, bool):
        yield path, output


def epoch_of(value: Any) -> float | None:
    """Seconds since 1970-01-01 UTC that ``value`` states: an ISO or RFC 2822 date text (a
    date without a zone read as UTC); None for anything else."""
    if not isinstance(value, str) or not re.search(r"\d{4}|\d{1,2}:\d{2}", value):
        return None
    text = value.strip()
    for parse in (lambda t: datetime.fromisoformat(t.replace("Z", "+00:00")),
                  parsedate_to_datetime):
        try:
            when = parse(text)
        except (ValueError, TypeError, IndexError):
            continue
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return when.timestamp()
    return None


def money_of(path: str, value: Any) -> float | None:
    """The amount a money text states ("$10.00", "10.00 USD"), or a number field named as
    money; None for anything else."""
    if is_number(value) and named(path.split(".")[-1], "money_words"):
        return float(value)
    if isinstance(value, str) and pattern("currency_marks").search(value):
        found = _NUMBER.findall(value)
        if len(found) == 1:
            return float(found[0].replace(",", ""))
    return None


def _answers(obs: Observation) -> dict[str, Any]:
    return dict(leaves(obs.output)) if obs.ok else {}


def _fact(param: str, text: str, family: str, alternative: str, call: Invocation,
          obs: Observation, how: str) -> Fact:
    return Fact(param, "rule", text, (CONVENTION, family, alternative),
                f"{how}; e.g. {evidence_of(call, obs)}"[:400], call.key(), "output")


# -- a restated scale ----------------------------------------------------------------------
def restated(param: str, x: float, answers: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """(path, unit, ratio) of each answer that restates ``x`` in another unit: a money amount
    at a minor-unit ratio ("cent"), a date at a millisecond ratio ("ms")."""
    data, out = words(DATA), []
    money_context = named(param, "money_words") or any(
        isinstance(v, str) and pattern("currency_marks").search(v) for v in answers.values())
    for path, value in answers.items():
        amount = money_of(path, value) if money_context else None
        if amount is not None and x:
            out += [(path, "cent", r) for r in data["minor_ratios"]
                    if close(amount, x * r, rel_tol=1e-9, abs_tol=1e-9)]
        when = epoch_of(value)
        if when is not None:
            out += [(path, unit, r) for unit, r in data["epoch_ratios"].items()
                    if abs(when - x * r) <= data["time_tolerance"]]
    return out


def _value(unit: str, path: str, value: Any) -> float | None:
    return epoch_of(value) if unit == "ms" else money_of(path, value)


async def scale_fact(engine: Any, param: str, inv: Invocation, obs: Observation
                     ) -> Fact | None:
    """The unit an output restating ``param`` shows, held on the call and on the call with
    the value doubled (the restated value moves by the ratio times the step)."""
    x = inv.arguments.get(param)
    if not is_number(x) or isinstance(x, bool) or not x:
        return None
    found = restated(param, float(x), _answers(obs))
    if not found:
        return None
    doubled = inv.with_args({param: x * 2})
    (probe,) = await run_seen(engine, [doubled])
    again = _answers(probe)
    for path, unit, ratio in found:
        before, after = _value(unit, path, _answers(obs)[path]), _value(
            unit, path, again.get(path))
        if before is not None and after is not None and close(
                after - before, x * ratio, rel_tol=1e-6, abs_tol=1.0 if unit == "ms" else 1e-9):
            how = f"the tool's output restates {param} at {ratio:g} of it ({path}), on " \
                f"{param}={x} and {param}={x * 2}"
            return _fact(param, unit_sentence(param, unit), "scale", unit, doubled, probe, how)
    return None


# -- a time shift's unit -----------------------------------------------------------------
def times_of(obs: Observation) -> dict[str, float]:
    """Seconds since 1970 of each time ``obs``'s output states: a date text, or a number of
    seconds or milliseconds since 1970 (:func:`epoch_number`)."""
    out = {}
    for path, value in leaves(obs.output) if obs.ok else ():
        when = epoch_of(value)
        if when is None and is_number(value) and not isinstance(value, bool):
            when = epoch_number(value)
        if when is not None:
            out[path] = when
    return out


def epoch_number(value: float) -> float | None:
    """A number read as a time since 1970 (seconds, or milliseconds for 12 or 13 digits)."""
    return value if 1e8 < value < 1e10 else value / 1000 if 1e11 < value < 1e13 else None


def shift_unit(param: str, step: float, ran: Sequence[Observation]) -> tuple[str, int] | None:
    """(unit, direction) of ``param`` where the three answers ``ran`` (its value, stepped by
    ``step``, stepped twice) state times that move alike at each step, by one of a unit's
    seconds per unit of ``param`` (direction -1: they move back); None otherwise."""
    if not all(o.ok for o in ran):
        return None
    times = [times_of(o) for o in ran]
    paths = [p for p in times[0] if all(p in t for t in times[1:])]
    moves = {round(times[1][p] - times[0][p], 6) for p in paths}
    moves |= {round(times[2][p] - times[1][p], 6) for p in paths}
    moves.discard(0.0)
    if len(moves) != 1:
        return None
    (moved,) = moves
    per_unit = moved / step
    units = words(DATA)["shift_units"]
    found = [u for u, size in units.items() if close(abs(per_unit), size, rel_tol=1e-9)]
    if len(found) != 1 or _names_unit(param):
        return None
    return found[0], 1 if per_unit > 0 else -1


def _names_unit(param: str) -> bool:
    """``param``'s name says a time unit already (``offset_minutes``, ``delay_ms``)."""
    return named(param, "time_unit_words")


def shift_sentence(param: str, unit: str, direction: int) -> str:
    said = unit_sentence(param, unit)
    if direction > 0:
        return said
    return said.rstrip(".") + "; a larger value gives an earlier time."


async def shift_fact(engine: Any, param: str, inv: Invocation, obs: Observation
                     ) -> Fact | None:
    """The unit of ``param`` where it moves a time the answer states: the call run with
    ``param`` stepped twice by each step of ``shift_steps`` (down where up is refused)."""
    if not times_of(obs):
        return None
    start = inv.arguments.get(param, 0)
    if not is_number(start) or isinstance(start, bool) or epoch_number(start) is not None:
        return None      # a time itself, not a shift: a scale (:func:`scale_fact`)
    for step in words(DATA)["shift_steps"]:
        for signed in (step, -step):
            calls = [inv.with_args({param: start + k * signed}) for k in (0, 1, 2)]
            ran = await run_seen(engine, calls)
            found = shift_unit(param, signed, ran) if all(o.ok for o in ran) else None
            if found is not None:
                how = f"the tool run with {param}={start}, {start + signed} and " \
                    f"{start + 2 * signed}: the time it answers moves one {found[0]} a unit"
                return _fact(param, shift_sentence(param, *found), "shift", found[0],
                             calls[1], ran[1], how)
            if all(o.ok for o in ran):
                break      # it ran and showed no unit: the other way shows none either
    return None


# -- an index base -------------------------------------------------------------------------
def _empty(obs: Observation) -> bool:
    out = obs.output
    return out is None or out == "" or (isinstance(out, (list, Mapping)) and not out) or (
        isinstance(out, Mapping) and any(isinstance(v, list) for v in out.values())
        and all(not v for v in out.values() if isinstance(v, list)))


def month_shown(obs: Observation) -> int | None:
    """The month (1-12) of the one date ``obs``'s output states (a date text, or a number of
    seconds or milliseconds since 1970); None: no single date."""
    months = set()
    for _, value in leaves(obs.output) if obs.ok else ():
        when = epoch_of(value)
        if when is None and is_number(value) and not isinstance(value, bool):
            when = epoch_number(value)
        if when is not None:
            months.add(datetime.fromtimestamp(when, timezone.utc).month)
    return months.pop() if len(months) == 1 else None


def index_sentence(param: str, base: int) -> str:
    """What the base says; from 0, with the step a reader takes from the count people use
    (run s72k: "0 is January, 11 is December" alone left the 1.5B writing month=3 for March in
    every request of utc_timestamp, with the facts doc as with the original)."""
    noun = param.replace("_", " ")
    if named(param, "month_params"):
        last = 11 if base == 0 else 12
        said = f"`{param}` counts from {base}: {base} is January, {last} is December"
        return said + ("; subtract 1 from a month's usual number (March, month 3, is 2)."
                       if base == 0 else ".")
    said = f"`{param}` counts from {base}: {base} is the first {noun}, {base + 1} the second"
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    return said + (f"; subtract 1 from {article} {noun} number counted from 1 ({noun} 3 is 2)."
                   if base == 0 else ".")


def index_base(param: str, optional: bool, obs0: Observation, obs1: Observation,
               default: Observation | None, month: tuple[int | None, int | None]) -> int | None:
    """The base the answers show (0 or 1), or None when they do not separate them."""
    if obs1.ok and not obs0.ok:
        return 1
    if not (obs0.ok and obs1.ok):
        return None
    if _empty(obs0) and not _empty(obs1):
        return 1
    if named(param, "month_params") and None not in month:
        return 0 if month == (1, 2) else 1 if month == (12, 1) or month[1] == 1 else None
    if optional and default is not None and default.ok and obs0.output != obs1.output:
        if default.output == obs0.output:
            return 0
        if default.output == obs1.output:
            return 1
    return None


async def base_fact(engine: Any, tool: Tool, param: str, inv: Invocation) -> Fact | None:
    """Whether ``param`` counts from 0 or 1, from the call ``inv`` run with it at 0, at 1 and
    (optional) left out."""
    optional = param not in set(tool.required)
    calls = [inv.with_args({param: 0}), inv.with_args({param: 1})]
    if optional:
        calls.append(inv.without(param))
    ran = await run_seen(engine, calls)
    default = ran[2] if optional else None
    base = index_base(param, optional, ran[0], ran[1], default,
                      (month_shown(ran[0]), month_shown(ran[1])))
    if base is None:
        return None
    how = f"the tool run with {param}=0, {param}=1" + (" and without it" if optional else "")
    return _fact(param, index_sentence(param, base), "index", str(base), calls[base],
                 ran[base], how)


# -- a request that counts from 1 --------------------------------------------------------------
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth")


def counted_from_one(query: str, name: str, value: object, rules: str) -> int | None:
    """The index a request means where it says position ``value`` of ``name`` as people
    count, from 1 ("page 2", "the second page", "March" or "month 3" for month=3), while
    ``rules`` (the parameter's rule sentences) say the tool counts from 0: ``value - 1``; None
    otherwise. A month said by number is said as people count too: play's "utc timestamp year
    2024 month 10" with month=10 is November to the tool and October to a reader (run s72i:
    two such examples voted utc_timestamp's facts doc down to a tie)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or not re.search(
            r"counts from 0\b", rules):
        return None
    if "January" in rules:
        months = words(FORMS)["months"]
        named = [m for m in months if re.search(rf"\b{m}\b", query, re.I)]
        if named:
            return value - 1 if named == [months[value - 1]] else None
    noun = re.escape(name.replace("_", " "))
    ordinal = ORDINALS[value - 1] if value <= len(ORDINALS) else f"{value}(?:st|nd|rd|th)"
    said = rf"\b{noun}\s+(?:number\s+|no\.?\s*|#\s?)?{value}\b|\b(?:{ordinal}|{value}" \
        rf"(?:st|nd|rd|th))\s+{noun}\b"
    return value - 1 if re.search(said, query, re.I) else None


# -- the component ---------------------------------------------------------------------------
def candidates(tool: Tool, ruled: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(number parameters of unknown unit, whole-number parameters named as a position)."""
    scales, bases = [], []
    for name, spec in tool.properties.items():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if kind in ("number", "integer") and tool_unit(ruled.get(name, "")) is None:
            scales.append(name)
        if kind == "integer" and named(name, "index_params") and not named(
                name, "not_index_params") and "counts from" not in ruled.get(name, ""):
            bases.append(name)
    return scales, bases


async def conventions(tool: Tool, engine: Any, calls: Sequence[tuple[Invocation, Observation]],
                      ruled: Mapping[str, str]) -> list[Fact] | None:
    """The conventions the tool's answers show, from the first call that ran (with each
    parameter, for its own checks); None: no call has run yet."""
    worked = [(inv, obs) for inv, obs in calls if obs.ok]
    if not worked:
        return None
    scales, bases = candidates(tool, ruled)
    found: list[Fact] = []
    for param in scales:
        first = next(((i, o) for i, o in worked if param in i.arguments), None)
        fact = await scale_fact(engine, param, *first) if first else None
        if fact is None:
            first = first or (worked[0] if param not in set(tool.required) else None)
            fact = await shift_fact(engine, param, *first) if first else None
        found += [fact] if fact else []
    found += await share_facts(engine, tool, [p for p in scales if p not in {
        f.param for f in found}], worked)
    found += await angle_facts(engine, tool, [p for p in scales if p not in {
        f.param for f in found}], worked)
    for param in bases:
        inv = next((i for i, _ in worked if param in i.arguments), worked[0][0])
        fact = await base_fact(engine, tool, param, inv)
        found += [fact] if fact else []
    points = [p for p in position_params(tool, worked) if "longitude" not in ruled.get(p, "")]
    if points:
        inv = max((i for i, _ in worked), key=lambda i: sum(p in i.arguments for p in points))
        found += await order_facts(engine, tool, inv, points)
    return found + await span_facts(engine, tool, worked, ruled)


__all__ = ["CONVENTION", "base_fact", "candidates", "conventions", "counted_from_one",
           "epoch_number", "epoch_of", "index_base", "index_sentence", "leaves", "money_of",
           "month_shown", "restated", "scale_fact", "shift_fact", "shift_sentence", "shift_unit",
           "times_of"]
