"""A DSPy ReAct agent over two example tools, before and after Play2Prompt.

    python examples/dspy/react_agent.py            # the embedded model, no key, no network
    python examples/dspy/react_agent.py --model openai/gpt-4o-mini   # any dspy.LM model
    python examples/dspy/react_agent.py --embedded qwen2.5-coder-0.5b --limit 4   # a named model

The tools are real functions (examples/tools.py) documented as tools often are: thinly.
``dspy.Evaluate`` scores the agent on the example queries of those two tools (a query counts
when one of the agent's calls returns what the correct call returns), then
``optimize_program`` rewrites the tools' descriptions and attaches verified demos, and the same
evaluation runs again. Results go to stdout and ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import dspy

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # examples/tools.py

import tools as example_tools  # noqa: E402

from play2prompt.config import preset  # noqa: E402
from play2prompt.integrations.dspy import (  # noqa: E402
    constrain_outputs,
    dspy_lm,
    optimize_program,
)
from play2prompt.scoring.match import outputs_match  # noqa: E402

TOOLS = ("convert_units", "loan_payment")


def make_tools() -> dict[str, dspy.Tool]:
    """The tools as a DSPy user might write them, with the thin docs of examples/tools.json."""
    units = dspy.Tool(example_tools.convert_units, desc="Converts units.",
                      arg_desc={"value": "the value", "from_unit": "unit name, e.g. miles"})
    loan = dspy.Tool(example_tools.loan_payment, desc="Loan calculator.",
                     arg_desc={"principal": "the loan amount", "annual_rate": "interest rate",
                               "years": "duration"})
    return {"convert_units": units, "loan_payment": loan}


def make_agent(names: tuple[str, ...] = TOOLS, max_iters: int = 3) -> dspy.ReAct:
    tools = make_tools()
    return dspy.ReAct("question -> answer", tools=[tools[n] for n in names],
                      max_iters=max_iters)


def devset(names: tuple[str, ...] = TOOLS, limit: int | None = None) -> list[dspy.Example]:
    """The example queries of the tools (at most ``limit`` per tool, in file order), with the
    output the correct call returns."""
    out: list[dspy.Example] = []
    for line in (HERE.parent / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        call = item["calls"][0]
        if len(item["calls"]) != 1 or call["name"] not in names or (
                limit and sum(e.tool == call["name"] for e in out) >= limit):
            continue
        gold = getattr(example_tools, call["name"])(**call["arguments"])
        out.append(dspy.Example(question=item["query"], tool=call["name"], gold=gold,
                                match=item.get("match", "exact")).with_inputs("question"))
    return out


def called_right(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    """One of the agent's calls of the right tool returned the correct output."""
    steps = prediction.trajectory
    return any(steps.get(f"tool_name_{i}") == example.tool and
               outputs_match(steps.get(f"observation_{i}"), example.gold, example.match)
               for i in range(len(steps) // 4 + 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None,
                        help="a dspy.LM model name (default: play2prompt's embedded model)")
    parser.add_argument("--embedded", default="",
                        help="an embedded model name or GGUF path (default: the default model)")
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--limit", type=int, default=None,
                        help="evaluate on the first N queries of each tool")
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--out", default=None, help="write the numbers here (JSON)")
    args = parser.parse_args(argv)

    spec = f"embedded:{args.embedded}" if args.embedded else "embedded"
    lm = dspy.LM(args.model) if args.model else dspy_lm(spec, max_tokens=400)
    dspy.configure(lm=lm, adapter=dspy.JSONAdapter())
    agent, data = make_agent(), devset(limit=args.limit)
    if not args.model:   # a 135M model keeps the format only when decoding against a schema
        constrain_outputs(agent, max_text=160)
    evaluate = dspy.Evaluate(devset=data, metric=called_right, num_threads=1,
                             display_progress=False)

    start = time.perf_counter()
    before = evaluate(agent).score
    t_before = time.perf_counter() - start
    print(f"before: {before:.1f} % of {len(data)} queries ({t_before:.0f} s)", flush=True)

    start = time.perf_counter()
    result = optimize_program(agent, generator=lm, config=preset(args.preset),
                              runs_dir=Path(args.runs_dir))
    t_opt = time.perf_counter() - start
    print(f"optimized in run {result.run.run_id} ({t_opt:.0f} s)", flush=True)
    for tool in result.tools:
        print(f"  {tool}")

    start = time.perf_counter()
    after = evaluate(agent).score
    t_after = time.perf_counter() - start
    print(f"after:  {after:.1f} % of {len(data)} queries ({t_after:.0f} s)")
    if args.out:
        Path(args.out).write_text(json.dumps({
            "model": args.model or spec, "queries": len(data), "before": before,
            "after": after, "run_id": result.run.run_id, "wall_s": {
                "evaluate_before": round(t_before), "optimize": round(t_opt),
                "evaluate_after": round(t_after)},
            "demos": {k: len(v) for k, v in result.demos.items()}}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
