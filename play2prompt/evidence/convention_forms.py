"""The forms of values whose meaning a convention fact states (:mod:`play2prompt.evidence.
conventions` and its families), said as people say them: a range's excluded end by the last
value counted, a position counted from 0 by its count from 1, a point in its stated order, a
level by its shares, an option's value by what it computes. :func:`~play2prompt.evidence.
everyday.everyday_forms` tries them before the plain forms."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from play2prompt.evidence.coordinates import stated_order
from play2prompt.evidence.error_text import words
from play2prompt.evidence.form import Form
from play2prompt.evidence.levels import level_form_parts
from play2prompt.evidence.option_words import operation_phrase
from play2prompt.evidence.spans import excluded_end, shifted
from play2prompt.method.rewards import percent_pattern
from play2prompt.numeric import is_number, plain_number

DATA = "everyday_forms.json"


def operation_form(value: Any, rule: str, name: str) -> Form | None:
    """An option's value said by what it computes, where its rule names it beside another
    value's (:mod:`play2prompt.evidence.option_effects`: "the sample standard deviation ..."
    for ddof=1, the request must say "sample"); its number may stand in the request's data."""
    found = operation_phrase(value, rule, name)
    if found is None:
        return None
    phrase, mark = found
    return Form("operation", phrase, (), mark, as_given_ok=True)


def span_form(value: Any, rule: str, name: str) -> Form | None:
    """A range's excluded end (:mod:`play2prompt.evidence.spans`) said as people say it: the
    last value counted, with "included" ("June 14, 2024, included" for an end of
    '2024-06-15')."""
    if not excluded_end(rule, name) or isinstance(value, bool):
        return None
    last = shifted(value, -1)
    included = words("conventions.json")["included_words"]
    if isinstance(last, int):
        return Form("span end", f"{last}, included", (last,), included)
    day = date.fromisoformat(last) if isinstance(last, str) else None
    if day is None:
        return None
    month = words(DATA)["months"][day.month - 1]
    return Form("span end", f"{month} {day.day}, {day.year}, included", (day.day, day.year),
                rf"(?=.*\b{month}\b).*{included}")


def index_form(value: Any, rule: str, name: str) -> Form | None:
    """A position counted from 0 said as people count it
    (:mod:`play2prompt.evidence.conventions`): its month's name for a month ("March" for 2),
    else the count from 1 ("page 3" for 2)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or not re.search(
            r"counts from 0\b", rule):
        return None
    months = words(DATA)["months"]
    if "January" in rule and value < len(months):
        return Form("month", months[value], (), rf"\b{months[value]}\b")
    noun = name.replace("_", " ")
    return Form("position", f"{noun} {value + 1}", (value + 1,))


def position_form(value: Any, rule: str) -> Form | None:
    """A point whose order a rule states (:mod:`play2prompt.evidence.coordinates`) said with
    its two numbers named, in the other order: "latitude 48.86, longitude 2.35" for
    ``[2.35, 48.86]`` where the tool takes longitude first."""
    order = stated_order(rule)
    if order is None or not isinstance(value, list) or len(value) != 2 or not all(
            is_number(v) and not isinstance(v, bool) for v in value):
        return None
    named = dict(zip(order, value))
    later, first = order                     # said the other way round
    text = f"{first} {plain_number(named[first])}, {later} {plain_number(named[later])}"
    a, b = named[first], named[later]
    side = r"(?:[^\dA-Za-z]{1,4}|\s+and\s+)"          # "37.77, -122.42", "37.77 and -122.42"
    mark = f"(?:{_named(first, a)}.*{_named(later, b)}|{_bare(a)}{side}{_bare(b)})"
    return Form("position", text, (float(named[first]), float(named[later])), mark)


def _named(axis: str, number: float) -> str:
    """A number said as the ``axis`` coordinate: after its name ("latitude 48.86", "lng:
    2.35") or before its hemisphere ("48.86° N"). A point's two numbers are said either so or
    side by side ("48.86, 2.35"): the first number anywhere before the second passed
    "40.7128° N, -74.006° W and my destination at 40.7128° N" for latitude -74.006 (run s72n),
    a test the original doc passed by reading it the tool's way."""
    word, side = (("latitude|lat", "NS") if axis == "latitude"
                  else ("longitude|long|lng|lon", "EW"))
    num = _bare(number)
    return rf"(?:\b(?:{word})\b[^\d+-]{{0,12}}{num}|{num}\s*°?\s*[{side}]\b)"


def _bare(number: float) -> str:
    return r"(?<![\d.])" + re.escape(plain_number(number)) + r"(?![\d.])"


def level_form(value: Any, rule: str, name: str) -> Form | None:
    """A level said by the shares its rule gives ("70 to 80 % of max hr" for zone 3,
    :mod:`play2prompt.evidence.levels`): the request must say those percentages."""
    parts = level_form_parts(value, rule, name)
    if parts is None:
        return None
    text, shares = parts
    return Form("level", text, tuple(float(s) for s in shares), percent_pattern())


__all__ = ["index_form", "level_form", "operation_form", "position_form", "span_form"]
