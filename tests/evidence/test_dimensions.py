"""The ``dimensions`` component: a number parameter's unit from how an output that names its
unit scales when the parameters are multiplied, by execution alone (no LLM call). A room in
centimetres (examples/fresh's paint tool, whose errors never say so) is found; a distance
that two parameters each scale, or an output a rate beside the lengths moves, says nothing."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from play2prompt.evidence.dimensions import best_unit, dimensions, field_unit, power_of
from play2prompt.evidence.everyday import tool_unit
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Tool

FRESH = Path(__file__).resolve().parents[2] / "examples" / "fresh"
TOOLS = '''
def room(length: float, width: float, height: float) -> dict:
    return {"floor_m2": length * width, "volume_m3": length * width * height}

def trip(speed: float, hours: float) -> dict:
    return {"distance_km": speed * hours}

def pool(length: float, width: float, depth: float, share: float) -> dict:
    return {"water_m3": length * width * depth * share / 100}
'''


def _number_tool(name, *params):
    return Tool(name, "", {"type": "object", "properties": {
        p: {"type": "number"} for p in params}, "required": list(params)},
        {"python": f"tools.py:{name}"})


def _facts(engine_over, base, tool, args, ruled=None):
    engine = engine_over([tool], base)
    inv = Invocation(tool.name, args)
    obs = asyncio.run(engine.runtime.run(inv))
    assert obs.ok
    return asyncio.run(dimensions(tool, engine, [(inv, obs)], ruled or {}))


def _own(tmp_path):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    return tmp_path


def test_a_room_the_tool_takes_in_centimetres_is_found_from_its_area_in_square_metres(
        engine_over):
    """fresh17's paint calls were 10 x 15 x 7 (wall_area_m2 0.04): no error says cm."""
    tool = next(t for t in load_tools(FRESH / "tools.json") if t.name == "paint_needed")
    facts = _facts(engine_over, FRESH, tool, {"length": 10, "width": 15, "height": 7, "coats": 2})
    assert {f.param: tool_unit(f.text) for f in facts} == dict.fromkeys(
        ("length", "width", "height"), "cm")
    assert all(f.kind == "rule" and "wall_area_m2 grows 100-fold" in f.evidence
               for f in facts)
    # with one conversion from the unit people say (fresh19s: "in centimetres" alone, and
    # the 1.5B still wrote 4 for "4 m")
    assert facts[0].text == "`length` is in centimetres (2.5 metres is 250)."


def test_metres_are_said_where_the_shape_constant_is_one_and_a_ruled_unit_is_kept(
        tmp_path, engine_over):
    tool = _number_tool("room", "length", "width", "height")
    facts = _facts(engine_over, _own(tmp_path), tool, {"length": 4, "width": 3, "height": 2.5},
                   ruled={"height": "`height` is in centimetres."})
    assert {f.param: tool_unit(f.text) for f in facts} == {"length": "m", "width": "m"}


def test_two_sets_that_each_scale_the_output_say_nothing(tmp_path, engine_over):
    tool = _number_tool("trip", "speed", "hours")
    assert _facts(engine_over, _own(tmp_path), tool, {"speed": 50, "hours": 2}) == []


def test_an_output_a_parameter_outside_the_set_moves_says_nothing(tmp_path, engine_over):
    tool = _number_tool("pool", "length", "width", "depth", "share")
    assert _facts(engine_over, _own(tmp_path), tool,
                  {"length": 25, "width": 10, "depth": 2, "share": 90}) == []


def test_no_call_with_a_unit_named_output_is_no_chance_yet():
    tool = _number_tool("room", "length", "width", "height")
    assert asyncio.run(dimensions(tool, None, [], {})) is None


@pytest.mark.parametrize(("field", "named"), [
    ("wall_area_m2", ("m", 2)), ("area_sq_m", ("m", 2)), ("weight_kg", ("kg", 1)),
    ("distance_km", ("km", 1)), ("volume_m3", ("m", 3)), ("litres", None),
    ("pace_per_km", None), ("mass_kg2", None), ("items", None), ("tins", None)])
def test_the_unit_a_field_names(field, named):
    got = field_unit(field)
    assert (None if got is None else (got.unit, got.power)) == named


def test_the_power_is_read_from_the_two_steps_and_checked_against_the_call():
    assert power_of(0.04, 3.5, 350.0) == 2           # the call's own value rounded away
    assert power_of(35.0, 3500.0, 350000.0) == 2
    assert power_of(35.0, 3500.0, 35000.0) is None    # the call says 2, the steps say 1
    assert power_of(5.0, 50.0, 400.0) is None         # not a whole power


def test_a_unit_stands_out_only_by_a_decade():
    room = field_unit("wall_area_m2")
    assert best_unit(room, [1000, 1500, 700], 350.0)[0] == "cm"
    # a constant of 30 in metres and 0.003 in... nothing near 1: no unit
    assert best_unit(room, [10, 10, 10], 3_000_000.0) is None
    weight = field_unit("weight_kg")       # grams against kilograms: a factor of 1000
    assert best_unit(weight, [2500], 2.5)[0] == "g"
