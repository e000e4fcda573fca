"""``p2p eval tools.json --queries FILE``: the query file and the command end to end."""

import json

import pytest

from play2prompt.agent.prompt import Demo
from play2prompt.cli import main
from play2prompt.evaluation.queries import load_queries
from play2prompt.lm import fake
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation, ToolDoc
from tests.conftest import EXAMPLES

GOOD_LINE = {"id": "q1", "query": "180 C in Fahrenheit?",
             "calls": [{"name": "convert_units",
                        "arguments": {"value": 180, "from_unit": "c", "to_unit": "f"}}]}


def write_lines(path, lines):
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_bad_lines_are_reported_with_their_number_and_skipped(tmp_path, example_tools):
    path = write_lines(tmp_path / "q.jsonl", [
        GOOD_LINE,                                                         # 1
        '{"id": "q2", "query": "broken", "calls": [',                      # 2 bad JSON
        "",                                                                # 3 blank
        {"id": "q3", "query": "x", "calls": [{"name": "teleport", "arguments": {}}]},  # 4
        {"id": "q4", "query": "x", "calls": [{"name": "loan_payment", "arguments": {
            "principal": "lots", "annual_rate": 5, "years": 2}}]},          # 5 schema
        {"id": "q5", "query": "x", "calls": [{"name": "loan_payment", "arguments": {
            "principal": 100, "annual_rate": 5}}]},                         # 6 missing arg
        {**GOOD_LINE},                                                     # 7 duplicate id
        {"id": "q8", "query": "x", "calls": GOOD_LINE["calls"], "match": "fuzzy"},  # 8
        {"id": "q9", "query": "x"},                                        # 9 no calls
        "# a comment",                                                     # 10
        ["not", "an", "object"],                                           # 11
        {"query": "5 km in miles", "match": "real_time", "calls": [       # 12 ok, no id
            {"name": "convert_units", "arguments": {"value": 5, "from_unit": "km",
                                                    "to_unit": "mi"}}]},
    ])
    loaded = load_queries(path, example_tools)
    assert [i.id for i in loaded.items] == ["q1", "line12"]
    assert loaded.items[1].match == ("real_time",)
    assert loaded.items[0].category == "convert_units"
    assert len(loaded.items[0].tools) == len(example_tools)
    bad = {b.id: b.reason for b in loaded.bad}
    assert set(bad) == {"line 2", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9",
                        "line 11"}
    assert "not valid JSON" in bad["line 2"]
    assert "unknown tool 'teleport'" in bad["line 4"]
    assert "fail its schema" in bad["line 5"] and "principal" in bad["line 5"]
    assert "years" in bad["line 6"]
    assert "duplicate id" in bad["line 7"]
    assert "unknown match" in bad["line 8"]
    assert "calls" in bad["line 9"]


def test_tools_restriction_and_parallel_calls(tmp_path, example_tools):
    path = write_lines(tmp_path / "q.jsonl", [
        {"id": "a", "query": "two conversions", "tools": ["convert_units"],
         "category": "units", "calls": [GOOD_LINE["calls"][0], GOOD_LINE["calls"][0]]},
        {"id": "b", "query": "x", "tools": ["add_days"], "calls": GOOD_LINE["calls"]},
        {"id": "c", "query": "x", "tools": ["warp"], "calls": GOOD_LINE["calls"]},
    ])
    loaded = load_queries(path, example_tools)
    (item,) = loaded.items
    assert item.tools == ("convert_units",) and item.parallel and item.category == "units"
    assert "not in 'tools'" in loaded.bad[0].reason and "warp" in loaded.bad[1].reason


@pytest.fixture
def oracle_backend(monkeypatch):
    """``--task-model fake`` answers with the query's ground truth, except for one query that
    it only gets right with the optimized docs."""
    gold = {}

    def factory(rest, **options):
        def reply(request, index):
            text = request.messages[-1]["content"]
            calls = gold[text]
            if "Fahrenheit" in text and "Celsius, c" not in json.dumps(request.tools):
                calls = [Invocation("convert_units", {"value": 180, "from_unit": "celsius",
                                                      "to_unit": "fahrenheit"})]
            return Choice("", tuple(ToolCall(c.name, dict(c.arguments)) for c in calls))

        return FakeLM(default=reply, model_id="fake:oracle")

    monkeypatch.setattr(fake, "from_spec", factory)
    return gold


def make_run(tmp_path, example_tools):
    tools = {t.name: t for t in example_tools}
    doc = ToolDoc("Converts units given as abbreviations.",
                  {"value": "the number", "from_unit": "unit abbreviation: Celsius, c; km; lb",
                   "to_unit": "unit abbreviation"})
    demo = Demo("3 miles in km?", (Invocation("convert_units", {"value": 3, "from_unit": "mi",
                                                                "to_unit": "km"}),))
    run = RunResult("opt", tmp_path / "runs" / "opt",
                    {"convert_units": ToolResult("convert_units", tools["convert_units"], doc,
                                                 (demo,), True)})
    run.write()
    RunStore(run.run_dir / "run.db").close()
    return run


def test_cli_end_to_end_baseline_vs_optimized(tmp_path, example_tools, oracle_backend, capsys):
    queries = write_lines(tmp_path / "q.jsonl", [
        GOOD_LINE,
        {"id": "q2", "query": "Monthly payment for 1000 at 5% over 1 year?",
         "calls": [{"name": "loan_payment",
                    "arguments": {"principal": 1000, "annual_rate": 5, "years": 1}}],
         "match": "real_time"},
        "{oops",
    ])
    loaded = load_queries(queries, example_tools)
    oracle_backend.update({i.query: i.calls for i in loaded.items})
    make_run(tmp_path, example_tools)
    out = tmp_path / "out"
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--prompts", "opt", "--runs-dir", str(tmp_path / "runs"),
                 "--task-model", "fake", "--demos", "1", "-o", str(out), "-q"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "skipped 1 bad line(s)" in captured.err and "line 3: not valid JSON" in captured.err
    summary = json.loads((out / "summary.json").read_text())
    rows = {r["category"]: r for r in summary["accuracy"]}
    assert rows["convert_units"]["baseline exec %"] == 0.0
    assert rows["convert_units"]["full exec %"] == 100.0
    assert rows["loan_payment"]["baseline exec %"] == 100.0
    assert rows["weighted average"]["Δ exec"] == 50.0
    assert [c["side"] for c in summary["cost"]] == ["baseline", "full"]
    assert "weighted average" in captured.out and "LLM calls per side" in captured.out, captured.out
    assert len((out / "queries.jsonl").read_text().splitlines()) == 4
    # the same command again resumes from the store: nothing is asked twice
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--prompts", "opt", "--runs-dir", str(tmp_path / "runs"),
                 "--task-model", "fake", "--demos", "1", "-o", str(out), "-q"])
    assert code == 0 and "resumed: 4 record(s)" in capsys.readouterr().out


def test_cli_errors_are_one_line(tmp_path, capsys):
    tools = str(EXAMPLES / "tools.json")
    empty = write_lines(tmp_path / "bad.jsonl", ["{nope"])
    assert main(["eval", tools, "--queries", str(empty), "-q"]) == 2
    assert "no usable query" in capsys.readouterr().err
    assert main(["eval", tools, "--queries", str(tmp_path / "missing.jsonl"), "-q"]) == 2
    assert "no such query file" in capsys.readouterr().err
    assert main(["eval", tools, "-q"]) == 2  # --queries is required
    good = write_lines(tmp_path / "good.jsonl", [GOOD_LINE])
    assert main(["eval", tools, "--queries", str(good), "--mode", "chat", "-q"]) == 2
    assert "--mode must be one of" in capsys.readouterr().err


def test_oracle_side_paired_test_and_headroom(tmp_path, example_tools, oracle_backend, capsys):
    queries = write_lines(tmp_path / "q.jsonl", [
        GOOD_LINE,
        {"id": "q2", "query": "Monthly payment for 1000 at 5% over 1 year?",
         "calls": [{"name": "loan_payment",
                    "arguments": {"principal": 1000, "annual_rate": 5, "years": 1}}],
         "match": "real_time"},
    ])
    loaded = load_queries(queries, example_tools)
    oracle_backend.update({i.query: i.calls for i in loaded.items})
    make_run(tmp_path, example_tools)
    spec = json.loads((EXAMPLES / "tools.json").read_text())
    for entry in spec["tools"]:
        entry["executor"]["python"] = str(EXAMPLES / entry["executor"]["python"])
        if entry["function"]["name"] == "convert_units":
            entry["function"]["parameters"]["properties"]["from_unit"]["description"] = \
                "abbreviation: Celsius, c"
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps(spec))
    out = tmp_path / "out"
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--prompts", "opt", "--runs-dir", str(tmp_path / "runs"), "--oracle",
                 str(oracle), "--task-model", "fake", "--demos", "1", "-o", str(out), "-q"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert [c["side"] for c in summary["cost"]] == ["baseline", "full", "oracle"]
    paired = {p["side"]: p for p in summary["paired"]}
    assert paired["full"]["wins"] == ["q1"] and paired["full"]["losses"] == []
    assert paired["full"]["headroom_recovered"] == 100.0
    assert paired["oracle"]["accuracy"] == 100.0 and paired["oracle"]["p_value"] == 1.0
    assert "within noise" in captured.out and "headroom" in captured.out
    md = (out / "summary.md").read_text()
    assert "query by query" in md and "McNemar" in md
    # an oracle file naming a tool that is not evaluated is one clear line
    stray = tmp_path / "stray.json"
    stray.write_text(json.dumps({"tools": [{"type": "function", "function": {
        "name": "teleport", "description": "x", "parameters": {"type": "object",
                                                                "properties": {}}}}]}))
    assert main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries), "--oracle",
                 str(stray), "--task-model", "fake", "-q"]) == 2
    assert "teleport" in capsys.readouterr().err


def test_only_tools_keeps_their_queries(example_tools):
    from play2prompt.errors import UserError
    from play2prompt.evaluation.queries import only_tools

    loaded = load_queries(EXAMPLES / "queries.jsonl", example_tools)
    tools, kept = only_tools(example_tools, loaded, ["convert_units,body_mass_index"])
    assert {t.name for t in tools} == {"convert_units", "body_mass_index"}
    assert kept.items and all(c.name in {"convert_units", "body_mass_index"}
                              for item in kept.items for c in item.calls)
    assert len(kept.items) < len(loaded.items)
    assert all(set(item.tools) <= {"convert_units", "body_mass_index"} for item in kept.items)
    with pytest.raises(UserError, match="no tool named nope"):
        only_tools(example_tools, loaded, ["nope"])


def test_eval_help_documents_the_tools_file_form_and_a_typo_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["eval", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "p2p eval [OPTIONS] TOOLS.json|BENCHMARK [ARGS]..." in out
    assert "p2p eval TOOLS.json --queries FILE" in out and "p2p eval tools --help" in out
    assert main(["eval", "bcfl"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no benchmark 'bcfl' and no such file (commands: tools, bfcl")
    assert len(err.splitlines()) == 1
    assert main(["eval", "missing.json", "--queries", "q.jsonl"]) == 2   # a file: as before
    assert "missing.json: no such file" in capsys.readouterr().err
