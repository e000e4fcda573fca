"""``p2p sweep`` on fake models: grid rows, shared optimization runs, resume after a kill."""

import json
from collections import Counter

import pytest

from play2prompt.cli import main
from play2prompt.errors import UserError
from play2prompt.store.db import RunStore
from play2prompt.sweep.runner import run_sweep
from tests.sweep.helpers import CountingLM, Killed, spec, target, task_model


def _sweep(tmp_path, name, variants, gen, **kwargs):
    return run_sweep(spec(name, variants, **kwargs.pop("spec", {})), target(tmp_path),
                     generator=gen, task_model=task_model(), runs_dir=tmp_path / "runs",
                     log=lambda _m: None, **kwargs)


def test_grid_over_two_variants_yields_the_expected_rows(tmp_path):
    result = _sweep(tmp_path, "two", "full,desc-only", CountingLM())
    rows = result.trials.to_dict("records")
    assert [r["variant"] for r in rows] == ["full", "desc-only"]
    assert rows[0]["run_id"] == rows[1]["run_id"]           # one optimization run
    assert [r["opt_status"] for r in rows] == ["new", "shared"]
    assert rows[1]["opt_new_calls"] == 0
    assert rows[1]["opt_saved_calls"] == rows[0]["opt_calls"] > 0
    for r in rows:
        assert {"acc:loan", "acc:bmi", "base:loan", "base:bmi"} <= set(r)
        assert r["eval_requests"] == 2
    # The task model is right only with demonstrations: full beats desc-only and baseline.
    assert rows[0]["accuracy"] > rows[1]["accuracy"] == rows[0]["baseline"] == 0.0
    summary = result.summary
    assert summary["method"].tolist() == ["baseline", "P2P-Desc", "P2P"]   # the paper's order
    assert {"loan", "bmi", "average", "overall"} <= set(summary.columns)
    assert result.cost["optimization_runs"] == 1
    assert result.cost["optimization_calls_saved_by_sharing"] == rows[0]["opt_calls"]
    for name in ("trials.csv", "trials.md", "summary.csv", "summary.md", "cost.json"):
        assert (result.sweep_dir / name).is_file()
    for key in ("accuracy_per_variant", "accuracy_vs_calls"):
        assert result.files[key].read_bytes().startswith(b"\x89PNG")
    assert "P2P-Desc" in (result.sweep_dir / "summary.md").read_text()
    # The evaluation is attached to the optimization run (p2p report shows it).
    store = RunStore(tmp_path / "runs" / rows[0]["run_id"] / "run.db")
    assert {e["config"]["variant"] for e in store.evals()} == {"full", "desc-only"}
    store.close()


def test_inference_only_variants_do_not_repeat_optimization_calls(tmp_path):
    one = CountingLM()
    _sweep(tmp_path / "a", "one", "full", one)
    three = CountingLM()
    result = _sweep(tmp_path / "b", "three", "full,desc-only,demo-only", three)
    assert len(three.keys) == len(one.keys) > 0            # made once, not three times
    assert set(three.keys) == set(one.keys)
    rows = result.trials.to_dict("records")
    assert [r["opt_status"] for r in rows] == ["new", "shared", "shared"]
    assert result.cost["optimization_calls_saved_by_sharing"] == 2 * rows[0]["opt_calls"]


def test_killed_sweep_resumes_without_rerunning_finished_trials(tmp_path):
    reference = CountingLM()
    ref = _sweep(tmp_path / "ref", "k", "full,easy", reference)
    assert len({r["run_id"] for r in ref.trials.to_dict("records")}) == 2   # easy: lambda 0
    first = CountingLM(kill_after=int(len(reference.keys) * 0.75))  # inside easy's run
    with pytest.raises(Killed):
        _sweep(tmp_path / "run", "k", "full,easy", first)
    with pytest.raises(UserError, match="--resume"):
        _sweep(tmp_path / "run", "k", "full,easy", CountingLM())
    second = CountingLM()
    resumed = _sweep(tmp_path / "run", "k", "full,easy", second, spec={"resume": True})
    assert len(resumed.ran) == 1                            # only the killed trial again
    # Exactly the calls of an uninterrupted sweep: none made twice, none missing (the two
    # runs make some identical requests; each run makes each once).
    assert Counter(first.keys) + Counter(second.keys) == Counter(reference.keys)
    rows = resumed.trials.to_dict("records")
    assert [r["variant"] for r in rows] == ["full", "easy"]
    assert rows[1]["opt_status"] == "resumed" and rows[1]["opt_saved_calls"] > 0
    assert rows[1]["accuracy"] == ref.trials.to_dict("records")[1]["accuracy"]
    # A finished sweep resumed again runs nothing.
    again = CountingLM()
    done = _sweep(tmp_path / "run", "k", "full,easy", again, spec={"resume": True})
    assert done.ran == [] and again.keys == []


def test_a_resumed_sweep_takes_its_values_in_a_new_order_but_not_new_values(tmp_path):
    """Reordering a setting's values on --resume runs the rest in the new order (Optuna's
    categorical refuses reordered choices; the study's own are used); another set of values
    is one line."""
    reference = CountingLM()
    _sweep(tmp_path / "ref", "k", "full,easy", reference)
    first = CountingLM(kill_after=int(len(reference.keys) * 0.75))  # inside easy's run
    with pytest.raises(Killed):
        _sweep(tmp_path / "run", "k", "full,easy", first)
    resumed = _sweep(tmp_path / "run", "k", "easy,full", CountingLM(), spec={"resume": True})
    assert len(resumed.ran) == 1
    assert sorted(r["variant"] for r in resumed.trials.to_dict("records")) == ["easy", "full"]
    with pytest.raises(UserError, match="keeps its values"):
        _sweep(tmp_path / "run", "k", "full,desc-only", CountingLM(), spec={"resume": True})


def test_sampler_with_budget_and_two_objectives(tmp_path):
    result = _sweep(tmp_path, "tpe", "full,demo-only", CountingLM(),
                    spec={"sampler": "tpe", "n_trials": 3, "minimize_calls": True,
                          "space": ["demos=1,2"],
                          "storage": f"sqlite:///{tmp_path / 'shared.db'}"})
    assert (tmp_path / "shared.db").is_file()              # any database URL
    assert not (result.sweep_dir / "study.db").exists()
    rows = result.trials.to_dict("records")
    assert len(rows) == 3
    assert {r["demos"] for r in rows} <= {1, 2}
    assert len({r["run_id"] for r in rows}) == 1            # demos: inference only
    assert all(r["llm_calls"] == r["opt_calls"] + r["eval_requests"] for r in rows)


def test_cli_sweep_and_report(tmp_path, capsys):
    from tests.conftest import EXAMPLES
    from tests.sweep.helpers import write_queries

    queries = write_queries(tmp_path)
    code = main(["sweep", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--generator", "fake", "--variants", "full,demo-only", "--name", "cli",
                 "--runs-dir", str(tmp_path / "runs"), "-q"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "P2P-Demo" in out and "saved by sharing" in out
    data = json.loads((tmp_path / "runs" / "sweeps" / "cli" / "sweep.json").read_text())
    run_id = next(p.name for p in (tmp_path / "runs").iterdir() if p.name.startswith("sweep-"))
    assert data["space"]["variant"] == ["full", "demo-only"]
    assert main(["report", run_id, "--runs-dir", str(tmp_path / "runs")]) == 0
    assert (tmp_path / "runs" / run_id / "report" / "report.html").is_file()
    assert main(["sweep", "--generator", "fake", "--runs-dir", str(tmp_path / "r")]) == 2
    assert main(["sweep", "--benchmark", "bfcl", "--space", "depth", "--generator",
                 "fake", "--runs-dir", str(tmp_path / "r")]) == 2
    assert main(["sweep", "--benchmark", "spider", "--opaque", "names", "--generator", "fake",
                 "--runs-dir", str(tmp_path / "r")]) == 2
    assert "--opaque goes with a tools file or --benchmark bfcl" in capsys.readouterr().err


def test_other_swept_settings_get_rows_of_their_own_in_the_summary(tmp_path):
    result = _sweep(tmp_path, "depth", "full", CountingLM(), spec={"space": ["depth=0,1"]})
    rows = result.trials.to_dict("records")
    assert [r["depth"] for r in rows] == [0, 1]
    assert rows[0]["run_id"] != rows[1]["run_id"]
    assert rows[0]["opt_calls"] < rows[1]["opt_calls"]
    summary = result.summary.to_dict("records")
    assert [(r["method"], r["depth"]) for r in summary] == [
        ("baseline", 0), ("P2P", 0), ("baseline", 1), ("P2P", 1)]


class _Bug(CountingLM):
    """A generator with a bug in it: its call number ``at`` raises a plain exception."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    async def _generate(self, request):
        if len(self.keys) == self.at:
            self.keys.append("bug")
            raise ArithmeticError("int too large to convert to float")
        return await super()._generate(request)


def test_a_failed_trial_names_the_bug_the_tool_and_keeps_the_traceback(tmp_path):
    reference = CountingLM()
    _sweep(tmp_path / "ref", "b", "full", reference)
    lines = []
    result = run_sweep(spec("b", "full"), target(tmp_path / "run"),
                       generator=_Bug(len(reference.keys) // 2), task_model=task_model(),
                       runs_dir=tmp_path / "run" / "runs", log=lines.append)
    assert result.ran == [] and len(result.failed) == 1
    why = result.failed[0]
    assert why.startswith("trial 0 (variant=full): ArithmeticError: int too large")
    assert " at lm/_base.py:" in why                       # the package's line that raised
    assert "while optimizing tool '" in why and "--resume" in why
    kept = result.sweep_dir / "trials" / "0000-failed.txt"
    assert f"(traceback: {kept})" in why
    assert any(line.startswith("trial 0 failed: ArithmeticError") and str(kept) in line
               for line in lines)
    assert "Traceback" in kept.read_text() and "_generate" in kept.read_text()


def test_an_opaque_sweep_optimizes_and_evaluates_the_opaque_tools(tmp_path):
    """``p2p sweep TOOLS --opaque ...``: every side shows function_1..N with blank docs (the
    oracle's docs under those names), the gold calls are renamed and the real tools run."""
    from play2prompt.lm.fake import FakeLM, tool_call
    from play2prompt.sweep.target import tools_target
    from tests.conftest import EXAMPLES
    from tests.sweep.helpers import BMI, LOAN, QUERIES, write_queries

    shown = {"loan_payment": "function_6", "body_mass_index": "function_2"}
    answers = [(q["query"], tool_call(shown[c["name"]], c["arguments"]))
               for q in QUERIES for c in q["calls"]]
    task = FakeLM(rules=answers, fill_schema=True, model_id="fake-task")
    hidden = "names,descriptions,param-docs"
    target = tools_target(EXAMPLES / "tools.json", write_queries(tmp_path), opaque=hidden)
    target = target.with_oracle(EXAMPLES / "tools.oracle.json")
    assert sorted(t.name for t in target.tools) == ["function_2", "function_6"]
    result = run_sweep(spec("dark", "full,oracle"), target, generator=CountingLM(),
                       task_model=task, runs_dir=tmp_path / "runs", log=lambda _m: None)
    rows = {r["variant"]: r for r in result.trials.to_dict("records")}
    assert rows["full"]["baseline"] == rows["oracle"]["baseline"] == 100.0  # real tools ran
    asked = [r for r in task.requests if any(q["query"] in str(r.messages) for q in QUERIES)]
    names = {t.get("function", t)["name"] for r in asked for t in r.tools}
    assert names == {f"function_{i}" for i in range(1, 8)}          # never a real name
    oracle_bmi = next(t for t in target.oracle if t.name == "body_mass_index")
    assert any(oracle_bmi.description in str(r.tools) for r in asked)  # under function_2
    assert json.loads((result.sweep_dir / "sweep.json").read_text())["target"]["opaque"] == \
        hidden
    assert {LOAN["name"], BMI["name"]}.isdisjoint(names)
