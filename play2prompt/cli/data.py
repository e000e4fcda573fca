"""``p2p data NAME``: fetch or build benchmark data."""

from __future__ import annotations

import typer

app = typer.Typer(help="Fetch or build benchmark data.", no_args_is_help=True)


def register_benchmarks() -> None:
    from play2prompt.adapters import BENCHMARKS, load_benchmark

    for name in BENCHMARKS:
        try:
            bench = load_benchmark(name)
        except ModuleNotFoundError:
            continue
        command = getattr(bench, "data_command", None)
        if command is not None:
            app.command(name)(command)


register_benchmarks()
