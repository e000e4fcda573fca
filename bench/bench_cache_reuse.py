"""What llama.cpp's cache reuse (``--cache-reuse N``: cached tokens after the first difference
reused by shifting them) saves on the tool-set check's prompts, and whether it changes answers.

    python bench/bench_cache_reuse.py                      # runs/bfcl-a-val, the 1.5B
    python bench/bench_cache_reuse.py --run runs/base --reuse 0 256 --queries 8 --trials 4
    python bench/bench_cache_reuse.py --reuse 0 --parallel 2 1     # slots instead
    python bench/bench_cache_reuse.py --reuse 0 --at-once 2 1      # 2 slots, 1 request at once

The tool-set check (``method/tool_set_check.py``) asks every tool's verified examples with all
tools shown, then again in trial rounds where one tool's doc is changed (undone, or a proposal
shown). The tools are the prompt's prefix, so a tool changed in the middle of 31 makes the
plain prompt cache (the longest matching prefix) recompute everything after it; with cache
reuse, the tools after it are shifted, not recomputed. Each of the model's slots computes a
changed prefix for itself, so ``--parallel`` compares slot counts too (one slot computes it
once, and generates a little slower); ``--at-once`` keeps the slots and bounds the requests
of a round in flight (one at a time: the runtime gives each to the slot that holds the most of
its prefix).

This replays that shape: the run's shipped tools (``tools.optimized.json``; the tools as given
for a run not yet finished) and its verified
requests (``run.db``), a first round with every tool as shipped, then ``--trials`` rounds each
with one tool (spread over the list) shown blank, the requests of a round asked concurrently on
the model's slots. For each ``--reuse`` value and ``--parallel`` count the runtime is loaded
afresh. Reported: wall
seconds, prompt tokens sent and those the runtime took from its cache, and how many answers
differ from the first setting's (cache reuse shifts positions: the logits are not bit-equal).
Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM

SYSTEM = ("You are a helpful assistant that uses the available functions to fulfil the user's "
          "request.\nCall the function(s) that answer it, with argument values taken from the "
          "request.")


def _blank(tool: dict[str, Any]) -> dict[str, Any]:
    fn = dict(tool["function"])
    params = json.loads(json.dumps(fn.get("parameters") or {}))
    for spec in (params.get("properties") or {}).values():
        spec["description"] = ""
    return {"type": "function", "function": {**fn, "description": "", "parameters": params}}


def load(run: Path, queries: int) -> tuple[list[dict[str, Any]], list[str]]:
    shipped = run / "tools.optimized.json"
    with sqlite3.connect(f"file:{run / 'run.db'}?mode=ro", uri=True) as conn:
        if shipped.exists():     # the docs the run shipped; else the tools as given
            data = json.loads(shipped.read_text(encoding="utf-8"))
        else:
            data = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'tools'"
                                           ).fetchone()[0])
        tools = [{"type": "function", "function": t["function"]} for t in data["tools"]]
        rows = conn.execute("SELECT tool, payload FROM candidates WHERE stage = 'example' "
                            "AND state = 'kept' ORDER BY created").fetchall()
    asked: dict[str, str] = {}
    for tool, payload in rows:
        query = json.loads(payload).get("query")
        if query and tool not in asked:
            asked[tool] = query
    return tools, list(asked.values())[:queries]


def rounds(tools: list[dict[str, Any]], trials: int) -> list[list[dict[str, Any]]]:
    """The first round's tools, then one round per trial with one tool blank."""
    at = [round((2 * i + 1) * len(tools) / (2 * trials)) for i in range(trials)]
    return [tools] + [[_blank(t) if j == i else t for j, t in enumerate(tools)] for i in at]


async def ask(lm: EmbeddedLM, tools: list[dict[str, Any]], queries: list[str],
              at_once: int) -> list[tuple[str, int, int]]:
    gate = asyncio.Semaphore(at_once)

    async def one(query: str) -> tuple[str, int, int]:
        req = ChatRequest(({"role": "system", "content": SYSTEM},
                           {"role": "user", "content": query}), tools=tuple(tools),
                          max_tokens=256)
        async with gate:
            gen = await lm.chat(req)
        calls = [(c.name, c.arguments) for c in gen.choices[0].tool_calls]
        return (json.dumps(calls, sort_keys=True), gen.usage.prompt_tokens,
                gen.usage.cached_tokens)
    return list(await asyncio.gather(*(one(q) for q in queries)))


async def measure(model: str, reuse: int, parallel: int, plan: list[list[dict[str, Any]]],
                  queries: list[str], at_once: int) -> dict[str, Any]:
    at_once = at_once or parallel
    lm = EmbeddedLM(model, cache_reuse=reuse, parallel=parallel)
    await asyncio.to_thread(lm.load)
    start = time.perf_counter()
    answers, sent, cached = [], 0, 0
    for tools in plan:
        for answer, prompt, hit in await ask(lm, tools, queries, at_once):
            answers.append(answer)
            sent += prompt
            cached += hit
    wall = time.perf_counter() - start
    lm.close()
    return {"reuse": reuse, "parallel": parallel, "at_once": at_once,
            "wall_s": round(wall, 1), "prompt_tokens": sent,
            "cached_tokens": cached, "answers": answers}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, default=Path("runs/bfcl-a-val"))
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--reuse", type=int, nargs="+", default=[0, 256])
    ap.add_argument("--parallel", type=int, nargs="+", default=[2])
    ap.add_argument("--at-once", type=int, nargs="+", default=[0],
                    help="requests of a round in flight at once (0: as many as slots)")
    ap.add_argument("--queries", type=int, default=8)
    ap.add_argument("--trials", type=int, default=4)
    args = ap.parse_args()
    tools, queries = load(args.run, args.queries)
    plan = rounds(tools, args.trials)
    print(f"{len(tools)} tools, {len(queries)} requests, {len(plan)} rounds")
    results = [asyncio.run(measure(args.model, r, p, plan, queries, n))
               for p in args.parallel for r in args.reuse for n in args.at_once]
    first = results[0]["answers"]
    print("| slots | at once | cache reuse | wall s | prompt tokens | from cache | "
          "answers differing |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        differ = sum(a != b for a, b in zip(r["answers"], first))
        print(f"| {r['parallel']} | {r['at_once']} | {r['reuse']} | {r['wall_s']} | "
              f"{r['prompt_tokens']} | {r['cached_tokens']} | {differ} of {len(first)} |")


if __name__ == "__main__":
    main()
