"""The held-out example set examples/silent (conventions a tool accepts silently): both tool files
load, tools.oracle.json differs from tools.json only in its documentation and the thin docs do
not state the conventions the oracle states; every gold call of queries.jsonl runs through the
project's executor and, for a few queries per tool, answers what an independent computation
says; each tool's wrong-convention call answers something else, without an error."""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import math
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from play2prompt.evaluation.items import EvalItem
from play2prompt.evaluation.queries import load_queries
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.runtime import ToolRuntime

SILENT = Path(__file__).resolve().parents[1] / "examples" / "silent"
LIBRARY = {"percentile", "std", "to_datetime", "busday_count", "busday_offset"}
API = {"create_charge", "list_orders", "format_timestamp", "utc_timestamp", "distance"}


# -- independent computations -----------------------------------------------------------------
def _weekdays(first: date, last: date, holidays: tuple[date, ...] = (), days: int = 5) -> int:
    """Working days from ``first`` to ``last``, both included (``days`` = 5: Monday-Friday)."""
    span = (last - first).days + 1
    return sum(1 for i in range(span) if (d := first + timedelta(i)).weekday() < days
               and d not in holidays)


def _sample_sd(values: list[float], ddof: int) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - ddof))


def _epoch_ms(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=timezone.utc).timestamp()) * 1000


def _great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Spherical law of cosines (not the tool's haversine), mean Earth radius."""
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    cos_c = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
    return 6371.0088 * math.acos(min(1.0, cos_c))


# query id -> the answer worked out without the tool (a callable checks a part of it)
EXPECTED: dict[str, Any] = {
    "s02": 7.5,                       # median of 3 5 7 8 9 12
    "s04": 81 + 0.75 * (85 - 81),     # position 0.75 * 9 = 6.75 in the sorted scores
    "s06": 22,                        # 'lower': the observed value at or below position 1.1
    "d01": _sample_sd([4, 8, 6, 5, 3, 7], 1),
    "d06": 2.0,                       # mean 22, squares sum to 28, 28 / 7 = 4
    "d07": _sample_sd([15, 18, 22, 19, 16], 0),
    "t01": "2024-03-04T00:00:00",     # 4 March, day first
    "t02": "2023-07-04T00:00:00",     # 4 July, month first
    "t05": "1990-11-02T00:00:00",
    "b01": _weekdays(date(2024, 6, 3), date(2024, 6, 14)),
    "b02": _weekdays(date(2024, 7, 1), date(2024, 7, 31)),
    "b04": _weekdays(date(2024, 2, 1), date(2024, 2, 29), days=6),
    "b07": _weekdays(date(2024, 11, 1), date(2024, 11, 29),
                     (date(2024, 11, 28), date(2024, 11, 29))),
    "o03": "2024-09-02",              # 1 September 2024 is a Sunday
    "o04": "2024-03-08",              # a week before Friday the 15th
    "o07": "2024-08-30",              # 31 August 2024 is a Saturday
    "c01": lambda out: out["amount_display"] == "25.00 USD",
    "c03": lambda out: out["amount_display"] == "3,000 JPY",
    "c04": lambda out: out["amount_display"] == "12.50 GBP"
    and out["description"] == "Monthly plan",
    "l01": lambda out: out["orders"][0]["id"] == "ORD-1057" and len(out["orders"]) == 20,
    "l02": lambda out: [o["id"] for o in out["orders"]][::19] == ["ORD-1037", "ORD-1018"],
    "l06": lambda out: out["orders"][0]["id"] == "ORD-1027",   # the 31st newest of 57
    "f01": lambda out: out["local_time"] == "2024-06-01 12:30:00",
    "f03": lambda out: out["local_time"] == (datetime.fromtimestamp(1718000000, timezone.utc)
                                             + timedelta(hours=5, minutes=30)
                                             ).strftime("%Y-%m-%d %H:%M:%S"),
    "f06": lambda out: out["weekday"] == "Friday",               # New Year's Day 2021
    "u01": _epoch_ms(2025, 1, 1),
    "u02": _epoch_ms(2024, 3, 15, 14, 30),
    "u03": _epoch_ms(2024, 12, 25, 9),
    "g01": lambda out: math.isclose(out, _great_circle_km(48.8566, 2.3522, 52.52, 13.405),
                                    rel_tol=1e-6),
    "g05": lambda out: math.isclose(out, _great_circle_km(30.0444, 31.2357, -1.2921, 36.8219),
                                    rel_tol=1e-6),
    "g07": lambda out: math.isclose(out / 1000, _great_circle_km(48.8584, 2.2945, 48.8606,
                                                                 2.3376), rel_tol=1e-5),
}

# query id -> the call a reader of the thin docs may make instead (the request's own form),
# and what that call answers where it is worth spelling out (None: only "something else")
WRONG: dict[str, tuple[dict[str, Any], Any]] = {
    "s01": ({"a": [120, 135, 150, 180, 210, 260, 300, 420, 510, 900], "q": 0.9}, None),
    "s03": ({"a": [-2.1, 0.4, 1.3, -0.7, 0.9, 2.8, -1.5, 0.2, 1.1, 3.4, -0.3, 0.6],
             "q": 0.95}, None),
    "d01": ({"a": [4, 8, 6, 5, 3, 7]}, _sample_sd([4, 8, 6, 5, 3, 7], 0)),
    "d04": ({"a": [72, 85, 90, 66, 78, 88], "ddof": 1}, None),
    "t01": ({"arg": "04/03/2024"}, "2024-04-03T00:00:00"),
    "t07": ({"arg": "10/01/2024"}, "2024-10-01T00:00:00"),
    "b01": ({"begindates": "2024-06-03", "enddates": "2024-06-14"}, 9),
    "b06": ({"begindates": "2024-09-04", "enddates": "2024-09-17"}, None),
    "o03": ({"dates": "2024-09-01", "offsets": 1, "roll": "forward"}, "2024-09-03"),
    "o04": ({"dates": "2024-03-15", "offsets": 5}, "2024-03-22"),
    "c01": ({"amount": 25, "currency": "usd"}, None),
    "c06": ({"amount": 4500000, "currency": "krw"}, None),
    "l02": ({"page": 2}, None),
    "l06": ({"page": 4, "per_page": 10}, None),
    "f02": ({"timestamp": 1700000000}, None),
    "f07": ({"timestamp": 1735689600000, "utc_offset": 9}, None),
    "u03": ({"year": 2024, "month": 12, "day": 25, "hour": 9}, _epoch_ms(2025, 1, 25, 9)),
    "u02": ({"year": 2024, "month": 3, "day": 15, "hour": 14, "minute": 30}, None),
    "g01": ({"origin": [48.8566, 2.3522], "destination": [52.52, 13.405]}, None),
    "g08": ({"origin": [-22.9068, -43.1729], "destination": [-34.6037, -58.3816]}, None),
}


# -- running the calls through the project's executor -----------------------------------------
@functools.cache
def _tools() -> tuple[Tool, ...]:
    return tuple(load_tools(SILENT / "tools.json"))


@functools.cache
def _items() -> dict[str, EvalItem]:
    parsed = load_queries(SILENT / "queries.jsonl", _tools())
    assert not parsed.bad
    return {item.id: item for item in parsed.items}


async def _run_all(calls: dict[str, Invocation]) -> dict[str, Observation]:
    ctx = ExecContext(base_dir=SILENT)
    runtime = ToolRuntime(_tools(), ctx)
    try:
        done = await asyncio.gather(*(runtime.run(call) for call in calls.values()))
    finally:
        ctx.close()
    return dict(zip(calls, done))


@pytest.fixture(scope="module")
def observations() -> dict[str, Observation]:
    """Every gold call (keyed by query id) and every wrong-convention call (``id:wrong``)."""
    items = _items()
    calls = {qid: Invocation(item.calls[0].name, item.calls[0].arguments)
             for qid, item in items.items()}
    calls.update({f"{qid}:wrong": Invocation(items[qid].calls[0].name, arguments)
                  for qid, (arguments, _) in WRONG.items()})
    return asyncio.run(_run_all(calls))


# -- the files ----------------------------------------------------------------------------------
def test_ten_tools_half_library_functions_half_api_conventions():
    tools = _tools()
    assert {t.name for t in tools} == LIBRARY | API
    for tool in tools:
        target = tool.executor["python"]
        assert target.startswith("tools.py:") == (tool.name in API), tool.name
        if tool.name in LIBRARY:   # the library function itself, under its own name
            assert target.split(":")[0] in {"numpy", "pandas"} and target.endswith(tool.name)


def _without_docs(entry: dict) -> dict:
    fn = copy.deepcopy(entry["function"])
    fn.pop("description", None)
    for spec in fn["parameters"]["properties"].values():
        spec.pop("description", None)
    return {**entry, "function": fn}


def test_oracle_docs_change_only_the_documentation_and_document_every_parameter():
    thin = json.loads((SILENT / "tools.json").read_text())["tools"]
    oracle = json.loads((SILENT / "tools.oracle.json").read_text())["tools"]
    assert [_without_docs(e) for e in thin] == [_without_docs(e) for e in oracle]
    assert len(load_tools(SILENT / "tools.oracle.json")) == 10
    for entry in oracle:
        fn = entry["function"]
        assert fn["description"] and all(p["description"]
                                         for p in fn["parameters"]["properties"].values())


# tool -> words that state its convention: in the oracle's doc, never in the thin one
CONVENTION_WORDS = {
    "percentile": ["0 to 100"], "std": ["ddof=1", "population"],
    "to_datetime": ["month first", "day first"], "busday_count": ["not including", "excluded"],
    "busday_offset": ["negative", "offsets=0"], "create_charge": ["smallest", "2500"],
    "list_orders": ["from 0", "0-based"], "format_timestamp": ["milliseconds", "minutes"],
    "utc_timestamp": ["from 0", "january is 0"], "distance": ["longitude", "[2.3522, 48.8566]"],
}


def _doc_text(path: Path) -> dict[str, str]:
    out = {}
    for entry in json.loads(path.read_text())["tools"]:
        fn = entry["function"]
        params = " ".join(p.get("description", "") for p in fn["parameters"]["properties"]
                          .values())
        out[fn["name"]] = f"{fn['description']} {params}".lower()
    return out


def test_thin_docs_do_not_state_the_conventions_the_oracle_states():
    thin, oracle = _doc_text(SILENT / "tools.json"), _doc_text(SILENT / "tools.oracle.json")
    assert set(CONVENTION_WORDS) == set(thin)
    for name, words in CONVENTION_WORDS.items():
        for word in words:
            assert word in oracle[name], (name, word)
            assert word not in thin[name], (name, word)


# parameter names no one says in a request: a request that uses one is written for the tool
JARGON = {"ddof", "dayfirst", "begindates", "enddates", "weekmask", "offsets", "per_page",
          "utc_offset", "q", "arg", "roll", "method"}


def test_eight_natural_queries_per_tool_some_leaving_optional_arguments_out():
    items = _items()
    per_tool: dict[str, int] = {}
    left_out: dict[str, int] = {}
    tools = {t.name: t for t in _tools()}
    for item in items.values():
        assert len(item.calls) == 1, item.id
        call = item.calls[0]
        per_tool[call.name] = per_tool.get(call.name, 0) + 1
        optional = set(tools[call.name].parameters["properties"]) - set(
            tools[call.name].parameters.get("required", []))
        if optional - set(call.arguments):
            left_out[call.name] = left_out.get(call.name, 0) + 1
        assert "=" not in item.query and not JARGON & set(item.query.split()), item.id
    assert len(items) == 80 and per_tool == {name: 8 for name in tools}
    assert set(left_out) == set(tools)


# -- the calls ----------------------------------------------------------------------------------
def test_every_gold_call_runs_through_the_executor(observations):
    failed = {qid: obs.error for qid, obs in observations.items()
              if ":" not in qid and not obs.ok}
    assert not failed and len([k for k in observations if ":" not in k]) == 80


@pytest.mark.parametrize("qid", sorted(EXPECTED))
def test_gold_answers_match_an_independent_computation(observations, qid):
    expected, output = EXPECTED[qid], observations[qid].output
    if callable(expected):
        assert expected(output), (qid, output)
    elif isinstance(expected, float):
        assert math.isclose(output, expected, rel_tol=1e-12), (qid, output)
    else:
        assert output == expected, (qid, output)


def test_every_tool_has_independent_answers_and_a_wrong_convention_call():
    items = _items()
    for checked in (EXPECTED, WRONG):
        counts: dict[str, int] = {}
        for qid in checked:
            name = items[qid].calls[0].name
            counts[name] = counts.get(name, 0) + 1
        assert set(counts) == LIBRARY | API and min(counts.values()) >= 2


@pytest.mark.parametrize("qid", sorted(WRONG))
def test_the_wrong_convention_answers_something_else_without_an_error(observations, qid):
    gold, wrong = observations[qid], observations[f"{qid}:wrong"]
    assert gold.ok and wrong.ok, (qid, wrong.error)
    assert wrong.output != gold.output, qid
    predicted = WRONG[qid][1]
    if isinstance(predicted, float):
        assert math.isclose(wrong.output, predicted, rel_tol=1e-12), (qid, wrong.output)
    elif predicted is not None:
        assert wrong.output == predicted, (qid, wrong.output)
