"""The tools of a run bound to what executes them (no framework needed): the real python
function, the runtime for other executors, ``module=``, schema checks and typed failures."""

from __future__ import annotations

import asyncio
import json

import pytest

from play2prompt.emit import ExportOptions, prepare
from play2prompt.errors import UserError
from play2prompt.integrations.run_tools import ToolCallFailed, run_data, run_tools
from play2prompt.results import load_run_result
from tests.integrations.framework_runs import (
    ARGS,
    DESCRIPTION,
    REQUEST,
    RESULT,
    TO_UNIT,
    example_run,
)


def test_python_tools_are_the_real_functions_with_the_run_docs(tmp_path):
    tools = {t.name: t for t in run_tools(example_run(tmp_path), runs_dir=tmp_path)}
    convert = tools["convert_units"]
    assert convert.function.__name__ == "convert_units"
    assert convert.function.__code__.co_filename.endswith("examples/tools.py")
    assert convert.runtime is None
    assert convert.description.startswith(DESCRIPTION)
    assert REQUEST in convert.description and json.dumps(ARGS) in convert.description
    assert convert.parameters["properties"]["to_unit"]["description"] == TO_UNIT
    assert convert.examples == [ARGS]
    assert convert.call(ARGS) == RESULT
    assert asyncio.run(convert.acall(ARGS)) == RESULT
    assert tools["add_days"].call({"date": "2024-03-01", "days": 1})["date"] == "2024-03-02"


def test_demos_false_and_original(tmp_path):
    run = example_run(tmp_path)
    plain = run_tools(run, runs_dir=tmp_path, demos=False)[0]
    assert plain.description == DESCRIPTION and plain.examples == []
    original = run_tools(run, runs_dir=tmp_path, original=True)[0]
    assert original.description == "Converts units."


def test_failures_are_typed(tmp_path):
    convert = run_tools(example_run(tmp_path), runs_dir=tmp_path)[0]
    with pytest.raises(ToolCallFailed) as schema:
        convert.call({"value": 5, "from_unit": "km"})
    assert schema.value.error_type == "schema" and "to_unit" in schema.value.message
    with pytest.raises(ToolCallFailed) as raised:
        convert.call({"value": 5, "from_unit": "km", "to_unit": "parsec"})
    assert raised.value.error_type == "exception" and "parsec" in raised.value.message
    assert convert.call({"value": "5", "from_unit": "km", "to_unit": "mi"}) == RESULT  # lax


def test_other_executors_run_through_the_runtime(tmp_path):
    tools = {t.name: t for t in run_tools(example_run(tmp_path, with_sql=True),
                                          runs_dir=tmp_path)}
    sql = tools["cheap_items"]
    assert sql.function is None and sql.runtime is not None
    out = sql.call({"max_price": 50})
    assert [row["name"] for row in out] == ["board", "kettle"]
    with pytest.raises(ToolCallFailed) as failed:
        sql.call({"max_price": "lots"})
    assert failed.value.error_type == "schema"


def test_module_supplies_functions(tmp_path):
    run = example_run(tmp_path)
    calls = []

    def convert_units(**kwargs):
        calls.append(kwargs)
        return "mine"

    tool = run_tools(run, {"convert_units": convert_units}, runs_dir=tmp_path)[0]
    assert tool.call(ARGS) == "mine" and calls == [ARGS]
    (tmp_path / "impl.py").write_text("def add_days(date, days, business_days=False):\n"
                                      "    return 'file'\n")
    tools = run_tools(run, str(tmp_path / "impl.py"), runs_dir=tmp_path)
    assert tools[1].call({"date": "2024-03-01", "days": 1}) == "file"
    assert tools[0].call(ARGS) == RESULT   # not in the module: its executor


def test_run_data_round_trip_and_bad_references(tmp_path):
    run = load_run_result(example_run(tmp_path), tmp_path)
    data = run_data(prepare(run, ExportOptions(demos=0)), run)
    tool = run_tools(json.loads(json.dumps(data)))[0]
    assert tool.description == DESCRIPTION and tool.call(ARGS) == RESULT
    with pytest.raises(UserError, match="no run"):
        run_tools("absent", runs_dir=tmp_path)
    with pytest.raises(UserError, match="not a run's data"):
        run_tools({"tools": {"x": {}}})
    with pytest.raises(UserError, match="cannot import"):
        run_tools(run, str(tmp_path / "missing.py"))


def test_a_tool_without_function_or_executor_is_refused(tmp_path):
    from play2prompt.tools.model import Tool
    from tests.apply.runs import make_run

    bare = Tool("lonely", "x", {"type": "object", "properties": {}})
    run = make_run(tmp_path, [bare], {})
    with pytest.raises(UserError, match="no function for lonely"):
        run_tools(run, runs_dir=tmp_path)
    assert run_tools(run, {"lonely": lambda: 7}, runs_dir=tmp_path)[0].call({}) == 7
