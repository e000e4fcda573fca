"""The share family of ``conventions``: a rate that is a percentage or a fraction of an
amount, from the slope of an answer that moves in a straight line with it (no LLM call)."""

from __future__ import annotations

import asyncio

from play2prompt.evidence.everyday import number_form, tool_unit
from play2prompt.evidence.shares import share_facts, share_kind
from play2prompt.tools.model import Observation, Tool
from tests.evidence.support import ran_once

TOOLS = '''
def with_tax(amount: float, tax_rate: float) -> dict:
    return {"tax": round(amount * tax_rate, 2), "total": round(amount * (1 + tax_rate), 2)}

def with_tip(bill: float, tip: float) -> dict:
    return {"tip": round(bill * tip / 100, 2), "fee": 0.3}

def compound(principal: float, rate: float, years: int) -> float:
    return round(principal * (1 + rate / 100) ** years, 2)

def area(width: float, height: float) -> float:
    return width * height
'''

NUMBER, INT = {"type": "number"}, {"type": "integer"}


def _tool(name, params):
    return Tool(name, "", {"type": "object", "properties": {p: NUMBER for p in params},
                           "required": list(params)}, {"python": f"tools.py:{name}"})


TOOLSET = {"with_tax": _tool("with_tax", ["amount", "tax_rate"]),
           "with_tip": _tool("with_tip", ["bill", "tip"]),
           "compound": _tool("compound", ["principal", "rate", "years"]),
           "area": _tool("area", ["width", "height"])}


def _found(engine_over, tmp_path, name, args):
    engine, inv, obs = ran_once(engine_over, tmp_path, TOOLS, TOOLSET[name], args)
    return asyncio.run(share_facts(engine, TOOLSET[name], list(args), [(inv, obs)]))


def test_a_tax_rate_times_the_amount_is_a_fraction(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "with_tax", {"amount": 80, "tax_rate": 0.07})
    assert fact.param == "tax_rate" and fact.values == ("convention", "share", "fraction")
    assert tool_unit(fact.text) == "fraction" and fact.source == "output"
    form = number_form(0.07, fact.text)
    assert form is not None and form.said_in("add 7 % tax to 80 dollars")


def test_a_tip_a_hundredth_of_the_bill_is_a_percentage(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "with_tip", {"bill": 64.5, "tip": 3})
    assert fact.values == ("convention", "share", "percent") and tool_unit(fact.text) == "percent"


def test_compounding_and_a_product_of_lengths_say_nothing(engine_over, tmp_path):
    assert _found(engine_over, tmp_path, "compound", {"principal": 1000, "rate": 5,
                                                      "years": 10}) == []
    assert _found(engine_over, tmp_path, "area", {"width": 3, "height": 4}) == []


def test_share_kind_decisions():
    ok = lambda out: Observation(True, out)   # noqa: E731
    assert share_kind(0.1, [ok(10), ok(20), ok(30)], [100]) == "fraction"
    assert share_kind(10, [ok(10), ok(20), ok(30)], [100]) == "percent"
    assert share_kind(10, [ok(10), ok(20), ok(40)], [100]) is None
    assert share_kind(10, [ok(10), ok(20), ok(30)], [100, 1]) is None   # two kinds fit
