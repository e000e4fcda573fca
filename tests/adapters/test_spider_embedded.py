"""The agent loop on the embedded model (no native tools: calls emulated by JSON schema)."""

import asyncio

import pytest

from play2prompt.adapters.spider.build import build_spider
from play2prompt.adapters.spider.evaluate import EvalConfig, run_item
from play2prompt.adapters.spider.problems import read_problems
from play2prompt.adapters.spider.retrieval import ToolIndex
from play2prompt.evaluation.items import PromptSide
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.runtime import ToolRuntime
from tests.adapters.spider_fixture import build_tiny_spider


@pytest.mark.embedded
def test_embedded_model_runs_a_fault_episode(tmp_path):
    from play2prompt.lm.registry import make_lm

    build_tiny_spider(tmp_path / "src")
    build_spider(tmp_path / "src", tmp_path / "out", generator=None, limit=2)
    tools = load_tools(tmp_path / "out" / "tools.json")
    problem = next(p for p in read_problems(tmp_path / "out" / "problems.jsonl")
                   if p.has_backup)
    library = {t.name: t for t in tools}
    lm = make_lm("embedded")
    assert not lm.supports_tools
    rt = ToolRuntime(tools, ExecContext(base_dir=tmp_path / "out"))
    try:
        result = asyncio.run(run_item(lm, problem, PromptSide("original"), library, "fault",
                                      EvalConfig(max_turns=2, distractors=0), rt,
                                      ToolIndex(tools), MetaPrompts()))
    finally:
        rt.close()
        lm.close()
    offered = set(library) | {"final_answer", "give_up"}
    steps = result.trajectory["steps"]
    assert 1 <= result.turns <= 2 and steps
    # constrained decoding: every call names an offered tool
    assert all(c["name"] in offered for s in steps for c in s["calls"])
    if result.tool_calls:
        assert result.fault_tool in problem.solution_functions and result.fault_messages >= 1
