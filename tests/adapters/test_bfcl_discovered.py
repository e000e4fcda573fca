"""BFCL ``--opaque params``: the parameters a run's play discovered (kept in its tool's schema)
are shown on the optimized side under each question's name; the docs as given show none."""

from dataclasses import replace

import pytest

from play2prompt.adapters import load_benchmark
from play2prompt.adapters.bfcl.opacity import Opacity
from play2prompt.adapters.bfcl.opaque_eval import OpaqueSuiteRequest
from play2prompt.lm.fake import FakeLM
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from play2prompt.tools.model import ToolDoc
from tests.adapters.test_bfcl import make_wheel
from tests.adapters.test_bfcl_opacity import prompts_of, suite_of

DARK = Opacity(names=True, descriptions=True, params=True)
FOUND = {"type": "object", "required": ["n", "k"], "properties": {
    "n": {"type": "integer", "description": "Must be at least k; see function_1."},
    "k": {}}}


@pytest.fixture
def data_dir(tmp_path):
    make_wheel(tmp_path / "bfcl")
    return tmp_path / "bfcl"


def discovered_run(data_dir, tmp_path, doc=None):
    """A run that optimized ``choose`` (as function_1) with its parameters removed, whose
    play discovered n and k; ``doc``: the doc it chose (None: it kept the original)."""
    (choose,) = load_benchmark("bfcl").optimize_tools(
        data_dir=data_dir, select=["choose"], opaque=DARK.spec).tools
    assert choose.name == "function_1" and choose.parameters["properties"] == {}
    played = replace(choose, parameters=FOUND)
    result = ToolResult("function_1", played, doc or played.doc, (), doc is not None,
                        stats={"discovered_parameters": ["k", "n"]})
    run = RunResult("found", tmp_path / "runs" / "found", {"function_1": result})
    run.write()
    RunStore(run.run_dir / "run.db").close()
    return run


def shown(result, side, item="exec_multiple_0"):
    return {t["function"]["name"]: t["function"]["parameters"]
            for t in prompts_of(result, side)[item]["tools"]}


@pytest.mark.parametrize("doc", [None, ToolDoc("", {"n": "how many there are", "k": ""})])
def test_optimized_side_shows_the_discovered_parameters(data_dir, tmp_path, doc):
    run = discovered_run(data_dir, tmp_path, doc)
    result, _ = OpaqueSuiteRequest(suite_of(data_dir, DARK), out=tmp_path / "e", opacity=DARK,
                                   prompts=str(run.run_dir), runs_dir=tmp_path / "runs"
                                   ).run(lm=FakeLM(default=""))
    base, full = shown(result, "baseline"), shown(result, "full")
    assert all(p["properties"] == {} and "required" not in p for p in base.values())
    choose = full["function_2"]           # choose is function_2 in this question
    assert choose["required"] == ["n", "k"] and set(choose["properties"]) == {"n", "k"}
    said = choose["properties"]["n"]["description"]
    assert said == ("how many there are" if doc else "Must be at least k; see function_2.")
    assert full["function_1"]["properties"] == {}     # triangle_area: play found nothing
    assert shown(result, "full", "exec_simple_0") == shown(result, "baseline",
                                                           "exec_simple_0")


def test_demos_alone_show_no_parameters(data_dir, tmp_path):
    run = discovered_run(data_dir, tmp_path)
    result, _ = OpaqueSuiteRequest(suite_of(data_dir, DARK), out=tmp_path / "e", opacity=DARK,
                                   prompts=str(run.run_dir), runs_dir=tmp_path / "runs",
                                   variant="demo-only").run(lm=FakeLM(default=""))
    assert shown(result, "demo-only")["function_2"]["properties"] == {}


def test_an_opaque_evaluation_reuses_an_earlier_ones_calls(data_dir, tmp_path):
    """``p2p eval bfcl --opaque ... --reuse-calls EVAL``: the same questions and prompts cost
    no call the second time, and give the same result."""
    def evaluate(out, reuse=()):
        lm = FakeLM(default="", fingerprint="v1")
        result, _ = OpaqueSuiteRequest(suite_of(data_dir, DARK), out=tmp_path / out,
                                       opacity=DARK, runs_dir=tmp_path / "runs",
                                       reuse_calls=reuse).run(lm=lm)
        return result, lm

    first, lm1 = evaluate("a")
    again, lm2 = evaluate("b", (str(tmp_path / "a"),))
    assert lm1.requests and not lm2.requests                 # every call answered from a
    assert ([r["correct"] for r in again.sides[0].records]
            == [r["correct"] for r in first.sides[0].records])
    store = RunStore(tmp_path / "b" / "run.db", read_only=True)
    assert store.run_meta().last_stats["reused_calls"]["hit"] == len(lm1.requests)
    store.close()
