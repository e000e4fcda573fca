"""Cost savers: identical tool calls in flight share one execution; sibling candidates never
refine the same call; patience stops a flat beam early (end to end through the CLI); a run
redone from its log makes no LLM call; per-backend concurrency limits."""

import asyncio
import json

import pytest

from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.evidence.names import CONVENTIONS, DEFAULT_EVIDENCE
from play2prompt.lm.fake import M1_MARK, FakeLM
from play2prompt.lm.registry import LMPool, concurrency_for, parse_concurrency
from play2prompt.method.example_search import ExampleSpace
from play2prompt.optimize import optimize
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import EXAMPLES
from tests.scale_support import JitterLM, tools_part

LOAN = {"principal": 1000, "annual_rate": 5, "years": 2}
OTHER = {"principal": 2500, "annual_rate": 3, "years": 4}


def test_identical_executions_in_flight_share_one_run(example_tools, exec_ctx, store):
    rt = ToolRuntime(example_tools, exec_ctx, store)

    async def both():
        inv = Invocation("loan_payment", LOAN)
        return await asyncio.gather(*(rt.run(inv) for _ in range(5)))

    try:
        outs = asyncio.run(both())
    finally:
        rt.close()
    assert all(o.ok and o.output == outs[0].output for o in outs)
    assert rt.executions == 1 and rt.cache_hits == 4


def test_siblings_that_find_the_same_call_vary_it(example_tools, make_engine):
    def m1(request, index):  # the same call, unless told that it was explored already
        return OTHER if "principal=1000" in request.messages[-1]["content"] else LOAN

    gen = FakeLM(rules=[(f"{M1_MARK}loan_payment.", m1)], fill_schema=True)
    tool = next(t for t in example_tools if t.name == "loan_payment")
    # conventions' own calls (the rate run doubled and tripled) are not the siblings'
    engine = make_engine([tool], gen, evidence=tuple(
        n for n in DEFAULT_EVIDENCE if n != CONVENTIONS))
    space = ExampleSpace(tool, engine)
    found = asyncio.run(space.propose(None, 3, 0, ["a", "b", "c"]))
    calls = [ex.invocation.arguments for ex in found]
    assert calls == [LOAN, OTHER]            # b varied its call; c repeated OTHER: dropped
    assert space.sibling_duplicates == 2 and engine.runtime.executions == 2
    plays = space.plays
    assert [p.ok for p in plays] == [True, True, False]
    assert any(a.observation.error_type == "duplicate" for a in plays[2].attempts)


def _cli(tmp_path, run_id, *extra):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment",
                 "--generator", "fake", "--preset", "quick", "--depth", "4", "--seed", "1",
                 "--runs-dir", str(tmp_path), "--run-id", run_id, "-q", *extra])
    assert code == 0
    return json.loads((tmp_path / run_id / "result.json").read_text())


def test_patience_stops_a_flat_search_early_through_the_cli(tmp_path, capsys):
    full = _cli(tmp_path, "full")
    early = _cli(tmp_path, "early", "--patience", "1")
    f, e = full["tools"]["loan_payment"]["stats"], early["tools"]["loan_payment"]["stats"]
    assert early["config"]["patience"] == 1
    assert len(f["best_reward_per_iteration"]) == 5 and not f["stopped_early"]["examples"]
    assert e["stopped_early"]["examples"]
    assert len(e["best_reward_per_iteration"]) < 5
    assert e["llm_samples"] < f["llm_samples"]
    assert early["stats"]["session"]["llm_calls"] < full["stats"]["session"]["llm_calls"]


def test_a_run_redone_from_its_log_makes_no_call(tmp_path, example_tools):
    tools = example_tools[:3]
    first = optimize(tools, generator=JitterLM(rng_seed=1), config=preset("quick"),
                     runs_dir=tmp_path, run_id="r", base_dir=EXAMPLES)
    again = optimize(generator=JitterLM(rng_seed=2), resume="r", runs_dir=tmp_path,
                     recompute=True)
    session = again.stats["session"]
    assert session["llm_calls"] == 0 and session["cache_hits"] > 50
    assert again.stats["tool_executions"] == 0
    assert tools_part(again.run_dir) == tools_part(first.run_dir)


def test_concurrency_settings_per_backend():
    assert parse_concurrency(None) is None and parse_concurrency(["6"]) == 6
    setting = parse_concurrency(["4", "openai=32", "embedded=2"])
    assert setting == {"*": 4, "openai": 32, "embedded": 2}
    assert concurrency_for(setting, "openai:gpt-4o-mini") == 32
    assert concurrency_for(setting, "embedded") == 2
    assert concurrency_for(setting, "fake:0.2") == 4
    assert concurrency_for({"fake:0.2": 9}, "fake:0.2") == 9
    assert concurrency_for({"openai": 3}, "fake") is None
    for bad in (["0"], ["x"], ["=3"], ["openai=-1"]):
        with pytest.raises(UserError):
            parse_concurrency(bad)
    pool = LMPool(max_concurrency=setting)
    assert pool.get("fake:0.01").max_concurrency == 4
    assert pool.get("embedded").parallel == 2      # llama.cpp slots; the model is not loaded


def test_cli_max_concurrency_per_backend_is_stored(tmp_path):
    result = _cli(tmp_path, "conc", "--depth", "1", "--max-concurrency", "fake=3",
                  "--max-concurrency", "5")
    assert result["config"]["max_concurrency"] == {"fake": 3, "*": 5}
    assert main(["optimize", str(EXAMPLES / "tools.json"), "--max-concurrency", "fast",
                 "--runs-dir", str(tmp_path), "-q"]) == 2
