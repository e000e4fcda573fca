"""``p2p sweep --benchmark bfcl --opaque``: the methods optimize BFCL's functions under their
run-level opaque names and are evaluated as ``p2p eval bfcl --opaque`` evaluates them (each
question shows its own ``function_1..``), on the fake wheel of tests/adapters/test_bfcl.py."""

import json

import pytest

from play2prompt.adapters import load_benchmark
from play2prompt.cli import main
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM
from play2prompt.sweep.runner import run_sweep
from play2prompt.sweep.target import benchmark_target, called_real_tools, called_tools
from tests.adapters.test_bfcl import make_wheel
from tests.sweep.helpers import spec

HIDDEN = "names,descriptions,param-docs"
REAL = ("triangle_area", "choose", "list_mean", "growth", "point_distance", "sort_numbers",
        "movie_rating", "temperature_report", "current_temperature")
# EasyTool's rewrite of choose, optimized as function_1 (its rank among the offline functions)
REWRITE = {"description": "Counts the subsets: call function_1 with n and k.",
           "params": {"n": "How many items there are.", "k": "How many items each subset has."}}


@pytest.fixture
def data_dir(tmp_path):
    make_wheel(tmp_path / "bfcl")
    return tmp_path / "bfcl"


def opaque_target(data_dir):
    return benchmark_target(load_benchmark("bfcl"), data_dir, "simple,multiple", 2,
                            opaque=HIDDEN)


def gold_task_model(suite) -> FakeLM:
    """Answers every query with its ground truth, under the question's own names."""
    rules = [(item.query, Choice("", tuple(ToolCall(c.name, dict(c.arguments))
                                           for c in item.calls), "tool_calls"))
             for item in suite.items]
    return FakeLM(rules=rules, fill_schema=True, model_id="fake-task")


def generator() -> FakeLM:
    return FakeLM(rules=[("Write the concise instruction for function_1.", REWRITE)],
                  fill_schema=True, model_id="fake-gen")


def _records(sweep_dir, trial, side):
    path = sweep_dir / "trials" / trial / "queries.jsonl"
    return {r["id"]: r for line in path.read_text().splitlines()
            if (r := json.loads(line))["side"] == side}


def test_the_target_optimizes_run_level_names_matched_by_real_name(data_dir):
    target = opaque_target(data_dir)
    assert target.suite.opaque == HIDDEN and target.view is not None
    assert [i.id for i in target.suite.items] == [   # exec_multiple_1 needs the network
        "exec_simple_0", "exec_simple_1", "exec_multiple_0"]
    # per question, function_1 is triangle_area or list_mean, function_2 choose
    assert called_tools(target.suite) == ["function_1", "function_2"]
    assert called_real_tools(target.suite) == ["triangle_area", "list_mean", "choose"]
    by_real = {t.meta["real_name"]: t.name for t in target.tools}
    assert by_real == {"choose": "function_1", "list_mean": "function_3",
                       "triangle_area": "function_6"}        # ranked among all functions
    assert all(t.description == "" for t in target.tools)
    assert target.name == f"bfcl-simple-multiple-opaque-{HIDDEN}"
    clear = benchmark_target(load_benchmark("bfcl"), data_dir, "simple,multiple", 2)
    assert clear.view is None and not clear.suite.opaque
    assert clear.fingerprint() != target.fingerprint()


def test_an_opaque_bfcl_sweep_shows_each_questions_names_and_resumes(data_dir, tmp_path):
    target = opaque_target(data_dir)
    task = gold_task_model(target.suite)
    runs = tmp_path / "runs"
    result = run_sweep(spec("dark", "baseline,easytool"), target, generator=generator(),
                       task_model=task, runs_dir=runs, log=lambda _m: None)
    assert not result.failed
    rows = {r["variant"]: r for r in result.trials.to_dict("records")}
    n = rows["baseline"]["n"]
    assert n == len(target.suite.items) == 3
    assert rows["baseline"]["baseline"] == rows["easytool"]["accuracy"] == 100.0  # real ran
    assert rows["baseline"]["eval_new_calls"] == n
    # its baseline side was evaluated already; of its own side only exec_multiple_0 shows
    # choose (the others' requests are the baseline's, answered from the call log)
    assert rows["easytool"]["eval_new_calls"] == 1
    asked = [r for r in task.requests
             if any(i.query in str(r.messages) for i in target.suite.items)]
    assert len(asked) == n + 1
    for request in asked:
        names = [t["function"]["name"] for t in request.tools]
        assert names == [f"function_{i}" for i in range(1, len(names) + 1)]
        text = json.dumps([request.messages[0], request.tools])   # (a query says "choose")
        assert not any(name in text for name in REAL)          # never a real name
    # choose: function_1 in the run, function_2 in exec_multiple_0, its doc renamed to match
    shown = _records(result.sweep_dir, "0001-easytool", "desc-only")
    tools = {t["function"]["name"]: t["function"]
             for t in shown["exec_multiple_0"]["prompt"]["tools"]}
    assert tools["function_2"]["description"] == \
        "Counts the subsets: call function_2 with n and k."
    assert tools["function_2"]["parameters"]["properties"]["n"]["description"] == \
        REWRITE["params"]["n"]
    assert tools["function_1"]["description"] == ""     # triangle_area: kept as given
    simple = _records(result.sweep_dir, "0001-easytool", "desc-only")["exec_simple_0"]
    assert "Counts the subsets" not in json.dumps(simple["prompt"])
    # The same sweep again (a fresh study): the runs are shared, no side evaluated again.
    again = FakeLM(default="", model_id="fake-task")
    second = run_sweep(spec("dark", "baseline,easytool",
                            storage=f"sqlite:///{tmp_path / 'fresh.db'}"),
                       opaque_target(data_dir), generator=generator(), task_model=again,
                       runs_dir=runs, log=lambda _m: None)
    rows2 = {r["variant"]: r for r in second.trials.to_dict("records")}
    assert rows2["easytool"]["opt_status"] == "shared"
    assert all(r["eval_new_calls"] == 0 for r in rows2.values())
    assert again.requests == []
    assert {v: r["accuracy"] for v, r in rows2.items()} == {
        v: r["accuracy"] for v, r in rows.items()}
    resumed = run_sweep(spec("dark", "baseline,easytool", resume=True),
                        opaque_target(data_dir), generator=generator(), task_model=again,
                        runs_dir=runs, log=lambda _m: None)
    assert resumed.ran == [] and again.requests == []


def test_the_sweep_evaluates_as_eval_bfcl_opaque_does_dropout_included(data_dir, tmp_path):
    """Every side's prompts (the baseline, the run's docs, the oracle's), the parameter
    descriptions dropped as drawn by the run's names, are those of ``p2p eval bfcl --opaque
    names --prompts RUN --oracle-file F --drop-param-desc 0.5``."""
    from play2prompt.adapters.bfcl.opacity import Opacity
    from play2prompt.adapters.bfcl.opaque_eval import OpaqueSuiteRequest

    bench = load_benchmark("bfcl")
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps([{"type": "function", "function": {
        "name": "choose", "description": "ORACLE: n choose k.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}]))
    target = benchmark_target(bench, data_dir, "simple,multiple", 2, opaque="names")
    runs = tmp_path / "runs"
    plan = spec("drop", "easytool", space=["dropout=0.5"])
    result = run_sweep(plan, target.with_oracle(oracle), generator=generator(),
                       task_model=FakeLM(default=""), runs_dir=runs, log=lambda _m: None)
    row, _ = result.trials.to_dict("records")
    suite = bench.eval_suite(data_dir, "simple,multiple", opaque="names")
    evaluated, _ = OpaqueSuiteRequest(
        suite, out=tmp_path / "eval", prompts=row["run_id"], runs_dir=runs,
        variant="desc-only", demos=row["demos"], drop_param_desc=0.5, seed=plan.base.seed,
        limit=2, oracle=oracle, opacity=Opacity(names=True)).run(lm=FakeLM(default=""))
    dropped = 0
    for trial, side in (("0000-easytool", "baseline"), ("0000-easytool", "desc-only"),
                        ("0001-oracle", "baseline"), ("0001-oracle", "oracle")):
        swept = _records(result.sweep_dir, trial, side)
        want = {r["id"]: r["prompt"] for r in evaluated.side(side).records}
        assert {i: r["prompt"] for i, r in swept.items()} == want
        dropped += sum(p.get("description") == "" for prompt in want.values()
                       for t in prompt["tools"]
                       for p in t["function"]["parameters"]["properties"].values())
    assert dropped                                        # p = 0.5 dropped some
    full = evaluated.side("desc-only").records
    assert any("call function_2 with n and k" in json.dumps(r["prompt"]) for r in full)
    shown = _records(result.sweep_dir, "0001-oracle", "oracle")["exec_multiple_0"]["prompt"]
    assert {t["function"]["name"]: t["function"]["description"] for t in shown["tools"]}[
        "function_2"] == "ORACLE: n choose k."


def test_cli_opaque_bfcl_sweep_with_the_evidence_ablation(data_dir, tmp_path, capsys):
    runs = tmp_path / "runs"
    code = main(["sweep", "--benchmark", "bfcl", "--data-dir", str(data_dir), "--opaque",
                 HIDDEN, "--categories", "simple,multiple", "--limit", "2",
                 "--generator", "fake", "--variants", "baseline,full",
                 "--space", "evidence=all,none", "--name", "cli", "--runs-dir", str(runs),
                 "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = json.loads(captured.out)
    assert not out["failed"]
    assert {r["method"] for r in out["summary"]} >= {"baseline", "P2P"}
    assert out["evidence_ablation"]
    sweep_dir = runs / "sweeps" / "cli"
    described = json.loads((sweep_dir / "sweep.json").read_text())["target"]
    assert described["opaque"] == HIDDEN
    assert described["tools"] == ["function_1", "function_3", "function_6"]
    for trial in (sweep_dir / "trials").iterdir():
        for line in (trial / "queries.jsonl").read_text().splitlines():
            tools = json.loads(line)["prompt"]["tools"]
            assert {t["function"]["name"] for t in tools} <= {f"function_{i}"
                                                              for i in range(1, 5)}
            assert not any(name in json.dumps(tools) for name in REAL)


def test_opaque_with_another_benchmark_is_one_line(tmp_path, capsys):
    for benchmark in ("stabletoolbench", "spider"):
        code = main(["sweep", "--benchmark", benchmark, "--opaque", "names", "--generator",
                     "fake", "--runs-dir", str(tmp_path / "r")])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1, err
        assert "--opaque goes with a tools file or --benchmark bfcl" in err
