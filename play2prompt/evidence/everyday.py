"""Everyday forms of a value, made by code from a fact play established (Step 1b).

A fact about a parameter often says how a person's way of saying a value differs from what the
tool takes: "Height is in centimetres" (people say 1.8 m), "annual_rate is a percentage"
(people say 5 %, and a model reading a thin doc writes 0.05), "Format: YYYY-MM-DD" (people say
April 15, 2023), "Format: HH:MM" (6:30 pm), a unit code among the accepted values (km:
kilometres). Where a fact makes the conversion checkable, code
makes the form and checks that a request says it: the small generator only has to write it into
a request, and no re-reading by the generator (which must then convert it back) decides
whether the test is kept. Values with no such fact (a code among accepted values, say) have no
form here; the generator says them another way and a re-reading verifies it
(:mod:`play2prompt.evidence.fact_tests`). The words and unit scales are data
(``data/everyday_forms.json``; the unit words are the fact reader's ``unit_families``).
"""

from __future__ import annotations

import math
import re
from datetime import date, time
from typing import Any

from play2prompt.evidence.convention_forms import (
    index_form,
    level_form,
    operation_form,
    position_form,
    span_form,
)
from play2prompt.evidence.coordinates import stated_order
from play2prompt.evidence.error_reading import ACCEPTS
from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import format_of
from play2prompt.evidence.form import Form
from play2prompt.evidence.named_codes import code_names
from play2prompt.method.rewards import (
    per_year_mark,
    per_year_words,
    percent_pattern,
)
from play2prompt.numeric import is_number

DATA = "everyday_forms.json"
_NEAR = 1e-9


def tool_unit(rule: str) -> str | None:
    """The unit a rule says the tool takes ("is in centimetres", "as a percentage"): the one
    unit said after "in"/"as" (or, for percent vs fraction, the one said at all); a fraction
    where the rule names no unit but bounds the value between 0 and 1 ("tip must be between 0
    and 1": people say 15 %)."""
    before = "|".join(words()["unit_preposition"])
    found = []
    for family in words()["unit_families"]:
        for unit, said in family.items():
            bare = unit in ("percent", "fraction")
            lead = "" if bare else rf"\b(?:{before})\s+(?:an?\s+)?"
            if re.search(rf"{lead}\b(?:{said})\b", rule, re.I):
                found.append(unit)
    if not found and re.search(words(DATA)["fraction_bounds"], rule, re.I):
        return "fraction"     # bounded between 0 and 1: a share, said as a percentage
    return found[0] if len(found) == 1 else None


def unit_words(unit: str) -> str | None:
    """The pattern of the words that say the canonical ``unit`` (the fact reader's
    ``unit_families``), or None for a unit no family has."""
    return next((f[unit] for f in words()["unit_families"] if unit in f), None)


def family(unit: str) -> tuple[str, ...]:
    """The units of ``unit``'s family the fact reader scales (mm, cm, m, km; cent, dollar)."""
    scales = unit_scales()
    for fam in words()["unit_families"]:
        if unit in fam:
            return tuple(u for u in fam if u in scales)
    return ()


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def unit_scales() -> dict[str, float]:
    """Each unit's size in its dimension's base unit, money's units too."""
    data = words(DATA)
    return {**data["scales"], **data["money_scales"]}


def everyday_unit(unit: str | None) -> str | None:
    """The unit people say a quantity of ``unit`` in (metres for centimetres), where both
    have a scale in the word data; None otherwise."""
    data, scales = words(DATA), unit_scales()
    other = data["everyday"].get(unit or "")
    if other is None or unit not in scales or other not in scales:
        return None
    return other


def number_form(value: Any, rule: str) -> Form | None:
    """A number in another unit of its dimension, or as a percentage."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    unit = tool_unit(rule)
    if unit == "percent":
        return Form("percent", f"{_number(value)} %", (value,), percent_pattern(), True)
    if unit in ANGLE_TURNS and unit != "deg":
        return angle_form(value, unit)
    if unit == "fraction" and 0 < value < 1:
        shown = round(value * 100, 3)
        return Form("fraction", f"{_number(shown)} %", (shown,), percent_pattern())
    data, other = words(DATA), everyday_unit(unit)
    if other is None:
        return None
    scales = unit_scales()
    converted = value * scales[unit] / scales[other]
    epoch = unit == "ms" and abs(value) >= data["epoch_ms"]   # a time since 1970, in seconds
    if abs(round(converted, 3) - converted) > _NEAR or not (
            epoch or 0.1 <= abs(converted) <= 10_000):
        return None
    mark = rf"\b(?:{unit_words(other)})\b|(?<=\d)\s?{re.escape(other)}\b"  # word or symbol
    if other in data["symbols"]:
        mark += rf"|(?:{data['symbols'][other]})\s?\d|\d\s?(?:{data['symbols'][other]})"
    return Form("unit", f"{_number(converted)} {data['names'][other]}", (round(converted, 3),),
                mark)


# an angle's full turn by the unit it is in (evidence/angles.py: the turn that gives an answer
# back says the unit)
ANGLE_TURNS = {"deg": 360.0, "rad": math.tau, "turn": 1.0}


def angle_form(value: float, unit: str) -> Form | None:
    """An angle the tool takes in radians or turns said in whole degrees ("45 degrees" for
    0.785398...), where it is one."""
    degrees = value * 360 / ANGLE_TURNS[unit]
    if abs(degrees - round(degrees)) > 1e-6 or not degrees:
        return None
    shown = round(degrees)
    return Form("unit", f"{shown} degrees", (shown,), rf"\b(?:{unit_words('deg')})\b|\d\s?°")


def ratio_form(value: Any, unit: str | None) -> Form | None:
    """A share said as a ratio ("43 out of 50" for 86), where the tool takes it as a percentage
    (86) or a fraction (0.86): a whole count out of the total of ``ratio_totals`` that comes
    nearest, the smallest such ("9 out of 10" for 90). Play's values are seldom round
    (85.5), so the form says the share it rounds to and carries the call's value for it
    (``value``: 85, "17 out of 20"); the test then runs that call
    (:meth:`~play2prompt.evidence.fact_tests.FactTestWriter.retarget`). Which form a fact
    test says is decided by the task model: a test the doc as given solves is no difficult
    example (R_e = 0). A decimal ("0.86" where the tool takes 86) is no form here: the 1.5B
    passes it on as written with any doc, the facts doc's worked example too (run fresh8,
    2026-11-28), so such tests tell no doc from another."""
    if not is_number(value) or unit not in ("percent", "fraction"):
        return None
    scale = 1 if unit == "percent" else 100
    percent = value * scale
    if not 0 < percent < 100:
        return None
    totals = words(DATA)["ratio_totals"]
    n, m = min(((round(percent * m / 100), m) for m in totals),   # nearest, then smallest
               key=lambda nm: (round(abs(nm[0] * 100 / nm[1] - percent), 6), nm[1]))
    if not 0 < n < m:
        return None
    meant: float = round(n * 100 / m / scale, 6)
    meant = int(meant) if meant.is_integer() else meant
    return Form("ratio", f"{n} out of {m}", (n, m), rf"(?<![\d.]){n}\s*(?:/|out of|of)\s*{m}"
                rf"(?![\d.])", value=None if abs(meant - value) < _NEAR else meant)


def number_forms(value: Any, rule: str) -> list[Form]:
    """Every form code can make for a number under ``rule``: :func:`number_form` first, then
    a share as a ratio (:func:`ratio_form`)."""
    return [f for f in (number_form(value, rule), ratio_form(value, tool_unit(rule)))
            if f is not None]


def sign_form(value: Any) -> Form | None:
    """A negative number said by its size and a word of the other way ("7 days before", "5
    degrees below zero"), where the facts show negative values work (a probe of the other
    sign that ran: :mod:`play2prompt.evidence.variants`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value >= 0:
        return None
    size = _number(-value)
    return Form("sign", f"{size}, going the other way (say {size} with before, ago, back, "
                f"below or less)", (-value,), rf"\b(?:{words(DATA)['other_way']})\b")


def typical_value(value: Any, rule: str) -> float | list[float] | None:
    """The value a person would mean where the call's is legal but atypical under ``rule``:
    a percentage written as a fraction (0.05 where the tool takes a percentage between 0 and
    100) is 5; a number too small to say in the everyday unit of the tool's (1.75 where it
    takes centimetres: 0.0175 metres) was written in that everyday unit, and is 175 (units
    100 or more times smaller than their everyday one: cm, g, ms); a time since 1970 written
    in seconds where the tool takes milliseconds (1633072800, 19 January 1970 in milliseconds)
    is a thousand times larger (said "1633072800 seconds": :func:`number_form`'s epoch). The
    test's call then takes that value (executed to check it works), so the request says "5 %"
    or "1.75 metres" and a model reading a thin doc, which writes 0.05 or 1.75, fails it.
    A point whose two numbers are equal (play's ``[1, 1]``) shows no order: under a rule
    that states its order (:mod:`play2prompt.evidence.coordinates`) it is Paris in that order.
    None when the value is typical already."""
    if isinstance(value, list):
        return typical_point(value, rule)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    unit = tool_unit(rule)
    if unit == "percent" and 0 < abs(value) < 1:
        return round(value * 100, 6)
    if unit in ANGLE_TURNS and unit != "deg":      # the nearest 15 degrees, in the unit
        degrees = value * 360 / ANGLE_TURNS[unit]
        whole = round(degrees / 15) * 15 or 15
        return None if abs(whole - degrees) < 1e-6 else whole * ANGLE_TURNS[unit] / 360
    data = words(DATA)
    if unit == "ms" and data["epoch_seconds"] <= abs(value) < data["epoch_ms"]:
        return value * 1000        # a time since 1970 in seconds, where the tool takes ms
    scales, other = unit_scales(), everyday_unit(unit)
    if other is None:
        return None
    ratio = scales[other] / scales[unit]
    if ratio >= 100 and 0 < abs(value) * scales[unit] / scales[other] < 0.1:
        return round(value * ratio, 6)
    return None


def typical_point(value: list[Any], rule: str) -> list[float] | None:
    """Paris in the order ``rule`` states, where ``value`` is a point whose numbers are equal
    (a request for it says nothing of the order); None otherwise."""
    order = stated_order(rule)
    if order is None or len(value) != 2 or value[0] != value[1]:
        return None
    return [2.3522, 48.8566] if order[0] == "longitude" else [48.8566, 2.3522]


def text_form(value: Any) -> Form | None:
    """A date as people write it (April 15, 2023), a time on the 12-hour clock (6:30 pm)."""
    if not isinstance(value, str):
        return None
    fmt, data = format_of(value), words(DATA)
    try:
        if fmt == "YYYY-MM-DD":
            day = date.fromisoformat(value.strip())
            month = data["months"][day.month - 1]
            return Form("date", f"{month} {day.day}, {day.year}", (day.day, day.year),
                        rf"\b{month}\b")
        if fmt == "HH:MM":
            at = time.fromisoformat(value.strip().zfill(5))
            hour, half = (at.hour % 12) or 12, "pm" if at.hour >= 12 else "am"
            shown = f"{hour}:{at.minute:02d} {half}" if at.minute else f"{hour} {half}"
            numbers = (hour, at.minute) if at.minute else (hour,)
            return Form("time", shown, numbers, rf"(?<![\w])(?:{data[half]})(?![\w])")
    except ValueError:
        return None
    return None


def code_form(value: str, rule: str) -> Form | None:
    """A unit code the tool takes among values its facts list (km, ft) by its everyday name
    (kilometres, feet)."""
    code = value.strip()
    listing = re.search(rf"{re.escape(ACCEPTS.strip())}([^.]*)", rule)   # the facts' own list
    listed = listing is not None and code in [v.strip() for v in listing.group(1).split(",")]
    name = words(DATA)["names"].get(code)
    said = unit_words(code)
    if not (listed and name and said):
        return None
    return Form("unit name", name, (), rf"\b(?:{said})\b")


def everyday_form(value: Any, rule: str) -> Form | None:
    """The form code can make for ``value`` under ``rule`` (the param's facts), or None."""
    if isinstance(value, str):
        return text_form(value) or code_form(value, rule)
    return number_form(value, rule)


def named_forms(value: str, about: str) -> list[Form]:
    """A standard code the tool takes by the names people say (New York time for
    America/New_York, Germany for DE, Euro for EUR, white and rgb(255, 255, 255) for
    #FFFFFF): the request must say the name, and the code, written in its own case, not at
    all."""
    return [Form(f"{n.kind} name", n.name, (), n.mark, exact_code=True, standard=n.standard)
            for n in code_names(value, about)]


def per_year_form(value: Any, name: str) -> Form | None:
    """A count a year said as how often ("monthly" for 12) where the parameter's ``name`` says
    it counts times a year (``compounding``): the request must say how often, not the
    number."""
    said, mark = per_year_words(name, value), per_year_mark(name, value)
    if said is None or mark is None:
        return None
    first = said.split("|")[0]
    return Form("how often", first, (), mark,
                standard=f"the number of times a year ({value:g} for {first})")


def everyday_forms(value: Any, rule: str, about: str = "", name: str = "") -> list[Form]:
    """Every form code can make for ``value`` under ``rule``, :func:`everyday_form`'s first;
    for a standard code (a time zone, a country, a currency), its name where ``about`` (the
    parameter's name, description and facts) shows the kind
    (:func:`~play2prompt.evidence.named_codes.code_names`); for a count a year of the
    parameter ``name``, how often (:func:`per_year_form`)."""
    span = span_form(value, rule, name)
    if span is not None:
        return [span]
    if isinstance(value, str):
        form = everyday_form(value, rule)
        return [form] if form is not None else named_forms(value, f"{about} {rule}")
    if isinstance(value, list):
        point = position_form(value, rule)
        return [point] if point is not None else []
    often = per_year_form(value, name) or operation_form(value, rule, name)
    if often is not None:
        return [often]
    level = level_form(value, rule, name) or index_form(value, rule, name)
    return [level] if level is not None else number_forms(value, rule)


__all__ = ["ANGLE_TURNS", "Form", "angle_form", "code_form", "everyday_form", "everyday_forms",
           "family", "index_form", "level_form", "named_forms", "number_form", "number_forms",
           "operation_form",
           "per_year_form", "position_form", "ratio_form", "sign_form", "span_form", "text_form",
           "tool_unit", "typical_point", "typical_value", "unit_scales", "unit_words"]
