"""The ``levels`` component: what each value of a level parameter means, as whole shares of
an output field the level leaves put, by execution alone (no LLM call). The held-out heart-rate
tool's zones (which no error explains: "zone must be 1-5") are found as shares of the maximum
rate; shares that are whole on one call only, or not whole, or a level that moves nothing,
say nothing; a fact test says a level by its shares."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from play2prompt.evidence.everyday import everyday_forms
from play2prompt.evidence.levels import level_range, levels, share_table
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Tool

FRESH = Path(__file__).resolve().parents[2] / "examples" / "fresh"
TOOLS = '''
def boost(level: int, base: float) -> dict:
    return {"out": base + level, "base": base}

def tax(level: int, price: float) -> dict:
    return {"tax": round(price * level * 0.0737, 2), "price": price}

def ignored(level: int, price: float) -> dict:
    return {"total": price * 1.2, "price": price}

def discount(tier: int, price: float, coupon: float = 0.0) -> dict:
    if tier not in (1, 2, 3, 4):
        raise ValueError("tier must be 1-4")
    return {"pay": price * (1 - 0.05 * tier) - coupon, "price": price}
'''
ZONE_RULE = "Zone must be 1-5. zone must be between 1 and 5."


def _tool(name, level, other, optional=()):
    props = {level: {"type": "integer"}, other: {"type": "number"},
             **{o: {"type": "number"} for o in optional}}
    return Tool(name, "", {"type": "object", "properties": props, "required": [level, other]},
                {"python": f"tools.py:{name}"})


def _levels(engine_over, base, tool, calls, ruled):
    engine = engine_over([tool], base)
    ran = []
    for args in calls:
        inv = Invocation(tool.name, args)
        obs = asyncio.run(engine.runtime.run(inv))
        assert obs.ok
        ran.append((inv, obs))
    return asyncio.run(levels(tool, engine, ran, ruled))


def _own(tmp_path):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    return tmp_path


def test_the_heart_rate_zones_are_found_as_shares_of_the_maximum_rate(engine_over):
    """fresh21s kept heart_rate_zone's doc (D0 solved its 2 verified examples) and the task
    model wrote zone=70 for "70 to 80 percent of max": play's calls all set resting_hr, under
    which no share is whole, so the levels are run without it."""
    tool = next(t for t in load_tools(FRESH / "tools.json") if t.name == "heart_rate_zone")
    facts = _levels(engine_over, FRESH, tool,
                    [{"age": 30, "zone": 3, "resting_hr": 60},
                     {"age": 45, "zone": 1, "resting_hr": 60}], {"zone": ZONE_RULE})
    assert [f.text for f in facts] == [
        "Each zone is a share of max_hr (low_bpm to high_bpm): zone 1 is 50 to 60 %, zone 2 is "
        "60 to 70 %, zone 3 is 70 to 80 %, zone 4 is 80 to 90 %, zone 5 is 90 to 100 %."]
    assert facts[0].param == "zone" and facts[0].kind == "rule"
    assert "the tool run at every level" in facts[0].evidence
    # a fact test says zone 3 by its shares, and the call's own 3 does not say it
    rule = f"{ZONE_RULE} {facts[0].text}"
    [form] = everyday_forms(3, rule, "", "zone")
    assert (form.kind, form.text) == ("level", "70 to 80 % of max hr")
    assert form.said_in("What's the 70 to 80 percent of max heart rate range for age 40?")
    assert not form.said_in("Heart rate zone 3 for a 40 year old.")
    assert everyday_forms(3, ZONE_RULE, "", "zone") == []      # without the fact: no form


def test_a_share_whole_on_one_call_only_is_chance_and_says_nothing(tmp_path, engine_over):
    """base + level over base is 101 %, 102 %, ... of 100 but not of 150."""
    tool = _tool("boost", "level", "base")
    ruled = {"level": "level must be between 1 and 5."}
    base = _own(tmp_path)
    assert _levels(engine_over, base, tool, [{"level": 1, "base": 100.0},
                                             {"level": 2, "base": 150.0}], ruled) == []


def test_shares_that_are_not_whole_or_a_level_that_moves_nothing_say_nothing(
        tmp_path, engine_over):
    ruled = {"level": "level must be between 1 and 5."}
    base = _own(tmp_path)
    calls = [{"level": 1, "price": 200.0}, {"level": 2, "price": 300.0}]
    assert _levels(engine_over, base, _tool("tax", "level", "price"), calls, ruled) == []
    assert _levels(engine_over, base, _tool("ignored", "level", "price"), calls, ruled) == []


def test_a_falling_share_is_found_and_an_option_the_calls_set_is_left_out(tmp_path, engine_over):
    """A coupon moves every share; without it each tier takes 5 % more off the price."""
    tool = _tool("discount", "tier", "price", optional=("coupon",))
    facts = _levels(engine_over, _own(tmp_path), tool,
                    [{"tier": 1, "price": 200.0, "coupon": 3.0},
                     {"tier": 2, "price": 120.0, "coupon": 3.0}], {"tier": "tier must be 1-4"})
    assert [f.text for f in facts] == [
        "Each tier is a share of price (pay): tier 1 is 95 %, tier 2 is 90 %, tier 3 is 85 %, "
        "tier 4 is 80 %."]


def test_it_waits_for_a_range_and_for_two_calls_and_skips_a_wide_range(tmp_path, engine_over):
    tool = _tool("discount", "tier", "price")
    base = _own(tmp_path)
    one = [{"tier": 1, "price": 200.0}]
    assert _levels(engine_over, base, tool, one, {}) is None                  # no range yet
    assert _levels(engine_over, base, tool, one, {"tier": "tier must be 1-4"}) is None
    assert _levels(engine_over, base, tool, one,
                   {"tier": "tier must be between 0 and 100"}) == []          # a number


def test_the_range_of_a_level_is_read_from_the_rules():
    assert level_range("Zone must be 1-5.") == (1, 5)
    assert level_range("zone must be between 1 and 5.") == (1, 5)
    assert level_range("level must be 1 to 10") == (1, 10)
    assert level_range("annual_rate must be between 0 and 100") is None       # a number
    assert level_range("flag must be 0-1") is None                            # a choice
    assert level_range("temperature must be -5-5") is None


def test_an_integer_output_is_held_to_its_rounding_and_a_small_base_says_nothing():
    outputs = [{"low": 95.0, "max": 190.0}, {"low": 114.0, "max": 190.0},
               {"low": 133.0, "max": 190.0}]
    assert share_table([1, 2, 3], outputs) == ("max", ("low",), ((1, (50,)), (2, (60,)),
                                                                 (3, (70,))))
    small = [{"low": 5.0, "max": 10.0}, {"low": 6.0, "max": 10.0}, {"low": 7.0, "max": 10.0}]
    assert share_table([1, 2, 3], small) is None          # rounding there moves a share 5 points
