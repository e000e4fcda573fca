"""A run's own LLM requests replayed through the embedded runtime under other settings: the
runtime's levers measured on the work an optimize run really does, at equal results.

    python bench/bench_replay.py --run base --limit 60
    python bench/bench_replay.py --run base --speculative none ngram-mod draft:qwen2.5-coder-0.5b
    python bench/bench_replay.py --run base --slots 2 4 --json
    python bench/bench_replay.py --run base --start 0.6 --limit 40   # 40 in a row
    python bench/bench_replay.py --run q68 --start 0 --limit 150 --affinity off on

``bench/bench_ceiling.py`` measures the model on synthetic prompts; this one takes ``--limit``
requests of a finished run's call log (``runs/RUN/run.db``, every k-th in the order they were
sent, so each step of the method is represented as often as the run asked it), sends them to
a freshly loaded model with as many requests in flight as a run lets in (``--slots``, twice
that with ``--affinity on``, where the model chooses the slot), once per setting, and reports
per setting:

- ``wall_s``: wall time of the whole replay (the figure a run would see);
- ``prompt_tokens`` (``cached``: served from the prefix cache), ``completion_tokens``;
- ``same``: replies identical to what the run logged (a setting that changes results is not
  a speed-up; with two slots even an unchanged setting repeats most replies, not all, since
  which requests share a batch changes the arithmetic).

The runtime is whatever ``xllamacpp`` imports (PyPI's wheel, or a build for this machine's CPU
put first on ``PYTHONPATH``); its CPU features are printed. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from play2prompt.lm._base import ChatRequest, Choice
from play2prompt.lm.embedded import EmbeddedLM


def load_requests(db_path: Path, limit: int, start: float = -1.0
                  ) -> list[tuple[ChatRequest, Choice]]:
    """Every k-th logged request of the run (every sample, in the order sent) with the reply
    it got, or, with ``start`` in [0, 1), ``limit`` consecutive ones from that point of the
    run (the prefix cache then sees what it saw in the run)."""
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT request, response, role FROM llm_calls WHERE status = 'ok' "
                          "ORDER BY created - latency_s").fetchall()
    if start >= 0:
        first = int(start * len(rows))
        rows = rows[first:first + limit]
    step = max(1, len(rows) // max(1, limit))
    out = []
    for request, response, role in rows[::step][:limit]:
        r = json.loads(request)
        req = ChatRequest(
            messages=tuple(r["messages"]), temperature=r["temperature"],
            max_tokens=r["max_tokens"], json_schema=r["json_schema"],
            tools=tuple(r["tools"]) if r["tools"] else None,
            parallel_tool_calls=r["parallel_tool_calls"],
            stop=tuple(r["stop"]) if r["stop"] else None, seed=r["seed"], role=role)
        out.append((req, Choice.from_dict(json.loads(response))))
    return out


async def replay(lm: EmbeddedLM, items: list[tuple[ChatRequest, Choice]]) -> dict[str, Any]:
    """The requests sent with the model's slots full (its ``max_concurrency``), as a run does."""
    same = prompt = cached = completion = 0

    async def one(req: ChatRequest, logged: Choice) -> None:
        nonlocal same, prompt, cached, completion
        reply = await lm.chat(req)      # no call log: every request is generated
        choice = reply.choices[0]
        same += (choice.text, choice.tool_calls) == (logged.text, logged.tool_calls)
        prompt += reply.usage.prompt_tokens
        cached += reply.usage.cached_tokens
        completion += reply.usage.completion_tokens

    await asyncio.to_thread(lm.load)
    start = time.perf_counter()
    await asyncio.gather(*(one(req, logged) for req, logged in items))
    wall = time.perf_counter() - start
    return {"requests": len(items), "wall_s": round(wall, 1), "same": same,
            "prompt_tokens": prompt, "cached": cached, "completion_tokens": completion,
            "tokens_per_s": round((prompt - cached + completion) / wall, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True, help="run id (runs/RUN/run.db) or a run.db path")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--start", type=float, default=-1.0,
                    help="replay --limit consecutive requests from this share of the run "
                         "(0.5: its middle) instead of every k-th")
    ap.add_argument("--slots", nargs="*", type=int, default=[2])
    ap.add_argument("--speculative", nargs="*", default=["none"])
    ap.add_argument("--affinity", nargs="*", default=["on"], choices=["on", "off"],
                    help="requests sent to the slot holding their prefix (play2prompt.lm.slots)"
                         " or the slot left to the runtime")
    ap.add_argument("--wait", nargs="*", type=int, default=[None],
                    help="with affinity on: characters more of its prefix a busy slot must hold "
                         "for a request to wait for it (P2P_EMBEDDED_SLOT_WAIT)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()
    path = Path(args.run)
    db_path = path if path.suffix == ".db" else Path("runs") / args.run / "run.db"
    items = load_requests(db_path, args.limit, args.start)
    import xllamacpp

    runtime = xllamacpp.get_system_info().strip()
    rows = []
    for spec, slots, affinity, wait in itertools.product(args.speculative, args.slots,
                                                         args.affinity, args.wait):
        if wait is not None:
            os.environ["P2P_EMBEDDED_SLOT_WAIT"] = str(wait)
        lm = EmbeddedLM(args.model, parallel=slots, speculative=spec,
                        slot_affinity=affinity == "on")
        row = {"speculative": spec, "slots": slots, "affinity": affinity, "wait": wait,
               **asyncio.run(replay(lm, items))}
        lm.close()
        rows.append(row)
        if not args.json:
            print(f"speculative={spec:28} slots={slots} affinity={affinity} wait={wait}: "
                  f"{row['wall_s']:7.1f} s, "
                  f"{row['same']}/{row['requests']} same, prompt {row['prompt_tokens']} "
                  f"({row['cached']} cached), completion {row['completion_tokens']}, "
                  f"{row['tokens_per_s']} tok/s", flush=True)
    if args.json:
        print(json.dumps({"runtime": runtime, "rows": rows}, indent=2))
    else:
        print(f"runtime: {runtime}")


if __name__ == "__main__":
    main()
