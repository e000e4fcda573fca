"""The evaluation session every benchmark runs in, and the prompt sides of a comparison."""

import pytest

from play2prompt.agent.prompt import Demo
from play2prompt.evaluation.items import PromptSide, run_side, side_for, sides_for
from play2prompt.evaluation.session import EvalSession
from play2prompt.lm.fake import FakeLM
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.meta import EVAL_KIND, Meta, Status
from play2prompt.tools.model import Invocation, ToolDoc


def test_a_folder_session_is_created_then_resumed(tmp_path):
    with EvalSession.at(tmp_path / "e") as session:
        session.start({"suite": "s"})
        assert session.model("fake") is session.model("fake")  # one model per spec
        lm = FakeLM(model_id="fake-obj")
        assert session.model(lm) is lm and lm.log is session.store
        ctx = session.context(tmp_path, lm, timeout=3.0)
        assert ctx.store is session.store and ctx.default_timeout == 3.0
        session.store.put_eval_item("s:base", "q1", {"fingerprint": "a", "correct": True})
    with EvalSession.at(tmp_path / "e") as again:
        meta = again.store.run_meta()
        assert meta.run_id == "e" and meta.kind == EVAL_KIND and meta.status == Status.DONE
        assert meta.config == {"suite": "s"}
        items = again.store
        assert items.get_eval_item("s:base", "q1", "a") == {"fingerprint": "a", "correct": True}
        assert items.get_eval_item("s:base", "q1", "other") is None  # made otherwise
        assert items.get_eval_item("s:base", "q1") is not None
        assert items.get_eval_item("s:base", "q2") is None


def test_a_failure_is_recorded_and_everything_closed(tmp_path):
    with pytest.raises(RuntimeError), EvalSession.open(tmp_path, "x", run_id="r1") as session:
        session.start({}, key=Meta.EVAL_CONFIG)
        raise RuntimeError("boom")
    with EvalSession.open(tmp_path, "x", resume="r1") as resumed:
        meta = resumed.store.run_meta()
        assert meta.status == Status.FAILED and meta.eval_config == {}


def _run(tmp_path, example_tools):
    tool = next(t for t in example_tools if t.name == "loan_payment")
    doc = ToolDoc("Monthly payment of a loan.", {"principal": "amount borrowed"})
    demos = tuple(Demo(f"q{i}", (Invocation(tool.name, {"principal": i}),)) for i in range(3))
    return tool, doc, RunResult("r", tmp_path, {tool.name: ToolResult(tool.name, tool, doc,
                                                                      demos, True)})


def test_sides_give_docs_and_demos_as_named(tmp_path, example_tools):
    tool, doc, run = _run(tmp_path, example_tools)
    base, full = sides_for("full", run, k=2)
    assert base.tools_for([tool]) == [tool] and base.demos_for([tool]) == []
    assert full.tools_for([tool])[0].description == doc.description
    assert len(full.demos_for([tool])) == 2
    assert side_for("desc-only", run).demos_for([tool]) == []
    assert side_for("demo-only", run).tools_for([tool]) == [tool]
    assert [s.name for s in sides_for("full", None)] == ["baseline"]
    dropped = side_for("baseline", None, drop_param_desc=1.0, seed=1).tools_for([tool])[0]
    assert all(text == "" for text in dropped.doc.params.values())
    whole = PromptSide("optimized", tools={tool.name: run.tools[tool.name].optimized})
    assert whole.library({tool.name: tool})[tool.name].description == doc.description
    assert run_side("p", run, k=1).to_dict()["demos"][tool.name] == [
        run.tools[tool.name].demos[0].to_dict()]


def test_a_kept_original_leaves_each_item_its_own_doc(tmp_path, example_tools):
    """BFCL's questions word one function's doc in several ways: a run that kept the tool's
    original (as the run saw it) must not swap in that one wording for every question."""
    tool = next(t for t in example_tools if t.name == "loan_payment")
    kept = RunResult("r", tmp_path, {tool.name: ToolResult(tool.name, tool, tool.doc, (),
                                                           False, "kept the original")})
    worded = tool.with_doc(ToolDoc(tool.doc.description + " (in percent)", tool.doc.params))
    for variant in ("full", "desc-only"):
        side = side_for(variant, kept)
        assert side.docs == {} and side.tools_for([worded]) == [worded]
        assert side.to_dict()["docs"] == side_for("baseline").to_dict()["docs"]
    _, doc, changed = _run(tmp_path, example_tools)
    shown = side_for("full", changed).tools_for([worded])[0].doc
    assert shown.description == doc.description and shown.params["principal"] == "amount borrowed"


def _eval_tools(tmp_path, out, *extra):
    from play2prompt.cli import main
    from tests.conftest import EXAMPLES

    assert main(["eval", "tools", str(EXAMPLES / "tools.json"), "--queries",
                 str(EXAMPLES / "queries.jsonl"), "--task-model", "fake", "--limit", "2",
                 "--oracle", str(EXAMPLES / "tools.oracle.json"), "--runs-dir",
                 str(tmp_path / "runs"), "-o", str(tmp_path / out), "-q", *extra]) == 0
    from play2prompt.store.db import RunStore

    store = RunStore(tmp_path / out / "run.db", read_only=True)
    try:
        return (store.call_stats()["total"]["samples"], store.run_meta(),
                (tmp_path / out / "summary.json").read_text())
    finally:
        store.close()


def test_an_evaluation_reuses_an_earlier_ones_identical_calls(tmp_path):
    """``p2p eval tools --reuse-calls EVAL``: the sides evaluated before cost no call and give
    the same result; the log keeps what this evaluation asked for."""
    import json

    samples, first, summary = _eval_tools(tmp_path, "a")
    assert samples > 0 and first.fingerprints            # recorded: a later one may reuse it
    again, meta, same = _eval_tools(tmp_path, "b", "--reuse-calls", str(tmp_path / "a"))
    reused = meta.last_stats["reused_calls"]
    assert reused["runs"] == ["a"] and reused["seeded"] == samples == reused["hit"] == again
    strip = ("config", "cost")
    assert ({k: v for k, v in json.loads(same).items() if k not in strip}
            == {k: v for k, v in json.loads(summary).items() if k not in strip})
    cost = json.loads(same)["cost"]
    assert [(c["backend calls"], c["cache hits"]) for c in cost] == [(0, 14), (0, 14)]
