"""``p2p verify``: a run's recorded calls replayed against drifted tools give each tool its
status, the exit status says whether anything drifted, the JSON report is complete and scrubbed.
"""

from __future__ import annotations

import json

import pytest

from play2prompt.cli import main
from play2prompt.drift.recorded import open_recorded
from play2prompt.drift.simulate import simulate
from play2prompt.drift.verify import (
    GONE,
    NEW,
    NOW_FAILS,
    OK,
    OUTPUT_CHANGED,
    SCHEMA_CHANGED,
    UNCHECKED,
    schema_changes,
    verify_run,
)
from play2prompt.errors import UserError
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Observation, Tool
from tests.conftest import EXAMPLES
from tests.drift.runs import make_run, subset_tools_file

NAMES = ("convert_units", "add_days", "search_products", "loan_payment", "convert_currency",
         "body_mass_index")
CHOSEN = {"rename": "add_days", "unit": "loan_payment", "values": "convert_units",
          "removed": "search_products", "output": "convert_currency"}
EXPECTED = {"convert_units": NOW_FAILS, "add_days": SCHEMA_CHANGED, "search_products": GONE,
            "loan_payment": NOW_FAILS, "convert_currency": OUTPUT_CHANGED,
            "body_mass_index": OK, "search_products_v2": NEW}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("verify")
    tools_file = subset_tools_file(root / "tools", NAMES)
    run_dir = make_run(root / "runs", NAMES, tools_file=tools_file)
    drifted = root / "drifted"
    simulate(tools_file, drifted, list(CHOSEN), chosen=CHOSEN,
             queries=EXAMPLES / "queries.jsonl")
    return run_dir, tools_file, drifted / "tools.json"


def test_each_drift_kind_gets_its_status(setup):
    run_dir, _, drifted = setup
    with open_recorded(run_dir) as run:
        report = verify_run(run, load_tools(drifted), base_dir=drifted.parent,
                            tools_file=str(drifted))
    assert {t.name: t.status for t in report.tools} == EXPECTED
    assert sorted(report.drifted) == sorted(n for n, s in EXPECTED.items() if s != OK)
    assert report.exit_code == 1
    by_name = {t.name: t for t in report.tools}
    assert by_name["search_products"].note == "replaced by search_products_v2"
    assert "parameter 'date' removed" in by_name["add_days"].schema
    assert "looks like 'date' renamed to 'start_date'" in by_name["add_days"].schema
    assert "unknown from_unit 'km'" in by_name["convert_units"].detail()
    assert "fraction between 0 and 1" in by_name["loan_payment"].detail()
    assert "different structure" in by_name["convert_currency"].detail()
    sources = [c.source for c in by_name["body_mass_index"].calls]
    assert sources[0] == "demo" and "example" in sources and "logged" not in sources[:2]


def test_the_run_against_its_own_tools_is_clean(setup):
    run_dir, _, _ = setup
    with open_recorded(run_dir) as run:
        report = verify_run(run)
    assert report.drifted == [] and report.exit_code == 0
    assert all(t.status == OK and t.calls for t in report.tools)


def test_cli_exit_status_and_json_report(setup, capsys):
    run_dir, tools_file, drifted = setup
    assert main(["verify", str(run_dir), "--tools", str(drifted), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["exit_code"] == 1 and report["run"] == "base"
    assert {t["name"]: t["status"] for t in report["tools"]} == EXPECTED
    failing = next(t for t in report["tools"] if t["name"] == "convert_units")
    assert failing["replayed"]["fails"] >= 1 and failing["calls"][0]["now"].startswith(
        "exception: ValueError: unknown from_unit")
    assert main(["verify", str(run_dir), "--tools", str(tools_file)]) == 0
    assert "no drift" in capsys.readouterr().out


def test_match_kind_decides_what_counts_as_changed(setup):
    run_dir, _, drifted = setup
    with open_recorded(run_dir) as run:
        report = verify_run(run, load_tools(drifted), base_dir=drifted.parent,
                            match="structural", match_by_tool={"convert_currency": "exact"})
        assert report.status_of("convert_currency") == OUTPUT_CHANGED
        with pytest.raises(UserError, match="--match must be one of"):
            verify_run(run, match="roughly")
        with pytest.raises(UserError, match="none of its tools is in run 'base'"):
            verify_run(run, [Tool("other", "", {"type": "object", "properties": {}},
                                  {"python": "tools.py:loan_payment"})], tools_file="x.json")


def test_schema_changes_ignore_documentation():
    old = Tool("t", "old doc", {"type": "object", "properties": {
        "a": {"type": "string", "description": "x", "enum": ["p", "q"]},
        "b": {"type": "integer"}}, "required": ["a"]})
    same = Tool("t", "new doc", {"type": "object", "properties": {
        "a": {"type": "string", "description": "y", "enum": ["p", "q"]},
        "b": {"type": "integer", "title": "B"}}, "required": ["a"]})
    assert schema_changes(old, same) == []
    new = Tool("t", "", {"type": "object", "properties": {
        "a": {"type": "string", "enum": ["p", "r"]}, "b": {"type": "number"}},
        "required": ["a", "b"]})
    assert schema_changes(old, new) == ["'a': accepted values p, q -> p, r",
                                        "'b': type integer -> number", "'b' now required"]


def test_report_is_scrubbed_and_llm_executors_are_not_called(tmp_path, monkeypatch):
    """What a tool returns or raises reaches the report only through the scrubber."""
    secret = "sk-" + "A1b2C3d4" * 4
    monkeypatch.setenv("LEAKY_KEY", secret)
    (tmp_path / "leaky.py").write_text(
        "import os\n"
        "def leaky(n: int):\n"
        "    if n > 1:\n"
        "        raise ValueError('key ' + os.environ['LEAKY_KEY'] + ' refused')\n"
        "    return {'n': n + 1, 'key': os.environ['LEAKY_KEY']}\n")
    entry = {"type": "function", "function": {"name": "leaky", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}}},
        "executor": {"python": {"function": "leaky.py:leaky", "env": ["LEAKY_KEY"]}}}
    sim = {"type": "function", "function": {"name": "imagined", "parameters": {
        "type": "object", "properties": {}}}, "executor": {"simulated": {}}}
    (tmp_path / "tools.json").write_text(json.dumps({"tools": [entry, sim]}))
    run_dir = tmp_path / "runs" / "r"
    tools = load_tools(tmp_path / "tools.json")
    store = RunStore(run_dir / DB_NAME)
    store.set_meta("run_id", "r")
    store.set_meta("tools", {"tools": [t.to_dict() for t in tools]})
    store.set_meta("base_dir", str(tmp_path))
    for n, output in ((1, {"n": 1, "key": secret}), (2, {"n": 3, "key": secret})):
        store.put_execution(Invocation("leaky", {"n": n}).key(), Invocation("leaky", {"n": n}),
                            Observation.success(output))
    store.put_execution(Invocation("imagined", {}).key(), Invocation("imagined", {}),
                        Observation.success({"x": 1}))
    store.close()
    (run_dir / "result.json").write_text(json.dumps({"run_id": "r", "tools": {}}))
    with open_recorded(run_dir) as run:
        report = verify_run(run, tools, base_dir=tmp_path)
    text = json.dumps(report.to_dict())
    assert secret not in text and "[redacted]" in text
    assert report.status_of("leaky") == NOW_FAILS
    statuses = [c.status for t in report.tools if t.name == "leaky" for c in t.calls]
    assert sorted(statuses) == ["changed", "fails"]
    assert report.status_of("imagined") == UNCHECKED
