"""The solvable pass rate, the judge's flow, and end-to-end evaluations with the fake LM."""

import asyncio
import csv
import json

import pytest

from play2prompt.adapters.stabletoolbench.evaluate import Models, Settings, evaluate
from play2prompt.adapters.stabletoolbench.judge import average, judge, pass_rate, precheck
from play2prompt.agent.react import react_step as Step
from play2prompt.agent.react import react_trajectory as Trajectory
from play2prompt.cli import main
from play2prompt.evaluation.items import PromptSide
from play2prompt.lm.fake import FakeLM, prompt_text
from play2prompt.store.db import RunStore
from play2prompt.tools.model import ToolDoc

from .stb_fixtures import react_text, scripted_lm, slice_queries, slice_source, user_query


def test_pass_rate_arithmetic():
    # 3 queries x 2 judge runs: run 0 -> (1 + 0.5 + 0) / 3 = 0.5, run 1 -> (1 + 1 + 0) / 3
    rate = pass_rate([[1.0, 1.0], [0.5, 1.0], [0.0, 0.0]])
    assert rate.per_run == pytest.approx((0.5, 2 / 3))
    assert rate.mean == pytest.approx((0.5 + 2 / 3) / 2)
    assert rate.std == pytest.approx(abs(2 / 3 - 0.5) / 2)  # population std of two runs
    assert rate.n == 3
    other = pass_rate([[0.0, 1.0]])
    avg = average([rate, other])
    assert avg.mean == pytest.approx((rate.mean + other.mean) / 2)
    assert avg.per_run == pytest.approx(((0.5 + 0.0) / 2, (2 / 3 + 1.0) / 2))
    assert pass_rate([]).mean == 0.0


def _traj(finish, steps=()):
    return Trajectory("1", "Find the weather in Paris.", tuple(steps), finish,
                      "finish" if finish is not None else "max_steps")


def test_unfinished_give_up_and_empty_answers_are_unsolved_without_a_judge():
    lm = FakeLM()  # would raise if asked
    for traj in (_traj(None), _traj({"return_type": "give_up_and_restart", "final_answer": ""}),
                 _traj({"return_type": "give_answer", "final_answer": "  "})):
        verdict = asyncio.run(judge(lm, traj))
        assert verdict.status == "Unsolved" and verdict.score == 0.0 and precheck(traj)
    assert lm.requests == []


def test_code_checks_for_small_judges():
    lm = FakeLM(default={"reason": "looks fine", "answer_status": "Solved"})
    called = Step("t", "weather_for_x", {"city": "Paris"}, '{"error": "", "response": "sun"}',
                  ok=True)
    failed = Step("t", "weather_for_x", {}, '{"error": "schema: city required"}')
    echo = _traj({"return_type": "give_answer", "final_answer": "the weather in Paris"}, [called])
    blind = _traj({"return_type": "give_answer", "final_answer": "It is sunny, 21 C."}, [failed])
    good = _traj({"return_type": "give_answer", "final_answer": "It is sunny, 21 C."}, [called])
    for traj, reason in ((echo, "restates"), (blind, "no API call succeeded")):
        verdict = asyncio.run(judge(lm, traj, code_checks=True))
        assert verdict.status == "Unsolved" and reason in verdict.reason
        assert asyncio.run(judge(lm, traj, code_checks=False)).status == "Solved"
    assert asyncio.run(judge(lm, good, code_checks=True)).status == "Solved"


def test_judge_reads_the_trajectory_when_unsure():
    def reply(request, _i):
        text = prompt_text(request)
        if "Trajectory (JSON)" in text:
            assert "sunny, 21 C" in text  # the observation is shown
            return {"reason": "the call returned it", "answer_status": "Solved"}
        return {"reason": "cannot tell", "answer_status": "Unsure"}

    lm = FakeLM(default=reply)
    step = Step("t", "weather_for_x", {"city": "Paris"}, '{"error": "", "response": "sunny, 21 C"}')
    traj = _traj({"return_type": "give_answer", "final_answer": "It is sunny."}, [step])
    verdict = asyncio.run(judge(lm, traj))
    assert verdict.status == "Solved" and verdict.detailed and len(lm.requests) == 2
    lm_unsure = FakeLM(default={"reason": "no idea", "answer_status": "Unsure"})
    assert asyncio.run(judge(lm_unsure, traj)).score == 0.5
    lm_bad = FakeLM(default="no json")
    assert asyncio.run(judge(lm_bad, traj)).status == "Unsolved"


def _agent_by_query(request):
    """Query 588 is solved, 608 gives up, 1073 never finishes."""
    query = user_query(request)
    turns = sum(1 for m in request.messages if m["role"] == "assistant")
    if "gmhikaru" in query:
        return 'Thought: no\nAction: Finish\nAction Input: {"return_type": "give_up_and_restart"}'
    if "birthday" in query:
        return react_text("popularsitesforquery_for_keyword_analysis", {"q": "birthday"})
    if turns == 0:
        return react_text("transfermarkt_search_for_theclique", {"name": "messi"})
    return ('Thought: done\nAction: Finish\nAction Input: {"return_type": "give_answer", '
            '"final_answer": "Messi: clubs Barcelona, PSG, Inter Miami."}')


def test_end_to_end_eval_of_three_queries(tmp_path):
    source = slice_source()
    queries = slice_queries()[:3]
    lm = scripted_lm(_agent_by_query, verdict="Solved",
                     simulated={"Players": [{"name": "Lionel Messi"}]})
    store = RunStore(tmp_path / "run.db")
    doc = ToolDoc("Search Transfermarkt by a player's name.", {"name": "a player name"})
    conds = [PromptSide("baseline"),
             PromptSide("play2prompt", {"transfermarkt_search_for_theclique": doc})]
    report = asyncio.run(evaluate(queries, conds, Models(lm, lm, lm), source, store,
                                  Settings(max_steps=3, evaluate_times=2)))
    base = report.rates["baseline"]
    # 588 solved (1, 1), 608 gave up (0, 0), 1073 hit the step limit (0, 0) -> 1/3
    assert base["G1_instruction"].mean == pytest.approx(1 / 3) and base["G1_instruction"].n == 3
    assert base["Average"].mean == pytest.approx(1 / 3)
    by_id = {r.query_id: r for r in report.results if r.condition == "baseline"}
    assert by_id["588"].scores == [1.0, 1.0] and by_id["608"].scores == [0.0, 0.0]
    assert by_id["1073"].trajectory["stop_reason"] == "max_steps"
    assert len(by_id["1073"].trajectory["steps"]) == 3
    calls = report.calls["baseline"]["by_role"]
    assert calls["judge"] == 2 and calls["simulator"] == 2 and calls["task"] == 2 + 1 + 3
    # the second condition saw the optimized doc and reused the simulated environment
    p2p = report.calls["play2prompt"]["by_role"]
    assert p2p.get("simulator", 0) == 0 and p2p["task"] == 6
    assert any("Search Transfermarkt by a player's name." in prompt_text(r) for r in lm.requests)
    assert len(store.evals()) == 0 and store.get_eval_item("stabletoolbench-baseline",
                                                           "G1_instruction:588")
    store.close()


def test_cli_eval_prints_the_table_and_writes_outputs(tmp_path, capsys):
    slice_source()
    out = tmp_path / "out"
    args = ["eval", "stabletoolbench", "--subset", "G1_instruction", "--limit", "2",
            "--task-model", "fake", "--format", "json", "--max-steps", "2",
            "--evaluate-times", "2", "-o", str(out), "-q"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "StableToolBench solvable pass rate" in text and "G1_instruction" in text
    assert "code checks on" in text  # the fake judge counts as too small to judge
    assert "Average" in text and "LLM calls" in text
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert {r["subset"] for r in rows} == {"G1_instruction", "Average"}
    lines = (out / "trajectories.jsonl").read_text().splitlines()
    assert len(lines) == 2 and {json.loads(x)["query_id"] for x in lines} == {"588", "608"}
    summary = json.loads((out / "results.json").read_text())
    first = summary["pass_rates"]["baseline"]["G1_instruction"]["pass_rate"]
    # rerun into the same folder: everything replays from the store, same numbers, no calls
    assert main(args) == 0
    again = json.loads((out / "results.json").read_text())
    assert again["pass_rates"]["baseline"]["G1_instruction"]["pass_rate"] == first
    assert again["llm_calls"]["baseline"]["calls"] == 0


def test_cli_errors_are_one_line(tmp_path, capsys):
    slice_source()
    assert main(["eval", "stabletoolbench", "--subset", "G9_nothing", "-q",
                 "-o", str(tmp_path / "o")]) == 2
    assert "no query file for subset 'G9_nothing'" in capsys.readouterr().err
    assert main(["eval", "stabletoolbench", "--stb-dir", str(tmp_path / "missing")]) == 2
    assert main(["eval", "stabletoolbench", "--no-baseline", "-o", str(tmp_path / "p")]) == 2


def test_a_rerun_reads_the_stored_queries_back(tmp_path):
    source = slice_source()
    queries = slice_queries()[:2]
    store = RunStore(tmp_path / "run.db")
    settings = Settings(max_steps=3, evaluate_times=1)
    lm = scripted_lm(_agent_by_query, simulated={"Players": [{"name": "Lionel Messi"}]})
    first = asyncio.run(evaluate(queries, [PromptSide("baseline")], Models(lm, lm, lm), source,
                                 store, settings))
    asked = len(lm.requests)
    again = asyncio.run(evaluate(queries, [PromptSide("baseline")], Models(lm, lm, lm), source,
                                 store, settings))
    assert len(lm.requests) == asked  # nothing redone, not even from the call log
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in first.results]
    assert again.rates["baseline"]["Average"] == first.rates["baseline"]["Average"]
    other = asyncio.run(evaluate(queries, [PromptSide("baseline")], Models(lm, lm, lm), source,
                                 store, Settings(max_steps=2, evaluate_times=1)))
    assert len(lm.requests) > asked and other.results[0].trajectory["steps"]
    store.close()
