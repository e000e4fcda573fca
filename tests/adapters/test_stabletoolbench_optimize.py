"""What `p2p optimize --benchmark stabletoolbench` optimizes, and eval with --prompts."""

import json

import pytest

from play2prompt.adapters import load_benchmark
from play2prompt.cli import main
from play2prompt.errors import UserError
from play2prompt.results import load_run_result
from play2prompt.store.db import RunStore

from .stb_fixtures import slice_source


@pytest.fixture
def bench():
    slice_source()
    return load_benchmark("stabletoolbench")


def test_selects_the_apis_the_queries_use(bench):
    loaded = bench.optimize_tools(subset="G1_instruction")
    names = {t.name for t in loaded.tools}
    assert {"transfermarkt_search_for_theclique", "transfermarkt_details_for_theclique",
            "get_channel_clips_for_kick_com_api_kick_api"} <= names
    assert "songkick_concert_for_theclique" not in names  # offered, but not used
    assert loaded.exec_ctx is None  # optimize() gives the simulator the generator
    one = bench.optimize_tools(subset="G1_instruction", select=["588"])
    assert [t.name for t in one.tools] == ["transfermarkt_search_for_theclique",
                                           "transfermarkt_details_for_theclique"]
    assert len(bench.optimize_tools(subset="G1_instruction", select=["588", "all"]).tools) == 10
    picked = bench.optimize_tools(subset="G1_instruction",
                                  select=["songkick_concert_for_theclique"])
    assert [t.name for t in picked.tools] == ["songkick_concert_for_theclique"]
    with pytest.raises(UserError, match="unknown StableToolBench"):
        bench.optimize_tools(subset="G1_instruction", select=["nope_for_nothing"])


def test_optimize_then_eval_with_the_optimized_prompts(bench, tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["optimize", "--benchmark", "stabletoolbench", "--subset", "G1_instruction",
                 "--tools", "transfermarkt_search_for_theclique", "--preset", "quick",
                 "--depth", "0", "--generator", "fake", "--runs-dir", str(runs),
                 "--run-id", "stb", "-q"]) == 0
    result = load_run_result("stb", runs)
    assert result.config["examples"]["width"] == 3  # the paper's width for StableToolBench
    store = RunStore(runs / "stb" / "run.db")
    executed = store.execution_stats()
    assert executed.get("transfermarkt_search_for_theclique#simulated", {}).get("total", 0) >= 1
    assert store.call_stats()["by_role"]["simulator"]["samples"] >= 1
    store.close()
    capsys.readouterr()
    out = tmp_path / "eval"
    assert main(["eval", "stabletoolbench", "--subset", "G1_instruction", "--limit", "1",
                 "--task-model", "fake", "--format", "json", "--max-steps", "2",
                 "--evaluate-times", "1", "--prompts", "stb", "--runs-dir", str(runs),
                 "-o", str(out), "-q"]) == 0
    assert "+Play2Prompt" in capsys.readouterr().out
    summary = json.loads((out / "results.json").read_text())
    assert set(summary["pass_rates"]) == {"baseline", "play2prompt"}
    rows = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()]
    assert sorted(r["condition"] for r in rows) == ["baseline", "play2prompt"]
