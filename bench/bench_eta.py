"""Benchmark of the progress ETA: is the time left that ``p2p optimize`` prints right?

A fake run with delays (``--generator fake:LATENCY``: every LLM call sleeps) is run with
``--json-progress``; each progress line is stamped when it arrives. At 25 %, 50 % and 75 % of
the run's wall time the last ETA printed (the run's ``eta_s``) is compared with the time that
was actually left (the points are shares of the run from its first progress line to its exit:
the start-up before it has no ETA). The issue's bar: within 30 %.

    python bench/bench_eta.py              # fake:0.2, the example tools, default, 4 in flight, 3x
    python bench/bench_eta.py --latency 0.1 --preset quick --tools loan_payment,body_mass_index

Prints one table per run: the point, the elapsed time, the ETA printed, the time actually
left, and the error (ETA / actual - 1).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
P2P = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"


@dataclass(frozen=True)
class Stamp:
    """One progress line: when it arrived (seconds from the start) and the run's ETA then."""

    at: float
    eta: float | None


def run(latency: float, preset: str, tools: str | None, concurrency: int | None) -> tuple[
        list[Stamp], float]:
    """One fake optimize; the ETA lines as they arrived, and the run's wall time."""
    with tempfile.TemporaryDirectory() as runs:
        command = [sys.executable, "-c", P2P, "optimize", str(ROOT / "examples" / "tools.json"),
                   "--generator", f"fake:{latency}", "--preset", preset, "--runs-dir", runs,
                   "--json-progress"]
        command += ["--tools", tools] if tools else []
        command += ["--max-concurrency", str(concurrency)] if concurrency else []
        start = time.monotonic()
        proc = subprocess.Popen(command, cwd=runs, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        stamps = []
        assert proc.stderr is not None
        for line in proc.stderr:
            now = time.monotonic() - start
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            stamps.append(Stamp(now, event["run"]["eta_s"]))
        if proc.wait() != 0:
            raise SystemExit(f"the run failed (exit {proc.returncode})")
        return stamps, time.monotonic() - start


def at_points(stamps: list[Stamp], wall: float,
              points: tuple[float, ...] = (0.25, 0.5, 0.75)) -> list[tuple[float, float,
                                                                            float | None,
                                                                            float]]:
    """(point, elapsed, ETA shown then, actually left) for each share of the run (from its
    first progress line, after the start-up, to its exit): the last ETA printed before that
    moment is the one a person reads."""
    rows, first = [], stamps[0].at if stamps else 0.0
    for point in points:
        moment = first + point * (wall - first)
        shown = [s for s in stamps if s.at <= moment]
        eta = shown[-1].eta if shown else None
        rows.append((point, moment, eta, wall - moment))
    return rows


def table(rows: list[tuple[float, float, float | None, float]], wall: float) -> str:
    lines = [f"wall {wall:.1f} s", "point | elapsed s | ETA shown s | actually left s | error",
             "---|---|---|---|---"]
    for point, elapsed, eta, left in rows:
        error = "-" if eta is None or left <= 0 else f"{eta / left - 1:+.0%}"
        shown = "-" if eta is None else f"{eta:.1f}"
        lines.append(f"{point:.0%} | {elapsed:.1f} | {shown} | {left:.1f} | {error}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2,
                        help="seconds each fake LLM call sleeps")
    parser.add_argument("--preset", default="default")
    parser.add_argument("--tools", default=None, help="a comma list (default: every tool)")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="--max-concurrency for the run (0: the run's own)")
    parser.add_argument("--repeat", type=int, default=3, help="runs, one table each")
    args = parser.parse_args()
    for index in range(args.repeat):
        stamps, wall = run(args.latency, args.preset, args.tools, args.concurrency or None)
        print(f"run {index + 1}: fake:{args.latency}, preset {args.preset}, tools "
              f"{args.tools or 'all'}, --max-concurrency {args.concurrency or 'default'}: "
              f"{len(stamps)} progress lines")
        print(table(at_points(stamps, wall), wall) + "\n")


if __name__ == "__main__":
    main()
