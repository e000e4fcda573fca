"""Benchmarks' commands on the command line: ``p2p data NAME`` and ``p2p eval NAME`` for every
registered benchmark, built-in or third-party (entry-point group ``play2prompt.benchmarks``).

The commands are found when asked for, not when the CLI is imported: a group lists the
benchmarks that have the command and builds the one named. A command returns what to show;
:func:`show` shows it (tables, lines, or a suite evaluation it runs and prints).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click
import typer
import typer.core
import typer.main

from play2prompt.cli._common import console, console_err, table
from play2prompt.cli._help import fill_app


class BenchmarkGroup(typer.core.TyperGroup):
    """A command group that also offers each benchmark's ``attribute`` command by name."""

    attribute = ""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx),
                *(n for n in _benchmark_names() if n not in self.commands
                  and _command(n, self.attribute) is not None)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in _benchmark_names():
            return found
        return _command(cmd_name, self.attribute)


def _benchmark_names() -> list[str]:
    from play2prompt.benchmarks import available_benchmarks

    return list(available_benchmarks())


def _command(name: str, attribute: str) -> click.Command | None:
    """Benchmark ``name``'s ``attribute`` command as a click command (None if it has none)."""
    from play2prompt.benchmarks import load_benchmark

    try:
        bench = load_benchmark(name)
    except ModuleNotFoundError:  # a benchmark whose optional dependency is missing
        return None
    function = getattr(bench, attribute, None)
    if function is None:
        return None
    single = typer.Typer(add_completion=False)
    single.command(name)(shown(function))
    fill_app(single)   # the common help, plain help in groups, -h
    return typer.main.get_command(single)


def shown(command: Callable[..., Any]) -> Callable[..., None]:
    """``command`` with its result shown (same options, same help)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        show(command(*args, **kwargs))

    return run


def show(result: Any) -> None:
    from play2prompt.benchmarks import Table
    from play2prompt.evaluation.session import SuiteRequest

    if result is None:
        return
    if isinstance(result, SuiteRequest):
        from play2prompt.cli._eval_common import execute_eval

        execute_eval(result)
        return
    for item in result:
        if isinstance(item, Table):
            console.print(table(item.title, item.columns, item.rows))
        else:
            (console_err if item.err else console).print(item.text)
