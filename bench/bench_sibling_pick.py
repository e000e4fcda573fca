"""How often the siblings a tool is scored beside are the functions a benchmark question offers
with it (issue 27): for each function of BFCL exec "multiple" (the nvidia-bfcl wheel), the share
of its K siblings (``siblings_of``, random vs similar pick) that some question offers beside it,
over seeds; with opaque names and blank docs (OpaqueToolsBench (a)) and as published.

    python bench/bench_sibling_pick.py [--k 3] [--seeds 5] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from play2prompt.adapters.bfcl.data import BFCLData, find_wheel
from play2prompt.method.siblings import PICKS, siblings_of
from play2prompt.tools.model import Tool


def _tool(spec: dict[str, Any], name: str, opaque: bool) -> Tool:
    props = spec["parameters"].get("properties", {})
    if opaque:   # (a): names numbered, descriptions blank, parameter docs blank
        props = {k: {"type": v.get("type")} for k, v in props.items()}
    return Tool(name, "" if opaque else spec.get("description", ""),
                {"type": "object", "properties": props})


def overlap(questions: list[dict[str, Any]], k: int, seeds: int) -> dict[tuple[str, str], float]:
    specs: dict[str, dict[str, Any]] = {}
    offered: dict[str, set[str]] = {}
    for q in questions:
        names = [f["name"] for f in q["function"]]
        for f in q["function"]:
            specs[f["name"]] = f
            offered.setdefault(f["name"], set()).update(n for n in names if n != f["name"])
    rank = {n: i + 1 for i, n in enumerate(sorted(specs))}
    out = {}
    for opaque in (True, False):
        shown = {(f"function_{rank[n]}" if opaque else n): n for n in specs}
        tools = [_tool(specs[real], name, opaque) for name, real in shown.items()]
        for pick in PICKS:
            shares = []
            for seed in range(seeds):
                for tool in tools:
                    real = shown[tool.name]
                    if not offered[real]:
                        continue
                    got = {shown[s.name] for s in siblings_of(tool, tools, k, seed, pick)}
                    shares.append(len(got & offered[real]) / min(k, len(offered[real])))
            out[("opaque" if opaque else "as published", pick)] = statistics.mean(shares)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--data-dir", type=Path, default=Path.home() / ".cache/play2prompt/bfcl")
    args = ap.parse_args()
    questions = BFCLData(find_wheel(args.data_dir)).questions("multiple")
    print(f"BFCL exec multiple: {len(questions)} questions, K = {args.k}, {args.seeds} seeds")
    print("| docs | pick | siblings a question offers beside the tool |\n|---|---|---:|")
    for (docs, pick), share in overlap(questions, args.k, args.seeds).items():
        print(f"| {docs} | {pick} | {100 * share:.1f} % |")


if __name__ == "__main__":
    main()
