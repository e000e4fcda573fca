"""The ``output-units`` component: a number parameter's unit learned by fitting the
generator's textbook formula to a tool's outputs, with each parameter left as called or
rescaled. Facts no error states (a rate in percent, a room in centimetres) become rule facts
that Step 1b's fact tests say the everyday way."""

from __future__ import annotations

import asyncio
import math
from types import SimpleNamespace

from play2prompt.evidence.everyday import everyday_form, tool_unit, typical_value
from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.output_units import (
    fit,
    number_fields,
    output_units,
    unit_after,
    unknown_units,
)
from play2prompt.lm.fake import FakeLM, prompt_text
from play2prompt.metaprompts import MetaPrompts
from play2prompt.scrub import Scrubber
from play2prompt.tools.model import Invocation, Observation, Tool

MARK = "You write the textbook formula a function computes"
GROWTH = "principal * (1 + annual_rate / compounding) ** (compounding * years)"
SAVINGS = Tool("savings_growth", "Compute savings growth.", {"type": "object", "properties": {
    "principal": {"type": "number"}, "annual_rate": {"type": "number"},
    "years": {"type": "number"}, "compounding": {"type": "integer"}}}, {"python": "m:f"})


def savings(principal, annual_rate, years, compounding):
    """The tool takes the rate in percent (no error says so: 0.05 runs)."""
    balance = principal * (1 + annual_rate / 100 / compounding) ** (compounding * years)
    return {"balance": round(balance, 2), "interest": round(balance - principal, 2)}


def paint(length, width, height):
    """The tool takes centimetres and says its area in square metres."""
    area = 2 * (length + width) * height / 10_000
    return {"wall_area_m2": round(area, 2), "tins": math.ceil(area / 25)}


SAVED = [dict(principal=1000, annual_rate=0.05, years=10, compounding=12),
         dict(principal=5000, annual_rate=4, years=5, compounding=4),
         dict(principal=200, annual_rate=0.1, years=2, compounding=1)]
ROOMS = [dict(length=5, width=4, height=2.5), dict(length=3, width=3, height=2.4),
         dict(length=400, width=300, height=250)]


def _cases(f, calls, field):
    return [(str(a), a, f(**a)[field]) for a in calls]


def test_a_rate_the_tool_takes_in_percent_is_found_by_rescaling_the_formula():
    found = fit(GROWTH, "balance", _cases(savings, SAVED, "balance"),
                ["principal", "annual_rate", "years", "compounding"],
                {"annual_rate": "fraction", "principal": "dollars"})
    assert found.scales == (("annual_rate", 0.01),) and found.check.matched == 3
    (fact,) = found.facts()
    assert (fact.param, fact.kind) == ("annual_rate", "rule")
    assert tool_unit(fact.text) == "percent"
    assert "x 0.01" in fact.evidence and GROWTH in fact.evidence


def test_centimetres_are_found_where_the_output_names_its_unit_and_not_otherwise():
    params = ["length", "width", "height"]
    metres = dict.fromkeys(params, "metres")
    cases = _cases(paint, ROOMS, "wall_area_m2")
    found = fit("2 * (length + width) * height", "wall_area_m2", cases, params, metres)
    assert dict(found.scales) == dict.fromkeys(params, 0.01)
    assert {tool_unit(f.text) for f in found.facts()} == {"cm"}
    # the same outputs under a name with no unit: square centimetres would explain them too
    assert fit("2 * (length + width) * height", "area", cases, params, metres) is None


def test_a_formula_that_holds_as_written_says_a_unit_only_where_it_converts_one():
    cases = _cases(savings, SAVED, "balance")
    params = ["principal", "annual_rate", "years", "compounding"]
    converted = GROWTH.replace("annual_rate", "annual_rate / 100")
    for named in ("percent", "fraction"):     # the tool's unit or the formula's: the same
        found = fit(converted, "balance", cases, params, {"annual_rate": named})
        assert found.own and found.scales == (("annual_rate", 0.01),)
        assert [tool_unit(f.text) for f in found.facts()] == ["percent"]
    assert fit(converted, "balance", cases, params, {"annual_rate": "dollars"}).facts() == []
    grown = [(t, a, a["annual_rate"] * 2) for t, a, _ in cases]
    assert fit("annual_rate * 2", "", grown, params, {"annual_rate": "percent"}) is None
    assert fit("principal * (1 + annual_rate) ** years", "balance", cases, params,
               {"annual_rate": "fraction"}) is None                  # wrong formula
    assert fit(GROWTH, "balance", cases[:2], params, {}) is None     # too few calls


def test_two_equally_small_rescalings_are_ambiguous():
    calls = [dict(a=2, b=3), dict(a=5, b=7), dict(a=1, b=4)]
    cases = [(str(c), c, c["a"] * c["b"] / 100) for c in calls]
    # a x 0.01 or b x 0.01 explain the products equally
    assert fit("a * b", "", cases, ["a", "b"], {"a": "metres", "b": "metres"}) is None


def test_the_unit_after_a_rescaling_is_read_from_the_unit_families():
    assert unit_after("metres", 0.01) == "cm"
    assert unit_after("kilograms", 0.001) == "g"
    assert unit_after("fraction", 0.01) == "percent"
    assert unit_after("decimal", 0.01) == "percent"
    assert unit_after("percent", 100.0) == "fraction"
    assert unit_after("dollars", 0.01) is None and unit_after("none", 100.0) is None
    assert unit_after("metres", 0.001) == "mm"


def test_only_parameters_with_no_unit_yet_get_facts_and_only_number_outputs_are_fit():
    ruled = {"annual_rate": "annual_rate must be a percentage between 0 and 100."}
    assert unknown_units(SAVINGS, ruled) == ["principal", "years", "compounding"]
    assert number_fields({"balance": 1.0, "ok": True, "currency": "GBP"}) == ["balance"]
    assert number_fields(3.5) == [""] and number_fields("3.5") == []


def test_a_call_too_small_for_the_everyday_unit_was_said_in_it():
    rule = "`height` is in centimetres."
    assert typical_value(1.75, rule) == 175.0          # 1.75 cm: a height written in metres
    assert typical_value(175, rule) is None
    assert everyday_form(175.0, rule).text == "1.75 metres"
    assert typical_value(2, "`weight` is in grams.") == 2000.0
    assert typical_value(2, "`wait` is in seconds.") is None   # 60: not a slip of scale


def _engine(gen):
    return SimpleNamespace(scrubber=Scrubber(), prompts=MetaPrompts(), generator=gen)


def _ran():
    return [(Invocation("savings_growth", a), Observation.success(savings(**a))) for a in SAVED]


def test_one_generator_call_turns_a_fitting_guess_into_a_rule_fact():
    def answer(request, i):
        return {"guesses": [
            {"output": "interest", "python": "principal * annual_rate * years",
             "units": {"principal": "dollars", "annual_rate": "fraction", "years": "years",
                       "compounding": "none"}},
            {"output": "balance", "python": GROWTH,
             "units": {"principal": "dollars", "annual_rate": "fraction", "years": "years",
                       "compounding": "none"}}]}
    gen = FakeLM(rules=[(MARK, answer)])
    facts = asyncio.run(output_units(SAVINGS, _engine(gen), _ran(), {}))
    (asked,) = gen.requests
    shown = prompt_text(asked)
    assert "savings_growth(principal=1000, annual_rate=0.05, years=10, compounding=12)" in shown
    assert "balance, interest" in shown
    assert [(f.param, tool_unit(f.text)) for f in facts] == [("annual_rate", "percent")]
    book = FactBook(SAVINGS)
    for fact in facts:
        book.add(fact)
    rule = " ".join(book.sentences("annual_rate", examples=False))
    assert everyday_form(typical_value(0.05, rule), rule).text == "5 %"


def test_no_call_before_there_are_enough_number_outputs():
    gen = FakeLM(rules=[(MARK, {"guesses": []})])
    assert asyncio.run(output_units(SAVINGS, _engine(gen), _ran()[:2], {})) is None
    text_tool = Tool("t", "Echo.", {"type": "object", "properties": {
        "s": {"type": "string"}}}, {"python": "m:f"})
    echoes = [(Invocation("t", {"s": c}), Observation.success(c)) for c in "abc"]
    assert asyncio.run(output_units(text_tool, _engine(gen), echoes, {})) is None
    assert not gen.requests


def test_a_parameter_with_a_unit_already_is_rescaled_but_keeps_its_fact():
    ruled = {"annual_rate": "annual_rate is a percentage between 0 and 100."}
    guess = {"output": "balance", "python": GROWTH + " * principal / principal",
             "units": {"principal": "dollars", "annual_rate": "fraction", "years": "years",
                       "compounding": "none"}}
    gen = FakeLM(rules=[(MARK, {"guesses": [guess, guess]})])
    assert asyncio.run(output_units(SAVINGS, _engine(gen), _ran(), ruled)) == []
    assert len(gen.requests) == 1       # principal and years had no unit: one call


def test_a_miss_is_told_and_the_next_sampled_try_can_fit():
    wrong = {"output": "balance", "python": "principal * (1 + annual_rate / compounding) ** years",
             "units": {"principal": "dollars", "annual_rate": "fraction", "years": "years",
                       "compounding": "none"}}
    right = {**wrong, "python": GROWTH}

    def answer(request, i):
        told = any("None gave what the function returned" in m["content"]
                   for m in request.messages)
        return {"guesses": [right if told else wrong] * 2}
    gen = FakeLM(rules=[(MARK, answer)])
    facts = asyncio.run(output_units(SAVINGS, _engine(gen), _ran(), {}))
    assert [f.param for f in facts] == ["annual_rate"]
    first, retry = gen.requests
    assert first.temperature == 0 and retry.temperature > 0
    assert "your expression gives" in prompt_text(retry)
    never = FakeLM(rules=[(MARK, {"guesses": [wrong, wrong]})])
    assert asyncio.run(output_units(SAVINGS, _engine(never), _ran(), {})) == []
    assert len(never.requests) == 3
