"""``p2p data NAME``: fetch or build benchmark data."""

from __future__ import annotations

import typer

from play2prompt.cli._benchmarks import BenchmarkGroup


class _DataGroup(BenchmarkGroup):
    attribute = "data_command"


app = typer.Typer(cls=_DataGroup, help="Fetch or build benchmark data.", no_args_is_help=True)
