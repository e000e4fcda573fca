"""The speed ceiling of each embedded model on this machine: prompt processing and generation
tokens/s by thread count, parallel slots and speculative decoding.

    python bench/bench_ceiling.py                                 # qwen2.5-coder-1.5b
    python bench/bench_ceiling.py --models qwen2.5-coder-0.5b qwen2.5-coder-1.5b --json
    python bench/bench_ceiling.py --threads 2 --slots 1 2 4 --speculative none ngram-simple

For every configuration the runtime (xllamacpp, llama.cpp) is loaded afresh and sent
``--rounds`` rounds of ``slots`` concurrent requests. Each request has a prompt of its own (no
prefix shared with another, prompt cache off), so prompt processing is measured cold, and is
asked for exactly ``--gen-tokens`` tokens (``ignore_eos``), so generation is measured at a fixed
length. Two request kinds: ``story`` (free prose) and ``json`` (a tool call that copies values
from the prompt, what an optimize run mostly asks for, where n-gram speculation can help).

Reported per configuration, from llama.cpp's own timings of each request:

- ``pp_tps``: prompt tokens per second of prompt processing (summed over concurrent requests
  and divided by the wall time of the phase: the machine's throughput, not one request's);
- ``tg_tps``: generated tokens per second, the same way;
- ``wall_tps``: all tokens over the wall time of the rounds.

The largest ``pp_tps`` and ``tg_tps`` over the configurations are the model's ceiling: the
figures a run's throughput is compared with (``p2p runs show`` prints the share). They are
saved to ``bench_ceiling.json`` next to the model files (``--no-save`` to skip). Run it on a
quiet machine: anything else on the cores lowers every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from play2prompt.lm.assemble import model_file
from play2prompt.lm.embedded import runtime_params
from play2prompt.lm.embedded_settings import SPECULATIVE
from play2prompt.lm.inventory import record_for
from play2prompt.lm.speed import save_ceiling

FILLER = ("The service keeps a ledger of shipments, each with a weight in kilograms, a "
          "destination city, a carrier code and a delivery window given as two dates. ")


def _prompt(kind: str, i: int, prompt_tokens: int) -> list[dict[str, str]]:
    # about 24 tokens per FILLER sentence; a distinct first line so no prefix is shared
    body = f"Ticket {i * 7919 % 10007}: " + FILLER * max(1, prompt_tokens // 24)
    if kind == "json":
        ask = ("Write the JSON arguments of a call ship(weight_kg, city, carrier, start_date, "
               "end_date) for: 'send 12.5 kg to Rotterdam with carrier DHL between 2024-03-05 "
               "and 2024-03-09', repeating the values exactly, as many calls as you can.")
    else:
        ask = "Write a long story about a cat who learns to read maps."
    return [{"role": "system", "content": body}, {"role": "user", "content": ask}]


def _server(path: Path, threads: int, slots: int, speculative: str, n_ctx: int) -> Any:
    import xllamacpp as xlc

    return xlc.Server(runtime_params(xlc, path, n_ctx, slots, threads, 0, speculative))


def measure(path: Path, threads: int, slots: int, speculative: str, kind: str, rounds: int,
            prompt_tokens: int, gen_tokens: int, n_ctx: int) -> dict[str, Any]:
    server = _server(path, threads, slots, speculative, n_ctx)
    server.handle_chat_completions({"messages": _prompt(kind, 0, 32), "max_tokens": 4,
                                    "cache_prompt": False})           # warm-up
    timings: list[dict[str, Any]] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        reply = server.handle_chat_completions({
            "messages": _prompt(kind, i, prompt_tokens), "max_tokens": gen_tokens,
            "temperature": 0.0, "seed": i, "cache_prompt": False, "ignore_eos": True})
        with lock:
            timings.append(reply.get("timings") or {})

    start = time.perf_counter()
    for r in range(rounds):
        workers = [threading.Thread(target=one, args=(r * slots + s + 1,)) for s in range(slots)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    wall = time.perf_counter() - start
    pp_n = sum(t.get("prompt_n", 0) for t in timings)
    tg_n = sum(t.get("predicted_n", 0) for t in timings)
    # concurrent requests overlap: the phase's wall time is the longest request's, per round
    pp_wall = sum(max(t.get("prompt_ms", 0.0) for t in timings[r * slots:(r + 1) * slots])
                  for r in range(rounds)) / 1000
    tg_wall = sum(max(t.get("predicted_ms", 0.0) for t in timings[r * slots:(r + 1) * slots])
                  for r in range(rounds)) / 1000
    return {"threads": threads, "slots": slots, "speculative": speculative, "kind": kind,
            "requests": len(timings), "prompt_tokens": pp_n, "generated_tokens": tg_n,
            "pp_tps": round(pp_n / pp_wall, 1) if pp_wall else 0.0,
            "tg_tps": round(tg_n / tg_wall, 1) if tg_wall else 0.0,
            "wall_tps": round((pp_n + tg_n) / wall, 1), "wall_s": round(wall, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", default=["qwen2.5-coder-1.5b"])
    ap.add_argument("--threads", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--slots", nargs="*", type=int, default=[1, 2, 4])
    ap.add_argument("--speculative", nargs="*", choices=SPECULATIVE, default=["none"])
    ap.add_argument("--kinds", nargs="*", choices=["story", "json"], default=["json"])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--prompt-tokens", type=int, default=300)
    ap.add_argument("--gen-tokens", type=int, default=48)
    ap.add_argument("--n-ctx", type=int, default=2048, help="context per slot")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    results: dict[str, Any] = {}
    for name in args.models:
        path = model_file(record_for(name))
        rows = []
        for kind in args.kinds:
            for spec in args.speculative:
                for threads in args.threads:
                    for slots in args.slots:
                        row = measure(path, threads, slots, spec, kind, args.rounds,
                                      args.prompt_tokens, args.gen_tokens, args.n_ctx)
                        rows.append(row)
                        if not args.json:
                            print(f"{name} {kind:5} spec={spec:12} threads={threads} "
                                  f"slots={slots}: pp {row['pp_tps']:7.1f} tok/s  tg "
                                  f"{row['tg_tps']:6.1f} tok/s  wall {row['wall_s']:6.1f} s",
                                  flush=True)
        ceiling = {"pp_tps": max(r["pp_tps"] for r in rows),
                   "tg_tps": max(r["tg_tps"] for r in rows), "rows": rows,
                   "cpus": os.cpu_count(), "machine": platform.machine(),
                   "measured": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        results[name] = ceiling
        if not args.no_save:
            save_ceiling(name, ceiling)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
