"""The default of a text option, shown by executions: the one listed value whose call gives
what the call without the option gives, on every base call; a filter that matches one value
by chance on one call and not on another has none."""

from __future__ import annotations

import asyncio
import textwrap

from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.schema_facts import schema_constraints
from play2prompt.evidence.text_defaults import matches, text_values
from play2prompt.evidence.variants import LEFT_OUT, find_variants
from play2prompt.method.example_search import Example
from play2prompt.tools.model import Invocation, Observation, Tool

TOOLS = '''
METHODS = {"linear": 0.5, "lower": 0.0, "higher": 1.0, "midpoint": 0.5001}

def quantile(values: list, q: float, method: str = "linear") -> float:
    if method not in METHODS:
        raise ValueError("method must be one of " + ", ".join(METHODS))
    low, high = min(values), max(values)
    return low + (high - low) * q * METHODS[method] * 2

ORDERS = [{"id": 1, "status": "paid"}, {"id": 2, "status": "paid"}, {"id": 3, "status": "new"}]

def orders(first: int, status: str = "") -> list:
    found = ORDERS[first:first + 2]
    return [o for o in found if o["status"] == status] if status else found
'''
TEXT, NUM = {"type": "string"}, {"type": "number"}
QUANTILE = Tool("quantile", "", {"type": "object", "properties": {
    "values": {"type": "array"}, "q": NUM, "method": TEXT}, "required": ["values", "q"]},
    {"python": "tools.py:quantile"})
ORDERS = Tool("orders", "", {"type": "object", "properties": {
    "first": {"type": "integer"}, "status": {"type": "string", "enum": ["paid", "new"]}},
    "required": ["first"]}, {"python": "tools.py:orders"})


def _listed() -> FactBook:
    book = FactBook(QUANTILE)     # the error's list, as the fact reader keeps it
    book.add(Fact("method", "accepts", "One of: lower, higher, linear, midpoint.",
                  ("lower", "higher", "linear", "midpoint")))
    return book


def _variants(engine_over, tmp_path, tool, calls, book=None):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    engine = engine_over([tool], tmp_path)

    async def run():
        examples = []
        for args in calls:
            inv = Invocation(tool.name, args)
            examples.append(Example(tool.name, "a request", inv, await engine.runtime.run(inv),
                                    "", 3.0, 0.0, 3.0, solved=True))
        return await find_variants(tool, engine, examples, (), 4, book, unasked=True)
    return asyncio.run(run())


def test_the_one_listed_value_that_gives_the_left_out_output_is_the_default(
        engine_over, tmp_path):
    book = _listed()
    calls = [{"values": [1, 5], "q": 0.9, "method": "lower"}, {"values": [2, 4], "q": 0.25}]
    (found,) = _variants(engine_over, tmp_path, QUANTILE, calls, book)
    assert found.kind == LEFT_OUT and found.param == "method"
    assert "method" not in found.invocation.arguments
    assert found.fact.values == ("default", '"linear"')
    assert 'defaults to "linear"' in found.fact.text


def test_the_default_comes_first_in_the_schema_enum(engine_over, tmp_path):
    book = _listed()
    book.add(next(iter(_variants(engine_over, tmp_path, QUANTILE,
                                 [{"values": [1, 5], "q": 0.9}], book))).fact)
    constraints = schema_constraints(QUANTILE, book)["method"]
    assert constraints["default"] == "linear" and constraints["enum"][0] == "linear"


def test_a_filter_that_matches_by_chance_on_one_call_has_no_default(engine_over, tmp_path):
    # the first two orders are both paid: left out matches "paid" there, not on the next two
    found = _variants(engine_over, tmp_path, ORDERS, [{"first": 0}, {"first": 1}])
    assert [v for v in found if v.param == "status"] == []


def test_values_and_the_single_match():
    assert text_values(QUANTILE, "method", [], None) == []
    assert text_values(ORDERS, "status", [], None) == ["paid", "new"]
    ok = lambda out: Observation(True, out)       # noqa: E731
    assert matches(ok(1), [ok(1), ok(2)], ["a", "b"]) == {"a"}
    assert matches(ok(1), [ok(1), ok(1)], ["a", "b"]) is None          # nothing separates
    assert matches(ok(1), [ok(1), ok(1), ok(2)], ["a", "b", "c"]) == {"a", "b"}
    failed = Observation(False, None, "no", "tool")
    assert matches(ok(1), [ok(1), failed], ["a", "b"]) is None
    assert matches(failed, [ok(1), ok(2)], ["a", "b"]) is None


def test_calls_where_several_values_match_narrow_without_deciding(engine_over, tmp_path):
    # q=0.5 gives linear and midpoint nearly alike; q=0 makes every method agree: says nothing
    calls = [{"values": [1, 5], "q": 0.0, "method": "lower"}, {"values": [2, 4], "q": 0.7},
             {"values": [3, 9], "q": 0.2}]
    (found,) = _variants(engine_over, tmp_path, QUANTILE, calls, _listed())
    assert found.fact.values == ("default", '"linear"')
