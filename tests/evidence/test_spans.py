"""The span family of ``conventions``: whether a range's end is counted, from the tool's own
counts over the ranges [d, d] and [d, d + 1] (no LLM call); the form its fact tests say."""

from __future__ import annotations

import asyncio

from play2prompt.evidence.everyday import everyday_forms
from play2prompt.evidence.spans import (
    count_of,
    end_excluded,
    excluded_end,
    span_facts,
    span_pairs,
)
from play2prompt.tools.model import Observation, Tool
from tests.evidence.support import ran_once

TOOLS = '''
from datetime import date, timedelta

def _weekdays(a, b, last):
    d, stop, n = date.fromisoformat(a), date.fromisoformat(b), 0
    while d < stop or (last and d == stop):
        n += d.weekday() < 5
        d += timedelta(days=1)
    return n

def workdays_half_open(begindates: str, enddates: str) -> int:
    return _weekdays(begindates, enddates, False)

def workdays_inclusive(start_date: str, end_date: str) -> dict:
    return {"workdays": _weekdays(start_date, end_date, True), "from": start_date}

def numbers(start: int, stop: int) -> list:
    return list(range(start, stop))

def convert(amount: float, from_currency: str, to_currency: str) -> float:
    return amount
'''

STR, INT = {"type": "string"}, {"type": "integer"}


def _tool(name, props):
    return Tool(name, "", {"type": "object", "properties": props, "required": list(props)},
                {"python": f"tools.py:{name}"})


TOOLSET = {
    "workdays_half_open": _tool("workdays_half_open", {"begindates": STR, "enddates": STR}),
    "workdays_inclusive": _tool("workdays_inclusive", {"start_date": STR, "end_date": STR}),
    "numbers": _tool("numbers", {"start": INT, "stop": INT}),
    "convert": _tool("convert", {"amount": {"type": "number"}, "from_currency": STR,
                                 "to_currency": STR}),
}


def _found(engine_over, tmp_path, name, args):
    engine, inv, obs = ran_once(engine_over, tmp_path, TOOLS, TOOLSET[name], args)
    return asyncio.run(span_facts(engine, TOOLSET[name], [(inv, obs)], {}))


def test_a_half_open_date_range_says_its_end_is_excluded(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "workdays_half_open",
                     {"begindates": "2024-06-07", "enddates": "2024-06-15"})
    assert fact.param == "enddates" and fact.values == ("convention", "span", "end-excluded")
    assert fact.text.startswith("`enddates` is excluded") and fact.source == "output"
    assert "2024-06-07 through 2024-06-14, both included" in fact.text
    assert excluded_end(fact.text, "enddates") and not excluded_end(fact.text, "begindates")
    (form,) = everyday_forms("2024-06-15", fact.text, "", "enddates")
    assert form.text == "June 14, 2024, included"
    assert form.said_in("workdays from June 7 through June 14, 2024, the 14th included")
    assert not form.said_in("workdays from June 7 to June 14, 2024")
    assert everyday_forms("2024-06-07", fact.text, "", "begindates")[0].text == "June 7, 2024"


def test_a_counted_end_and_a_pair_of_codes_say_nothing(engine_over, tmp_path):
    assert _found(engine_over, tmp_path, "workdays_inclusive",
                  {"start_date": "2024-06-03", "end_date": "2024-06-14"}) == []
    assert _found(engine_over, tmp_path, "convert", {"amount": 5, "from_currency": "USD",
                                                     "to_currency": "EUR"}) == []


def test_a_half_open_number_range_from_a_listing(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "numbers", {"start": 2, "stop": 9})
    assert fact.param == "stop" and "(2 through 8, both included" in fact.text
    (form,) = everyday_forms(9, fact.text, "", "stop")
    assert form.text == "8, included" and form.said_in("the numbers 2 through 8 inclusive")


def test_span_readers():
    assert span_pairs(TOOLSET["numbers"]) == [("start", "stop")]
    assert span_pairs(TOOLSET["convert"]) == [("from_currency", "to_currency")]
    ok = lambda out: Observation(True, out)   # noqa: E731
    assert count_of(ok(3)) == 3 and count_of(ok([1, 2])) == 2 and count_of(ok({"n": 1})) == 1
    assert count_of(ok({"a": 1, "b": 2})) is None and count_of(ok(True)) is None
    assert end_excluded([ok(0), ok(0), ok(0)], [ok(1), ok(0), ok(0)]) is True
    assert end_excluded([ok(0), ok(1), ok(1)], [ok(1), ok(2), ok(1)]) is False
    assert end_excluded([ok(0), ok(0), ok(0)], [ok(0), ok(0), ok(0)]) is None
