"""The ``conventions`` component: a silent convention decided by code from what a tool
answers (no LLM call). Amounts in cents and times in milliseconds are found where an output
restates them; a position counted from 0 or from 1 where the answers for 0, 1 and the default
separate them; a tool whose answers do not separate the alternatives gets no fact."""

from __future__ import annotations

import asyncio

from play2prompt.evidence.conventions import (
    candidates,
    conventions,
    epoch_of,
    index_base,
    money_of,
    restated,
)
from play2prompt.evidence.everyday import everyday_forms, number_form
from play2prompt.evidence.fact_sources import fact_sources, source_of
from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.tools.model import Invocation, Observation, Tool
from tests.evidence.support import ran_once

TOOLS = '''
from datetime import datetime, timezone

ITEMS = [f"item {i}" for i in range(1, 11)]

def charge(amount: int, currency: str = "usd") -> dict:
    return {"id": "ch_1", "amount": amount, "shown": f"${amount / 100:.2f}"}

def stamp_ms(ts: int) -> dict:
    return {"at": datetime.fromtimestamp(ts / 1000, timezone.utc).isoformat()}

def stamp_s(ts: int) -> dict:
    return {"at": datetime.fromtimestamp(ts, timezone.utc).isoformat()}

def items0(page: int = 0) -> dict:
    return {"items": ITEMS[page * 3:(page + 1) * 3]}

def items1(page: int = 1) -> dict:
    return {"items": ITEMS[(page - 1) * 3:page * 3] if page >= 1 else []}

def first_day0(year: int, month: int) -> str:
    return datetime(year, month + 1, 1).date().isoformat()

def first_day1(year: int, month: int) -> str:
    return datetime(year, month, 1).date().isoformat()

def echo(offset: int, text: str) -> dict:
    return {"text": text}

def clock(ts: int, offset: int = 0) -> dict:
    at = datetime.fromtimestamp(ts + offset * 60, timezone.utc)
    return {"local": at.strftime("%Y-%m-%d %H:%M"), "offset": f"{offset:+d}"}

def clock_west(ts: int, zone: int = 0) -> dict:
    return {"local": datetime.fromtimestamp(ts - zone * 3600, timezone.utc).isoformat()}

def clock_minutes(ts: int, offset_minutes: int = 0) -> dict:
    return clock(ts, offset_minutes)

def _arc(a: list, b: list) -> float:   # degrees of arc between [lon, lat] points
    import math
    (x1, y1), (x2, y2) = ([math.radians(v) for v in p] for p in (a, b))
    h = math.sin((y2 - y1) / 2) ** 2 + math.cos(y1) * math.cos(y2) * math.sin((x2 - x1) / 2) ** 2
    return round(math.degrees(2 * math.asin(math.sqrt(h))), 6)

def geo_checked(origin: list, destination: list) -> float:
    if not all(-90 <= p[1] <= 90 for p in (origin, destination)):
        raise ValueError("invalid position")
    return _arc(origin, destination)

def geo_lonlat(origin: list, destination: list) -> float:
    return _arc(origin, destination)

def geo_latlon(origin: list, destination: list) -> float:
    return _arc(origin[::-1], destination[::-1])
'''


def _tool(name, props, required):
    return Tool(name, "", {"type": "object", "properties": props, "required": required},
                {"python": f"tools.py:{name}"})


INT, STR = {"type": "integer"}, {"type": "string"}
TOOLSET = {
    "charge": _tool("charge", {"amount": INT, "currency": STR}, ["amount"]),
    "stamp_ms": _tool("stamp_ms", {"ts": INT}, ["ts"]),
    "stamp_s": _tool("stamp_s", {"ts": INT}, ["ts"]),
    "items0": _tool("items0", {"page": INT}, []),
    "items1": _tool("items1", {"page": INT}, []),
    "first_day0": _tool("first_day0", {"year": INT, "month": INT}, ["year", "month"]),
    "first_day1": _tool("first_day1", {"year": INT, "month": INT}, ["year", "month"]),
    "echo": _tool("echo", {"offset": INT, "text": STR}, ["offset", "text"]),
    "clock": _tool("clock", {"ts": INT, "offset": INT}, ["ts"]),
    "clock_west": _tool("clock_west", {"ts": INT, "zone": INT}, ["ts"]),
    "clock_minutes": _tool("clock_minutes", {"ts": INT, "offset_minutes": INT}, ["ts"]),
    **{name: _tool(name, {"origin": {"type": "array"}, "destination": {"type": "array"}},
                   ["origin", "destination"])
       for name in ("geo_checked", "geo_lonlat", "geo_latlon")},
}


def _found(engine_over, tmp_path, name, args):
    engine, inv, obs = ran_once(engine_over, tmp_path, TOOLS, TOOLSET[name], args)
    return asyncio.run(conventions(TOOLSET[name], engine, [(inv, obs)], {}))


def test_amount_restated_at_a_hundredth_is_in_cents(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "charge", {"amount": 1999, "currency": "usd"})
    assert fact.param == "amount" and fact.values == ("convention", "scale", "cent")
    assert "cents" in fact.text and fact.source == "output"
    form = number_form(1250, fact.text)
    assert form is not None and form.said_in("charge $12.50 to my card")


def test_time_restated_at_a_thousandth_is_in_milliseconds(engine_over, tmp_path):
    (fact,) = _found(engine_over, tmp_path, "stamp_ms", {"ts": 1_700_000_000_000})
    assert fact.values == ("convention", "scale", "ms") and "milliseconds" in fact.text
    form = number_form(1_700_000_000_000, fact.text)
    assert form is not None and form.numbers == (1_700_000_000.0,)
    assert _found(engine_over, tmp_path, "stamp_s", {"ts": 1_700_000_000}) == []


def test_page_counted_from_zero_or_one_by_its_default(engine_over, tmp_path):
    (zero,) = _found(engine_over, tmp_path, "items0", {"page": 2})
    assert zero.values == ("convention", "index", "0") and "counts from 0" in zero.text
    (form,) = everyday_forms(2, zero.text, "", "page")
    assert form.text == "page 3"
    (one,) = _found(engine_over, tmp_path, "items1", {"page": 2})
    assert one.values == ("convention", "index", "1")
    assert everyday_forms(2, one.text, "", "page") == []


def test_month_base_from_the_date_the_output_states(engine_over, tmp_path):
    (zero,) = _found(engine_over, tmp_path, "first_day0", {"year": 2024, "month": 4})
    assert zero.values == ("convention", "index", "0") and "0 is January" in zero.text
    (form,) = everyday_forms(2, zero.text, "", "month")
    assert form.text == "March" and form.said_in("the first of March 2024")
    (one,) = _found(engine_over, tmp_path, "first_day1", {"year": 2024, "month": 4})
    assert one.values == ("convention", "index", "1")


def test_an_offset_that_moves_the_answered_time_by_minutes_is_in_minutes(engine_over, tmp_path):
    """A UTC offset in minutes (format_timestamp's ``utc_offset``): 330, 331 and 332 move the
    local time a minute each; the answer shows no seconds, so a time in seconds shows only at
    steps of 60; a parameter whose name says the unit gets no fact."""
    found = _found(engine_over, tmp_path, "clock", {"ts": 1_700_000_000, "offset": 330})
    (fact,) = [f for f in found if f.param == "offset"]
    assert fact.values == ("convention", "shift", "min") and fact.source == "output"
    assert fact.text.startswith("`offset` is in minutes")
    form = number_form(120, fact.text)
    assert form is not None and form.said_in("show it at UTC+2 hours")
    (west,) = [f for f in _found(engine_over, tmp_path, "clock_west", {"ts": 1_700_000_000})
               if f.param == "zone"]
    assert west.values == ("convention", "shift", "h") and "earlier" in west.text
    found = _found(engine_over, tmp_path, "clock_minutes", {"ts": 1_700_000_000,
                                                            "offset_minutes": 60})
    assert [f for f in found if f.param == "offset_minutes"] == []


def test_a_parameter_the_answers_do_not_separate_gets_no_fact(engine_over, tmp_path):
    assert _found(engine_over, tmp_path, "echo", {"offset": 3, "text": "hi"}) == []


def test_candidates_follow_names_and_known_units():
    scales, bases = candidates(TOOLSET["first_day0"], {})
    assert scales == ["year", "month"] and bases == ["month"]
    assert candidates(TOOLSET["charge"], {"amount": "`amount` is in cents."})[0] == []


def test_readers_of_answers():
    assert epoch_of("1970-01-02T00:00:00Z") == 86400.0
    assert epoch_of("Fri, 02 Jan 1970 00:00:00 GMT") == 86400.0
    assert epoch_of("not a date 2024") is None and epoch_of(5) is None
    assert money_of("shown", "$1,234.50") == 1234.5 and money_of("total", 12) == 12.0
    assert money_of("note", "2 items") is None and money_of("count", 3) is None
    assert restated("amount", 1000, {"shown": "$10.00", "amount": 1000}) == [
        ("shown", "cent", 0.01)]
    assert restated("n", 1000, {"shown": "10.00 items"}) == []


def test_index_base_decisions():
    ok = lambda out: Observation(True, out)           # noqa: E731
    bad = Observation(False, None, "page must be at least 1", "tool")
    assert index_base("page", True, bad, ok([1]), None, (None, None)) == 1
    assert index_base("page", True, ok([]), ok([1]), None, (None, None)) == 1
    assert index_base("page", True, ok([1]), ok([2]), ok([1]), (None, None)) == 0
    assert index_base("page", True, ok([1]), ok([2]), ok([2]), (None, None)) == 1
    assert index_base("page", True, ok([1]), ok([1]), ok([1]), (None, None)) is None
    assert index_base("row", False, ok([1]), ok([2]), None, (None, None)) is None


def test_facts_by_source():
    tool = TOOLSET["charge"]
    book = FactBook(tool, [Fact("amount", "rule", "a", (), source="error"),
                           Fact("amount", "rule", "b", ("range", "0", "1", "9", "1")),
                           Fact("amount", "rule", "c", ("convention", "scale", "cent"),
                                source="output"),
                           Fact("amount", "example", "5", ("5",))])
    assert fact_sources(book) == {"error": 1, "probe": 1, "output": 1}
    assert source_of(Fact("", "output", "Returns an object.")) is None
    again = Fact.from_dict(Fact("a", "rule", "x", source="probe").to_dict())
    assert again.source == "probe" and "source" not in Fact("a", "rule", "x").to_dict()


def test_a_request_that_says_the_major_unit_is_rescaled_to_cents():
    from play2prompt.evidence.gates import rescaled

    tool = TOOLSET["charge"]
    book = FactBook(tool, [Fact("amount", "rule", "`amount` is in cents (2.5 dollars is 250).")])
    call = Invocation("charge", {"amount": 100, "currency": "usd"})
    for said in ("a charge of 100 usd", "charge $100.00 now", "bill me 100 dollars",
                 "charge 100 EUR"):
        assert rescaled(said, call, book).arguments["amount"] == 10000, said
    for said in ("charge 100 cents", "charge 100 to my card"):
        assert rescaled(said, call, book) is None, said


def test_a_request_that_counts_from_one_is_read_as_the_index_below():
    from play2prompt.evidence.conventions import counted_from_one, index_sentence
    from play2prompt.evidence.gates import scale_conflicts

    page, month = index_sentence("page", 0), index_sentence("month", 0)
    # from 0, the sentence says the step from the count people use (from 1, there is none)
    assert month.endswith("subtract 1 from a month's usual number (March, month 3, is 2).")
    assert "(page 3 is 2)" in page and "subtract" not in index_sentence("page", 1)
    for said in ("show page 2 of my orders", "the second page", "the 2nd page",
                 "orders on page number 2"):
        assert counted_from_one(said, "page", 2, page) == 1, said
    assert counted_from_one("page 20", "page", 2, page) is None
    assert counted_from_one("page 2", "page", 2, index_sentence("page", 1)) is None
    assert counted_from_one("1 March 2024", "month", 3, month) == 2
    assert counted_from_one("1 March 2024", "month", 2, month) is None
    # a month said by its number is said as people count, from 1 (October is month 10)
    assert counted_from_one("timestamp year 2024 month 10 day 15", "month", 10, month) == 9
    assert counted_from_one("the 3rd month of 2024", "month", 3, month) == 2
    assert counted_from_one("timestamp year 2024 month 10", "month", 9, month) is None
    book = FactBook(TOOLSET["items0"], [Fact("page", "rule", page)])
    assert scale_conflicts("page 2 please", Invocation("items0", {"page": 2}), book) == [
        "it counts page from 1 where the tool counts from 0 (page 1 is what it means)"]


def test_a_size_or_an_offset_is_no_position():
    tool = _tool("orders", {"page": INT, "per_page": INT, "page_size": INT, "utc_offset": INT,
                            "row_count": INT}, [])
    assert candidates(tool, {})[1] == ["page"]


POINTS = {"origin": [40.7128, -74.006], "destination": [42.3601, -71.0589]}


def test_coordinate_order_from_the_range_a_latitude_has(engine_over, tmp_path):
    facts = _found(engine_over, tmp_path, "geo_checked", POINTS)
    assert [f.param for f in facts] == ["origin", "destination"]
    assert all(f.values == ("convention", "order", "lon-lat") for f in facts)
    assert "[longitude, latitude]" in facts[0].text and facts[0].source == "output"
    (form,) = everyday_forms([2.3522, 48.8566], facts[0].text, "", "origin")
    assert form.text == "latitude 48.8566, longitude 2.3522"
    assert form.said_in("from Paris (48.8566, 2.3522)")
    assert not form.said_in("from Paris (2.3522, 48.8566)")


def test_coordinate_order_from_a_distance_on_a_parallel_and_a_meridian(engine_over, tmp_path):
    lon_lat = _found(engine_over, tmp_path, "geo_lonlat", POINTS)
    assert [f.values[2] for f in lon_lat] == ["lon-lat", "lon-lat"]
    lat_lon = _found(engine_over, tmp_path, "geo_latlon", POINTS)
    assert [f.values[2] for f in lat_lon] == ["lat-lon", "lat-lon"]
    assert "[latitude, longitude]" in lat_lon[0].text


def test_a_point_whose_numbers_are_equal_is_tested_as_paris_in_the_tools_order():
    from play2prompt.evidence.coordinates import order_sentence
    from play2prompt.evidence.everyday import typical_value
    lon_first = order_sentence("origin", "lon-lat")
    assert typical_value([1, 1], lon_first) == [2.3522, 48.8566]
    assert typical_value([1, 1], order_sentence("origin", "lat-lon")) == [48.8566, 2.3522]
    assert typical_value([2, 3], lon_first) is None          # its order shows already
    assert typical_value([1, 1], "any rule") is None
