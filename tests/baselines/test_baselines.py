"""The baselines on the fake LM: run folders like Play2Prompt's, that export and evaluation
accept; EasyTool calls no tool, DRAFT makes exactly its rounds; the cost is in the stats."""

from __future__ import annotations

import json

import pytest

from play2prompt.config import preset
from play2prompt.emit import export_run
from play2prompt.errors import UserError
from play2prompt.evaluation.queries import load_queries, tools_suite
from play2prompt.evaluation.session import EvalOptions, run_evaluation
from play2prompt.optimize import optimize
from play2prompt.results import OPTIMIZED_TOOLS_FILE, RESULT_FILE, load_run_result
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.tools.loading import load_tools
from tests.baselines.fakes import NEXT, baseline_lm
from tests.conftest import EXAMPLES
from tests.sweep.helpers import task_model, write_queries

NAMES = ("convert_units", "loan_payment")


@pytest.fixture
def tools():
    return [t for t in load_tools(EXAMPLES / "tools.json") if t.name in NAMES]


def _run(tmp_path, tools, method, lm=None, **overrides):
    lm = lm or baseline_lm()
    result = optimize(tools, generator=lm, config=preset("quick", **overrides), method=method,
                      runs_dir=tmp_path / "runs", run_id=method, base_dir=EXAMPLES)
    return result, lm


def _store(result):
    return RunStore(result.run_dir / DB_NAME, read_only=True)


def test_easytool_rewrites_each_doc_once_without_calling_a_tool(tmp_path, tools):
    result, lm = _run(tmp_path, tools, "easytool")
    assert len(lm.requests) == len(tools)                 # one rewrite per tool, nothing else
    assert all(r.tools == () or r.tools is None for r in lm.requests)
    store = _store(result)
    assert store.execution_stats() == {}                  # no tool call
    assert store.get_meta("config")["method"] == "easytool"
    assert {c["tool"] for c in store.candidates(stage="doc")} == set(NAMES)
    store.close()
    for r in result.tools.values():
        assert r.doc.description.startswith("EasyTool doc")
        assert set(r.doc.params) == set(r.original.properties)
        assert r.demos == () and r.doc_changed
        assert r.stats["llm_samples"] == 1 and r.stats["prompt_tokens"] > 0
        assert r.stats["play_attempts"] == 0 and r.stats["method"] == "easytool"
    assert result.stats["session"]["llm_calls"] == len(tools)
    assert result.stats["tool_executions"] == 0


def test_draft_makes_exactly_its_rounds_and_reads_what_the_tool_said(tmp_path, tools):
    result, lm = _run(tmp_path, tools, "draft", draft_rounds=3)
    store = _store(result)
    assert store.execution_stats()["convert_units"]["total"] == 3
    assert store.execution_stats()["loan_payment"]["total"] == 3
    for name in NAMES:
        rounds = store.candidates(name, "doc")
        assert [c["iteration"] for c in rounds] == [0, 1, 2]
        assert rounds[1]["parent"] == rounds[0]["id"]
        assert all(c["payload"]["exploration"]["call"]["name"] == name for c in rounds)
    # The second call of convert_units ("miles") fails: the analyser is shown the tool's error
    # and the next explorer the rewriter's direction and the earlier explorations.
    units = store.candidates("convert_units", "doc")
    error = units[1]["payload"]["exploration"]["observation"]["error"]
    assert error and error[:40] in units[1]["payload"]["suggestions"]
    store.close()
    explore = [r for r in lm.requests if "Write a new request" in r.messages[-1]["content"]]
    assert len(explore) == 6
    later = [r.messages[-1]["content"] for r in explore if "Hint for the next exploration" in
             r.messages[-1]["content"]]
    assert len(later) == 4 and all(NEXT in t and "Explored so far" in t for t in later)
    for r in result.tools.values():
        assert r.doc.description.startswith("DRAFT doc") and r.demos == ()
        assert r.stats["rounds"] == 3 and r.stats["tool_calls"] == 3
        assert r.stats["llm_samples"] == 9                 # explore, analyse, rewrite x 3
    assert result.stats["session"]["llm_calls"] == 18


def test_a_baseline_run_folder_exports_and_evaluates(tmp_path, tools):
    result, _ = _run(tmp_path, tools, "draft", draft_rounds=1)
    for name in (RESULT_FILE, OPTIMIZED_TOOLS_FILE, DB_NAME):
        assert (result.run_dir / name).is_file()
    optimized = json.loads((result.run_dir / OPTIMIZED_TOOLS_FILE).read_text())
    assert {t["function"]["description"] for t in optimized["tools"]} == {
        r.doc.description for r in result.tools.values()}
    loaded = load_run_result("draft", tmp_path / "runs")
    exported = json.loads(export_run(loaded, "openai"))
    assert exported[0]["function"]["description"].startswith("DRAFT doc")
    queries = write_queries(tmp_path / "q")
    all_tools = load_tools(EXAMPLES / "tools.json")
    suite = tools_suite(all_tools, load_queries(queries, all_tools), "ex", EXAMPLES)
    evaluated, out = run_evaluation(suite, EvalOptions(prompts="draft", variant="desc-only"),
                                    lm=task_model(), runs_dir=tmp_path / "runs")
    assert [s.side.name for s in evaluated.sides] == ["baseline", "desc-only"]
    assert (out / "summary.md").is_file()


def test_a_resumed_baseline_run_replays_its_log(tmp_path, tools):
    first, _ = _run(tmp_path, tools, "draft", draft_rounds=2)
    again = optimize(resume="draft", runs_dir=tmp_path / "runs", recompute=True,
                     generator=baseline_lm())
    assert again.stats["session"]["llm_calls"] == 0           # every call from the log
    assert {n: r.doc for n, r in again.tools.items()} == {n: r.doc for n, r in
                                                          first.tools.items()}
    with pytest.raises(UserError, match="made with method 'draft'"):
        optimize(resume="draft", runs_dir=tmp_path / "runs", method="easytool",
                 generator=baseline_lm())


def test_unknown_method_is_one_line_and_leaves_no_run(tmp_path, tools):
    with pytest.raises(UserError, match="unknown method 'nope'.*easytool"):
        optimize(tools, generator=baseline_lm(), method="nope", runs_dir=tmp_path / "runs")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_an_unreadable_rewrite_keeps_the_original_doc(tmp_path, tools):
    from play2prompt.lm.fake import FakeLM

    result, _ = _run(tmp_path, tools, "easytool", lm=FakeLM(default="not json"))
    for r in result.tools.values():
        assert r.doc == r.original.doc and not r.doc_changed
        assert "unreadable" in r.doc_reason
