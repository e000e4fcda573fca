"""Issue 27: index errors. A call that failed with "list index out of range" is tried again
with its sizes changed by code (a number cut to a list's length, a list made as long as a
number, lists cut to the shortest, an index halved to the largest that runs): the call that
runs is a repaired call and the bound is a fact the docs state."""

import asyncio

from play2prompt.evidence.facts import FactBook, facts_doc
from play2prompt.evidence.lengths import (
    LENGTH,
    MAX,
    MAX_HALVINGS,
    index_error,
    largest,
    resized,
)
from play2prompt.evidence.names import EVIDENCE
from play2prompt.evidence.probes import Prober
from play2prompt.evidence.registry import evidence_for
from play2prompt.lm.fake import FakeLM
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.model import Invocation, Observation, Tool


# written here in the shapes BFCL's investment and nutrition calculators and order_food have
def future_value(initial, contribution, years, rate, inflation):
    value = initial
    for year in range(years):
        value = (value + contribution) * (1 + rate) / (1 + inflation[year])
    return round(value, 2)


def daily_needs(weight, level):
    factors = [1.2, 1.375, 1.55, 1.725, 1.9]
    return round(24 * weight * factors[level - 1])


def total(item, quantity, price):
    return sum(quantity[i] * price[i] for i in range(len(item)))


def checked(number):
    raise ValueError("number must be positive")


FUNCTIONS = {f.__name__: f for f in (future_value, daily_needs, total, checked)}
BARE = {"type": "object", "properties": {}}


def _probe(make_engine, exec_ctx, name, arguments, evidence=EVIDENCE):
    exec_ctx.callables[name] = FUNCTIONS[name]
    tool = Tool(name, "", BARE, {"callable": name}, side_effects=False)
    engine = make_engine([tool], FakeLM(), evidence=evidence)
    inv = Invocation(name, arguments)
    obs = asyncio.run(engine.runtime.run(inv))
    assert not obs.ok
    play = PlayResult(None, None, (Attempt(inv, obs, -1, "failed"),), "k")
    book = FactBook(tool)
    prober = Prober(tool, engine, book)
    asyncio.run(evidence_for(engine).probes.run(prober, [play]))
    return prober, book, obs


def _rules(book, param):
    return [f for f in book.of(param) if f.kind == "rule"]


def test_the_errors_that_count():
    assert index_error("IndexError: list index out of range") == "list index out of range"
    assert index_error("IndexError: index 7 is out of bounds for axis 0 with size 5")
    assert not index_error("KeyError: 'rate'")
    assert not index_error("ValueError: number must be positive")


def test_a_list_shorter_than_a_number_is_tried_both_ways():
    inv = Invocation("f", {"years": 5, "inflation": [0.01, 0.02], "initial": 1000})
    tried = [call.arguments for _, call in resized(inv)]
    assert {"years": 2, "inflation": [0.01, 0.02], "initial": 1000} in tried
    assert {"years": 5, "inflation": [0.01, 0.02, 0.01, 0.02, 0.01], "initial": 1000} in tried
    assert tried.index({"years": 2, "inflation": [0.01, 0.02], "initial": 1000}) < \
        tried.index({"years": 1, "inflation": [0.01, 0.02], "initial": 1000})
    assert len(tried) == len({str(t) for t in tried})
    assert tried[0]["years"] == 2      # the smallest number first: a count, not an amount


def test_a_number_the_list_bounds_is_a_fact_and_a_repaired_call(make_engine, exec_ctx):
    prober, book, obs = _probe(make_engine, exec_ctx, "future_value", {
        "initial": 1000, "contribution": 100, "years": 20, "rate": 0.05,
        "inflation": [0.02, 0.03, 0.01]})
    assert "list index out of range" in obs.error
    fixed = [r.invocation.arguments for r in prober.repaired]
    assert any(a["years"] == 3 for a in fixed), fixed
    taken = prober.take(set())
    assert taken is not None and "reshaping" in taken.note()
    (fact,) = [f for f in _rules(book, "inflation") if f.values[:1] == (LENGTH,)]
    assert fact.values == (LENGTH, "years")
    assert "inflation takes at least `years` items" in fact.text
    assert "years=20 with 3 items failed (list index out of range)" in fact.text
    schema = {"type": "object", "properties": {
        "years": {"type": "integer"}, "inflation": {"type": "array", "items": {"type": "number"}}}}
    tool = Tool("future_value", "", schema, {"callable": "future_value"})
    assert "at least `years` items" in facts_doc(tool, book).params["inflation"]
    # a second failing call shows the bound again: still one fact
    again = Invocation("future_value", {"initial": 1000, "contribution": 100, "years": 30,
                                        "rate": 0.05, "inflation": [0.01, 0.02, 0.03, 0.04]})
    failed = asyncio.run(prober.engine.runtime.run(again))
    asyncio.run(prober._reshape([PlayResult(None, None, (Attempt(again, failed, -1, "f"),),
                                            "k")]))
    assert any(r.invocation.arguments["years"] == 4 for r in prober.repaired)
    assert len([f for f in _rules(book, "inflation") if f.values[:1] == (LENGTH,)]) == 1
    # the list explains the error: no halving of years
    assert not [f for f in _rules(book, "years") if f.values[:1] == (MAX,)]


def test_an_index_into_the_tools_own_table_is_halved_to_the_largest(make_engine, exec_ctx):
    prober, book, _ = _probe(make_engine, exec_ctx, "daily_needs", {"weight": 70, "level": 6})
    assert {"weight": 70, "level": 1} in [r.invocation.arguments for r in prober.repaired]
    (fact,) = _rules(book, "level")
    assert fact.values == (MAX, "5")
    assert fact.text == "level takes at most 5: 6 failed (list index out of range)."
    levels = [inv.arguments["level"] for _, inv, _ in prober.probed if "level" in inv.arguments]
    assert set(levels) >= {1, 3, 4, 5}
    # weight=1 kept level 6: it ran into the same error and is no fact about weight
    assert not _rules(book, "weight")


def test_lists_of_different_lengths_are_cut_to_the_shortest(make_engine, exec_ctx):
    prober, book, _ = _probe(make_engine, exec_ctx, "total", {
        "item": ["tea", "cake", "jam"], "quantity": [2, 1], "price": [1.5, 3.0]})
    assert {"item": ["tea", "cake"], "quantity": [2, 1], "price": [1.5, 3.0]} in [
        r.invocation.arguments for r in prober.repaired]
    for param in ("item", "quantity", "price"):
        (fact,) = _rules(book, param)
        assert fact.text.startswith("`item`, `quantity`, `price` take lists of the same length")
        assert fact.values[0] == LENGTH and param not in fact.values[1:]


def test_halving_stops_at_its_budget_and_on_another_error():
    calls = []

    async def run(call):
        calls.append(call.arguments["n"])
        return Observation.success(1), True     # everything runs: the bound is never found

    start = Invocation("f", {"n": 10_000})
    failed = Observation.failure("exception", "IndexError: list index out of range")
    done, fact = asyncio.run(largest(run, start, failed, "n"))
    assert fact is None and len(done) == len(calls) == MAX_HALVINGS

    async def other(call):
        return Observation.failure("exception", "ValueError: too large"), False

    done, fact = asyncio.run(largest(other, start, failed, "n"))
    assert fact is None and len(done) == 1


def test_another_error_is_not_resized_and_probes_off_resize_nothing(make_engine, exec_ctx):
    prober, book, _ = _probe(make_engine, exec_ctx, "checked", {"number": 4})
    assert not [inv for _, inv, _ in prober.probed if inv.arguments.get("number") == 1]
    no_probes = tuple(n for n in EVIDENCE if n != "probes")
    prober, book, _ = _probe(make_engine, exec_ctx, "daily_needs", {"weight": 70, "level": 6},
                             evidence=no_probes)
    assert prober.probed == [] and not _rules(book, "level")
