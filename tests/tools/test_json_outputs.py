"""Tool outputs are JSON as a JSON serializer writes it (ISO dates, UUID text), never Python
reprs; an undocumented parameter gets no ``"description": ""`` (issue 29, item 6)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import json
import uuid
from pathlib import PurePosixPath

from play2prompt.jsonutil import json_default, to_jsonable
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc
from play2prompt.tools.runtime import ToolRuntime

WHEN = dt.datetime(2024, 3, 5, 15, 30)
ID = uuid.UUID("123e4567-e89b-12d3-a456-426614174000")


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    at: dt.date


def test_values_json_has_no_type_for_take_their_usual_json_form():
    out = to_jsonable({"when": WHEN, "id": ID, "day": WHEN.date(), "t": WHEN.time(),
                       "tz": dt.datetime(2024, 1, 2, 3, 4, tzinfo=dt.timezone.utc),
                       "price": decimal.Decimal("12.50"), "exact": decimal.Decimal("0.1"),
                       "big": decimal.Decimal("3.14159265358979323846264338327950288"),
                       "n": decimal.Decimal("7"), "wait": dt.timedelta(minutes=2),
                       "color": Color.RED, "point": Point(1, WHEN.date()),
                       "path": PurePosixPath("/tmp/x"), "ids": (ID,)})
    assert out == {"when": "2024-03-05T15:30:00", "id": str(ID), "day": "2024-03-05",
                   "t": "15:30:00", "tz": "2024-01-02T03:04:00+00:00", "price": 12.5,
                   "exact": 0.1, "big": "3.14159265358979323846264338327950288", "n": 7,
                   "wait": 120.0, "color": "red", "point": {"x": 1, "at": "2024-03-05"},
                   "path": "/tmp/x", "ids": [str(ID)]}
    assert json.dumps([WHEN, ID], default=json_default) == f'["2024-03-05T15:30:00", "{ID}"]'
    assert to_jsonable(object()).startswith("<object object")     # no JSON form: its repr


def test_observations_render_json_not_reprs():
    obs = Observation.success({"when": WHEN, "id": ID})
    assert obs.output == {"when": "2024-03-05T15:30:00", "id": str(ID)}
    assert "datetime.datetime" not in obs.render() and "UUID(" not in obs.render()


def test_a_python_tool_returning_dates_answers_json(tmp_path):
    (tmp_path / "dates.py").write_text(
        "import datetime, uuid\n"
        "def stamp(day: str) -> dict:\n"
        "    d = datetime.date.fromisoformat(day)\n"
        "    return {'at': datetime.datetime(d.year, d.month, d.day, 15, 30),\n"
        "            'id': uuid.UUID(int=1)}\n")
    params = {"type": "object", "properties": {"day": {"type": "string"}}, "required": ["day"]}
    tool = Tool("stamp", "Stamp a day.", params, {"python": "dates.py:stamp"})
    runtime = ToolRuntime([tool], ExecContext(base_dir=tmp_path))
    try:
        obs = runtime.run_sync(Invocation("stamp", {"day": "2024-03-05"}))
    finally:
        runtime.close()
    assert obs.ok and obs.output == {"at": "2024-03-05T15:30:00",
                                     "id": "00000000-0000-0000-0000-000000000001"}


def test_an_undocumented_parameter_gets_no_empty_description():
    params = {"type": "object", "properties": {"a": {"type": "string"},
                                               "b": {"type": "integer", "description": "old"}}}
    tool = Tool("t", "A tool.", params)
    assert tool.doc.params == {"a": "", "b": "old"}
    same = tool.with_doc(tool.doc)
    assert same.parameters == params                      # applying its own doc changes nothing
    entry = tool.with_doc(ToolDoc("Better.", {"a": "", "b": "new"})).to_openai()
    assert entry["function"]["parameters"]["properties"] == {
        "a": {"type": "string"}, "b": {"type": "integer", "description": "new"}}
    assert '"description": ""' not in json.dumps(entry)
    doc = ToolDoc("Better.", {"a": "The a.", "b": "The b."})
    assert tool.with_doc(doc).parameters["properties"]["a"]["description"] == "The a."


def test_the_mcp_proxy_adds_no_empty_description(tmp_path):
    from play2prompt.results import load_run_result
    from play2prompt.serve.mcp_server import served_tools
    from play2prompt.tools.loading import load_tools
    from tests.emit.stored import copy_tools_file, make_stored_run

    run = load_run_result(make_stored_run(tmp_path / "runs"))
    tools_file = copy_tools_file(tmp_path / "project")
    text = tools_file.read_text().replace(', "description": ""', "")   # undocumented: no key
    tools_file.write_text(text)
    served = served_tools(run, load_tools(tools_file))
    assert {"loan_payment", "convert_units"} <= {t.name for t in served.tools}
    for exported in served.tools:
        for schema in exported.tool.parameters.get("properties", {}).values():
            assert schema.get("description", "x") != ""
