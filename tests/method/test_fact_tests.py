"""Step 1b: requests that say a value the way people say it where the tool takes another form,
verified by re-reading with the facts, gated like any request, and tried on D0 (R_e)."""

import asyncio

import pytest

from play2prompt.evidence.fact_tests import fact_test_stats, plan_targets, write_fact_tests
from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.gates import request_problems
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.example_search import Example, ExampleSpace
from play2prompt.tools.model import Invocation

M3F = "The value to say in another everyday form"
REREAD = "Write the arguments."
CALL = {"weight": 70, "height": 175}


@pytest.fixture
def bmi(example_tools):
    return next(t for t in example_tools if t.name == "body_mass_index")


async def _material(engine, tool):
    """A verified example of body_mass_index(70, 175) and the facts of a call in metres."""
    book = FactBook(tool)
    wrong = Invocation(tool.name, {"weight": 70, "height": 1.75})
    book.observe(wrong, await engine.runtime.run(wrong))
    inv = Invocation(tool.name, CALL)
    obs = await engine.runtime.run(inv)
    ex = Example(tool.name, "I weigh 70 kg and am 175 cm tall, what is my BMI?", inv, obs, "",
                 3.0, 0.0, 3.0, solved=True)
    return ExampleSpace(tool, engine, book), ex


def _task_model():
    # with the original doc the task model takes "1.75 m" as 1.75: the mistake facts fix
    return FakeLM(rules=[("1.75 m", tool_call("body_mass_index", {"weight": 70,
                                                                    "height": 1.75}))])


def test_a_unit_fact_yields_a_verified_request_in_another_unit(bmi, make_engine):
    query = "I weigh 70 kg and I am 1.75 m tall. What is my BMI?"
    gen = FakeLM(rules=[(M3F, {"query": query}), (REREAD, CALL)])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        assert any("centimetres" in f.text for f in space.book.of("height"))
        return await write_fact_tests(bmi, engine, space, [ex]), ex

    tests, ex = asyncio.run(run())
    assert [t.query for t in tests] == [query]
    test = tests[0]
    assert test.verified and test.invocation == ex.invocation
    assert test.fact.startswith("height:") and "centimetres" in test.fact
    assert (test.solved, test.r_e) == (False, 1.0)   # D0 fails it: a difficult example
    assert test.reward > ex.reward
    # the ordinary gate would have refused it ("175" is not written): this is what 1b adds
    assert any("175" in p for p in request_problems(query, bmi, inv=ex.invocation))
    assert fact_test_stats(tests) == {"fact_tests": 1, "fact_tests_failed_by_original": 1}


def test_a_request_that_changes_another_value_is_still_gated(bmi, make_engine):
    gen = FakeLM(rules=[(M3F, {"query": "I weigh 80 kg and I am 1.75 m tall. My BMI?"}),
                        (REREAD, {"weight": 80, "height": 175})])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        return await write_fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == []
    assert not any(REREAD in str(r.messages) for r in gen.requests)  # gated before re-reading


def test_a_conversion_that_reads_back_to_another_value_is_not_verified(bmi, make_engine):
    gen = FakeLM(rules=[(M3F, {"query": "I weigh 70 kg and I am 1.80 m tall. My BMI?"}),
                        (REREAD, {"weight": 70, "height": 180})])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        return await write_fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == []


def test_targets_go_round_robin_over_parameters_with_facts(bmi, make_engine):
    engine = make_engine([bmi], FakeLM(fill_schema=True))

    async def run():
        return await _material(engine, bmi)

    space, ex = asyncio.run(run())
    assert [t.param for t in plan_targets(bmi, [ex, ex], space.book, 4)] == ["height", "height"]
    assert plan_targets(bmi, [ex], space.book, 0) == []
    assert plan_targets(bmi, [ex], FactBook(bmi), 4) == []        # no fact, nothing to test
    gated = Example(bmi.name, "x", ex.invocation, ex.observation, "", 0, 0, 0,
                    problems=("it is too short to be a request",))
    assert plan_targets(bmi, [gated], space.book, 4) == []        # only verified examples


def test_fact_tests_off_is_the_papers_step_1(bmi, make_engine):
    gen = FakeLM(rules=[(M3F, {"query": "never asked"})], fill_schema=True)
    engine = make_engine([bmi], gen, _task_model(), fact_tests=0)
    from play2prompt.pipeline import fact_tests

    async def run():
        space, ex = await _material(engine, bmi)
        return await fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == [] and not gen.requests


def test_a_request_that_writes_the_value_as_the_tool_takes_it_tests_nothing(bmi, make_engine):
    from play2prompt.evidence.fact_tests import says_as_given

    assert says_as_given(175, "I am 175 cm tall") and not says_as_given(175, "I am 1.75 m tall")
    assert says_as_given("CAD", "200 USD to cad") and not says_as_given("CAD", "Canadian dollars")
    assert says_as_given("F", "in °F please") and not says_as_given("F", "in Fahrenheit for me")
    assert says_as_given("new_york", "in New York") and not says_as_given(True, "yes")
    gen = FakeLM(rules=[(M3F, {"query": "I weigh 70 kg and I am 175 cm tall. My BMI?"}),
                        (REREAD, CALL)])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        return await write_fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == []
    drafts = [r for r in gen.requests if M3F in str(r.messages)]
    assert len(drafts) == 3 and "the way the tool takes it" in str(drafts[-1].messages)


def test_a_tested_number_must_be_said_somehow():
    from play2prompt.evidence.fact_tests import says_a_number

    others = Invocation("loan_payment", {"principal": 200000, "years": 30})
    assert not says_a_number(4, "My loan of 200,000 over 30 years: what is the rate?", others)
    assert says_a_number(4, "200,000 over 30 years at four percent", others)
    assert says_a_number(4, "200,000 over 30 years at 0.04", others)
    assert says_a_number("EUR", "anything at all", others)          # only numbers are checked
