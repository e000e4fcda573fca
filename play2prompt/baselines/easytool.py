"""EasyTool as a baseline: one rewrite per tool, from its documentation alone.

EasyTool (Yuan et al. 2024) turns diverse, lengthy or incomplete tool documentation into a
unified, concise tool instruction: a short description of what the tool does and when to use
it, and structured guidance per parameter with example usage. The rewrite reads only the
documentation: no tool is called, no example is verified, nothing is scored. Here the doc
generator writes it once per tool (meta-prompt ``easytool_rewrite``), decoded as a description
and one text per parameter, so it applies to the tool like any optimized doc. A field the
rewrite leaves empty keeps the original text.
"""

from __future__ import annotations

from play2prompt.baselines._base import doc_schema, finish, read_doc, render, stored_result
from play2prompt.config import OptimizeConfig
from play2prompt.engine import Engine
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json
from play2prompt.results import ToolResult
from play2prompt.tools.model import Tool

METHOD = "easytool"
uses_llm_grading = False   # no judge, no grade: the run skips calibration
PROMPT = "easytool_rewrite"


def tool_budget(config: OptimizeConfig) -> int:
    """One rewrite per tool."""
    return 1


async def optimize_tool(tool: Tool, engine: Engine) -> ToolResult:
    stored = stored_result(engine, tool)
    if stored is not None:
        return stored
    eng = engine.for_tool(tool.name, count_calls=True)   # its one LLM call is its progress
    cfg = eng.config
    eng.reporter.start(tool.name, tool_budget(cfg))
    names = list(tool.properties)
    messages = eng.prompts.render(PROMPT, doc=render(tool, tool.doc), tool=tool.name)
    (answer,), _ = await chat_json(eng.doc_generator, messages, doc_schema(names),
                                   role="generator", seed=derive_seed(cfg.seed, tool.name, METHOD),
                                   temperature=cfg.temperature, max_tokens=900)
    doc, kept = read_doc(answer, tool.doc, names)
    eng.store.put_candidate(f"doc-{tool.name}-{METHOD}", tool=tool.name, stage="doc",
                            iteration=0, parent=None, state="kept", reward=None,
                            payload={"doc": doc.to_dict(), "method": METHOD, "kept_from_d0": kept})
    reason = "EasyTool: one rewrite from the documentation, no tool call"
    if answer is None:
        reason = "EasyTool: the rewrite was unreadable; kept D0"
    elif kept:
        reason += f" (kept D0's text for {', '.join(kept)})"
    return finish(eng, tool, doc, reason, {"method": METHOD, "rewrites": 1})
