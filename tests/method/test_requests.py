"""Requests of examples: the code gates and the re-reading check."""

import asyncio
import itertools

import pytest

from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.gates import leaks, reads_like_code, request_problems, value_dump
from play2prompt.evidence.names import DEFAULT_EVIDENCE
from play2prompt.lm.fake import FakeLM
from play2prompt.method.requests import RequestWriter
from play2prompt.method.rewards import missing_numbers, said_as_percent
from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation

M3 = "Write the person's message"
REREAD = "Write the arguments."
# re-reading and relabelling are off by default (evidence/names.py); these tests turn them on
READING = (*DEFAULT_EVIDENCE, "reread", "relabel")


@pytest.fixture
def loan(example_tools):
    return next(t for t in example_tools if t.name == "loan_payment")


def test_code_like_requests_are_detected():
    assert reads_like_code("call f(a=1)", "f") and reads_like_code("use tool_x now", "tool_x")
    assert not reads_like_code("I need 5 km in miles", "tool_x")
    assert reads_like_code("SELECT AVG(age) FROM singer WHERE country = 'US'", "t")
    assert reads_like_code("Run `lookup` for me", "t")
    assert reads_like_code("body_mass_index?weight=85&height=175", "t")
    assert reads_like_code("gaming mouse with in_stock True", "t")
    assert not reads_like_code("Select the cheapest flight from Paris", "find_fare")
    # mathematics as people write it; a one-letter name given a text is still code
    assert not reads_like_code("What is the slope of f(x) = 3x^2 at x = 5?", "estimate")
    assert not reads_like_code("How many ways to choose k = 3 of n = 10 items?", "estimate")
    # a tool named by a plain word (as library functions are) is a word people say
    assert not reads_like_code("What is the 90th percentile of 1, 2 and 3?", "percentile")
    assert reads_like_code("run getPercentile on 1, 2, 3", "getPercentile")
    assert reads_like_code("set x = 'abc' then run", "t")
    assert reads_like_code("rate = 5 and years=3", "t")


def test_value_dumps_and_leaks_are_detected():
    assert value_dump("gaming mouse, electronics, 100, True, name, 20")
    assert not value_dump("I want a mouse, cheap, for gaming.")
    prompt = "For example, a good request is: I need a flight from Oslo to Rome on 2025-03-14."
    assert leaks("I need a flight from Oslo to Rome on 2023-04-01 with 5 days", [prompt])
    assert leaks("What is my payment? It left out 5, 3 years.", ["It left out 5, 3 years."])
    assert not leaks("How much is my monthly payment on 20000 at 5 percent?", [prompt])


def test_request_problems_name_each_fault(loan):
    assert request_problems("What would I pay per month for 20000 at 5 % over 4 years?",
                            loan) == []
    assert any("names the tool" in p for p in request_problems(
        "Compute loan_payment for 20000 at 5 percent", loan))
    assert any("parameter" in p for p in request_problems(
        "My annual_rate is 5 and I borrow 20000 for 4 years", loan))
    assert any("web address" in p for p in request_problems(
        "Check https://bank.example.com/loan for 20000 over 4 years", loan))
    assert request_problems("20000", loan)


def _writer(loan, make_engine, query, reread):
    gen = FakeLM(rules=[(M3, {"query": query}), (REREAD, reread)])
    engine = make_engine([loan], gen, evidence=READING)
    return RequestWriter(loan, engine), engine


def test_a_request_that_re_reads_to_the_same_call_passes(loan, make_engine):
    args = {"principal": 20000, "annual_rate": 5, "years": 4}
    writer, engine = _writer(loan, make_engine,
                             "I borrow 20000 at 5 percent for 4 years: what is my payment?", args)
    inv = Invocation("loan_payment", args)
    obs = asyncio.run(engine.runtime.run(inv))
    req = asyncio.run(writer.write(inv, obs, "k", FactBook(loan)))
    assert req.consistent and not req.problems


def test_an_inconsistent_request_is_gated(example_tools, make_engine):
    """The request converts dollars to euros, the call euros to dollars: re-reading it gives
    another call with another output."""
    fx = next(t for t in example_tools if t.name == "convert_currency")
    args = {"amount": 150, "from_currency": "EUR", "to_currency": "USD"}
    swapped = {**args, "from_currency": "USD", "to_currency": "EUR"}
    reads = itertools.cycle([swapped, args])  # the second reading (to relabel) disagrees
    gen = FakeLM(rules=[(M3, {"query": "How much is 150 US dollars in euros?"}),
                        (REREAD, lambda request, i: next(reads))])
    engine = make_engine([fx], gen, evidence=READING)
    inv = Invocation("convert_currency", args)
    obs = asyncio.run(engine.runtime.run(inv))
    req = asyncio.run(RequestWriter(fx, engine).write(inv, obs, "k", FactBook(fx)))
    assert not req.consistent and req.problems and "from_currency='USD'" in req.rederived


def test_a_draft_failing_the_gates_is_redrawn_and_told_why(loan, make_engine):
    args = {"principal": 20000, "annual_rate": 5, "years": 4}
    gen = FakeLM(replies=[{"query": "loan payment"},
                          {"query": "I borrow 20000 at 5 percent for 4 years; monthly cost?"}],
                 rules=[(REREAD, args)])
    engine = make_engine([loan], gen)
    inv = Invocation("loan_payment", args)
    obs = asyncio.run(engine.runtime.run(inv))
    req = asyncio.run(RequestWriter(loan, engine).write(inv, obs, "k", FactBook(loan)))
    assert req.query.startswith("I borrow") and not req.problems
    second = gen.requests[1].messages[-1]["content"]
    assert "A draft was rejected because it is too short" in second


def test_numbers_must_be_written_as_the_call_has_them():
    from play2prompt.method.rewards import missing_numbers

    inv = Invocation("loan_payment", {"principal": 200000, "annual_rate": 0.05, "years": 10})
    assert missing_numbers("a 200,000 loan at 5 over 10 years", inv) == ["0.05"]
    assert missing_numbers("a 200,000 loan at 0.05 percent over 10 years", inv) == []
    # "5%" for 0.05 is how people say it: stated (whether the tool takes 5 or 0.05 is for the
    # re-reading to find, and makes the example difficult, issue 27)
    assert missing_numbers("a 200,000 loan at 5% over 10 years", inv) == []


def test_the_request_schema_leaves_out_the_characters_of_code():
    import jsonschema

    from play2prompt.method.requests import QUERY_SCHEMA

    jsonschema.validate({"query": "Convert 8 metres to km, please"}, QUERY_SCHEMA)
    for code in ("convert_units(value=5.5)", "loan payment {principal: 5}", "sum of [1, 2]"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"query": code}, QUERY_SCHEMA)


def test_a_count_a_year_may_be_said_as_how_often():
    from play2prompt.method.rewards import missing_numbers

    inv = Invocation("savings", {"principal": 5000, "annual_rate": 5, "years": 10,
                                 "compounding": 12})
    assert missing_numbers("5,000 at 5% for 10 years, compounded monthly", inv) == []
    assert missing_numbers("5,000 at 5% for 10 years, compounded quarterly", inv) == ["12"]
    yearly = Invocation("savings", {"principal": 5000, "annual_rate": 5, "compounding": 1})
    assert missing_numbers("5,000 at a yearly rate of 5%", yearly) == ["1"]   # a rate, no count
    assert missing_numbers("5,000 at 5%, compounded once a year", yearly) == []
    # only where the parameter's name says it counts times a year
    months = Invocation("loan", {"principal": 5000, "months": 12})
    assert missing_numbers("monthly payment on 5,000", months) == ["12"]
    huge = Invocation("savings", {"compounding": 10 ** 400, "periods_per_year": float("inf")})
    assert len(missing_numbers("compounded monthly", huge)) == 2   # no count a year, no error


def test_switches_the_request_contradicts_are_found():
    from play2prompt.evidence.gates import flag_conflicts

    off = Invocation("add_days", {"date": "2023-10-05", "days": 7, "business_days": False})
    on = Invocation("add_days", {"date": "2023-10-05", "days": 7, "business_days": True})
    assert flag_conflicts("Add 7 business days to October 5th 2023", off)
    assert not flag_conflicts("Add 7 days to 2023-10-05, without counting business days", off)
    assert not flag_conflicts("What date is 7 days after 2023-10-05?", off)     # not named
    assert not flag_conflicts("Add 7 business days to 2023-10-05", on)
    assert flag_conflicts("7 days from 2023-10-05, not counting business days", on)


def test_an_optional_free_text_the_request_does_not_say_is_a_problem():
    """Run s72j shipped a create_charge demo whose request said "I forgot the description"
    while its call set description='Example charge'; the 1.5B set a description unasked in 6
    of 8 requests."""
    from play2prompt.evidence.gates import unsaid_texts
    from play2prompt.tools.model import Tool

    charge = Tool("create_charge", "", {"type": "object", "properties": {
        "amount": {"type": "integer"}, "currency": {"type": "string"},
        "description": {"type": "string"}, "note": {"type": "string"}},
        "required": ["amount", "currency"]})
    call = Invocation("create_charge", {"amount": 10000, "currency": "usd",
                                        "description": "Example charge"})
    forgot = "Charge 100 dollars in usd, I forgot the description."
    assert unsaid_texts(forgot, call, charge) == ["description"]
    assert any("description" in p for p in request_problems(forgot, charge, inv=call))
    assert unsaid_texts("Charge 100 usd and label it  example CHARGE", call, charge) == []
    # a required text, or one word (a code said by its name), is not asked to be written
    coded = Invocation("create_charge", {"amount": 100, "currency": "US dollars",
                                         "note": "vip"})
    assert unsaid_texts("Charge one dollar to the VIP customer", coded, charge) == []


def test_a_draft_that_reads_to_another_call_is_redrawn(example_tools, make_engine):
    fx = next(t for t in example_tools if t.name == "convert_currency")
    args = {"amount": 150, "from_currency": "EUR", "to_currency": "USD"}
    gen = FakeLM(replies=[{"query": "How much is 150 US dollars in euros?"},
                          {"from_currency": "USD", "to_currency": "EUR", "amount": 150},
                          args,  # read again to relabel: no agreement, no relabel
                          {"query": "How many US dollars do I get for 150 euros?"},
                          args])
    engine = make_engine([fx], gen, evidence=READING)
    inv = Invocation("convert_currency", args)
    obs = asyncio.run(engine.runtime.run(inv))
    req = asyncio.run(RequestWriter(fx, engine).write(inv, obs, "k", FactBook(fx)))
    assert req.consistent and req.query.startswith("How many US dollars")
    redraw = gen.requests[3].messages[-1]["content"]
    assert "Read alone, it asks for convert_currency(" in redraw
    assert "from_currency='USD'" in redraw


def test_codes_and_identifiers_read_like_code():
    assert reads_like_code("What time is 9:00 America/New_York in Europe/Paris?", "tz_tool")
    assert reads_like_code("use business_days for this", "tz_tool")
    assert not reads_like_code("What time is 9:00 in New York when it is noon in Paris?",
                               "tz_tool")


def test_short_lists_of_bare_values_are_dumps():
    assert value_dump("Smartphone, electronics, price")
    assert not value_dump("I want apples, pears, and plums")


def _timezone(example_tools, make_engine, query):
    """A request for convert_timezone whose re-reading writes city names the tool rejects."""
    tz = next(t for t in example_tools if t.name == "convert_timezone")
    args = {"time": "15:45", "from_tz": "America/New_York", "to_tz": "Asia/Tokyo"}
    gen = FakeLM(rules=[(M3, {"query": query}),
                        (REREAD, {"time": "15:45", "from_tz": "New York", "to_tz": "Tokyo"})])
    engine = make_engine([tz], gen, evidence=READING)
    inv = Invocation(tz.name, args)
    obs = asyncio.run(engine.runtime.run(inv))
    assert obs.ok
    return asyncio.run(RequestWriter(tz, engine).write(inv, obs, "k", FactBook(tz)))


def test_a_request_the_reader_cannot_call_is_kept_when_code_finds_every_value(
        example_tools, make_engine):
    """"Tokyo" for Asia/Tokyo: the re-reading's call does not run (unknown time zone), yet
    every value of the call is in the request: a natural, complete request, kept."""
    req = _timezone(example_tools, make_engine,
                    "It is 15:45 in New York; what time is it in Tokyo?")
    assert req.consistent and not req.problems and "checked by code" in req.rederived


def test_a_request_missing_a_value_is_not_kept_on_a_reading_that_did_not_run(
        example_tools, make_engine):
    req = _timezone(example_tools, make_engine, "It is 15:45 on the US east coast; and Tokyo?")
    assert not req.consistent and req.problems


def _shipping(tmp_path, query, read):
    """A request for examples/fresh's shipping_quote (a destination country as a code) whose
    re-reading writes ``read``."""
    from pathlib import Path

    from play2prompt.config import preset
    from play2prompt.engine import build_engine
    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.loading import load_tools

    fresh = Path(__file__).resolve().parents[2] / "examples" / "fresh"
    tool = next(t for t in load_tools(fresh / "tools.json") if t.name == "shipping_quote")
    gen = FakeLM(rules=[(M3, {"query": query}), (REREAD, read)])
    ctx = ExecContext(base_dir=fresh, default_timeout=30.0)
    store = RunStore(tmp_path / query[-20:].replace(" ", "-") / "run.db")  # no cached reading
    try:
        engine = build_engine([tool], store, preset("quick", evidence=READING),
                              generator=gen.with_log(store),
                              task_model=gen.with_log(store), exec_ctx=ctx)
        inv = Invocation(tool.name, {"weight": 500, "service": "STD", "destination": "CA"})
        obs = asyncio.run(engine.runtime.run(inv))
        assert obs.ok
        return asyncio.run(RequestWriter(tool, engine).write(inv, obs, "k", FactBook(tool)))
    finally:
        ctx.close()
        store.close()


def test_a_country_said_by_name_and_a_code_read_alike_keep_a_request(tmp_path):
    """fresh16: "... standard delivery to Canada" re-read as destination='Canada', which the
    tool refuses; the name of CA (the parameter is a destination country) is in the request
    and "standard" was read as STD: every value said, kept (it is the example a doc that
    says "ISO country code" must win on)."""
    read = {"weight": 500, "service": "STD", "destination": "Canada"}
    req = _shipping(tmp_path, "Quote me 500 grams by standard delivery to Canada, please.", read)
    assert req.consistent and not req.problems and "checked by code" in req.rederived
    # the country not said (a city instead): refused as before
    toronto = {"weight": 500, "service": "STD", "destination": "Toronto"}
    req = _shipping(tmp_path, "Quote me 500 grams by standard delivery to Toronto.", toronto)
    assert not req.consistent and req.problems


def test_a_value_read_alike_counts_only_from_a_reading_that_sets_nothing_else():
    from play2prompt.method.requests import states_every_value

    inv = Invocation("s", {"weight": 500, "service": "STD", "destination": "CA"})
    query = "500 grams by standard post to Canada"
    country = {"destination": "destination country"}
    read = Invocation("s", {"weight": 500, "service": "STD", "destination": "Canada"})
    assert states_every_value(query, inv, read, country)
    assert not states_every_value(query, inv, read)              # "CA" alone: no kind shown
    other = Invocation("s", {"weight": 500, "service": "EXP", "destination": "Canada"})
    assert not states_every_value(query, inv, other, country)    # STD neither said nor read
    extra = Invocation("s", {**read.arguments, "insured": True})
    assert not states_every_value(query, inv, extra, country)    # the reader added a value


def test_said_reads_numbers_words_and_the_last_part_of_a_path():
    from play2prompt.method.requests import said, states_every_value

    assert said("Asia/Tokyo", "time in Tokyo?") and said("America/New_York", "in new york")
    assert not said("Asia/Tokyo", "time in Japan?") and not said(True, "yes")
    assert said(175, "I am 175 cm") and not said(175, "I am 1.75 m")
    assert not states_every_value("anything", Invocation("f", {}))


def test_a_list_of_numbers_inside_a_request_is_no_value_dump():
    # BFCL's calculate_mean: every request for a list was refused as a dump (0 verified
    # examples of 6 valid calls in run bfcl-a-p2p3)
    assert not value_dump("Calculate the average of the numbers [2, 4, 6, 8, 10].")
    assert not value_dump("What's the mean of 3, 5, 7, 9?")
    assert not value_dump("Multiply the matrices [[1, 2], [3, 4]] and [[5, 6], [7, 8]] for me")
    assert value_dump("1, 2, 3, 4") and value_dump("[1, 2, 3] please")   # numbers alone


def test_a_fraction_said_as_a_percentage_is_stated_but_other_scales_are_not():
    inv = Invocation("future_value", {"interest_rate": 0.05, "periods": 12,
                                      "present_value": 1000})
    assert missing_numbers("At 5% a year for 12 years, what do 1000 dollars grow to?", inv) == []
    assert missing_numbers("At 5 percent a year for 12 years, what do 1000 grow to?", inv) == []
    assert missing_numbers("At 5 a year for 12 years, what do 1000 grow to?", inv) == ["0.05"]
    assert not said_as_percent(5, "500 %")           # only a fraction has a percentage form


def test_a_percentage_said_for_a_fraction_is_rescaled_where_play_found_the_tool_takes_percent(
        loan, make_engine):
    """Run base: "5% interest" was verified for annual_rate=0.05 (a 1.5B re-reader reads 5 %
    as 0.05 too), though play had found "annual_rate is a percentage between 0 and 100"; two
    such examples voted loan's facts doc down. With the facts, the request is an example of
    annual_rate=5 (executed, converted by code); without them, or where the tool takes a
    fraction, "5 %" for 0.05 is how people say it."""
    from play2prompt.evidence.facts import Fact
    from play2prompt.evidence.gates import rescaled, scale_conflicts

    query = "What would I pay a month on 20000 at 5% interest over 5 years?"
    wrong = Invocation("loan_payment", {"principal": 20000, "annual_rate": 0.05, "years": 5})
    right = Invocation("loan_payment", {"principal": 20000, "annual_rate": 5.0, "years": 5})
    plain = FactBook(loan)
    book = FactBook(loan, [Fact("annual_rate", "rule",
                                "annual_rate is a percentage between 0 and 100.")])
    assert request_problems(query, loan, inv=wrong, book=plain) == []
    assert rescaled(query, wrong, plain) is None
    (problem,) = request_problems(query, loan, inv=wrong, book=book)
    assert problem == ("it says 5 % where the call has 0.05, but the tool takes a percentage "
                       "(5 % is 5)")
    assert rescaled(query, wrong, book) == right
    assert scale_conflicts(query, right, book) == []            # 5 % for 5.0: as the tool takes
    assert scale_conflicts("At 0.05 % a year on 20000 for 5 years", wrong, book) == []
    fraction = FactBook(loan, [Fact("annual_rate", "rule", "annual_rate is a fraction.")])
    assert scale_conflicts(query, wrong, fraction) == []
    # m3 writes it for the 0.05 call: it becomes an example of the executed 5.0 call
    writer, engine = _writer(loan, make_engine, query, {})
    obs = asyncio.run(engine.runtime.run(wrong))
    req = asyncio.run(writer.write(wrong, obs, "k", book))
    assert req.problems == () and req.call == right and req.observation.ok
    assert req.observation.output != obs.output and "converted by code" in req.rederived


def test_a_value_said_in_another_unit_of_the_facts_family_is_rescaled():
    """Run fresh22: m3 wrote "10 meters long, 15 meters wide, 7 meters high" for the paint
    tool's 10 x 15 x 7 (it takes centimetres, which `dimensions` found), verified as written;
    D0 solved it, the facts doc converted it to 1000 and "failed", and the facts doc lost
    0.60 against 0.80. With the unit fact it is an example of 1000 x 1500 x 700."""
    from play2prompt.evidence.facts import Fact
    from play2prompt.evidence.gates import rescaled, scale_conflicts
    from play2prompt.tools.loading import load_tools
    from tests.evidence.test_levels import FRESH

    paint = next(t for t in load_tools(FRESH / "tools.json") if t.name == "paint_needed")
    cm = "`{}` is in centimetres (2.5 metres is 250). For example, 0.1 metres is 10."
    book = FactBook(paint, [Fact(p, "rule", cm.format(p)) for p in ("length", "width",
                                                                     "height")])
    query = ("How much paint is needed for a room with dimensions 10 meters long, 15 meters "
             "wide, 7 meters high, with 2 coats?")
    play = Invocation("paint_needed", {"length": 10, "width": 15, "height": 7, "coats": 2})
    meant = Invocation("paint_needed", {"length": 1000, "width": 1500, "height": 700,
                                        "coats": 2})
    assert rescaled(query, play, book) == meant
    assert scale_conflicts(query, play, book)[0] == (
        "it says 10 in another unit than the tool takes (length 1000 is what it means)")
    assert scale_conflicts(query, meant, book) == []
    # a symbol after the number, a decimal; a value said in the tool's own unit is as taken
    short = Invocation("paint_needed", {"length": 4.5, "width": 3, "height": 2.4})
    assert rescaled("A room 4.5 m by 3m, walls 2.4 m high: how much paint?", short,
                    book).arguments == {"length": 450.0, "width": 300, "height": 240.0}
    assert rescaled("A room 450 cm by 300 cm, walls 240 cm high?", Invocation(
        "paint_needed", {"length": 450, "width": 300, "height": 240}), book) is None
    # no unit fact (the doc as given), or a number said with no unit: nothing to rescale
    assert rescaled(query, play, FactBook(paint)) is None
    assert rescaled("Paint for 10 by 15 by 7 with 2 coats?", play, book) is None


def test_a_page_said_as_people_count_is_an_example_of_the_index_below(store):
    """Run s72i: m3 wrote "list orders page 1 per page 10" for page=1 of list_orders, which
    counts pages from 0; the gates named the slip and the rescaled call (page=0) was refused
    for not writing 0, so list_orders kept 2 examples of one call and no doc search ran. The
    request passes every other gate for the call as drafted: it is an example of page=0."""
    from pathlib import Path

    from play2prompt.config import preset
    from play2prompt.engine import build_engine
    from play2prompt.evidence.conventions import index_sentence
    from play2prompt.evidence.facts import Fact
    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.loading import load_tools

    silent = Path(__file__).resolve().parents[2] / "examples" / "silent"
    orders = next(t for t in load_tools(silent / "tools.json") if t.name == "list_orders")
    book = FactBook(orders, [Fact("page", "rule", index_sentence("page", 0))])
    drafted = Invocation("list_orders", {"page": 1, "per_page": 10})
    ctx = ExecContext(base_dir=silent, default_timeout=30.0)
    try:
        gen = FakeLM(rules=[(M3, {"query": "Show my orders, page 1, 10 per page"}),
                            (REREAD, {})]).with_log(store)
        engine = build_engine([orders], store, preset("quick", evidence=READING),
                              generator=gen, task_model=gen, exec_ctx=ctx)
        writer = RequestWriter(orders, engine)
        obs = asyncio.run(engine.runtime.run(drafted))
        req = asyncio.run(writer.write(drafted, obs, "k", book))
        # a request with another slip (it names the tool) is not converted
        other = asyncio.run(writer.rescale("list_orders page 1 per_page 10", drafted, book,
                                           (), ""))
    finally:
        ctx.close()
    assert req.call == Invocation("list_orders", {"page": 0, "per_page": 10})
    assert req.problems == () and req.observation.ok and "converted by code" in req.rederived
    assert other is None


def test_verified_examples_the_completed_facts_rescale_are_relabelled_or_dropped(
        loan, make_engine):
    from play2prompt.evidence.facts import Fact
    from play2prompt.method.example import Example
    from play2prompt.pipeline import rescale_examples
    from play2prompt.tools.model import Observation

    book = FactBook(loan, [Fact("annual_rate", "rule", "annual_rate is a percentage.")])
    calls = [{"principal": 20000, "annual_rate": 0.05, "years": 5},     # 5 %: becomes 5.0
             {"principal": 20000, "annual_rate": 5.0, "years": 5},      # then a duplicate
             {"principal": 9000, "annual_rate": 0.04, "years": -3}]     # 4 %: does not run
    examples = [Example("loan_payment", f"My loan of {a['principal']} at {a['annual_rate'] * 100:g}"
                        f"% over {a['years']} years?" if a["annual_rate"] < 1 else
                        "My loan of 20000 at 5 % over 5 years?",
                        Invocation("loan_payment", a), Observation(True, {"x": 1}),
                        "", 3.0, 0.0, 3.0, solved=True) for a in calls]
    engine = make_engine([loan], FakeLM())
    (kept,) = asyncio.run(rescale_examples(engine, examples, book))
    assert kept.invocation.arguments["annual_rate"] == 5.0 and kept.observation.ok
    assert not kept.solved      # D0 solved the old call: the new one is the doc search's to score
    assert kept.query == examples[0].query
    logged = {r["state"] for r in engine.store.candidates(stage="rescaled")}
    assert logged == {"kept", "dropped"}
    paper = make_engine([loan], FakeLM(), evidence=())           # the component off: as given
    assert asyncio.run(rescale_examples(paper, examples, book)) == examples


PARTS = "Write the person's message in parts."


def test_a_request_no_draft_got_right_is_written_a_value_at_a_time(loan, make_engine):
    """request-parts: three drafts leave the values out; the parts (what the person wants,
    then one sentence per value) are joined by code and pass the gates and the re-reading."""
    args = {"principal": 20000, "annual_rate": 5, "years": 4}
    gen = FakeLM(rules=[(PARTS, {"want": "What would my monthly loan payment be?",
                                 "value_1": "I borrow 20000 dollars",
                                 "value_2": "The interest is 5 percent a year.",
                                 "value_3": "I pay it back over 4 years."}),
                        (M3, {"query": "What is the monthly payment on my loan?"}),
                        (REREAD, args)])
    engine = make_engine([loan], gen, evidence=(*READING, "request-parts"))
    inv = Invocation("loan_payment", args)
    obs = asyncio.run(engine.runtime.run(inv))
    req = asyncio.run(RequestWriter(loan, engine).write(inv, obs, "k", FactBook(loan)))
    assert req.query == ("What would my monthly loan payment be? I borrow 20000 dollars. The "
                         "interest is 5 percent a year. I pay it back over 4 years.")
    assert req.consistent and not req.problems
    assert engine.uses["request-parts"] == 1
    parts_prompt = next(r for r in gen.requests if PARTS in r.messages[-1]["content"])
    assert "value_2: the annual rate is 5" in parts_prompt.messages[-1]["content"]


def test_parts_are_gated_like_any_request_and_off_by_default(loan, make_engine):
    args = {"principal": 20000, "annual_rate": 5, "years": 4}
    rules = [(PARTS, {"want": "What would my monthly loan payment be?",
                      "value_1": "My principal is 20000.", "value_2": "The annual_rate is 5.",
                      "value_3": "4 years."}),
             (M3, {"query": "What is the monthly payment on my loan?"}), (REREAD, args)]
    inv = Invocation("loan_payment", args)
    for evidence in [(*engine_default(), "request-parts"), None]:
        gen = FakeLM(rules=rules)
        engine = (make_engine([loan], gen, evidence=evidence) if evidence
                  else make_engine([loan], gen))
        obs = asyncio.run(engine.runtime.run(inv))
        req = asyncio.run(RequestWriter(loan, engine).write(inv, obs, "k", FactBook(loan)))
        assert req.problems and req.query == "What is the monthly payment on my loan?"
        asked = any(PARTS in r.messages[-1]["content"] for r in gen.requests)
        assert asked == bool(evidence) and engine.uses["request-parts"] == bool(evidence)


def engine_default():
    from play2prompt.evidence.names import DEFAULT_EVIDENCE

    return DEFAULT_EVIDENCE
