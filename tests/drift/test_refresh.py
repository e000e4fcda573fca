"""``p2p refresh``: a new run where only the drifted tool costs LLM calls, the others' results
come from the old run, and the drifted tool's play starts from the facts still true (plus what
the tool says now)."""

from __future__ import annotations

import json

import pytest

from play2prompt.cli import main
from play2prompt.drift.refresh import refresh
from play2prompt.drift.simulate import simulate
from play2prompt.drift.verify import renamed_params
from play2prompt.lm.fake import FakeLM
from play2prompt.store.meta import Meta
from play2prompt.store.runs import read_meta
from play2prompt.tools.model import Tool
from tests.conftest import EXAMPLES
from tests.drift.runs import make_run, subset_tools_file

NAMES = ("convert_units", "loan_payment", "body_mass_index")


class CountingLM(FakeLM):
    def __init__(self) -> None:
        super().__init__(fill_schema=True, model_id="fake", max_concurrency=4)


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory):
    root = tmp_path_factory.mktemp("refresh")
    tools_file = subset_tools_file(root / "tools", NAMES)
    run_dir = make_run(root / "runs", NAMES, tools_file=tools_file)
    simulate(tools_file, root / "drifted", ["values"], chosen={"values": "convert_units"},
             queries=EXAMPLES / "queries.jsonl")
    lm = CountingLM()
    outcome = refresh(run_dir, root / "drifted" / "tools.json", runs_dir=root / "runs",
                      run_id="fresh", generator=lm)
    return root, run_dir, tools_file, lm, outcome


def test_only_the_drifted_tool_is_reoptimized(refreshed):
    _, _, _, lm, outcome = refreshed
    assert outcome.plan.redo == ("convert_units",)
    assert outcome.plan.reuse == ("loan_payment", "body_mass_index")
    assert lm.requests and {r.tag for r in lm.requests} == {"convert_units"}
    result = outcome.result
    assert result.run_id == "fresh"
    assert result.stats["session"]["llm_calls"] == len(lm.requests)
    assert result.tools["convert_units"].stats["llm_samples"] == len(lm.requests)
    for name in outcome.plan.reuse:
        reused = result.tools[name]
        assert reused.stats["llm_samples"] == 0
        assert reused.stats["reused_from"] == {"run": "base", "llm_samples": 7,
                                               "prompt_tokens": 70, "completion_tokens": 7}
        assert reused.doc.description.endswith("Optimized.") and len(reused.demos) == 1


def test_the_new_run_says_where_it_came_from(refreshed, capsys):
    root, run_dir, _, _, outcome = refreshed
    meta = read_meta(outcome.result.run_dir)
    origin = meta.refreshed_from
    assert origin["run"] == "base" and origin["run_dir"] == str(run_dir)
    assert origin["reoptimized"] == ["convert_units"]
    assert origin["statuses"] == {"convert_units": "now_fails", "loan_payment": "ok",
                                  "body_mass_index": "ok"}
    assert origin["facts"]["convert_units"]["refuted"] >= 1
    optimized = json.loads((outcome.result.run_dir / "tools.optimized.json").read_text())
    executors = {t["function"]["name"]: t["executor"] for t in optimized["tools"]}
    assert executors["loan_payment"] == {"python": "drifted_tools.py:loan_payment"}
    assert main(["runs", "show", "fresh", "--runs-dir", str(root / "runs")]) == 0
    assert "refreshed from run base: re-optimized convert_units; reused loan_payment, " \
        "body_mass_index" in capsys.readouterr().out


def test_facts_still_true_are_kept_and_refuted_ones_dropped(refreshed):
    _, _, _, _, outcome = refreshed
    check = outcome.facts["convert_units"]
    refuted = [f for f in check.refuted if f.kind == "accepts"]
    assert refuted and "km" in refuted[0].values                 # the old unit codes
    assert not check.kept and not check.unconfirmed               # every old call fails now
    found = [f for f in check.found if f.kind == "accepts"]
    assert found and "kilometre" in found[0].values               # what the tool says now
    seeds = read_meta(outcome.result.run_dir).seed_facts["convert_units"]
    assert all(f["values"] != list(refuted[0].values) for f in seeds)


def test_play_starts_from_the_reprobed_facts(refreshed):
    """The first call the generator writes is decoded against the units the tool accepts
    now: the seeded facts made them an enum."""
    _, _, _, lm, _ = refreshed
    first = next(r for r in lm.requests if r.json_schema and "from_unit" in json.dumps(
        r.json_schema))
    enum = first.json_schema["properties"]["from_unit"]["enum"]
    assert "kilometre" in enum and "km" not in enum
    assert "kilometre" in json.dumps([dict(m) for m in first.messages])


def test_nothing_drifted_makes_no_run(refreshed, capsys):
    root, run_dir, tools_file, _, _ = refreshed
    lm = CountingLM()
    outcome = refresh(run_dir, tools_file, runs_dir=root / "runs", generator=lm)
    assert outcome.result is None and lm.requests == []
    assert sorted(p.name for p in (root / "runs").iterdir()) == ["base", "fresh"]
    assert main(["refresh", str(run_dir), str(tools_file), "--runs-dir",
                 str(root / "runs")]) == 0
    assert "nothing drifted since run base" in capsys.readouterr().out


def test_facts_survive_a_renamed_parameter(tmp_path):
    """The old calls are sent with the parameter's new name: what the tool showed about the
    rest (the output, the dates that worked) is still true and kept."""
    import asyncio

    from play2prompt.drift.recorded import open_recorded
    from play2prompt.drift.refresh import recheck_facts
    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.loading import load_tools
    from play2prompt.tools.runtime import ToolRuntime

    tools_file = subset_tools_file(tmp_path / "tools", ("add_days", "loan_payment"))
    run_dir = make_run(tmp_path / "runs", ("add_days", "loan_payment"), tools_file=tools_file)
    simulate(tools_file, tmp_path / "d", ["rename"], chosen={"rename": "add_days"})
    tool = {t.name: t for t in load_tools(tmp_path / "d" / "tools.json")}["add_days"]
    runtime = ToolRuntime([tool], ExecContext(base_dir=tmp_path / "d"))
    try:
        with open_recorded(run_dir) as run:
            facts = run.facts("add_days")
            renames = renamed_params(run.tools["add_days"], tool)
            check = asyncio.run(recheck_facts(
                tool, facts, [c.invocation for c in run.calls("add_days")],
                run.probe_params("add_days"), runtime, renames))
    finally:
        runtime.close()
    assert renames == {"date": "start_date"}
    assert {f.kind for f in check.kept} == {"output", "example"} and not check.refuted
    assert len(check.kept) == len(facts)


def test_a_renamed_parameter_is_recognised():
    def tool(props):
        return Tool("t", "", {"type": "object", "properties": props})

    old = tool({"date": {"type": "string"}, "days": {"type": "integer"}})
    assert renamed_params(old, tool({"start_date": {"type": "string"},
                                     "days": {"type": "integer"}})) == {"date": "start_date"}
    assert renamed_params(old, tool({"start": {"type": "integer"},
                                     "days": {"type": "integer"}})) == {}


def test_refresh_resumes_like_any_run(refreshed):
    root, _, _, _, outcome = refreshed
    lm = CountingLM()
    from play2prompt.optimize import optimize

    again = optimize(generator=lm, resume="fresh", runs_dir=root / "runs")
    assert lm.requests == [] and set(again.tools) == set(outcome.result.tools)
    assert read_meta(root / "runs" / "fresh").status == "done"
    assert Meta.REFRESHED_FROM in json.dumps(list(vars(read_meta(root / "runs" /
                                                                 "fresh")).keys()))


def test_cli_refresh_reports_the_cost_per_tool(refreshed, capsys):
    root, run_dir, _, _, _ = refreshed
    drifted = root / "drifted" / "tools.json"
    assert main(["refresh", str(run_dir), str(drifted), "--runs-dir", str(root / "runs"),
                 "--run-id", "fresh-cli", "--generator", "fake", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["new_run"] == "fresh-cli" and summary["llm_calls"] > 0
    tools = summary["tools"]
    assert tools["convert_units"]["action"] == "re-optimized"
    assert tools["convert_units"]["llm_samples"] == summary["llm_samples"]
    assert tools["loan_payment"] == {"status": "ok", "action": "reused", "llm_samples": 0,
                                     "facts": None}
    assert main(["refresh", str(run_dir), str(drifted), "--runs-dir", str(root / "runs"),
                 "--run-id", "fresh-cli2", "--generator", "fake", "-q"]) == 0
    out = capsys.readouterr().out
    assert "refreshed from base" in out and "re-optimized" in out
