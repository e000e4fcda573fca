"""The held-out example set examples/fresh: every gold call of its queries.jsonl loads and
executes, each tool has 8 queries, and each tool rejects a wrong input with an exception
(that its tools.oracle.json differs only in documentation: tests/test_example_files.py)."""

from pathlib import Path

import pytest

from play2prompt.evaluation.queries import load_queries
from play2prompt.tools.loading import load_tools
from tests.test_example_files import tools_module

FRESH = Path(__file__).resolve().parents[1] / "examples" / "fresh"


def test_every_gold_call_loads_and_runs_and_each_tool_has_eight_queries():
    tools = load_tools(FRESH / "tools.json")
    assert len(tools) == 8
    parsed = load_queries(FRESH / "queries.jsonl", tools)
    assert not parsed.bad and len(parsed.items) == 64
    module = tools_module(FRESH)
    per_tool: dict[str, int] = {}
    for item in parsed.items:
        assert len(item.calls) == 1, item.id
        for call in item.calls:
            getattr(module, call.name)(**call.arguments)   # raises on a wrong gold call
            per_tool[call.name] = per_tool.get(call.name, 0) + 1
    assert per_tool == {t.name: 8 for t in tools}


BAD_CALLS = [
    ("savings_growth", {"principal": 1000, "annual_rate": 4, "years": 5, "compounding": 3},
     ValueError),
    ("savings_growth", {"principal": 1000, "annual_rate": 150, "years": 5}, ValueError),
    ("paint_needed", {"length": 400, "width": 0, "height": 250}, ValueError),
    ("paint_needed", {"length": 400, "width": 350, "height": 250, "coats": 6}, ValueError),
    ("shipping_quote", {"weight": 2500, "service": "express", "destination": "DE"}, ValueError),
    ("shipping_quote", {"weight": 2500, "service": "exp", "destination": "DE"}, ValueError),
    ("shipping_quote", {"weight": 2500, "service": "EXP", "destination": "Germany"}, ValueError),
    ("shipping_quote", {"weight": 1200, "service": "NXT", "destination": "UK"}, ValueError),
    ("shipping_quote", {"weight": 1200, "service": "NXT", "destination": "FR"}, ValueError),
    ("shipping_quote", {"weight": 2.5, "service": "STD", "destination": "FR"}, TypeError),
    ("heart_rate_zone", {"age": 35, "zone": 6}, ValueError),
    ("heart_rate_zone", {"age": 35, "zone": 0}, ValueError),
    ("running_pace", {"distance": 5, "time": "24.5"}, ValueError),
    ("running_pace", {"distance": 5, "time": "1h52m"}, ValueError),
    ("running_pace", {"distance": 5, "time": 1470}, TypeError),
    ("contrast_ratio", {"foreground": "white", "background": "#000000"}, ValueError),
    ("contrast_ratio", {"foreground": "#333", "background": "#FFFFFF"}, ValueError),
    ("contrast_ratio", {"foreground": "FFFFFF", "background": "#000000"}, ValueError),
    ("split_bill", {"total": 120, "people": 4, "tip": 18}, ValueError),
    ("split_bill", {"total": 120, "people": 0}, ValueError),
    ("letter_grade", {"score": 120}, ValueError),
    ("letter_grade", {"score": -1}, ValueError),
]


@pytest.mark.parametrize(("name", "arguments", "error"), BAD_CALLS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(BAD_CALLS)])
def test_each_tool_rejects_a_wrong_input(name, arguments, error):
    with pytest.raises(error):
        getattr(tools_module(FRESH), name)(**arguments)


def test_every_tool_has_a_rejected_input():
    tools = load_tools(FRESH / "tools.json")
    assert {t.name for t in tools} == {name for name, _, _ in BAD_CALLS}
