"""Calls play never made: an optional argument left out (same output: its default) and a probe
of the other sign become verified fact tests that D0 fails, and facts."""

import asyncio
from pathlib import Path

import pytest

from play2prompt.evidence.fact_tests import write_fact_tests
from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.variants import (
    LEFT_OUT,
    OTHER_SIGN,
    default_candidates,
    find_variants,
    left_out_calls,
    neighbours,
    other_sign_probes,
    typical_call,
)
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.example_search import Example, ExampleSpace
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Observation

M3 = "Values the message must contain"
M3F = "The value to say in another everyday form"
REREAD = "Write the arguments."
START = {"date": "2024-03-01", "days": 10}
FRESH = Path(__file__).resolve().parents[2] / "examples" / "fresh"


@pytest.fixture
def add_days(example_tools):
    return next(t for t in example_tools if t.name == "add_days")


async def _example(engine, tool, args, query="What date is it?"):
    inv = Invocation(tool.name, args)
    return Example(tool.name, query, inv, await engine.runtime.run(inv), "", 3.0, 0.0, 3.0,
                   solved=True)


def _run(engine, tool, args, probed=()):
    async def run():
        ex = await _example(engine, tool, args)
        space = ExampleSpace(tool, engine, FactBook(tool))
        space.prober.probed.extend(probed)
        return await write_fact_tests(tool, engine, space, [ex]), space, ex
    return asyncio.run(run())


def test_an_optional_argument_left_out_with_the_same_output_is_a_test_d0_fails(
        add_days, make_engine):
    query = "What date is 10 days after 1 March 2024?"
    # the reader, like the task model, sets the option: code checks the call without it
    gen = FakeLM(rules=[(M3, {"query": query}), (REREAD, {**START, "business_days": True})])
    task = FakeLM(rules=[("10 days after", tool_call("add_days",
                                                     {**START, "business_days": True}))])
    engine = make_engine([add_days], gen, task, lam=1.0)
    tests, space, ex = _run(engine, add_days, {**START, "business_days": False})
    assert [t.query for t in tests] == [query]
    test = tests[0]
    assert test.invocation.arguments == START                   # the option left unsaid
    assert test.observation.output == ex.observation.output
    assert test.verified and (test.solved, test.r_e) == (False, 1.0)
    assert "checked without business_days" in test.rederived
    assert test.fact.startswith("business_days: Optional; defaults to false")
    assert any("defaults to false" in s for s in space.book.sentences("business_days"))
    m3 = next(str(r.messages) for r in gen.requests if M3 in str(r.messages))
    assert ": 10" in m3 and ": False" not in m3                  # written from the others


def test_a_left_out_request_that_names_the_option_is_refused(add_days, make_engine):
    gen = FakeLM(rules=[(M3, {"query": "What date is 10 business days after 1 March 2024?"}),
                        (REREAD, START)])
    engine = make_engine([add_days], gen, FakeLM(), lam=1.0)
    tests, _, _ = _run(engine, add_days, {**START, "business_days": False})
    assert tests == []
    assert "it speaks of business days" in str(gen.requests[-1].messages)
    assert not any(REREAD in str(r.messages) for r in gen.requests)


def test_an_argument_whose_absence_changes_the_output_shows_the_other_value_as_default(
        add_days, make_engine):
    engine = make_engine([add_days], FakeLM(), FakeLM())

    async def run():
        ex = await _example(engine, add_days, {**START, "business_days": True})
        return left_out_calls(add_days, [ex]), await find_variants(add_days, engine, [ex], (), 2)

    tries, variants = asyncio.run(run())
    assert [p for p, _ in tries] == ["business_days"]
    # 10 business days is not 10 days: left out, the call runs as business_days=False does
    (variant,) = variants
    assert variant.invocation.arguments == START
    assert variant.fact.text.startswith("Optional; defaults to false")


def test_a_probe_of_the_other_sign_that_ran_is_said_the_way_people_say_it(
        add_days, make_engine):
    back = Invocation("add_days", {**START, "days": -10})
    query = "What was the date 10 days before 1 March 2024?"
    # the first draft says the number as the call has it, the second the wrong way round
    gen = FakeLM(replies=[{"query": "What is -10 days from 1 March 2024?"},
                          {"query": "What is the date 10 days after 1 March 2024?"},
                          {"query": query}])
    task = FakeLM(rules=[("10 days before", tool_call("add_days", START))])
    engine = make_engine([add_days], gen, task, lam=1.0)

    async def probe():
        return await engine.runtime.run(back)

    probed = [("days", back, asyncio.run(probe()))]
    tests, space, _ = _run(engine, add_days, START, probed)
    assert [t.query for t in tests] == [query]
    assert tests[0].invocation == back and (tests[0].solved, tests[0].r_e) == (False, 1.0)
    assert "converted by code" in tests[0].rederived             # the form is code's: no rereading
    assert "days may be negative (e.g. days=-10)." in space.book.sentences("days")
    first, third = str(gen.requests[0].messages), str(gen.requests[2].messages)
    assert ": 10, going the other way (say 10 with before" in first
    assert "does not say" in third and not any(REREAD in str(r.messages) for r in gen.requests)


def test_other_sign_needs_a_probe_that_ran_and_a_sign_no_verified_call_has(add_days):
    ex = Example("add_days", "q", Invocation("add_days", START),
                 Observation(True, {"date": "2024-03-11"}), "", 3.0, 0.0, 3.0)
    back = Invocation("add_days", {**START, "days": -10})
    ran, failed = Observation(True, {"date": "2024-02-20"}), Observation(False, None, "bad")
    assert [p for p, _, _ in other_sign_probes([ex], [("days", back, ran)])] == ["days"]
    assert other_sign_probes([ex], [("days", back, failed)]) == []
    neg = Example("add_days", "q", back, ran, "", 3.0, 0.0, 3.0)
    assert other_sign_probes([ex, neg], [("days", back, ran)]) == []   # play had both signs
    assert (LEFT_OUT, OTHER_SIGN) == ("left out", "other sign")


def test_only_a_flag_that_matters_has_a_default_shown_by_leaving_it_out(example_tools,
                                                                        make_engine):
    search = next(t for t in example_tools if t.name == "search_products")
    engine = make_engine([search], FakeLM(), FakeLM())

    async def run(args):
        ex = await _example(engine, search, args)
        return await find_variants(search, engine, [ex], (), 2)

    # a search for "charger" finds the same with and without category="electronics": chance,
    # not a default; a text option is never varied
    assert asyncio.run(run({"query": "charger", "category": "electronics"})) == []
    # in_stock_only=False left out finds the same, True finds fewer: false is the default
    shown = asyncio.run(run({"query": "speaker", "in_stock_only": False}))
    assert [(v.param, v.kind) for v in shown] == [("in_stock_only", LEFT_OUT)]
    assert "defaults to false" in shown[0].fact.text
    # where flipping the flag changes nothing (no out-of-stock match), nothing is shown
    assert asyncio.run(run({"query": "charger", "in_stock_only": False})) == []


def test_an_optional_argument_every_call_set_is_tested_unasked_when_the_component_is_on(
        example_tools, make_engine):
    """unasked-tests: every verified call set max_price; the call without it runs, so a request
    that says nothing of a price is a test, and D0, which sets a price unasked, fails it (on
    by default since issue 72). Off, no such test."""
    from play2prompt.evidence.names import DEFAULT_EVIDENCE, UNASKED_TESTS

    search = next(t for t in example_tools if t.name == "search_products")
    args = {"query": "charger", "max_price": 30}
    query = "Find me a charger."
    task = FakeLM(rules=[("charger", tool_call("search_products", args))])

    def tests_of(evidence):
        gen = FakeLM(rules=[(M3, {"query": query}), (REREAD, {"query": "charger"})])
        engine = make_engine([search], gen, task, lam=1.0, evidence=evidence)
        tests, space, _ = _run(engine, search, args)
        return [t for t in tests if "max_price" not in t.invocation.arguments], space

    unasked, space = tests_of(DEFAULT_EVIDENCE)
    assert [t.query for t in unasked] == [query]
    assert unasked[0].verified and (unasked[0].solved, unasked[0].r_e) == (False, 1.0)
    assert any(f.values[:1] == ("unasked",) for f in space.book.of("max_price"))
    assert tests_of(tuple(n for n in DEFAULT_EVIDENCE if n != UNASKED_TESTS))[0] == []


def test_a_number_whose_neighbours_change_the_output_has_its_default_shown(example_tools,
                                                                          make_engine):
    """limit=5 left out lists the same 5 of 20 products, 4 and 6 list others: 5 is the default.
    A price cap above every match, or a limit above the matches, finds the same one step
    either side: no default shown."""
    search = next(t for t in example_tools if t.name == "search_products")
    engine = make_engine([search], FakeLM(), FakeLM())

    async def run(args):
        ex = await _example(engine, search, args)
        return await find_variants(search, engine, [ex], (), 2)

    shown = asyncio.run(run({"query": "", "limit": 5}))
    assert [(v.param, v.kind) for v in shown] == [("limit", LEFT_OUT)]
    assert shown[0].fact.text.startswith("Optional; defaults to 5")
    assert "limit" not in shown[0].invocation.arguments
    assert asyncio.run(run({"query": "charger", "max_price": 100000})) == []
    assert asyncio.run(run({"query": "charger", "limit": 5})) == []    # one match: 4, 6 alike
    # 4 is not the default, but left out it lists as its neighbour 5 does (3 and 6 otherwise)
    (found,) = asyncio.run(run({"query": "", "limit": 4}))
    assert found.fact.text.startswith("Optional; defaults to 5")


def test_neighbours_of_a_default():
    assert neighbours(True) == [False] and neighbours(2) == [1, 3]
    assert neighbours(0.5) == pytest.approx([0.45, 0.55]) and neighbours(0.0) == [-0.1, 0.1]
    periods = ("1", "2", "4", "12", "52", "365")        # the values the tool listed
    assert neighbours(12, periods) == [4, 52] and neighbours(1, periods) == [2]
    assert neighbours(3, periods) == [2, 4]            # not one of them: one either side
    assert neighbours(2, ("a", "b")) == [1, 3]
    assert neighbours(1, ("1", "1.5", "2")) == [1.5]   # not cut to the value itself
    assert neighbours(2, ("1", "2", "inf", "nan")) == [1]   # no number but a finite one


def _fresh(engine_over, name):
    """An engine over examples/fresh's tool ``name`` (its real code), and the tool."""
    tool = next(t for t in load_tools(FRESH / "tools.json") if t.name == name)
    return engine_over([tool], FRESH), tool


def test_a_tiny_call_is_made_typical_before_its_option_is_left_out(engine_over):
    """fresh17's paint calls were 10 x 15 x 7 cm rooms: 2 and 3 coats both need 0.01 litres, so
    a left-out ``coats`` showed no default. Made typical by the centimetre fact (a 7 cm wall is
    700: `everyday.typical_value`), the room shows that 2 is the default."""
    engine, paint = _fresh(engine_over, "paint_needed")
    book = FactBook(paint)
    found = asyncio.run(_variants(engine, paint, book))
    assert found == []                            # no unit known: 2 and 3 coats alike
    for p in ("length", "width", "height"):
        book.add(Fact(p, "rule", f"`{p}` is in centimetres."))
    call = Invocation(paint.name, {"length": 10, "width": 15, "height": 7, "coats": 2})
    assert typical_call(call, "coats", book).arguments == {
        "length": 10, "width": 15, "height": 700, "coats": 2}
    (variant,) = asyncio.run(_variants(engine, paint, book))
    assert variant.kind == LEFT_OUT and variant.invocation.arguments == {
        "length": 10, "width": 15, "height": 700}
    assert "defaults to 2" in variant.fact.text


async def _variants(engine, tool, book):
    ex = await _example(engine, tool, {"length": 10, "width": 15, "height": 7, "coats": 2})
    return await find_variants(tool, engine, [ex], (), 2, book=book)


def test_a_default_no_verified_call_set_is_found_among_0_1_and_the_listed_values(
        engine_over):
    """fresh14-18's split-bill calls all set a tip (0.15, 0.2): left out, the bill splits as a
    tip of 0 does, and 0.1 either side of 0 splits it otherwise, so 0 is the default; the task
    model, whose facts doc led with "For example, 1 out of 10 is 0.1", had written tip=0.1 for
    "Split 86.40 three ways"."""
    assert default_candidates(True) == [False]
    assert default_candidates(0.15) == pytest.approx([0.0, 1.0, 0.135, 0.165])
    assert default_candidates(12, ["1", "4", "12", "52"]) == [0, 1, 4, 52]
    assert default_candidates(3) == [0, 1, 2, 4]       # fresh20s: 3 coats, the default 2
    engine, split = _fresh(engine_over, "split_bill")

    async def run():
        ex = await _example(engine, split, {"total": 120, "people": 4, "tip": 0.15})
        return await find_variants(split, engine, [ex], (), 2, book=FactBook(split))

    (variant,) = asyncio.run(run())
    assert variant.kind == LEFT_OUT
    assert variant.invocation.arguments == {"total": 120, "people": 4}
    assert variant.fact.text.startswith("Optional; defaults to 0.0 ")
    assert variant.observation.output["tip_amount"] == 0


def test_a_flag_default_says_what_the_other_value_changes_on_a_short_call():
    from play2prompt.evidence.variants import flag_effect
    base = Invocation("to_datetime", {"arg": "04/03/2024", "dayfirst": False})
    shown, flipped = Observation(True, "2024-04-03T00:00:00"), Observation(
        True, "2024-03-04T00:00:00")
    assert flag_effect("dayfirst", base, shown, flipped) == (
        ' dayfirst=true changes it: arg="04/03/2024" gives "2024-03-04T00:00:00", not '
        '"2024-04-03T00:00:00".')
    assert flag_effect("dayfirst", base, shown, shown) == ""          # no change shown
    long = Invocation("to_datetime", {"arg": "x" * 50, "dayfirst": False})
    assert flag_effect("dayfirst", long, shown, flipped) == ""        # too long to say
