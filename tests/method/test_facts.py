"""Facts of a tool, read from its real executions: accepted values, rules, rejections, probes,
and the facts doc that states them and corrects what they refute."""

import asyncio

import pytest

from play2prompt.evidence.error_text import clauses, value_list
from play2prompt.evidence.facts import (
    PROBE_WORD,
    Fact,
    FactBook,
    facts_doc,
    is_transient,
)
from play2prompt.evidence.probes import probes
from play2prompt.evidence.refuted import strip_refuted
from play2prompt.tools.model import Invocation, Observation


@pytest.fixture
def tools(example_tools):
    return {t.name: t for t in example_tools}


def _run(runtime, inv):
    return asyncio.run(runtime.run(inv))


def test_error_clauses_and_value_lists():
    assert clauses("ValueError: cannot convert 'miles' to 'km'; units: c, cm, mi") == [
        "cannot convert 'miles' to 'km'", "units: c, cm, mi"]
    assert value_list("units: c, cm, ft, mi") == ("c", "cm", "ft", "mi")
    assert value_list("sort_by must be one of price, rating, name") == ("price", "rating", "name")
    assert value_list("known: AUD, CAD or CHF") == ("AUD", "CAD", "CHF")
    assert value_list("cannot convert 'mi' to 'kg'") == ()
    assert value_list("principal and years must be positive") == ()


def test_a_rejected_unit_gives_the_accepted_list_and_refutes_the_doc_example(tools, exec_ctx):
    from play2prompt.tools.runtime import ToolRuntime

    tool = tools["convert_units"]
    runtime = ToolRuntime([tool], exec_ctx)
    book = FactBook(tool)
    bad = Invocation("convert_units", {"value": 5, "from_unit": "miles", "to_unit": "km"})
    book.observe(bad, _run(runtime, bad))
    assert "mi" in book.accepted("from_unit") and "km" in book.accepted("to_unit")
    assert book.rejected("from_unit") == {"miles"}
    schema = book.narrowed_schema(tool.parameters)
    assert "mi" in schema["properties"]["from_unit"]["enum"]
    doc = facts_doc(tool, book)
    assert "miles" not in doc.params["from_unit"] and "mi," in doc.params["from_unit"]
    assert doc.params["from_unit"].startswith("unit name.")
    assert doc.params["to_unit"].startswith("One of: ")        # was empty, now says the units
    assert doc.params["value"] == "the value"                   # nothing refuted, kept as is


def test_probes_find_ranges_units_and_lists(tools, exec_ctx):
    from play2prompt.tools.runtime import ToolRuntime

    runtime = ToolRuntime(list(tools.values()), exec_ctx)
    found = {}
    for name, args in {"loan_payment": {"principal": 20000, "annual_rate": 0.05, "years": 10},
                       "body_mass_index": {"weight": 70, "height": 175},
                       "search_products": {"query": "mouse"}}.items():
        tool, book = tools[name], FactBook(tools[name])
        start = Invocation(name, args)
        book.observe(start, _run(runtime, start))
        for param, inv in probes(tool, start):
            assert sum(inv.arguments.get(k) != v for k, v in start.arguments.items()) <= 1
            book.observe(inv, _run(runtime, inv), probed=param)
        found[name] = book
    assert any("percentage between 0 and 100" in f.text
               for f in found["loan_payment"].of("annual_rate"))
    bmi = facts_doc(tools["body_mass_index"], found["body_mass_index"])
    assert "centimetres" in bmi.params["height"] and "meters" not in bmi.params["height"]
    assert found["search_products"].accepted("sort_by") == ("price", "rating", "name")
    assert "toys" in found["search_products"].accepted("category")
    assert all(PROBE_WORD not in f.text for b in found.values() for f in b.facts)


def test_internal_and_transient_errors_are_not_facts(tools):
    tool = tools["add_days"]
    book = FactBook(tool)
    inv = Invocation("add_days", {"date": "2024-01-01T12", "days": 3})
    book.observe(inv, Observation.failure(
        "exception", "ValueError: invalid literal for int() with base 10: '2024-01-01T12'"))
    book.observe(inv, Observation.failure("timeout", "no answer within 10 s"))
    book.observe(inv, Observation.failure(
        "exception", "ConnectionError: cannot reach http://127.0.0.1:8799 (NewConnectionError)"))
    assert book.facts == []
    assert is_transient(Observation.failure("http", "503 Service Unavailable"))


def test_strip_refuted_by_a_contradicting_unit(tools):
    tool = tools["body_mass_index"]
    book = FactBook(tool)
    inv = Invocation("body_mass_index", {"weight": 70, "height": 1.75})
    book.observe(inv, Observation.failure(
        "exception", "ValueError: height 1.75 looks like metres; height is in centimetres"))
    assert strip_refuted("height in meters", book.of("height")) == "height"
    assert facts_doc(tool, book).params["height"] == (
        "height. Height is in centimetres. '1.75' is rejected (height looks like metres).")
    assert strip_refuted("weight in kg", book.of("weight")) == "weight in kg"
    # a worked conversion names the unit people say: "in meters" is still refuted (run gate:
    # BMI's facts doc kept "height in meters" beside "Height is in centimetres", 2 of 13 right)
    book.add(Fact("height", "rule", "For example, 1.7 metres is 170.",
                  ("converts", "1.7 metres", "170"), "", "c1"))
    assert strip_refuted("height in meters", book.of("height")) == "height"
    # the rule first, then its worked example (fresh18s: a tip doc that opened "For example, 1
    # out of 10 is 0.1." had the task model write tip=0.1 for a bill split with no tip)
    assert facts_doc(tool, book).params["height"] == (
        "height. Height is in centimetres. For example, 1.7 metres is 170. '1.75' is rejected "
        "(height looks like metres).")


def test_facts_are_order_independent_and_drop_held_out_calls(tools):
    tool = tools["convert_currency"]
    a = Invocation("convert_currency", {"amount": 5, "from_currency": "USD", "to_currency": "EUR"})
    b = Invocation("convert_currency", {"amount": 5, "from_currency": "GBP", "to_currency": "JPY"})
    obs = Observation.success({"amount": 4.6, "currency": "EUR", "rate": 0.9})
    one, two = FactBook(tool), FactBook(tool)
    one.observe(a, obs)
    one.observe(b, obs)
    two.observe(b, obs)
    two.observe(a, obs)
    assert one.facts == two.facts and one.render() == two.render()
    held = one.without([b.key()])
    assert "GBP" not in held.render() and "USD" in held.render()


def test_the_docs_own_examples_are_probed_and_refuted(tools, exec_ctx):
    from play2prompt.tools.runtime import ToolRuntime

    runtime = ToolRuntime(list(tools.values()), exec_ctx)

    def probed(name, args):
        tool, book = tools[name], FactBook(tools[name])
        start = Invocation(name, args)
        book.observe(start, _run(runtime, start))
        calls = probes(tool, start)
        for param, inv in calls:
            book.observe(inv, _run(runtime, inv), probed=param)
        return calls, facts_doc(tool, book)

    calls, doc = probed("convert_units", {"value": 3, "from_unit": "km", "to_unit": "mi"})
    assert ("from_unit", Invocation("convert_units", {"value": 3, "from_unit": "miles",
                                                      "to_unit": "mi"})) in calls
    assert doc.params["from_unit"].startswith("unit name. One of: c, cm")   # "e.g. miles" out
    # "zone, e.g. EST": the tool accepts EST (a zone of the tz database), so it stays
    calls, doc = probed("convert_timezone", {"time": "14:30", "from_tz": "Europe/Paris",
                                             "to_tz": "Asia/Tokyo"})
    assert any(inv.arguments["from_tz"] == "EST" for _, inv in calls)
    assert doc.params["from_tz"].startswith("zone, e.g. EST. Use IANA names")
    assert "Format: HH:MM." in doc.params["time"]


def test_a_probe_of_a_call_that_failed_for_another_reason_is_not_blamed(tools, exec_ctx):
    """Every probe of a call with a bad category gets the category error back: the list is
    the category's, never the probed query's or sort order's."""
    from play2prompt.tools.runtime import ToolRuntime

    tool = tools["search_products"]
    runtime = ToolRuntime([tool], exec_ctx)
    start = Invocation("search_products", {"query": "phone", "category": "Electronics",
                                           "max_price": 1500, "sort_by": "price"})
    book = FactBook(tool)
    for param, inv in probes(tool, start):
        book.observe(inv, _run(runtime, inv), probed=param)
    assert "electronics" in book.accepted("category")
    assert book.accepted("query") == () and book.accepted("sort_by") == ()


def test_a_probe_that_finds_what_the_call_did_not_is_a_fact(tools, exec_ctx):
    from play2prompt.evidence.probes import found_with
    from play2prompt.method.play import code_verdict, found_nothing
    from play2prompt.tools.runtime import ToolRuntime

    tool = tools["search_products"]
    runtime = ToolRuntime([tool], exec_ctx)
    start = Invocation("search_products", {"query": "kettle", "category": "kitchen",
                                           "max_price": 100})
    first = _run(runtime, start)
    assert first.ok and found_nothing(first.output)             # 100 cents: nothing
    scaled = dict(probes(tool, start))["max_price"]             # the last max_price probe wins
    obs = _run(runtime, scaled)
    assert code_verdict(obs)[0] == 0
    fact = found_with("max_price", start, scaled, obs)
    book = FactBook(tool, [fact])
    assert book.sentences("max_price") == [
        f"With max_price=100 the tool found nothing; with max_price="
        f"{scaled.arguments['max_price']!r} it found results."]


def test_a_search_that_found_nothing_is_retried_without_each_optional_argument(tools, exec_ctx):
    from play2prompt.evidence.probes import found_with, without_optional
    from play2prompt.method.play import code_verdict
    from play2prompt.tools.runtime import ToolRuntime

    tool = tools["search_products"]
    runtime = ToolRuntime([tool], exec_ctx)
    start = Invocation("search_products", {"query": "smartphone", "category": "electronics"})
    dropped = dict(without_optional(tool, start))
    assert dropped["query"].arguments == {"category": "electronics"}
    obs = _run(runtime, dropped["query"])
    assert code_verdict(obs)[0] == 0
    assert found_with("query", start, dropped["query"], obs).text == (
        "With query='smartphone' the tool found nothing; without query it found results.")


def test_a_value_the_error_offers_as_advice_is_not_rejected(tools):
    tool = tools["convert_timezone"]
    book = FactBook(tool)
    inv = Invocation("convert_timezone", {"time": "12:00", "from_tz": "America/New_York",
                                          "to_tz": "Mars/Olympus"})
    book.observe(inv, Observation.failure(
        "exception", "ValueError: unknown time zone: 'No time zone found with key "
                     "Mars/Olympus'; use IANA names like 'America/New_York'"))
    assert book.rejected("from_tz") == set()
    assert book.rejected("to_tz") == {"Mars/Olympus"}
    assert any("IANA" in f.text for f in book.of("from_tz") + book.of("to_tz"))


def test_a_value_that_worked_is_never_shown_as_rejected(tools):
    tool = tools["convert_timezone"]
    book = FactBook(tool)
    # the tool blamed the value in one call (say, a transient mix-up of arguments) ...
    bad = Invocation("convert_timezone", {"time": "12:00", "from_tz": "Europe/Paris",
                                          "to_tz": "Asia/Tokyo"})
    book.observe(bad, Observation.failure("exception", "ValueError: 'Europe/Paris' is not valid"))
    assert book.rejected("from_tz") == {"Europe/Paris"}
    # ... and accepted it in another: the rejection is refuted, in every sentence of the doc
    good = Invocation("convert_timezone", {"time": "09:30", "from_tz": "Europe/Paris",
                                           "to_tz": "Asia/Tokyo"})
    book.observe(good, Observation.success({"time": "16:30", "date": "2025-01-15",
                                            "zone": "Asia/Tokyo"}))
    assert book.rejected("from_tz") == set()
    assert not any("rejected" in s for s in book.sentences("from_tz"))


def test_a_probes_refused_number_is_no_doc_sentence(tools):
    """A number a probe sent ('-60', its negative; '6000', ten times beyond) and the tool
    refused is a fact, not a sentence of the doc: no request leads to it (fresh72's heart-rate
    doc said only "'-60' is rejected", "'6000' is rejected"); the same refusal of a call the
    generator wrote is a likely mistake and stays."""
    tool = tools["body_mass_index"]
    book = FactBook(tool)
    def refusal(value):
        return Observation.failure("exception", f"ValueError: implausible weight: {value}")

    book.observe(Invocation("body_mass_index", {"weight": -70, "height": 175}), refusal(-70),
                 probed="weight")
    assert [f.source for f in book.of("weight") if f.kind == "rejects"] == ["probe"]
    assert "-70" not in facts_doc(tool, book).params["weight"]
    book.observe(Invocation("body_mass_index", {"weight": 7000, "height": 175}),
                 refusal(7000))
    assert "'7000' is rejected" in facts_doc(tool, book).params["weight"]
