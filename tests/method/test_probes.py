"""Probes and repaired calls: a probe that works where play's call failed (or found nothing)
is a valid call, given to a play that found none."""

import asyncio

import pytest

from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.probes import Prober, datetime_parts, without_optional
from play2prompt.lm.fake import FakeLM
from play2prompt.method.example_search import ExampleSpace
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.model import Invocation


@pytest.fixture
def tools(example_tools):
    return {t.name: t for t in example_tools}


def test_a_datetime_is_also_tried_as_its_date_and_its_time():
    assert datetime_parts("2023-04-01T12:00:00Z") == ["2023-04-01", "12:00"]
    assert datetime_parts("2023-04-01 9:30") == ["2023-04-01", "09:30"]
    assert datetime_parts("12:00") == [] and datetime_parts("tomorrow") == []


def test_a_search_that_found_nothing_is_broadened(tools):
    start = Invocation("search_products", {"query": "gaming mouse", "category": "electronics",
                                           "max_price": 100})
    calls = {(p, inv.key()) for p, inv in without_optional(tools["search_products"], start)}
    only_category = Invocation("search_products", {"category": "electronics"})
    assert ("category", only_category.key()) in calls                  # each optional alone
    assert ("", Invocation("search_products", {}).key()) in calls      # only the required
    assert ("max_price", Invocation("search_products", {
        "query": "gaming mouse", "category": "electronics"}).key()) in calls


def _probe_from(engine, tool, arguments):
    inv = Invocation(tool.name, arguments)
    obs = asyncio.run(engine.runtime.run(inv))
    play = PlayResult(None, None, (Attempt(inv, obs, -1, "failed"),), "k")
    prober = Prober(tool, engine, FactBook(tool))
    asyncio.run(prober.run([play]))
    return prober


@pytest.mark.parametrize("name, arguments, repaired", [
    ("body_mass_index", {"weight": 85, "height": 1.75}, {"weight": 85, "height": 175}),
    ("convert_timezone", {"time": "2023-04-01T12:00:00Z", "from_tz": "America/New_York",
                          "to_tz": "Asia/Tokyo"},
     {"time": "12:00", "from_tz": "America/New_York", "to_tz": "Asia/Tokyo"}),
    ("search_products", {"query": "gaming mouse", "category": "electronics", "max_price": 100},
     {"category": "electronics"}),
])
def test_probes_repair_a_call_that_failed_or_found_nothing(tools, make_engine, name, arguments,
                                                           repaired):
    tool = tools[name]
    prober = _probe_from(make_engine([tool], FakeLM()), tool, arguments)
    calls = [r.invocation.arguments for r in prober.repaired]
    assert repaired in calls
    assert all("xyzzy" not in str(c) for c in calls)   # never the probe's unknown word
    taken = prober.take(set())
    assert taken is not None and prober.take({taken.invocation.key()}) != taken


def test_no_repaired_call_when_play_found_a_valid_one(tools, make_engine):
    tool = tools["body_mass_index"]
    engine = make_engine([tool], FakeLM())
    inv = Invocation(tool.name, {"weight": 85, "height": 175})
    obs = asyncio.run(engine.runtime.run(inv))
    prober = Prober(tool, engine, FactBook(tool))
    asyncio.run(prober.run([PlayResult(inv, obs, (Attempt(inv, obs, 0, "ok"),), "k")]))
    assert prober.probed and prober.repaired == []


def test_a_play_that_found_nothing_takes_a_repaired_call(tools, make_engine):
    tool = tools["body_mass_index"]
    gen = FakeLM(rules=[("Write the arguments for a new call",
                         {"weight": 85, "height": 1.75})], fill_schema=True)
    engine = make_engine([tool], gen, max_tries=1)
    space = ExampleSpace(tool, engine)

    async def two_rounds():
        assert await space.propose(None, 1, 0, ["a"]) == []
        await space.end_iteration(0, [])
        return await space.propose(None, 1, 1, ["b"])

    found = asyncio.run(two_rounds())
    assert not space.plays[0].ok
    play = space.plays[1]
    assert play.ok and play.invocation.arguments == {"weight": 85, "height": 175}
    assert "found by probing (changing height)" in play.attempts[-1].analysis
    assert [ex.invocation.arguments for ex in found] == [{"weight": 85, "height": 175}]


def _convert_time(time: str, target: str) -> dict:
    import re

    if not re.fullmatch(r"\d{2}:\d{2}", time):
        raise ValueError(f"time must look like HH:MM, got {time!r}")
    if "/" not in target:
        raise ValueError(f"unknown timezone {target!r}: give an IANA name")
    return {"time": time, "timezone": target}


def test_two_fixes_that_each_removed_an_error_are_tried_together(make_engine, exec_ctx):
    """Issue 29: a call wrong in two arguments; no single change works, one changes the error
    (the time is taken, the zone refused); together they do."""
    from play2prompt.tools.model import Tool

    exec_ctx.callables["convert_time"] = _convert_time
    tool = Tool("convert_time", "Converts a time to another timezone.", {
        "type": "object", "required": ["time", "target"], "properties": {
            "time": {"type": "string", "description": "the time"},
            "target": {"type": "string", "description": "timezone, e.g. Asia/Tokyo"}}},
        {"callable": "convert_time"}, side_effects=False)
    start = {"time": "2023-04-01T16:12:00", "target": "Tokyo"}
    prober = _probe_from(make_engine([tool], FakeLM()), tool, start)
    calls = [r.invocation.arguments for r in prober.repaired]
    assert calls == [{"time": "16:12", "target": "Asia/Tokyo"}]
    single = [o for _, inv, o in prober.probed
              if sum(inv.arguments[k] != start[k] for k in start) == 1]
    assert single and not any(o.ok for o in single)   # no change of one argument works


def test_a_search_that_found_nothing_is_retried_with_a_word_of_what_the_tool_found(
        tools, make_engine):
    """"mobile" is no product: the probes that found results without the query are run with a
    word of their first result as the query, and the richest such call is taken first."""
    tool = tools["search_products"]
    prober = _probe_from(make_engine([tool], FakeLM()), tool,
                         {"query": "mobile", "category": "electronics", "max_price": 100})
    worded = [r.invocation.arguments for r in prober.repaired
              if r.invocation.arguments.get("query", "mobile") != "mobile"]
    assert worded, [r.invocation.arguments for r in prober.repaired]
    assert all(r.observation.output["count"] > 0 for r in prober.repaired)
    taken = prober.take(set())
    assert len(taken.invocation.arguments) == max(len(a) for a in
                                                 (r.invocation.arguments for r in prober.repaired))
    assert taken.invocation.arguments != {}


def test_output_words_take_one_word_per_found_item():
    from play2prompt.evidence.probes import output_words

    found = {"count": 2, "products": [{"sku": "EL-100", "name": "USB-C charger 65W"},
                                      {"sku": "KT-2", "name": "Chef's knife 8 inch"}]}
    assert output_words(found) == ["charger", "chef"]
    assert output_words({"count": 0, "products": []}) == []
    assert output_words(["alpha beta", "gamma"], 3) == ["alpha", "gamma"]
