"""Step 1b: requests that say a value the way people say it where the tool takes another form,
verified by re-reading with the facts, gated like any request, and tried on D0 (R_e)."""

import asyncio
from dataclasses import replace

import pytest

from play2prompt.evidence.fact_targets import plan_targets
from play2prompt.evidence.fact_tests import fact_test_stats, write_fact_tests
from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.gates import request_problems
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.example_search import Example, ExampleSpace
from play2prompt.tools.model import Invocation

M3F = "The value to say in another everyday form"
M3 = "Values the message must contain"
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
    gen = FakeLM(rules=[(M3, {"query": query}), (REREAD, CALL)])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        assert any("centimetres" in f.text for f in space.book.of("height"))
        return await write_fact_tests(bmi, engine, space, [ex]), ex, space

    tests, ex, space = asyncio.run(run())
    assert [t.query for t in tests] == [query]
    # the form is code's (175 cm -> 1.75 metres), shown to the writer and checked by code: the
    # generator never has to convert it back (no re-reading)
    assert ": 1.75 metres" in str(gen.requests[0].messages)     # one more value to say
    assert not any(REREAD in str(r.messages) for r in gen.requests)
    test = tests[0]
    assert "converted by code" in test.rederived
    assert test.verified and test.invocation == ex.invocation
    assert test.fact.startswith("height:") and "centimetres" in test.fact
    assert (test.solved, test.r_e) == (False, 1.0)   # D0 fails it: a difficult example
    assert test.reward > ex.reward
    # the ordinary gate would have refused it ("175" is not written): this is what 1b adds
    assert any("175" in p for p in request_problems(query, bmi, inv=ex.invocation))
    assert fact_test_stats(tests) == {"fact_tests": 1, "fact_tests_failed_by_original": 1}
    # the conversion code checked joins the facts as a worked example, with the test's call
    assert "For example, 1.75 metres is 175." in space.book.sentences("height")


def test_a_request_that_changes_another_value_is_still_gated(bmi, make_engine):
    gen = FakeLM(rules=[(M3, {"query": "I weigh 80 kg and I am 1.75 m tall. My BMI?"}),
                        (REREAD, {"weight": 80, "height": 175})])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        return await write_fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == []
    assert not any(REREAD in str(r.messages) for r in gen.requests)  # gated before re-reading


def test_a_conversion_that_is_not_the_calls_value_is_refused_by_code(bmi, make_engine):
    gen = FakeLM(rules=[(M3, {"query": "I weigh 70 kg and I am 1.80 m tall. My BMI?"}),
                        (REREAD, {"weight": 70, "height": 180})])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        return await write_fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == []
    assert "does not say height as 1.75 metres" in str(gen.requests[-1].messages)
    assert not any(REREAD in str(r.messages) for r in gen.requests)


def _loan_material(engine, loan):
    async def run():
        book = FactBook(loan)
        for wrong in ({"principal": -5, "annual_rate": 5, "years": 10},
                      {"principal": 1000, "annual_rate": 150, "years": 10}):
            inv = Invocation(loan.name, wrong)
            book.observe(inv, await engine.runtime.run(inv))
        inv = Invocation(loan.name, {"principal": 20000, "annual_rate": 4, "years": 10})
        ex = Example(loan.name, "A 20,000 loan at 4 for 10 years?", inv,
                     await engine.runtime.run(inv), "", 3.0, 0.0, 3.0, solved=True)
        return ExampleSpace(loan, engine, book), ex
    return asyncio.run(run())


def _loan_test(example_tools, make_engine, rate, misread):
    """A loan request at ``rate`` ("4 %") written by the generator, a task model that reads the
    rate as ``misread`` with the original doc, and the loan's facts and verified example."""
    loan = next(t for t in example_tools if t.name == "loan_payment")
    query = f"What would I pay each month on a 20,000 loan at {rate} for 10 years?"
    task = FakeLM(rules=[(rate, tool_call(loan.name, {"principal": 20000, "annual_rate": misread,
                                                      "years": 10}))])
    engine = make_engine([loan], FakeLM(rules=[(M3, {"query": query})]), task, lam=1.0)
    return (loan, query, engine, *_loan_material(engine, loan))


def test_a_fact_with_no_other_form_is_no_target_and_a_percentage_may_keep_its_number(
        example_tools, make_engine):
    """"must be positive" says no other way to say a value: only the percentage is tested,
    and "4 %" (the call's own 4, the way people say a rate the tool takes in percent) passes."""
    loan, query, engine, space, ex = _loan_test(example_tools, make_engine, "4 %", 0.04)
    assert any("positive" in f.text for f in space.book.of("principal"))
    assert [t.param for t in plan_targets(loan, [ex], space.book, 4)] == ["annual_rate"]
    tests = asyncio.run(write_fact_tests(loan, engine, space, [ex]))
    assert [(t.query, t.r_e) for t in tests] == [(query, 1.0)]   # D0 reads 4 % as 0.04


def test_a_percentage_play_wrote_as_a_fraction_is_tested_as_the_percentage_people_mean(
        example_tools, make_engine):
    """Play's call had annual_rate=0.05 (it runs: 0.05 %), and the facts say the tool takes a
    percentage: the test's call is made typical (5, executed), its request says "5 %", and D0,
    which writes 0.05 for 5 %, fails it."""
    loan, query, engine, space, ex = _loan_test(example_tools, make_engine, "5 %", 0.05)
    fraction = Invocation(loan.name, {"principal": 20000, "annual_rate": 0.05, "years": 10})
    ex = Example(loan.name, "A 20,000 loan at 0.05 for 10 years?", fraction,
                 asyncio.run(engine.runtime.run(fraction)), "", 3.0, 0.0, 3.0, solved=True)
    tests = asyncio.run(write_fact_tests(loan, engine, space, [ex]))
    assert [(t.query, t.r_e) for t in tests] == [(query, 1.0)]
    test = tests[0]
    assert test.invocation.arguments == {"principal": 20000, "annual_rate": 5, "years": 10}
    assert test.observation.ok and test.observation.output != ex.observation.output
    assert ": 5 %" in str(engine.generator.requests[0].messages)


def _units_material(engine, units, call, unknown):
    """The facts of a convert_units call whose from_unit the tool rejects (``unknown``: it
    lists the units it takes) and a verified example of ``call``."""
    async def run():
        book = FactBook(units)
        wrong = Invocation(units.name, {**call, "from_unit": unknown})
        book.observe(wrong, await engine.runtime.run(wrong))
        inv = Invocation(units.name, call)
        ex = Example(units.name, "convert it", inv, await engine.runtime.run(inv), "",
                     3.0, 0.0, 3.0, solved=True)
        return book, ExampleSpace(units, engine, book), ex
    return asyncio.run(run())


def test_a_value_among_accepted_codes_is_said_by_the_generator_and_verified_by_rereading(
        example_tools, make_engine):
    units = next(t for t in example_tools if t.name == "convert_units")
    call = {"value": 5, "from_unit": "c", "to_unit": "f"}   # no everyday name in the data
    query = "What is 5 degrees Celsius in Fahrenheit?"
    gen = FakeLM(rules=[(M3F, {"query": query}), (REREAD, call)])
    engine = make_engine([units], gen, FakeLM(fill_schema=True), lam=1.0)
    book, space, ex = _units_material(engine, units, call, "celsius")
    assert book.accepted("from_unit")
    targets = plan_targets(units, [ex], book, 1)
    assert [t.param for t in targets] == ["from_unit"]
    tests = asyncio.run(write_fact_tests(units, engine, space, [ex]))
    assert [t.query for t in tests] == [query]
    assert any(REREAD in str(r.messages) for r in gen.requests)     # no code form: re-read


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
    gen = FakeLM(rules=[(M3, {"query": "I weigh 70 kg and I am 175 cm tall. My BMI?"}),
                        (REREAD, CALL)])
    engine = make_engine([bmi], gen, _task_model(), lam=1.0)

    async def run():
        space, ex = await _material(engine, bmi)
        return await write_fact_tests(bmi, engine, space, [ex])

    assert asyncio.run(run()) == []
    drafts = [r for r in gen.requests if M3 in str(r.messages)]
    assert len(drafts) == 3 and "does not say height as 1.75 metres" in str(drafts[-1].messages)


def test_a_tested_number_must_be_said_somehow():
    from play2prompt.evidence.fact_targets import says_a_number

    others = Invocation("loan_payment", {"principal": 200000, "years": 30})
    assert not says_a_number(4, "My loan of 200,000 over 30 years: what is the rate?", others)
    assert says_a_number(4, "200,000 over 30 years at four percent", others)
    assert says_a_number(4, "200,000 over 30 years at 0.04", others)
    assert says_a_number("EUR", "anything at all", others)          # only numbers are checked


def test_a_listed_unit_code_gets_its_everyday_name_checked_by_code(example_tools, make_engine):
    units = next(t for t in example_tools if t.name == "convert_units")
    call = {"value": 5, "from_unit": "km", "to_unit": "mi"}
    query = "How many miles are 5 kilometres?"
    gen = FakeLM(rules=[(M3, {"query": query}), (REREAD, call)])
    engine = make_engine([units], gen, FakeLM(fill_schema=True), lam=1.0)
    _, space, ex = _units_material(engine, units, call, "kilometres")
    tests = asyncio.run(write_fact_tests(units, engine, space, [ex]))
    assert [t.query for t in tests] == [query]
    assert ": kilometres" in str(gen.requests[0].messages)
    assert not any(REREAD in str(r.messages) for r in gen.requests)


def test_a_form_said_beside_the_value_as_the_tool_takes_it_tests_nothing():
    from play2prompt.evidence.everyday import everyday_form
    from play2prompt.evidence.fact_targets import form_problems

    form = everyday_form(175, "Height is in centimetres.")
    others = Invocation("body_mass_index", {"weight": 70})
    assert form_problems(form, 175, "I weigh 70 kg and am 1.75 m tall", "height", others) == []
    both = form_problems(form, 175, "I weigh 70 kg, 1.75 m (175 cm) tall", "height", others)
    assert both and "the way the tool takes it" in both[0]
    rate = everyday_form(4, "a percentage between 0 and 100")
    assert form_problems(rate, 4, "a 20,000 loan at 4 % over 10 years", "rate", others) == []


def test_a_value_bounded_between_0_and_1_is_tested_as_a_percentage():
    """"tip must be between 0 and 1" names no unit, but a value the tool bounds by 0 and 1 is a
    share people say in percent: a verified call with tip=0.15 is a target, its form "15 %"."""
    from play2prompt.evidence.everyday import everyday_form
    from play2prompt.tools.model import Observation, Tool

    tool = Tool("split_bill", "Split a bill.", {"type": "object", "properties": {
        "total": {"type": "number"}, "people": {"type": "integer"}, "tip": {"type": "number"}}})
    book = FactBook(tool)
    book.observe(Invocation(tool.name, {"total": 200, "people": 4, "tip": 15}),
                 Observation.failure("exception", "ValueError: tip must be between 0 and 1"))
    call = Invocation(tool.name, {"total": 200, "people": 4, "tip": 0.15})
    ex = Example(tool.name, "Split 200 among 4 with a 0.15 tip.", call,
                 Observation.success({"per_person": 57.5}), "", 3.0, 0.0, 3.0, solved=True)
    targets = plan_targets(tool, [ex], book, 4)
    assert [t.param for t in targets] == ["tip"]
    assert everyday_form(0.15, targets[0].rule).text == "15 %"


def test_a_percentages_tests_say_it_in_turn_as_a_percentage_and_as_a_ratio(
        example_tools, make_engine):
    """Two targets on annual_rate=4: the first says "4 %", the second "1 out of 25"; D0 writes
    0.04 for both and fails them, and the ratio's conversion joins the facts as a worked
    example. A rate play wrote unround (4.1) is tested at the round share nearest to it (4),
    whose call is run."""
    loan = next(t for t in example_tools if t.name == "loan_payment")
    said = {"4 %": "What would I pay each month on a 20,000 loan at 4 % for 10 years?",
            "1 out of 25": "Monthly cost of 20,000 borrowed at 1 out of 25 for 10 years?"}
    gen = FakeLM(rules=[(f"rate: {k}", {"query": q}) for k, q in said.items()])
    task = FakeLM(rules=[(q[-25:], tool_call(loan.name, {"principal": 20000,
                                                         "annual_rate": 0.04, "years": 10}))
                         for q in said.values()])
    engine = make_engine([loan], gen, task, lam=1.0)
    space, ex = _loan_material(engine, loan)
    unround = Invocation(loan.name, {**ex.invocation.arguments, "annual_rate": 4.1})
    other = replace(ex, query="Twenty thousand at 4.1 for ten years?", invocation=unround,
                    observation=asyncio.run(engine.runtime.run(unround)))
    assert [t.nth for t in plan_targets(loan, [ex, other], space.book, 2)] == [0, 1]
    tests = asyncio.run(write_fact_tests(loan, engine, space, [ex, other]))
    assert sorted((t.query, t.r_e) for t in tests) == sorted((q, 1.0) for q in said.values())
    assert {t.invocation.arguments["annual_rate"] for t in tests} == {4}
    assert "For example, 1 out of 25 is 4." in [f.text for f in space.book.of("annual_rate")]


def test_a_currency_code_is_said_by_its_name_and_the_conversion_joins_the_facts(
        example_tools, make_engine):
    """convert_currency's doc says "currency, e.g. dollars"; the tool takes ISO codes and
    lists them when refused. A verified call with from_currency="USD" is tested as "US
    dollars" (code's form: no re-reading), D0 writes "dollars" and fails it (R_e = 1), and
    "For example, US Dollar is "USD"." joins the facts."""
    money = next(t for t in example_tools if t.name == "convert_currency")
    call = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
    query, other = "How much is 100 US dollars in EUR?", "What are 100 USD in euros?"
    gen = FakeLM(rules=[("currency: US Dollar", {"query": query}),
                        ("currency: Euro", {"query": other}), (REREAD, call)])
    task = FakeLM(rules=[("100 US dollars", tool_call(money.name, {**call,
                                                                  "from_currency": "dollars"})),
                         ("in euros", tool_call(money.name, {**call, "to_currency": "euros"}))])
    engine = make_engine([money], gen, task, lam=1.0)

    async def run():
        book = FactBook(money)
        wrong = Invocation(money.name, {**call, "from_currency": "dollars"})
        book.observe(wrong, await engine.runtime.run(wrong))
        inv = Invocation(money.name, call)
        ex = Example(money.name, "100 USD to EUR", inv, await engine.runtime.run(inv), "",
                     3.0, 0.0, 3.0, solved=True)
        space = ExampleSpace(money, engine, book)
        return space, await write_fact_tests(money, engine, space, [ex])

    space, tests = asyncio.run(run())
    assert [(t.query, t.r_e) for t in tests] == [(query, 1.0), (other, 1.0)]
    assert not any(REREAD in str(r.messages) for r in gen.requests)
    assert 'For example, US Dollar is "USD".' in [f.text for f in
                                                   space.book.of("from_currency")]


def test_a_shares_later_tests_say_the_form_the_original_doc_failed(example_tools, make_engine):
    """Four targets on annual_rate: the first wave says "4 %" (D0 writes 4: solved) and "1 out
    of 25" (D0 writes 1: failed); the two later targets both say a ratio (difficult examples),
    not "%" again."""
    loan = next(t for t in example_tools if t.name == "loan_payment")
    engine = make_engine([loan], FakeLM(fill_schema=True))
    space, ex = _loan_material(engine, loan)
    rates = (4, 5, 8, 6)
    examples = []
    for rate in rates:
        inv = Invocation(loan.name, {**ex.invocation.arguments, "annual_rate": rate})
        examples.append(replace(ex, query=f"20,000 at {rate} for 10 years?", invocation=inv,
                                observation=asyncio.run(engine.runtime.run(inv))))

    def drafted(text):   # the writer says the form it is given; the task model reads a ratio
        return {"query": f"A 20,000 loan at {text} a year for 10 years: the monthly cost?"}

    said = {"4 %": "4 %", "1 out of 25": "1 out of 25", "1 out of 20": "1 out of 20",
            "2 out of 25": "2 out of 25", "3 out of 50": "3 out of 50", "5 %": "5 %",
            "8 %": "8 %", "6 %": "6 %"}
    gen = FakeLM(rules=[(f"rate: {k}\n", drafted(v)) for k, v in said.items()])
    task = FakeLM(rules=[*((f"at {r} %", tool_call(loan.name, {**ex.invocation.arguments,
                                                               "annual_rate": r}))
                           for r in rates),
                         ("out of", tool_call(loan.name, {**ex.invocation.arguments,
                                                          "annual_rate": 1}))])
    engine = make_engine([loan], gen, task, lam=1.0)
    space = ExampleSpace(loan, engine, space.book)
    targets = plan_targets(loan, examples, space.book, 4)
    assert [t.nth for t in targets] == [0, 1, 2, 3]
    tests = asyncio.run(write_fact_tests(loan, engine, space, examples))
    forms = [("out of" in t.query, t.r_e) for t in tests]
    assert forms == [(False, 0.0), (True, 1.0), (True, 1.0), (True, 1.0)]


def test_a_count_a_year_is_a_target_without_a_fact_and_its_test_says_how_often():
    from play2prompt.evidence.fact_targets import form_problems
    from play2prompt.method.example_search import Example as Ex
    from play2prompt.tools.model import Observation, Tool

    savings = Tool("savings", "Savings growth.", {"type": "object", "properties": {
        "principal": {"type": "number"}, "compounding": {"type": "integer"}}})
    inv = Invocation("savings", {"principal": 1000, "compounding": 4})
    ex = Ex("savings", "1000 compounded 4 times a year", inv,
            Observation(True, {"balance": 1030.0}), "", 3.0, 0.0, 3.0, solved=True)
    targets = plan_targets(savings, [ex], FactBook(savings), 4)
    assert [t.param for t in targets] == ["compounding"]      # no fact about it: its name
    form = targets[0].code_form(4)
    assert form is not None and form.text == "quarterly"
    others = Invocation("savings", {"principal": 1000})
    assert form_problems(form, 4, "Grow 1000 at 3 %, compounded quarterly.", "compounding",
                         others) == []
    assert form_problems(form, 4, "Grow 1000 at 3 %, compounded 4 times a year.",
                         "compounding", others)                # not how often: rejected


def test_a_level_is_said_by_the_shares_play_found_and_the_original_doc_fails_it(make_engine):
    """The held-out heart-rate tool: "zone must be 1-5" is all its errors say, and the
    ``levels`` component found each zone as shares of max_hr; the fact test says zone 3 as
    "70 to 80 %" of it, which a model reading "training zone" writes as zone=70."""
    from play2prompt.evidence.facts import Fact
    from play2prompt.evidence.levels import levels
    from play2prompt.tools.loading import load_tools
    from tests.evidence.test_levels import FRESH

    zone = next(t for t in load_tools(FRESH / "tools.json") if t.name == "heart_rate_zone")
    zone = replace(zone, executor={"python": "fresh/tools.py:heart_rate_zone"})
    query = "What's the 70 to 80 % of max heart rate range for a 40 year old?"
    task = FakeLM(rules=[("70 to 80", tool_call(zone.name, {"age": 40, "zone": 70}))])
    engine = make_engine([zone], FakeLM(rules=[(M3, {"query": query})]), task, lam=1.0)

    async def run():
        book = FactBook(zone)
        book.add(Fact("zone", "rule", "zone must be between 1 and 5."))
        calls = []
        for args in ({"age": 40, "zone": 3}, {"age": 30, "zone": 1}):
            inv = Invocation(zone.name, args)
            calls.append((inv, await engine.runtime.run(inv)))
        for fact in await levels(zone, engine, calls, {"zone": "zone must be between 1 and 5."}):
            book.add(fact)
        ex = Example(zone.name, "Zone 3 for a 40 year old?", *calls[0], "", 3.0, 0.0, 3.0,
                     solved=True)
        space = ExampleSpace(zone, engine, book)
        return await write_fact_tests(zone, engine, space, [ex]), space

    tests, space = asyncio.run(run())
    assert [t.query for t in tests] == [query]
    assert "said as 70 to 80 % of max hr, converted by code" in tests[0].rederived
    assert tests[0].invocation.arguments == {"age": 40, "zone": 3}
    assert (tests[0].solved, tests[0].r_e) == (False, 1.0)
    assert "For example, 70 to 80 % of max hr is 3." in space.book.sentences("zone")
