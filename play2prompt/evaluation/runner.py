"""Run an evaluation: every item once per side, scored by execution, recorded in a run store.

For each side (baseline, then the optimized variant) the items run concurrently (the LM bounds
the requests in flight); the result does not depend on the order because every item has its
own seed. Each finished item is written to the store at once (``eval_items``), keyed by the
side and the item, with a fingerprint of the exact request: a killed evaluation, started again
with the same settings, reuses what it finished and only runs the rest. An item whose ground
truth fails is skipped (the reason scrubbed with the context's scrubber).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from play2prompt.agent.prompt import TaskPrompter
from play2prompt.evaluation.items import EvalItem, EvalSuite, PromptSide, Skipped
from play2prompt.jsonutil import derive_seed, stable_hash, to_jsonable
from play2prompt.lm._base import ChatRequest, Choice
from play2prompt.progress import NullReporter, Reporter
from play2prompt.scoring.checker import check_calls, failed
from play2prompt.scoring.parse import ParseError, parse_calls
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation, Observation
from play2prompt.tools.runtime import ToolRuntime


@dataclass(frozen=True)
class EvalSettings:
    mode: str = "function-calling"
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 400

    def __post_init__(self) -> None:
        from play2prompt import limits

        limits.TEMPERATURE.check(self.temperature, "--temperature")


@dataclass
class SideResult:
    side: PromptSide
    records: list[dict[str, Any]]
    wall_s: float = 0.0
    resumed: int = 0           # records reused from the store

    def cost(self) -> dict[str, Any]:
        """What this side cost: model requests, backend calls (not from the call log), tokens."""
        fresh = [r for r in self.records if not r.get("cached")]
        return {
            "side": self.side.name,
            "requests": len(self.records),
            "backend calls": len(fresh),
            "cache hits": len(self.records) - len(fresh),
            "prompt tok": sum(r["usage"]["prompt_tokens"] for r in self.records),
            "compl tok": sum(r["usage"]["completion_tokens"] for r in self.records),
            "resumed": self.resumed,
            "wall s": round(self.wall_s, 1),
        }


@dataclass
class EvalResult:
    suite: EvalSuite
    sides: list[SideResult]
    skipped: list[Skipped] = field(default_factory=list)
    config: Mapping[str, Any] = field(default_factory=dict)

    def side(self, name: str) -> SideResult:
        return next(s for s in self.sides if s.side.name == name)


class Evaluator:
    """Runs items for one suite; holds the LM, store, settings and execution context."""

    def __init__(self, suite: EvalSuite, lm: Any, store: RunStore, settings: EvalSettings,
                 ctx: ExecContext, reporter: Reporter | None = None) -> None:
        self.suite = suite
        self.lm = lm
        self.store = store
        self.settings = settings
        self.ctx = ctx
        self.prompter = TaskPrompter(mode=settings.mode)
        self.reporter = reporter or NullReporter()

    def runtime(self, item: EvalItem) -> ToolRuntime:
        cls = ToolRuntime if self.suite.validate_schema else ExecOnlyRuntime
        return cls(self.suite.item_tools(item), self.ctx, self.store)

    # -- ground truth ----------------------------------------------------------------------
    async def expected(self, item: EvalItem) -> list[Any] | Skipped:
        if item.expected_outputs is not None:
            return list(item.expected_outputs)
        runtime = self.runtime(item)
        observations = await asyncio.gather(*(runtime.run(c) for c in item.calls))
        for call, obs in zip(item.calls, observations):
            if not obs.ok:   # the tool's error, scrubbed: the reason is printed and written
                return Skipped(item.id, self.ctx.scrubber.text(
                    f"ground truth {call.name} failed: {obs.error}"), item.category)
        return [o.output for o in observations]

    # -- one item --------------------------------------------------------------------------
    def request(self, item: EvalItem, side: PromptSide) -> ChatRequest:
        originals = self.suite.item_tools(item)
        tools = side.tools_for(originals)
        demos = side.demos_for(originals)
        return self.prompter.request(
            tools, item.query, demos, seed=derive_seed(self.settings.seed, item.id),
            temperature=self.settings.temperature, parallel=item.parallel,
            max_tokens=self.settings.max_tokens)

    async def run_item(self, item: EvalItem, side: PromptSide, expected: list[Any]
                       ) -> tuple[dict[str, Any], bool]:
        """The item's record and whether it came from the store."""
        eval_id = f"{self.suite.name}:{side.name}"
        request = self.request(item, side)
        fingerprint = stable_hash(self.lm.model_id, request.key_payload(), item.fingerprint(),
                                  to_jsonable(expected), self.suite.require_exec)
        stored = self.store.get_eval_item(eval_id, item.id, fingerprint)
        if stored is not None:
            return stored, True
        start = time.perf_counter()
        response = await self.lm.tagged(f"eval:{side.name}").chat(request)
        latency = time.perf_counter() - start
        choice = response.choices[0] if response.choices else Choice("")
        names = set(item.tools)
        try:
            calls = [normalise_call(c, names) for c in parse_calls(choice)]
            parse_error = None
        except ParseError as exc:
            calls, parse_error = [], f"unparseable output: {exc}"
        if parse_error:
            outcome = failed(parse_error)
        else:
            outcome = await check_calls(calls, item.calls, self.runtime(item),
                                        expected_outputs=expected, match=item.match,
                                        require_exec=self.suite.require_exec)
        record = {
            "id": item.id, "side": side.name, "category": item.category, "query": item.query,
            "fingerprint": fingerprint,
            "prompt": {"messages": [dict(m) for m in request.messages],
                       "tools": [dict(t) for t in request.tools or ()]},
            "raw": _raw(choice),
            "parsed": [c.to_dict() for c in calls],
            "gold": [c.to_dict() for c in item.calls], "match": list(item.match),
            "expected_outputs": to_jsonable(expected),
            "correct": outcome.correct, "ast_ok": outcome.ast_ok, "exec_ok": outcome.exec_ok,
            "error": outcome.error, "outcome": outcome.to_dict(),
            "usage": {"prompt_tokens": response.usage.prompt_tokens,
                      "completion_tokens": response.usage.completion_tokens},
            "cached": bool(response.cached), "latency_s": round(latency, 3),
        }
        self.store.put_eval_item(eval_id, item.id, record)
        return record, False

    async def run_side(self, side: PromptSide, items: Sequence[EvalItem],
                       expected: Mapping[str, list[Any]]) -> SideResult:
        start = time.perf_counter()
        label = f"eval {side.name}"
        self.reporter.start(label, len(items))

        async def one(item: EvalItem) -> tuple[dict[str, Any], bool]:
            out = await self.run_item(item, side, expected[item.id])
            self.reporter.advance(label)
            return out

        # Every item finishes (and is stored) before a failure is raised, so that running
        # the same evaluation again only redoes the items that failed.
        outcomes = await asyncio.gather(*(one(i) for i in items), return_exceptions=True)
        errors = [o for o in outcomes if isinstance(o, BaseException)]
        if errors:
            raise errors[0]
        done = [o for o in outcomes if not isinstance(o, BaseException)]
        records = [r for r, _ in done]
        correct = sum(1 for r in records if r["correct"])
        self.reporter.done(label, f"{correct}/{len(records)} correct")
        return SideResult(side, records, time.perf_counter() - start,
                          sum(1 for _, reused in done if reused))

    async def run(self, sides: Sequence[PromptSide]) -> EvalResult:
        gold = await asyncio.gather(*(self.expected(i) for i in self.suite.items))
        skipped = list(self.suite.skipped)
        expected: dict[str, list[Any]] = {}
        items = []
        for item, out in zip(self.suite.items, gold):
            if isinstance(out, Skipped):
                skipped.append(out)
            else:
                expected[item.id] = out
                items.append(item)
        results = [await self.run_side(side, items, expected) for side in sides]
        return EvalResult(self.suite, results, skipped)


class ExecOnlyRuntime(ToolRuntime):
    """Runs any call of a known tool without checking it against the schema first, as BFCL's
    executable checker does (its specs are sometimes narrower than the functions)."""

    def check(self, invocation: Invocation) -> Observation | None:
        if invocation.name not in self.tools:
            return Observation.failure("unknown_tool", f"no tool named {invocation.name!r}")
        if not isinstance(invocation.arguments, Mapping):
            return Observation.failure("schema", "arguments must be a JSON object")
        return None


def normalise_call(call: Invocation, names: set[str]) -> Invocation:
    """JSON-plain arguments (tuples become lists) and ``a.b`` names matched to ``a_b`` tools."""
    name = call.name
    if name not in names and name.replace(".", "_") in names:
        name = name.replace(".", "_")
    return Invocation(name, to_jsonable(dict(call.arguments)))


def _raw(choice: Choice) -> str:
    if choice.tool_calls:
        import json

        return json.dumps([c.to_dict() for c in choice.tool_calls], default=str)
    return choice.text
