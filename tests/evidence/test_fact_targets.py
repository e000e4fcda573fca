"""The targets of Step 1b's fact tests: a code-made form tests its fact only where reading it
literally gives another answer (or a refusal), else the parameter's next example is tried."""

from __future__ import annotations

import asyncio
import textwrap
from dataclasses import replace

import pytest

from play2prompt.config import preset
from play2prompt.engine import build_engine
from play2prompt.evidence.coordinates import order_sentence
from play2prompt.evidence.everyday import everyday_forms
from play2prompt.evidence.fact_targets import (
    FactTarget,
    alike_forms,
    literal_value,
    plan_targets,
    separates,
)
from play2prompt.evidence.fact_tests import FactTestWriter, write_fact_tests
from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.form import Form
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.example_search import Example, ExampleSpace
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation, Tool

SOURCE = '''
import math

def distance(origin: list, destination: list) -> float:
    """Great-circle distance in km between two [longitude, latitude] points."""
    (lon1, lat1), (lon2, lat2) = origin, destination
    if abs(lat1) > 90 or abs(lat2) > 90:
        raise ValueError("invalid position")
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return round(12742 * math.asin(math.sqrt(a)), 3)
'''
POINT = {"type": "array", "items": {"type": "number"}}
TOOL = Tool.from_dict({
    "type": "function",
    "function": {"name": "distance", "description": "Distance between two points.",
                 "parameters": {"type": "object",
                                "properties": {"origin": POINT, "destination": POINT},
                                "required": ["origin", "destination"]}},
    "executor": {"python": "tools.py:distance"}})
RULE = order_sentence("destination", "lon-lat")
PARIS = [2.3522, 48.8566]
M3 = "Values the message must contain"


@pytest.fixture
def engine(tmp_path, store):
    (tmp_path / "tools.py").write_text(textwrap.dedent(SOURCE))
    ctx = ExecContext(base_dir=tmp_path, default_timeout=30.0)
    said = "to latitude 48.8566, longitude 2.3522?"
    gen = FakeLM(rules=[("-74.006", {"query": f"How far is it from -74.006, 40.7128 {said}"}),
                        ("origin: 10, 20", {"query": f"How far is it from 10, 20 {said}"}),
                        (M3, {"query": f"How far is it from 0, 0 {said}"})])
    task = FakeLM(rules=[  # the task model with the original doc reads the point as said
        ("from 0, 0", tool_call("distance", {"origin": [0, 0],
                                             "destination": [48.8566, 2.3522]})),
        ("from -74.006", tool_call("distance", {"origin": [-74.006, 40.7128],
                                                "destination": [48.8566, 2.3522]})),
        ("from 10, 20", tool_call("distance", {"origin": [10, 20],
                                               "destination": [48.8566, 2.3522]}))])
    built = build_engine([TOOL], store, preset("quick", lam=1.0, fact_tests=1),
                         generator=gen.with_log(store), task_model=task.with_log(store),
                         exec_ctx=ctx)
    yield built
    ctx.close()


def _example(engine, origin: list[float], destination: list[float] = PARIS) -> Example:
    inv = Invocation("distance", {"origin": origin, "destination": destination})
    obs = asyncio.run(engine.runtime.run(inv))
    assert obs.ok, obs.error
    return Example("distance", f"distance from {origin} to Paris", inv, obs, "", 3.0, 0.0, 3.0,
                   solved=True)


def test_a_forms_literal_reading_is_its_numbers_as_said():
    (form,) = everyday_forms(PARIS, RULE, "", "destination")
    assert form.text == "latitude 48.8566, longitude 2.3522"
    assert literal_value(form, PARIS) == [48.8566, 2.3522]
    assert literal_value(Form("position", "page 3", (3,)), 2) == 3      # an int stays an int
    assert literal_value(Form("unit", "12.5 dollars", (12.5,)), 1250) == 12.5
    assert literal_value(Form("month", "March", ()), 2) is None        # a name: not checked
    assert literal_value(Form("position", "x", (1.0,)), [1, 2]) is None


def test_a_point_beside_the_origin_0_0_tests_no_order(engine):
    # from [0, 0] both orders of a point lie at one distance: the literal reading answers
    # as the call does, and a reader who ignores the fact passes the test
    (form,) = everyday_forms(PARIS, RULE, "", "destination")
    at_zero = FactTarget(_example(engine, [0, 0]), "destination", RULE)
    at_nyc = FactTarget(_example(engine, [-74.006, 40.7128]), "destination", RULE)
    assert not asyncio.run(separates(engine.runtime, at_zero, form))
    assert asyncio.run(separates(engine.runtime, at_nyc, form))
    # a point to itself: the request says both alike, and both read so give 0 again
    to_itself = FactTarget(_example(engine, PARIS, PARIS), "destination", RULE)
    assert not asyncio.run(separates(engine.runtime, to_itself, form))


def test_a_target_that_does_not_separate_goes_to_the_parameters_next_example(engine):
    book = FactBook(TOOL)
    book.add(Fact("destination", "rule", RULE, ("convention", "position", "lon-lat")))
    first, second = _example(engine, [0, 0]), _example(engine, [-74.006, 40.7128])
    (target, *_), = [plan_targets(TOOL, [first, second], book, 1)]
    assert target.example is first and target.spares == (second,)

    space = ExampleSpace(TOOL, engine, book)
    tests = asyncio.run(write_fact_tests(TOOL, engine, space, [first, second]))
    tested = [t for t in tests if t.fact.startswith("destination:")]
    assert [t.invocation.arguments["origin"] for t in tested] == [[-74.006, 40.7128]]
    assert (tested[0].solved, tested[0].r_e) == (False, 1.0)    # the original doc fails it
    # with no spare left, a target that separates nothing is written as no test at all
    alone = asyncio.run(write_fact_tests(TOOL, engine, ExampleSpace(TOOL, engine, book),
                                         [first]))
    assert not [t for t in alone if t.fact.startswith("destination:")]


def test_where_no_kept_example_separates_a_call_play_made_is_tried(engine):
    # run s72m: distance's kept examples went from [0, 0]; play had made calls between two
    # other points
    book = FactBook(TOOL)
    book.add(Fact("destination", "rule", RULE, ("convention", "position", "lon-lat")))
    at_zero = _example(engine, [0, 0])
    also_at_zero = _example(engine, [0, 0], [10, 50])
    played = Invocation("distance", {"origin": [10, 20], "destination": PARIS})
    obs = asyncio.run(engine.runtime.run(played))
    space = ExampleSpace(TOOL, engine, book)
    space._plays["p0"] = (0, PlayResult(played, obs, (Attempt(played, obs, 0, "worked"),)))
    tests = asyncio.run(write_fact_tests(TOOL, engine, space, [at_zero, also_at_zero]))
    (tested,) = [t for t in tests if t.fact.startswith("destination:")]
    assert tested.invocation == played and tested.query.startswith("How far is it from 10, 20")
    assert (tested.solved, tested.verified) == (False, True)


def test_a_points_form_is_said_by_name_by_hemisphere_or_side_by_side():
    (form,) = everyday_forms([40.7128, -74.006], RULE, "", "destination")
    assert form.text == "latitude -74.006, longitude 40.7128"
    for said in ("from latitude -74.006, longitude 40.7128", "to lat: -74.006 lng: 40.7128",
                 "at (-74.006, 40.7128)", "-74.006° S, 40.7128° E"):
        assert form.said_in(said), said
    # run s72n: the two numbers in order, but across the request and named the other way
    for said in ("from 40.7128° N, -74.006° W to 40.7128° N, -74.006° W",
                 "starting at 40.7128, -74.006 and the destination at 40.7128, -74.006",
                 "-74.006° W, 40.7128° N"):
        assert not form.said_in(said), said


def test_a_points_form_keeps_every_digit_it_asks_for():
    # run s72p: the text said "longitude -122.419" (six significant digits) where the gate
    # asked for -122.4194; every draft that copied the text was refused
    (form,) = everyday_forms([-122.4194, 37.7749], RULE, "", "destination")
    assert form.text == "latitude 37.7749, longitude -122.4194"
    assert form.said_in(f"How far is it to {form.text}?")
    assert not form.said_in("How far is it to latitude 37.7749, longitude -122.419?")


def test_a_calls_points_are_said_alike(tmp_path, store):
    # run s72q: "from -73.9922, 40.7128 to latitude 37.7749, longitude -122.4194", one point
    # named and the other in the tool's order; a request names both or neither (the origin's
    # test is refused where it says the destination in the tool's order)
    (tmp_path / "tools.py").write_text(textwrap.dedent(SOURCE))
    ctx = ExecContext(base_dir=tmp_path, default_timeout=30.0)
    paris = "latitude 48.8566, longitude 2.3522"
    both = f"How far is it from latitude 40.7128, longitude -74.006 to {paris}?"
    gen = FakeLM(rules=[("was rejected", {"query": both}),
                        (M3, {"query": "How far is it from latitude 40.7128, longitude "
                                       "-74.006 to 2.3522, 48.8566?"})])
    task = FakeLM(rules=[("How far", tool_call("distance", {"origin": [40.7128, -74.006],
                                                           "destination": [48.8566, 2.3522]}))])
    engine = build_engine([TOOL], store, preset("quick", lam=1.0, fact_tests=1),
                          generator=gen.with_log(store), task_model=task.with_log(store),
                          exec_ctx=ctx)
    book = FactBook(TOOL)
    for param in ("origin", "destination"):
        book.add(Fact(param, "rule", order_sentence(param, "lon-lat"),
                      ("convention", "position", "lon-lat")))
    nyc = _example(engine, [-74.006, 40.7128])
    target = FactTarget(nyc, "destination", book.rules("destination"))
    (form,) = everyday_forms(PARIS, target.rule, "", "destination")
    alike = alike_forms(target, form, book)
    assert {p: f.text for p, f in alike.items()} == {
        "origin": "latitude 40.7128, longitude -74.006"}
    assert not alike_forms(target, Form("unit", "12.5 dollars", (12.5,)), book)
    assert alike["origin"].said_in("from 40.7128 and -74.006")     # side by side, with "and"
    tests = asyncio.run(write_fact_tests(TOOL, engine, ExampleSpace(TOOL, engine, book), [nyc]))
    assert [t.query for t in tests] == [both] and tests[0].r_e == 1.0
    ctx.close()


def test_where_no_draft_says_a_form_the_next_example_is_tried_once(engine):
    book = FactBook(TOOL)
    book.add(Fact("destination", "rule", RULE, ("convention", "position", "lon-lat")))
    # every draft for the call from [30, 40] says "from 0, 0": refused three times
    first, nyc, rome = (_example(engine, o) for o in ([30, 40], [-74.006, 40.7128], [12.5, 41.9]))
    target = FactTarget(first, "destination", RULE, spares=(rome, nyc))
    writer = FactTestWriter(TOOL, engine, ExampleSpace(TOOL, engine, book))
    assert asyncio.run(writer.write(target, book, "k")) is None     # one spare: Rome, no draft
    tested = asyncio.run(writer.write(replace(target, spares=(nyc, rome)), book, "k"))
    assert tested is not None and tested.invocation.arguments["origin"] == [-74.006, 40.7128]


def test_a_time_in_seconds_where_the_tool_takes_milliseconds_is_tested_as_seconds():
    # play's calls of a tool in milliseconds since 1970 all passed ten-digit seconds
    # (1633072800: 19 January 1970 in milliseconds); no form of that value is everyday, yet
    # the test takes it a thousand times larger, said "1633072800 seconds"
    from play2prompt.evidence.everyday import typical_value
    from play2prompt.tools.model import Observation
    tool = Tool.from_dict({"type": "function", "function": {
        "name": "format_timestamp", "description": "Format a timestamp.",
        "parameters": {"type": "object", "properties": {"timestamp": {"type": "integer"}},
                       "required": ["timestamp"]}}})
    rule = "`timestamp` is in milliseconds (2.5 seconds is 2500)."
    book = FactBook(tool)
    book.add(Fact("timestamp", "rule", rule, ("convention", "scale", "ms")))
    inv = Invocation("format_timestamp", {"timestamp": 1633072800})
    ex = Example("format_timestamp", "format 1633072800", inv,
                 Observation(True, {"local_time": "1970-01-19 21:37:52"}), "", 2.5, 0.0, 2.5)
    (target,) = plan_targets(tool, [ex], book, 2)
    assert target.param == "timestamp"
    meant = typical_value(1633072800, target.rule)
    assert meant == 1633072800000
    assert target.code_form(meant).text == "1633072800 seconds"
    # a value in milliseconds already, or a short duration, stays as it is
    assert typical_value(1633072800000, rule) is None
    assert typical_value(2500, rule) is None
