"""The demonstrations a tool ships: which verified examples (:func:`select_demos`: best
reward first, then the ones that differ most in values and words) and each one's answer from
the real output (:func:`write_answers`, m4). Moved out of :mod:`example_search`, which finds the
examples."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from play2prompt.jsonutil import derive_seed, stable_hash
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.example import Example
from play2prompt.tools.model import Tool

if TYPE_CHECKING:
    from play2prompt.engine import Engine

ANSWER_SCHEMA = object_schema({"answer": {"type": "string", "minLength": 1, "maxLength": 500}})


def _overlap(a: str, b: str) -> float:
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return len(wa & wb) / max(1, len(wa | wb))


def select_demos(examples: Sequence[Example], k: int) -> list[Example]:
    """Up to ``k`` verified examples that differ: best reward first, then each next one the
    one whose call shares the fewest values with those chosen and whose wording differs
    (word overlap with every chosen request below one half)."""
    pool = [ex for ex in examples if ex.verified]
    pool.sort(key=lambda ex: (-ex.reward, stable_hash(ex.query)))
    chosen: list[Example] = []
    while pool and len(chosen) < k:
        def shared(ex: Example) -> int:
            values = {str(v).lower() for v in ex.invocation.arguments.values()}
            return sum(len(values & {str(v).lower() for v in c.invocation.arguments.values()})
                       for c in chosen)
        fresh = [ex for ex in pool if all(_overlap(ex.query, c.query) < 0.5 for c in chosen)]
        if not fresh:
            break
        best = min(fresh, key=lambda ex: (shared(ex), -ex.reward, stable_hash(ex.query)))
        chosen.append(best)
        pool.remove(best)
    return chosen


async def write_answers(examples: Sequence[Example], tool: Tool, engine: Engine) -> list[Example]:
    """m4 for the chosen demos: the answer to each request from the real output."""
    async def one(ex: Example) -> Example:
        call, output = ex.invocation.to_python(), ex.observation.render(800)
        (a,), _ = await chat_json(
            engine.generator, engine.prompts.render("m4", query=ex.query, call=call,
                                                    output=output),
            ANSWER_SCHEMA, role="generator", seed=derive_seed(tool.name, ex.query, "m4"),
            temperature=engine.config.temperature, max_tokens=250)
        return replace(ex, answer=str(a["answer"]).strip() if a else "")

    return list(await asyncio.gather(*(one(ex) for ex in examples)))


__all__ = ["ANSWER_SCHEMA", "select_demos", "write_answers"]
