"""OpaqueToolsBench's opacity settings on BFCL (``--opaque``), on the fake wheel of
test_bfcl.py: the pure transform, the evaluation (the task model sees only opaque tools; the real
functions run and are checked), optimization, and the check against OpaqueToolsBench's files."""

import json

import pytest

from play2prompt.adapters import load_benchmark
from play2prompt.adapters.bfcl.data import open_data
from play2prompt.adapters.bfcl.opacity import (
    NameMap,
    Opacity,
    opaque_question,
    opaque_tool,
    rename_text,
    renamed_doc,
)
from play2prompt.adapters.bfcl.opaque_eval import OpaqueSuiteRequest
from play2prompt.adapters.bfcl.otb_check import check_opaque, config_name
from play2prompt.adapters.bfcl.suite import load_suite
from play2prompt.agent.prompt import Demo
from play2prompt.errors import UserError
from play2prompt.evaluation.session import EvalOptions, run_evaluation
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation, Tool, ToolDoc
from tests.adapters.test_bfcl import make_wheel, oracle

REAL = ("triangle_area", "choose", "list_mean", "growth", "point_distance", "sort_numbers")
ALL = Opacity(names=True, descriptions=True, param_docs=True)


@pytest.fixture
def data_dir(tmp_path):
    make_wheel(tmp_path / "bfcl")
    return tmp_path / "bfcl"


def suite_of(data_dir, opacity, categories=("simple", "multiple")):
    data, root = open_data(data_dir)
    return load_suite(data, root, list(categories), opacity=opacity)


def tool(name="area", params=None):
    params = params or {"type": "object", "required": ["b"],
                        "properties": {"b": {"type": "integer", "description": "The base."}}}
    return Tool(name, "Area of a triangle.", params, {"python": f"m:{name}"}, {"k": 1})


# -- the pure transform -------------------------------------------------------------------
def test_parse_spec_and_bad_values():
    assert Opacity.parse("params, names") == Opacity(names=True, params=True)
    assert Opacity.parse(["names", "descriptions,param-docs"]).spec == \
        "names,descriptions,param-docs"
    assert not Opacity.parse(None) and not Opacity.parse("")
    with pytest.raises(UserError, match="names, descriptions, param-docs, params"):
        Opacity.parse("names,nmes")


def test_names_numbered_per_question_in_order_of_appearance(data_dir):
    names = NameMap.for_question(["b", "a", "b", "c"], Opacity(names=True))
    assert names.shown == {"b": "function_1", "a": "function_2", "c": "function_3"}
    assert NameMap.for_question(["b", "a"], Opacity(descriptions=True)).shown == {
        "b": "b", "a": "a"}
    items = {i.id: i for i in suite_of(data_dir, ALL).items}
    multiple = items["exec_multiple_0"]
    assert multiple.tools == ("function_1", "function_2", "function_3", "function_4")
    assert [s.meta["real_name"] for s in multiple.specs] == [
        "triangle_area", "choose", "list_mean", "movie_rating"]
    assert multiple.calls == (Invocation("function_2", {"n": 5, "k": 2}),)  # choose
    assert items["exec_simple_0"].tools == ("function_1",)                  # triangle_area


def test_blanking_and_params_removal():
    real = tool()
    blank = opaque_tool(real, "function_1", Opacity(names=True, descriptions=True,
                                                    param_docs=True))
    assert (blank.name, blank.description) == ("function_1", "")
    assert blank.parameters == {"type": "object", "required": ["b"],
                                "properties": {"b": {"type": "integer", "description": ""}}}
    assert blank.executor == real.executor and blank.meta["real_name"] == "area"
    assert real.doc.params == {"b": "The base."}  # the real tool is untouched
    kept = opaque_tool(real, "area", Opacity(param_docs=True))
    assert kept.description == "Area of a triangle." and kept.doc.params == {"b": ""}
    removed = opaque_tool(real, "function_1", Opacity(names=True, params=True))
    assert removed.parameters == {"type": "object", "properties": {}}
    assert removed.description == "Area of a triangle."
    assert opaque_tool(removed, "function_2", ALL).meta["real_name"] == "area"


def test_name_map_round_trip_and_renaming():
    tools, names = opaque_question([tool("area"), tool("mean")], Opacity(names=True))
    calls = (Invocation("mean", {"x": [1]}), Invocation("area", {"b": 2}))
    shown = names.to_shown(calls)
    assert [c.name for c in shown] == ["function_2", "function_1"]
    assert names.to_real(shown) == calls
    assert rename_text("call area; not area_2 or subarea", {"area": "function_1"}) == \
        "call function_1; not area_2 or subarea"
    doc = renamed_doc(ToolDoc("n choose k: call choose_k or area", {"x": "see area_of"}),
                      {"choose": "function_1", "choose_k": "function_2", "area_of": "f_3"})
    assert doc == ToolDoc("n choose k: call function_2 or area", {"x": "see f_3"})
    assert rename_text("function_1 then function_2", {"function_1": "function_2",
                                                      "function_2": "function_1"}) == \
        "function_2 then function_1"   # one pass, no chains


# -- evaluation ---------------------------------------------------------------------------
def test_real_functions_run_and_real_ground_truth_is_checked(data_dir, tmp_path):
    plain = suite_of(data_dir, Opacity(), ["simple", "multiple", "parallel"])
    dark = suite_of(data_dir, Opacity(names=True, params=True),
                    ["simple", "multiple", "parallel"])
    truth, _ = run_evaluation(plain, lm=oracle(plain), out_dir=tmp_path / "plain")
    result, _ = OpaqueSuiteRequest(dark, out=tmp_path / "dark", opacity=Opacity(
        names=True, params=True)).run(lm=oracle(dark))
    expected = {r["id"]: r["expected_outputs"] for r in truth.sides[0].records}
    records = result.sides[0].records
    assert all(r["correct"] for r in records)
    assert {r["id"]: r["expected_outputs"] for r in records} == expected
    # the real names are unknown to the task model's tools
    real_names = FakeLM(default=Choice("", (ToolCall("choose", {"n": 5, "k": 2}),)))
    wrong, _ = OpaqueSuiteRequest(dark, out=tmp_path / "real", opacity=Opacity(
        names=True)).run(lm=real_names)
    assert not next(r for r in wrong.sides[0].records if r["id"] == "exec_multiple_0")[
        "correct"]


def prompts_of(result, side="baseline"):
    return {r["id"]: r["prompt"] for r in result.side(side).records}


def shown_params(prompt):
    return {t["function"]["name"]: {n: p.get("description")
                                    for n, p in t["function"]["parameters"]["properties"].items()}
            for t in prompt["tools"]}


def test_composes_with_drop_param_desc_drawn_by_real_function(data_dir, tmp_path):
    plain = suite_of(data_dir, Opacity())
    named = suite_of(data_dir, Opacity(names=True))
    truth, _ = run_evaluation(plain, EvalOptions(drop_param_desc=0.5), lm=FakeLM(default=""),
                              out_dir=tmp_path / "t")
    dark, _ = OpaqueSuiteRequest(named, out=tmp_path / "d", drop_param_desc=0.5,
                                 opacity=Opacity(names=True)).run(lm=FakeLM(default=""))
    real, opaque = prompts_of(truth), prompts_of(dark)
    dropped = 0
    for item in named.items:
        want = shown_params(real[item.id])
        got = shown_params(opaque[item.id])
        assert got == {spec.name: want[spec.meta["real_name"]] for spec in item.specs}
        dropped += sum(d == "" for p in got.values() for d in p.values())
    assert dropped  # p = 0.5 dropped some, the same ones
    blank, _ = OpaqueSuiteRequest(suite_of(data_dir, Opacity(descriptions=True)),
                                  out=tmp_path / "b", drop_param_desc=1.0,
                                  opacity=Opacity(descriptions=True)).run(lm=FakeLM(default=""))
    for prompt in prompts_of(blank).values():
        assert all(t["function"]["description"] == "" for t in prompt["tools"])
        assert all(d == "" for p in shown_params(prompt).values() for d in p.values())


def make_opaque_run(data_dir, tmp_path):
    """A run that optimized ``choose`` under names opacity (as function_1, its global rank)."""
    (choose,) = load_benchmark("bfcl").optimize_tools(
        data_dir=data_dir, select=["choose"], opaque="names,descriptions").tools
    assert choose.name == "function_1"
    doc = ToolDoc("Counts subsets: call function_1 with n and k.",
                  {"n": "set size", "k": "subset size"})
    demo = Demo("Subsets of 3 in 7?", (Invocation("function_1", {"n": 7, "k": 3}),))
    run = RunResult("opq", tmp_path / "runs" / "opq",
                    {"function_1": ToolResult("function_1", choose, doc, (demo,), True)})
    run.write()
    RunStore(run.run_dir / "run.db").close()
    return run


def test_optimized_doc_and_demos_shown_under_each_questions_name(data_dir, tmp_path):
    run = make_opaque_run(data_dir, tmp_path)
    suite = suite_of(data_dir, ALL)
    oracle_file = tmp_path / "oracle.json"
    oracle_file.write_text(json.dumps([{"type": "function", "function": {
        "name": "choose", "description": "ORACLE: n choose k.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}]))
    result, _ = OpaqueSuiteRequest(suite, out=tmp_path / "o", opacity=ALL,
                                   prompts=str(run.run_dir), runs_dir=tmp_path / "runs",
                                   oracle=oracle_file).run(lm=FakeLM(default=""))
    item = next(i for i in suite.items if i.id == "exec_multiple_0")  # choose is function_2
    base = prompts_of(result)[item.id]
    full = prompts_of(result, "full")[item.id]
    orc = prompts_of(result, "oracle")[item.id]
    by_name = {t["function"]["name"]: t["function"] for t in full["tools"]}
    assert by_name["function_2"]["description"] == "Counts subsets: call function_2 with n and k."
    assert by_name["function_2"]["parameters"]["properties"]["n"]["description"] == "set size"
    assert by_name["function_1"]["description"] == ""   # triangle_area: not optimized
    system = full["messages"][0]["content"]
    assert '"name": "function_2"' in system and "Subsets of 3 in 7?" in system
    assert all(t["function"]["description"] == "" for t in base["tools"])
    assert {t["function"]["name"]: t["function"]["description"] for t in orc["tools"]}[
        "function_2"] == "ORACLE: n choose k."   # a word, not renamed
    text = json.dumps([full["tools"], system])
    assert not any(name in text for name in REAL)


def test_optimize_tools_under_opacity(data_dir, tmp_path):
    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.runtime import ToolRuntime

    bench = load_benchmark("bfcl")
    loaded = bench.optimize_tools(data_dir=data_dir, opaque="names,descriptions,params")
    assert [t.name for t in loaded.tools] == [f"function_{i}" for i in range(1, 7)]
    assert [t.meta["real_name"] for t in loaded.tools] == sorted(REAL)  # ranked by real name
    assert all(t.description == "" and t.parameters == {"type": "object", "properties": {}}
               for t in loaded.tools)
    (growth,) = bench.optimize_tools(data_dir=data_dir, subset="simple", select=["growth"],
                                     opaque="names").tools
    assert growth.name == "function_2"  # the same name whatever the subset
    runtime = ToolRuntime(loaded.tools[:1], ExecContext(base_dir=loaded.base_dir))
    try:
        obs = runtime.run_sync(Invocation("function_1", {"n": 5, "k": 2}))
    finally:
        runtime.close()
    assert obs.ok and obs.output == 10


# -- the command line -----------------------------------------------------------------------
def test_cli_eval_bfcl_opaque_end_to_end(data_dir, tmp_path, capsys):
    from play2prompt.cli import main

    out = tmp_path / "out"
    code = main(["eval", "bfcl", "--data-dir", str(data_dir), "--task-model", "fake",
                 "--opaque", "names,descriptions,param-docs", "-o", str(out), "-q"])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "opaque (names,descriptions,param-docs" in text.err
    records = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert len(records) == 7
    for record in records:
        tools = record["prompt"]["tools"]
        assert [t["function"]["name"] for t in tools] == [
            f"function_{i}" for i in range(1, len(tools) + 1)]
        assert not any(name in json.dumps(tools) for name in REAL)
        assert all(t["function"]["description"] == "" for t in tools)
    assert any("function_1" in json.dumps(r["prompt"]) for r in records)


def test_bad_opaque_values_are_one_line(data_dir, tmp_path, capsys):
    from play2prompt.cli import main

    code = main(["eval", "bfcl", "--data-dir", str(data_dir), "--opaque", "names,blank", "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "'blank'" in err and "names, descriptions, param-docs, params" in err
    code = main(["optimize", "--benchmark", "spider", "--opaque", "names", "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--opaque goes with --benchmark bfcl" in err


# -- OpaqueToolsBench's files ----------------------------------------------------------------
def otb_config(suite, category, opacity):
    """What OpaqueToolsBench's generate_configs.py writes for our fake questions."""
    tests = []
    for item in suite.items:
        if item.category != category:
            continue
        tools = []
        for spec in item.specs:
            entry = {"name": spec.name, "description": spec.description}
            if not opacity.params:
                entry["parameters"] = spec.parameters
            tools.append(entry)
        real = {s.meta.get("real_name", s.name): s.name for s in item.specs}
        gold = NameMap(real).to_real(item.calls)
        tests.append({"test_id": int(item.id.rsplit("_", 1)[1]), "question": item.query,
                      "tools": tools, "name_mapping": real,
                      "ground_truth": [c.to_python() for c in gold]})
    return {"config_name": config_name(category, opacity), "tests": tests}


def test_opaque_check_against_opaquetoolsbench_configs(data_dir, tmp_path):
    opacity = Opacity(names=True, descriptions=True, params=True)
    suite = suite_of(data_dir, opacity)
    folder = tmp_path / "otb" / "tool_configs"
    folder.mkdir(parents=True)
    assert config_name("multiple", opacity) == ("executable_multiple_function_name[all:"
                                                "increasing_number]_desc[all:blank]_param"
                                                "[all:remove_all]_config.json")
    for category in ("simple", "multiple"):
        (folder / config_name(category, opacity)).write_text(
            json.dumps(otb_config(suite, category, opacity)))
    lines = check_opaque(tmp_path / "otb", suite, opacity)
    assert lines == [f"OpaqueToolsBench check ({tmp_path / 'otb'}, --opaque "
                     f"names,descriptions,params): 4 questions compared, 0 difference(s)"]
    config = otb_config(suite, "multiple", opacity)
    config["tests"][0]["tools"][1]["description"] = "Binomial coefficient."
    config["tests"][0]["name_mapping"]["choose"] = "function_3"
    (folder / config_name("multiple", opacity)).write_text(json.dumps(config))
    lines = check_opaque(tmp_path / "otb", suite, opacity)
    assert "2 difference(s)" in lines[0] and len(lines) == 3
    assert "exec_multiple_0" in lines[1] and "function_2 description" in lines[1]
    assert "name mapping" in lines[2]
    other = check_opaque(tmp_path / "otb", suite_of(data_dir, ALL), ALL)
    assert "0 questions compared" in other[0] and "not found" in other[0]
    with pytest.raises(UserError, match="not a folder"):
        check_opaque(tmp_path / "nowhere", suite, opacity)
