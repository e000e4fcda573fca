"""``--opaque`` on a plain tools file: ``p2p optimize`` and ``p2p eval tools.json`` with the
tools shown as OpaqueToolsBench hides them, the real tools executed (fake LM only)."""

import json
from dataclasses import replace

import pytest

from play2prompt.agent.prompt import Demo
from play2prompt.cli import main
from play2prompt.lm import fake
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM
from play2prompt.results import RunResult, ToolResult, load_run_result
from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation, ToolDoc
from play2prompt.tools.opacity import NameMap, Opacity, opaque_tools, real_name
from tests.conftest import EXAMPLES

SORTED = ["add_days", "body_mass_index", "convert_currency", "convert_timezone",
          "convert_units", "loan_payment", "search_products"]
HIDDEN = "names,descriptions,param-docs"
UNITS = {"name": "convert_units", "arguments": {"value": 180, "from_unit": "c", "to_unit": "f"}}
LOAN = {"name": "loan_payment", "arguments": {"principal": 1000, "annual_rate": 5, "years": 1}}


def test_opaque_transform_of_a_tools_file(example_tools):
    shown, names = opaque_tools(example_tools, Opacity.parse(HIDDEN))
    assert names.shown == {n: f"function_{i + 1}" for i, n in enumerate(SORTED)}
    by_real = {real_name(t): t for t in shown}
    assert [by_real[n].name for n in SORTED] == [f"function_{i}" for i in range(1, 8)]
    real = {t.name: t for t in example_tools}
    for name, tool in by_real.items():
        assert tool.description == "" and set(tool.doc.params.values()) <= {""}
        assert tool.properties.keys() == real[name].properties.keys()
        assert tool.executor == real[name].executor and tool.meta["opaque"] == HIDDEN
    removed, _ = opaque_tools(example_tools, Opacity.parse("params"))
    assert all(t.parameters == {"type": "object", "properties": {}} for t in removed)
    assert [t.name for t in removed] == [t.name for t in example_tools]  # names kept
    # a subset keeps the names of the whole file
    loan = [t for t in example_tools if t.name == "loan_payment"]
    assert opaque_tools(loan, Opacity(names=True), SORTED)[0][0].name == "function_6"
    assert NameMap.ranked(["b", "a", "b"], Opacity(names=True)).shown == {
        "a": "function_1", "b": "function_2"}


def test_mcp_and_callable_executors_keep_the_real_tool():
    from play2prompt.tools.model import Tool

    mcp = Tool("read", "", {"type": "object"}, {"mcp": {"command": ["srv"]}})
    shown, _ = opaque_tools([mcp], Opacity(names=True))
    assert shown[0].executor == {"mcp": {"command": ["srv"], "tool": "read"}}
    call = Tool("add", "", {"type": "object"}, {"callable": True})
    assert opaque_tools([call], Opacity(names=True))[0][0].executor == {"callable": "add"}


def test_a_simulated_tool_shown_opaque_is_simulated_as_the_real_documented_api(tmp_path):
    """The simulator of an opaque tool is asked about the real API (its name and doc), not
    about ``function_1`` with a blank doc, and records under the real name."""
    import asyncio

    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.model import Tool
    from play2prompt.tools.runtime import ToolRuntime

    rank = Tool("player_rank", "Rank of a tennis player in the ATP list.",
                {"type": "object", "properties": {"player": {"type": "string",
                                                             "description": "full name"}}},
                {"simulated": {"template_response": {"rank": "int"}}})
    shown, _ = opaque_tools([rank], Opacity.parse(HIDDEN))
    assert shown[0].name == "function_1" and shown[0].description == ""
    assert shown[0].executor["simulated"]["simulates"]["name"] == "player_rank"
    store = RunStore(tmp_path / "run.db")
    lm = FakeLM(default={"response": {"rank": 3}})
    rt = ToolRuntime(shown, ExecContext(lm=lm, store=store), store)
    obs = asyncio.run(rt.run(Invocation("function_1", {"player": "Sinner"})))
    rt.close()
    store.close()
    assert obs.ok and obs.output == {"rank": 3}
    text = "\n".join(m["content"] for m in lm.requests[0].messages)
    assert "player_rank" in text and "ATP list" in text and "full name" in text
    assert "function_1" not in text
    # given twice (a run's opaque tools made opaque again) it stays the first, real API
    assert opaque_tools(shown, Opacity.parse(HIDDEN))[0][0].executor == shown[0].executor


@pytest.fixture(scope="module")
def opaque_run(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    assert main(["optimize", str(EXAMPLES / "tools.json"), "--opaque", HIDDEN, "--tools",
                 "convert_units,loan_payment", "--generator", "fake", "--preset", "quick",
                 "--run-id", "dark", "--runs-dir", str(runs), "-q"]) == 0
    return runs


def test_optimize_records_the_opacity_and_keys_resolve_to_real_tools(opaque_run,
                                                                     example_tools):
    result = json.loads((opaque_run / "dark" / "result.json").read_text())
    assert sorted(result["tools"]) == ["function_5", "function_6"]
    for tool in result["tools"].values():
        assert tool["original"]["meta"]["opaque"] == HIDDEN
        assert tool["original"]["function"]["description"] == ""
    real = {t.name: t for t in example_tools}
    optimized = json.loads((opaque_run / "dark" / "tools.optimized.json").read_text())
    resolved = {t["function"]["name"]: t["meta"]["real_name"] for t in optimized["tools"]}
    assert resolved == {"function_5": "convert_units", "function_6": "loan_payment"}
    assert all(t["executor"] == real[t["meta"]["real_name"]].executor
               for t in optimized["tools"])


@pytest.fixture
def opaque_backend(monkeypatch):
    """``--task-model fake`` calls ``function_k``, k the rank of the query's real tool."""
    seen = []

    def factory(rest, **options):
        def reply(request, index):
            seen.append(request)
            gold = UNITS if "Fahrenheit" in request.messages[-1]["content"] else LOAN
            return Choice("", (ToolCall(f"function_{SORTED.index(gold['name']) + 1}",
                                        dict(gold["arguments"])),))

        return FakeLM(default=reply, model_id="fake:opaque")

    monkeypatch.setattr(fake, "from_spec", factory)
    return seen


def queries_file(tmp_path):
    path = tmp_path / "q.jsonl"
    lines = [{"id": "u", "query": "180 C in Fahrenheit?", "calls": [UNITS]},
             {"id": "l", "query": "Monthly payment for 1000 at 5% over 1 year?",
              "calls": [LOAN], "match": "real_time"}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_eval_opaque_runs_the_real_tools_and_scores_opaque_calls(tmp_path, opaque_backend):
    out = tmp_path / "out"
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries_file(tmp_path)),
                 "--opaque", HIDDEN, "--oracle", str(EXAMPLES / "tools.oracle.json"),
                 "--task-model", "fake", "-o", str(out), "-q", "--runs-dir",
                 str(tmp_path / "runs")])
    assert code == 0
    records = [json.loads(x) for x in (out / "queries.jsonl").read_text().splitlines()]
    assert {r["side"] for r in records} == {"baseline", "oracle"}
    assert all(r["correct"] and r["exec_ok"] for r in records)
    for record in records:
        names = [t["function"]["name"] for t in record["prompt"]["tools"]]
        assert names == ["function_5", "function_1", "function_7", "function_6",
                         "function_3", "function_4", "function_2"]
        descriptions = {t["function"]["description"] for t in record["prompt"]["tools"]}
        assert (descriptions == {""}) == (record["side"] == "baseline")
        assert not any("convert_units" in json.dumps(t) for t in record["prompt"]["tools"])
    units = next(r for r in records if r["id"] == "u")
    assert units["gold"][0]["name"] == "function_5"
    assert units["parsed"][0]["name"] == "function_5"       # run as convert_units
    assert units["expected_outputs"] == [{"value": 356.0, "unit": "f"}]
    config = json.loads((out / "summary.json").read_text()).get("config", {})
    assert config.get("opaque", HIDDEN) == HIDDEN


def test_eval_takes_the_runs_opacity_and_shows_its_docs(tmp_path, opaque_run, opaque_backend):
    out = tmp_path / "out"
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries_file(tmp_path)),
                 "--prompts", "dark", "--runs-dir", str(opaque_run), "--task-model", "fake",
                 "--demos", "1", "-o", str(out), "-q"])
    assert code == 0
    records = [json.loads(x) for x in (out / "queries.jsonl").read_text().splitlines()]
    assert {r["side"] for r in records} == {"baseline", "full"}
    assert all(r["correct"] for r in records)
    run = load_run_result("dark", opaque_run)
    for record in (r for r in records if r["side"] == "full"):
        tools = {t["function"]["name"]: t["function"] for t in record["prompt"]["tools"]}
        for name, tool in run.tools.items():
            shown = tool.doc.description if tool.doc_changed else ""
            assert tools[name]["description"] == shown


def test_a_runs_docs_demos_and_discovered_params_under_the_opaque_names(
        tmp_path, example_tools, opaque_backend):
    units = opaque_tools(example_tools, Opacity.parse("names,params"))[0][0]
    assert units.name == "function_5" and not units.properties
    found = {"type": "object", "required": ["value"], "properties": {
        "value": {"type": "number"}, "from_unit": {"type": "string"},
        "to_unit": {"type": "string"}}}
    doc = ToolDoc("Converts units; see function_5 examples.", {"from_unit": "c, km, lb"})
    demo = Demo("3 miles in km?", (Invocation("function_5", {"value": 3, "from_unit": "mi",
                                                             "to_unit": "km"}),))
    discovered = replace(units, parameters=found)
    run = RunResult("p", tmp_path / "runs" / "p", {"function_5": ToolResult(
        "function_5", discovered, doc, (demo,), True)})
    run.write()
    RunStore(run.run_dir / "run.db").close()
    out = tmp_path / "out"
    assert main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries_file(tmp_path)),
                 "--prompts", "p", "--runs-dir", str(tmp_path / "runs"), "--task-model",
                 "fake", "--demos", "1", "-o", str(out), "-q"]) == 0
    records = [json.loads(x) for x in (out / "queries.jsonl").read_text().splitlines()]
    full = next(r for r in records if r["side"] == "full" and r["id"] == "u")
    shown = {t["function"]["name"]: t["function"] for t in full["prompt"]["tools"]}
    assert shown["function_5"]["description"] == doc.description
    assert shown["function_5"]["parameters"]["properties"]["from_unit"]["description"] == \
        "c, km, lb"
    assert not shown["function_6"]["parameters"]["properties"]   # the run left it alone
    assert "function_5" in json.dumps(full["prompt"]["messages"])  # the demo's call
    assert all(r["correct"] for r in records)


def test_a_mismatch_with_the_runs_opacity_is_one_line(tmp_path, opaque_run, capsys):
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries_file(tmp_path)),
                 "--prompts", "dark", "--runs-dir", str(opaque_run), "--opaque", "names",
                 "--task-model", "fake", "-o", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "--opaque names differs" in err and HIDDEN in err


def test_optimize_opaque_refuses_other_benchmarks_and_resume(tmp_path, capsys):
    assert main(["optimize", "--resume", "x", "--opaque", "names", "--runs-dir",
                 str(tmp_path), "-q"]) == 2
    assert "--opaque goes with --benchmark bfcl or a tools file" in capsys.readouterr().err
