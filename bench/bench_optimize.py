"""Benchmark of `p2p optimize`: LLM calls, tokens, tool executions and wall time per tool, at
several concurrency levels, against the endpoint's own measured throughput.

    python bench/bench_optimize.py                         # embedded model, quick preset
    python bench/bench_optimize.py --model fake:0.2 --concurrency 1 8
    python bench/bench_optimize.py --model fake:0.2 --only loan_payment --set width=3
    python bench/bench_optimize.py --model openai-compat:http://host:8000/v1#m --concurrency 1 32

Sections:
1. Endpoint throughput, with a fixed micro-workload (requests sharing a system prompt, each with
   its own question and seed, ``--probe-max-tokens`` tokens each): single-stream (one request at
   a time) and saturated (all at once, at the highest concurrency level) tokens/s.
2. The optimization at each concurrency level: per tool its LLM calls, prompt / completion /
   prefix-cached tokens, tool executions and wall time (start to end of that tool); for the run
   the wall time, the speed-up over the first level and the achieved tokens/s against (1). With
   ``fake:LAT`` the scheduler's overhead is wall time minus what the calls' latency explains.
3. Cost savers: a resumed finished run and a run redone from its log (``--recompute``) make no
   LLM call; in-flight dedup, log hits, tool-execution cache hits, repeated calls avoided; with
   a fake model, patience (early stop) against no early stop.
4. LLM calls per tool of the presets (quick, default, paper): the analytic upper bound from the
   settings (play2prompt.method.budget) and the count measured with a zero-latency fake model.

Numbers from the embedded model on a shared machine are noisy; the fake-model numbers are not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from play2prompt.config import PRESETS, apply_overrides, preset
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.registry import make_lm
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.budget import call_bound
from play2prompt.optimize import optimize
from play2prompt.store.runs import open_run
from play2prompt.tools.loading import load_tools

ROOT = Path(__file__).resolve().parents[1]
PROBE_SYSTEM = ("You answer questions about unit conversion in one short sentence. Be precise, "
                "give the number and the unit, and nothing else.")


class Clock:
    """A progress reporter that records when each tool starts and ends."""

    def __init__(self) -> None:
        self.began: dict[str, float] = {}
        self.ended: dict[str, float] = {}

    def start(self, tool: str, total: int) -> None:
        self.began.setdefault(tool, time.perf_counter())

    def advance(self, tool: str, steps: int = 1) -> None:
        pass

    def done(self, tool: str, summary: str) -> None:
        self.began.setdefault(tool, time.perf_counter())
        self.ended[tool] = time.perf_counter()

    def wall(self, tool: str) -> float:
        return self.ended.get(tool, 0.0) - self.began.get(tool, 0.0)


# -- 1. endpoint throughput -------------------------------------------------------------------
def probe(spec: str, concurrency: int, requests: int, max_tokens: int, tool: Any
          ) -> dict[str, Any]:
    """Single-stream and saturated throughput of the endpoint on a fixed micro-workload shaped
    like tool play: m1's system message for ``tool`` (instructions + documentation, shared) and
    a different user message and seed per request. No run log, so nothing is served from it.
    For the embedded model, single-stream is measured again without llama.cpp's prompt cache."""
    system = MetaPrompts().render("m1", doc=tool.render_doc(), context="", tool=tool.name)[0]
    variants = [("single_stream", 1, {}), ("saturated", concurrency, {})]
    if spec.startswith("embedded"):
        variants.append(("single_stream_no_prompt_cache", 1, {"cache_prompt": False}))
    out = {}
    for name, level, extra in variants:
        options = {"parallel": level, **extra} if spec.startswith("embedded") else {}
        lm = make_lm(spec, **options)
        lm.max_concurrency = level

        def request(i: int, tag: str) -> ChatRequest:
            user = f"({tag} {i}) Write the arguments for call number {i} to {tool.name}."
            return ChatRequest((system, {"role": "user", "content": user}), temperature=0.7,
                               max_tokens=max_tokens, seed=1000 + i, role="probe")

        count = requests if level == 1 else max(requests, level)   # enough to fill every slot

        async def work(tag: str = name, lm: Any = lm, level: int = level,
                       count: int = count) -> None:
            if level == 1:
                for i in range(count):
                    await lm.chat(request(i, tag))
            else:
                await asyncio.gather(*(lm.chat(request(i, tag)) for i in range(count)))

        try:
            asyncio.run(lm.chat(request(-1, f"warm-up {name}")))
            before = (lm.stats.prompt_tokens, lm.stats.completion_tokens,
                      lm.stats.cached_prompt_tokens)
            t0 = time.perf_counter()
            asyncio.run(work())
            wall = time.perf_counter() - t0
        finally:
            lm.close()
        ptok = lm.stats.prompt_tokens - before[0]
        ctok = lm.stats.completion_tokens - before[1]
        out[name] = {"requests": count, "wall_s": round(wall, 3), "concurrency": level,
                     "calls_s": round(count / wall, 2),
                     "total_tok_s": round((ptok + ctok) / wall, 1),
                     "completion_tok_s": round(ctok / wall, 1),
                     "cached_prompt_tokens": lm.stats.cached_prompt_tokens - before[2],
                     "prompt_tokens": ptok}
    return out


# -- 2. the optimization at each concurrency level --------------------------------------------
def run_once(tools: list, spec: str, config: Any, runs_dir: Path, run_id: str) -> dict:
    clock = Clock()
    result = optimize(tools, generator=spec, config=config, runs_dir=runs_dir, run_id=run_id,
                      base_dir=ROOT / "examples", reporter=clock)
    store = open_run(run_id, runs_dir, read_only=True)
    by_tag = store.samples_by_tag()
    execs = store.execution_stats()
    store.close()
    per_tool = {}
    for name, res in result.tools.items():
        tag = by_tag.get(name, {})
        per_tool[name] = {"llm_calls": tag.get("samples", 0),
                          "prompt_tokens": tag.get("prompt_tokens", 0),
                          "completion_tokens": tag.get("completion_tokens", 0),
                          "tool_executions": execs.get(name, {}).get("total", 0),
                          "wall_s": round(clock.wall(name), 2),
                          "avoided": res.stats.get("repeated_calls_avoided", {})}
    return {"run_id": run_id, "stats": result.stats, "tools": per_tool,
            "result": {n: r.to_dict() for n, r in result.tools.items()}}


def latency_of(spec: str) -> float | None:
    if spec.startswith("fake"):
        rest = spec.partition(":")[2]
        return float(rest) if rest else 0.0
    return None


def print_level(level: int, run: dict, spec: str, base_wall: float | None,
                probe_out: dict | None) -> None:
    st, sess = run["stats"], run["stats"]["session"]
    print(f"\n[concurrency {level}] run {run['run_id']}")
    print(f"  {'tool':<18}{'calls':>7}{'prompt tok':>12}{'compl tok':>11}{'tool exec':>11}"
          f"{'wall s':>9}")
    for name, t in run["tools"].items():
        print(f"  {name:<18}{t['llm_calls']:>7}{t['prompt_tokens']:>12}"
              f"{t['completion_tokens']:>11}{t['tool_executions']:>11}{t['wall_s']:>9.2f}")
    wall = st["wall_s"]
    tokens = sess["prompt_tokens"] + sess["completion_tokens"]
    print(f"  total: {sess['llm_calls']} LLM calls, {sess['prompt_tokens']} prompt + "
          f"{sess['completion_tokens']} completion tokens ({sess['cached_prompt_tokens']} "
          f"prompt tokens from the backend's prefix cache), {st['tool_executions']} tool "
          f"executions, wall {wall:.2f} s")
    wall = max(wall, 1e-9)
    rates = {"calls_s": sess["llm_calls"] / wall, "total_tok_s": tokens / wall,
             "completion_tok_s": sess["completion_tokens"] / wall}
    print("  achieved " + ", ".join(f"{v:.1f} {k.replace('_s', '/s').replace('_', ' ')}"
                                    for k, v in rates.items()))
    if probe_out:
        for label, ref in (("single-stream", probe_out["single_stream"]),
                           ("saturated", probe_out["saturated"])):
            print(f"    vs {label}: " + ", ".join(
                f"{rates[k] / max(ref[k], 1e-9):.2f}x {k.replace('_s', '/s').replace('_', ' ')}"
                for k in rates))
    lat = latency_of(spec)
    if lat:
        busy = sess["llm_calls"] * lat / level
        print(f"  calls x latency / concurrency = {busy:.2f} s; wall = {wall / lat:.1f} call "
              f"latencies (bounded below by that and by the longest chain of dependent calls)")
    if base_wall:
        print(f"  speed-up over the first level: {base_wall / wall:.2f}x")


# -- 3. cost savers ---------------------------------------------------------------------------
def cost_savers(run: dict, spec: str, config: Any, tools: list, runs_dir: Path) -> dict:
    out: dict[str, Any] = {}
    for label, kwargs in (("resumed finished run", {}), ("redone from the log",
                                                         {"recompute": True})):
        t0 = time.perf_counter()
        again = optimize(generator=spec, resume=run["run_id"], runs_dir=runs_dir, **kwargs)
        s = again.stats["session"]
        same = {n: r.to_dict() for n, r in again.tools.items()} == run["result"]
        out[label] = {"llm_calls": s["llm_calls"], "log_hits": s["cache_hits"],
                      "tool_executions": again.stats["tool_executions"],
                      "wall_s": round(time.perf_counter() - t0, 2), "same_result": same}
    s = run["stats"]
    avoided = {"explored": 0, "siblings": 0}
    for t in run["tools"].values():
        for k in avoided:
            avoided[k] += t["avoided"].get(k, 0)
    out["first run"] = {"dedup_hits_in_flight": s["session"]["dedup_hits"],
                        "log_hits": s["session"]["cache_hits"],
                        "tool_executions": s["tool_executions"],
                        "tool_execution_cache_hits": s["tool_execution_cache_hits"],
                        "repeated_calls_avoided": avoided}
    if spec.startswith("fake"):
        deep = replace(apply_overrides(config, depth=4), patience=None)
        flat = run_once(tools, "fake", deep, runs_dir, f"{run['run_id']}-nopatience")
        early = run_once(tools, "fake", replace(deep, patience=1), runs_dir,
                         f"{run['run_id']}-patience1")
        out["patience (fake, depth 4)"] = {
            "no early stop": flat["stats"]["session"]["llm_calls"],
            "--patience 1": early["stats"]["session"]["llm_calls"],
            "tools stopped early": sum(1 for r in early["result"].values()
                                       if r["stats"]["stopped_early"]["examples"])}
    print("\n[cost savers]")
    for label, values in out.items():
        print(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    return out


# -- 4. calls per tool of the presets ---------------------------------------------------------
def presets_table(tools: list, runs_dir: Path, names: list[str]) -> dict:
    print("\n[LLM calls per tool by preset] bound: analytic upper bound from the settings "
          "(without / with LLM grading); measured: fake model, mean (max) over tools")
    print(f"  {'preset':<9}{'W':>4}{'L':>4}{'T':>4}{'N_E':>5}{'cands':>7}{'bound':>8}"
          f"{'graded':>8}{'measured':>10}{'max':>6}{'wall s':>8}")
    out = {}
    for name in names:
        cfg = preset(name)
        bound, graded = call_bound(cfg), call_bound(cfg, llm_grading=True)
        t0 = time.perf_counter()
        run = run_once(tools, "fake", cfg, runs_dir, f"preset-{name}")
        wall = time.perf_counter() - t0
        calls = [t["llm_calls"] for t in run["tools"].values()]
        mean = sum(calls) / len(calls)
        ex = cfg.examples
        print(f"  {name:<9}{ex.width:>4}{ex.expand:>4}{ex.depth:>4}{cfg.n_e:>5}"
              f"{bound.candidates:>7}{bound.total:>8}{graded.total:>8}{mean:>10.1f}"
              f"{max(calls):>6}{wall:>8.1f}")
        out[name] = {"bound": bound.as_dict(), "bound_graded": graded.total,
                     "measured_mean": mean, "measured_max": max(calls), "wall_s": wall}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tools", type=Path, default=ROOT / "examples" / "tools.json")
    ap.add_argument("--only", nargs="*", help="only these tools")
    ap.add_argument("--preset", default="quick", choices=list(PRESETS))
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="config overrides, e.g. width=1 depth=0 n_e=1 optimize_docs=false")
    ap.add_argument("--model", default="embedded", help="embedded | fake:LATENCY | any spec")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--probe-requests", type=int, default=8)
    ap.add_argument("--probe-max-tokens", type=int, default=32)
    ap.add_argument("--presets", nargs="*", default=["quick", "default", "paper"],
                    help="presets for the calls-per-tool table ('' to skip)")
    ap.add_argument("--no-cost-savers", action="store_true")
    ap.add_argument("--runs-dir", type=Path, default=None)
    ap.add_argument("--json", type=Path, help="also write every number here")
    args = ap.parse_args()

    tools = load_tools(args.tools, select=args.only or None)
    config = preset(args.preset, **_overrides(args.set))
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="p2p-bench-"))
    print(f"bench: {len(tools)} tools from {args.tools.name}, preset {args.preset} "
          f"{' '.join(args.set)}, model {args.model}, runs in {runs_dir}")
    report: dict[str, Any] = {"model": args.model, "preset": args.preset, "set": args.set}
    top = max(args.concurrency)
    report["probe"] = probe(args.model, top, args.probe_requests, args.probe_max_tokens,
                            tools[0])
    print("\n[endpoint throughput, micro-workload]")
    for k, v in report["probe"].items():
        print(f"  {k}: {v['calls_s']} calls/s, {v['total_tok_s']} tok/s, "
              f"{v['completion_tok_s']} completion tok/s ({v['requests']} requests in "
              f"{v['wall_s']} s at concurrency {v['concurrency']}; {v['cached_prompt_tokens']}"
              f" of {v['prompt_tokens']} prompt tokens from the prefix cache)")
    runs, base = {}, None
    for level in args.concurrency:
        cfg = replace(config, max_concurrency=level)
        run = run_once(tools, args.model, cfg, runs_dir, f"c{level}-{int(time.time())}")
        print_level(level, run, args.model, base, report["probe"])
        base = base or run["stats"]["wall_s"]
        runs[level] = run
    same = len({json.dumps(r["result"], sort_keys=True) for r in runs.values()}) == 1
    print(f"\n  identical results at every concurrency level: {same}")
    report["levels"] = {lvl: {k: r[k] for k in ("run_id", "stats", "tools")}
                        for lvl, r in runs.items()}
    report["identical_results"] = same
    if not args.no_cost_savers:
        report["cost_savers"] = cost_savers(runs[args.concurrency[0]], args.model, config,
                                            tools, runs_dir)
    names = [n for n in args.presets if n]
    if names:
        report["presets"] = presets_table(tools, runs_dir, names)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")


def _overrides(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, _, raw = item.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


if __name__ == "__main__":
    main()
