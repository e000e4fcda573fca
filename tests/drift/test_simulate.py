"""The drift simulator: each kind gives a real drifted tool (the original behind a wrapper),
its old calls break the way the kind says, and the rewritten query set still has the right
answers."""

from __future__ import annotations

import json

import pytest

from play2prompt.drift.simulate import plan_drifts, read_queries, simulate
from play2prompt.drift.wrappers import Drift
from play2prompt.errors import UserError
from play2prompt.evaluation.queries import load_queries
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import EXAMPLES

CHOSEN = {"rename": "add_days", "unit": "loan_payment", "values": "convert_units",
          "removed": "search_products", "output": "convert_currency"}


@pytest.fixture(scope="module")
def drifted(tmp_path_factory):
    out = tmp_path_factory.mktemp("drift")
    sim = simulate(EXAMPLES / "tools.json", out, list(CHOSEN), queries=EXAMPLES /
                   "queries.jsonl", chosen=CHOSEN)
    tools = load_tools(out / "tools.json")
    runtime = ToolRuntime(tools, ExecContext(base_dir=out, default_timeout=20))
    original = ToolRuntime(load_tools(EXAMPLES / "tools.json"),
                           ExecContext(base_dir=EXAMPLES, default_timeout=20))
    yield sim, out, runtime, original
    runtime.close()
    original.close()


def _run(runtime, name, args):
    return runtime.run_sync(Invocation(name, args))


def test_every_kind_drifts_the_chosen_tool(drifted):
    sim, out, _, _ = drifted
    assert {d.kind: d.tool for d in sim.drifts} == CHOSEN
    names = {t.name for t in load_tools(out / "tools.json")}
    assert "search_products" not in names and "search_products_v2" in names
    manifest = json.loads((out / "drift.json").read_text())
    assert manifest["tools"]["search_products_v2"]["original"] == "search_products"
    assert not manifest["base_dir"].startswith("/")        # relative: the folder can move


def test_rename(drifted):
    _, _, runtime, original = drifted
    now = _run(runtime, "add_days", {"start_date": "2025-01-01", "days": 10})
    assert now.ok and now.output == _run(original, "add_days",
                                         {"date": "2025-01-01", "days": 10}).output
    old = _run(runtime, "add_days", {"date": "2025-01-01", "days": 10})
    assert not old.ok and old.error_type == "schema"


def test_unit_change_and_its_error_in_the_new_unit(drifted):
    _, _, runtime, original = drifted
    now = _run(runtime, "loan_payment", {"principal": 10000, "annual_rate": 0.05, "years": 2})
    before = _run(original, "loan_payment", {"principal": 10000, "annual_rate": 5, "years": 2})
    assert now.ok and now.output == before.output
    old = _run(runtime, "loan_payment", {"principal": 10000, "annual_rate": 5, "years": 2})
    assert not old.ok and "annual_rate is a fraction between 0 and 1" in old.error


def test_changed_values_are_listed_when_an_old_one_is_sent(drifted):
    _, _, runtime, original = drifted
    now = _run(runtime, "convert_units", {"value": 10, "from_unit": "kilometre",
                                          "to_unit": "mile"})
    before = _run(original, "convert_units", {"value": 10, "from_unit": "km", "to_unit": "mi"})
    assert now.ok and now.output == before.output
    old = _run(runtime, "convert_units", {"value": 10, "from_unit": "km", "to_unit": "mi"})
    assert not old.ok and "unknown from_unit 'km'; accepted:" in old.error
    assert "kilometre" in old.error and "mile" in old.error


def test_removed_tool_has_a_replacement(drifted):
    _, out, runtime, original = drifted
    args = {"category": "kitchen", "max_price": 5000}
    assert _run(runtime, "search_products_v2", args).output == \
        _run(original, "search_products", args).output
    assert _run(runtime, "search_products", args).error_type == "unknown_tool"
    replacement = {t.name: t for t in load_tools(out / "tools.json")}["search_products_v2"]
    assert replacement.meta["replaces"] == "search_products"


def test_output_shape(drifted):
    _, _, runtime, original = drifted
    args = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
    assert _run(runtime, "convert_currency", args).output == {
        "data": _run(original, "convert_currency", args).output, "api_version": 2}


def test_rewritten_queries_have_the_same_answers(drifted):
    _, out, runtime, original = drifted
    tools = load_tools(out / "tools.json")
    new = load_queries(out / "queries.jsonl", tools)
    old = load_queries(EXAMPLES / "queries.jsonl", load_tools(EXAMPLES / "tools.json"))
    assert not new.bad and len(new.items) == len(old.items) == 108
    checked = 0
    for before, after in zip(old.items, new.items):
        for call_old, call_new in zip(before.calls, after.calls):
            if call_old.name not in CHOSEN.values():
                assert call_new == call_old
                continue
            want = original.run_sync(call_old)
            got = runtime.run_sync(call_new)
            assert got.ok, (call_new, got.error)
            expected = want.output if call_old.name != "convert_currency" else {
                "data": want.output, "api_version": 2}
            assert got.output == expected, call_new
            checked += 1
    assert checked > 40


def test_the_choice_of_tools(example_tools):
    queries = read_queries(EXAMPLES / "queries.jsonl")
    drifts = {d.kind: d for d in plan_drifts(example_tools, queries, ["values", "unit",
                                                                      "rename"])}
    assert drifts["values"].tool == "convert_units"
    assert drifts["values"].params == ("from_unit", "to_unit")
    assert drifts["unit"].words == ("cents", "dollars")          # max_price, first in file
    assert drifts["rename"].tool == "add_days" and drifts["rename"].new == "start_date"
    with pytest.raises(UserError, match="unknown drift kind 'sideways'"):
        plan_drifts(example_tools, queries, ["sideways"])
    with pytest.raises(UserError, match="already drifts"):
        plan_drifts(example_tools, queries, ["unit", "rename"],
                    {"unit": "loan_payment", "rename": "loan_payment"})


def test_a_drift_round_trips_and_rewrites_error_lists():
    drift = Drift("values", "convert_units", "from_unit", values={"c": "celsius",
                                                                 "f": "fahrenheit",
                                                                 "k": "kelvin"},
                  params=("from_unit",))
    assert Drift.from_dict(drift.to_dict()) == drift
    said = drift.message("cannot convert 'c' to 'kg'; units: c, f, k, kg")
    assert said == "cannot convert 'celsius' to 'kg'; units: celsius, fahrenheit, kelvin, kg"


def test_only_python_tools_are_wrapped(tmp_path):
    spec = {"tools": [{"type": "function", "function": {"name": "t", "parameters": {
        "type": "object", "properties": {}}}, "executor": {"simulated": {}}}]}
    (tmp_path / "tools.json").write_text(json.dumps(spec))
    with pytest.raises(UserError, match="wraps Python tools only"):
        simulate(tmp_path / "tools.json", tmp_path / "out", ["output"])
