"""DRAFT as a baseline: explore the tool, analyse what it did, rewrite the doc; fixed rounds.

DRAFT (Qu et al. 2024, "From Exploration to Mastery") revises a tool's documentation from
the tool's own behaviour, in rounds of three steps:

1. experience gathering: an explorer writes a user request and the call serving it, away
   from what was explored before (the earlier explorations and the rewriter's suggested
   direction are in its prompt; a call already made, or a request nearly the same as an earlier
   one or as the direction, is redrawn once, hotter); the call is executed (schema violations
   and the tool's errors are results too);
2. learning from experience: an analyser compares the current doc with the call and its result
   and suggests changes;
3. documentation rewriting: a rewriter applies the suggestions it finds supported and names
   what to explore next.

Differences from Play2Prompt, on purpose: no demonstrations, no task model, no scoring and no
held-out check; the last round's doc is the result. The paper stops when successive docs
converge; here the number of rounds is fixed (``draft_rounds``), so its cost is known.
The explorer is the generator (G_E); the analyser and rewriter are the doc generator (G_D).
Meta-prompts: ``draft_explore``, ``draft_analyze``, ``draft_rewrite``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.baselines._base import (
    doc_schema,
    finish,
    read_doc,
    render,
    stored_result,
)
from play2prompt.config import OptimizeConfig
from play2prompt.engine import Engine
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.play import arguments_schema
from play2prompt.results import ToolResult
from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc

METHOD = "draft"
uses_llm_grading = False   # no judge, no grade: the run skips calibration
EXPLORE_TRIES = 2          # a repeated exploration is redrawn once
SIMILAR = 0.8              # word overlap (Jaccard) above which a request counts as repeated
HISTORY = 5                # earlier explorations shown to the explorer and the rewriter
ANALYSIS_SCHEMA = object_schema({"suggestions": {"type": "string", "minLength": 30,
                                                  "maxLength": 600}})
NEXT_SCHEMA = {"type": "string", "maxLength": 200}


def tool_budget(config: OptimizeConfig) -> int:
    """Explore, analyse and rewrite per round (LLM calls, when each explores at once)."""
    return 3 * config.draft_rounds


@dataclass(frozen=True)
class Exploration:
    query: str
    invocation: Invocation | None
    observation: Observation

    def line(self) -> str:
        call = self.invocation.to_python() if self.invocation else "(no readable call)"
        return f"- {self.query} -> {call} -> {self.observation.render(200)}"

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query,
                "call": self.invocation.to_dict() if self.invocation else None,
                "observation": self.observation.to_dict()}


def _words(text: str) -> set[str]:
    return {w.strip(".,!?;:").lower() for w in text.split()} - {""}


def _similar(one: str, two: str) -> bool:
    a, b = _words(one), _words(two)
    return bool(a and b) and len(a & b) / len(a | b) >= SIMILAR


def repeated(query: str, inv: Invocation | None, earlier: Sequence[Exploration],
             direction: str = "") -> bool:
    """The call was made before, or the request is nearly one made before (or a copy of the
    direction it was given)."""
    if direction and _similar(query, direction):
        return True
    for ex in earlier:
        if inv is not None and ex.invocation is not None and inv.key() == ex.invocation.key():
            return True
        if _similar(query, ex.query):
            return True
    return False


class Drafter:
    """The rounds of one tool."""

    def __init__(self, tool: Tool, engine: Engine) -> None:
        self.tool = tool
        self.engine = engine
        self.names = list(tool.properties)
        self.explore_schema = object_schema({
            "query": {"type": "string", "minLength": 5, "maxLength": 300},
            "arguments": arguments_schema(tool.parameters)})

    def _seed(self, *parts: Any) -> int:
        return derive_seed(self.engine.config.seed, self.tool.name, METHOD, *parts)

    def _history(self, earlier: Sequence[Exploration]) -> str:
        return "\n".join(ex.line() for ex in earlier[-HISTORY:])

    async def explore(self, doc: ToolDoc, earlier: Sequence[Exploration], direction: str,
                      rnd: int) -> Exploration:
        eng, cfg = self.engine, self.engine.config
        history = self._history(earlier)
        hint = f"Hint for the next exploration: {direction}" if direction else ""
        context = {"doc": render(self.tool, doc), "tool": self.tool.name,
                   "history": f"Explored so far:\n{history}" if history else "", "direction": hint}
        query, inv = "", None
        for t in range(EXPLORE_TRIES):
            (answer,), _ = await chat_json(
                eng.generator, eng.prompts.render("draft_explore", **context),
                self.explore_schema, role="generator", seed=self._seed(rnd, "explore", t),
                temperature=min(1.5, cfg.temperature + 0.35 * t), max_tokens=400,
                validate=False)
            answer = answer if isinstance(answer, Mapping) else {}
            query = str(answer.get("query") or "").strip()
            args = answer.get("arguments")
            inv = Invocation(self.tool.name, dict(args)) if isinstance(args, Mapping) else None
            if not repeated(query, inv, earlier, direction):
                break
        if inv is None:
            obs = Observation.failure("parse", "the explorer wrote no readable call")
        else:
            obs = await eng.runtime.run(inv)
        return Exploration(query or "(no request)", inv, obs)

    async def analyse(self, doc: ToolDoc, ex: Exploration, rnd: int) -> str:
        eng = self.engine
        call = ex.invocation.to_python() if ex.invocation else "(no readable call)"
        messages = eng.prompts.render("draft_analyze", doc=render(self.tool, doc),
                                      query=ex.query, call=call,
                                      result=ex.observation.render(600))
        (answer,), _ = await chat_json(eng.doc_generator, messages, ANALYSIS_SCHEMA,
                                       role="generator", seed=self._seed(rnd, "analyze"),
                                       temperature=eng.config.temperature, max_tokens=400)
        return str(answer["suggestions"]).strip() if isinstance(answer, Mapping) else ""

    async def rewrite(self, doc: ToolDoc, earlier: Sequence[Exploration], suggestions: str,
                      rnd: int) -> tuple[ToolDoc, str, list[str]]:
        eng = self.engine
        messages = eng.prompts.render("draft_rewrite", doc=render(self.tool, doc),
                                      history=self._history(earlier),
                                      suggestions=suggestions or "(none)")
        (answer,), _ = await chat_json(eng.doc_generator, messages,
                                       doc_schema(self.names, next=NEXT_SCHEMA),
                                       role="generator", seed=self._seed(rnd, "rewrite"),
                                       temperature=eng.config.temperature, max_tokens=1000)
        new, kept = read_doc(answer, doc, self.names)
        direction = str(answer.get("next") or "").strip() if isinstance(answer, Mapping) else ""
        return new, direction, kept

    async def run(self) -> tuple[ToolDoc, list[Exploration]]:
        eng, name = self.engine, self.tool.name
        doc, direction = self.tool.doc, ""
        explored: list[Exploration] = []
        for rnd in range(eng.config.draft_rounds):
            ex = await self.explore(doc, explored, direction, rnd)
            explored.append(ex)
            suggestions = await self.analyse(doc, ex, rnd)
            new, direction, kept = await self.rewrite(doc, explored, suggestions, rnd)
            eng.store.put_candidate(
                f"doc-{name}-{METHOD}-{rnd}", tool=name, stage="doc", iteration=rnd,
                parent=f"doc-{name}-{METHOD}-{rnd - 1}" if rnd else None, state="kept",
                reward=None, payload={"doc": new.to_dict(), "method": METHOD,
                                      "exploration": ex.to_dict(), "suggestions": suggestions,
                                      "next": direction, "kept_previous": kept})
            doc = new
        return doc, explored


async def optimize_tool(tool: Tool, engine: Engine) -> ToolResult:
    stored = stored_result(engine, tool)
    if stored is not None:
        return stored
    eng = engine.for_tool(tool.name, count_calls=True)   # each LLM call moves its progress
    rounds = eng.config.draft_rounds
    eng.reporter.start(tool.name, tool_budget(eng.config))
    doc, explored = await Drafter(tool, eng).run()
    executed = [ex for ex in explored if ex.invocation is not None
                and ex.observation.error_type not in ("schema", "parse")]
    stats = {"method": METHOD, "rounds": rounds,
             "play_attempts": len(explored),
             "valid_invocations": sum(1 for ex in explored if ex.observation.ok),
             "tool_calls": len(executed)}
    reason = (f"DRAFT: {rounds} round(s) of exploration, analysis and rewriting; the last doc "
              f"(no held-out check)")
    return finish(eng, tool, doc, reason, stats)
