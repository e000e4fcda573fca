"""The angle family of ``conventions``: degrees, radians or turns, by the full turn that gives
a tool's answer back (no LLM call); the degrees its fact tests say."""

from __future__ import annotations

import asyncio
import math

from play2prompt.evidence.angles import angle_facts
from play2prompt.evidence.everyday import everyday_forms, tool_unit, typical_value
from play2prompt.tools.model import Tool
from tests.evidence.support import ran_once

TOOLS = '''
import math

def sine(x: float) -> float:
    return math.sin(x)

def compass(bearing: int) -> dict:
    names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    return {"bearing": bearing, "point": names[round((bearing % 360) / 45) % 8]}

def wheel(position: float) -> dict:
    turn = position * math.tau
    return {"x": round(math.cos(turn), 9), "y": round(math.sin(turn), 9)}

def square(x: float) -> float:
    return x * x
'''

NUMBER, INT = {"type": "number"}, {"type": "integer"}
TOOLSET = {name: Tool(name, "", {"type": "object", "properties": {param: kind},
                                 "required": [param]}, {"python": f"tools.py:{name}"})
           for name, param, kind in (("sine", "x", NUMBER), ("compass", "bearing", INT),
                                     ("wheel", "position", NUMBER), ("square", "x", NUMBER))}


def _found(engine_over, tmp_path, name, args):
    engine, inv, obs = ran_once(engine_over, tmp_path, TOOLS, TOOLSET[name], args)
    return asyncio.run(angle_facts(engine, TOOLSET[name], list(args), [(inv, obs)]))


def test_a_sine_repeats_after_two_pi_so_it_takes_radians(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "sine", {"x": 0.7})
    assert fact.values == ("convention", "angle", "rad") and fact.source == "output"
    assert fact.text == "`x` is in radians (90 degrees is 1.5708, a full turn 6.28319)."
    assert tool_unit(fact.text) == "rad"
    meant = typical_value(0.7, fact.text)       # 40.1 degrees: said as 45
    assert math.isclose(meant, math.radians(45))
    (form,) = everyday_forms(meant, fact.text, "", "x")
    assert form.text == "45 degrees" and form.said_in("the sine of 45°")


def test_degrees_with_the_angle_echoed_and_turns(engine_over, tmp_path):
    (deg,) = _found(engine_over, tmp_path, "compass", {"bearing": 100})
    assert deg.values == ("convention", "angle", "deg") and tool_unit(deg.text) == "deg"
    assert everyday_forms(100, deg.text, "", "bearing") == []
    (turn,) = _found(engine_over, tmp_path, "wheel", {"position": 0.3})
    assert turn.values == ("convention", "angle", "turn")
    assert everyday_forms(0.25, turn.text, "", "position")[0].text == "90 degrees"


def test_a_number_with_no_period_is_no_angle(engine_over, tmp_path):
    assert _found(engine_over, tmp_path, "square", {"x": 3.0}) == []
    assert tool_unit("`t` is in degrees Celsius.") != "deg"
