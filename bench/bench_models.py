"""Speed of each embedded model on this machine, for `p2p models`.

    python bench/bench_models.py                          # every model that is installed
    python bench/bench_models.py --models qwen2.5-coder-0.5b --requests 4
    python bench/bench_models.py --models qwen2.5-coder-1.5b --tools-mode native --json

Per model, one request at a time (no run log, so nothing is served from it; llama.cpp's own
prompt cache stays on, as in real runs):

- tool calls: the first ``--requests`` queries of examples/queries.jsonl, each asked as the
  task model is asked in `p2p eval tools` (all tools of examples/tools.json offered, in the
  model's tools mode: constrained JSON when emulated), seconds per call;
- chat: one plain request with a fixed prompt and ``--chat-tokens`` tokens to write, seconds;
- tokens/s: completion tokens per second of generation over all those requests;
- load: seconds to load (and, the first time, assemble) the model.

The results go to ``bench_models.json`` in the model directory (`p2p models` shows them;
``--no-save`` to skip) and, with ``--json``, to stdout. On a shared machine the figures are
noisy: run it on a quiet one for numbers to publish.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from play2prompt.agent.prompt import TaskPrompter
from play2prompt.errors import UserError
from play2prompt.evaluation.queries import load_queries
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.lm.inventory import model_statuses, record_for, save_bench
from play2prompt.lm.models import EmbeddedSpec
from play2prompt.tools.loading import load_tools

ROOT = Path(__file__).resolve().parents[1]
CHAT_PROMPT = ("In three short paragraphs, explain to a new colleague how to convert a "
               "temperature from Celsius to Fahrenheit and back, with one worked example each.")


def bench_model(name: str, tools_mode: str | None, requests: int, chat_tokens: int,
                tools_file: Path, queries_file: Path) -> dict[str, Any]:
    record = record_for(name)
    spec = EmbeddedSpec(record, None, tools_mode or record.tools_mode)
    lm = EmbeddedLM(spec, parallel=1)
    tools = load_tools(tools_file)
    items = load_queries(queries_file, tools).items[:requests]
    prompter = TaskPrompter()
    t0 = time.perf_counter()
    lm.load()                          # (and assemble on first use)
    load_s = time.perf_counter() - t0

    async def timed(request: ChatRequest) -> tuple[float, int]:
        before = lm.stats.completion_tokens
        start = time.perf_counter()
        await lm.chat(request)
        return time.perf_counter() - start, lm.stats.completion_tokens - before

    async def run() -> tuple[list[tuple[float, int]], tuple[float, int]]:
        calls = [await timed(prompter.request(tools, item.query, seed=i))
                 for i, item in enumerate(items)]
        chat = await timed(ChatRequest(({"role": "user", "content": CHAT_PROMPT},),
                                       max_tokens=chat_tokens, seed=7, role="bench"))
        return calls, chat

    try:
        calls, chat = asyncio.run(run())
    finally:
        lm.close()
    generated = sum(n for _, n in calls) + chat[1]
    seconds = sum(s for s, _ in calls) + chat[0]
    return {
        "spec": spec.model_id, "tools_mode": spec.tools_mode,
        "tool_call_s": round(sum(s for s, _ in calls) / max(1, len(calls)), 2),
        "tool_calls": len(calls), "chat_s": round(chat[0], 2), "chat_tokens": chat[1],
        "tokens_per_s": round(generated / seconds, 1) if seconds else 0.0,
        "load_s": round(load_s, 2), "threads": lm.threads, "cpus": os.cpu_count(),
        "machine": platform.machine(), "measured": datetime.now(timezone.utc).isoformat(
            timespec="seconds"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", help="model names (default: every installed one)")
    ap.add_argument("--tools-mode", choices=["native", "emulate"],
                    help="default: each model's catalogue mode")
    ap.add_argument("--requests", type=int, default=8, help="tool-call requests per model")
    ap.add_argument("--chat-tokens", type=int, default=128)
    ap.add_argument("--tools", type=Path, default=ROOT / "examples" / "tools.json")
    ap.add_argument("--queries", type=Path, default=ROOT / "examples" / "queries.jsonl")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--no-save", action="store_true", help="do not record them for p2p models")
    args = ap.parse_args()
    names = args.models or [s.name for s in model_statuses() if s.packages == "installed"]
    results: dict[str, Any] = {}
    for name in names:
        try:
            result = bench_model(name, args.tools_mode, args.requests, args.chat_tokens,
                                 args.tools, args.queries)
        except UserError as exc:
            print(f"{name}: skipped: {exc}")
            continue
        results[name] = result
        if not args.no_save:
            save_bench(name, result)
        if not args.json:
            print(f"{name} ({result['tools_mode']}): {result['tool_call_s']} s per tool call, "
                  f"{result['chat_s']} s per chat ({result['chat_tokens']} tokens), "
                  f"{result['tokens_per_s']} tokens/s, load {result['load_s']} s, "
                  f"{result['threads']} threads")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
