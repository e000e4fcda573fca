"""Help for the options every command shares, given where a command left it out.

``--runs-dir``, ``--quiet``, ``--seed`` and the like recur across commands (some built by
benchmarks' adapters); an option declared without help gets its text from :data:`COMMON_HELP`
by parameter name, so ``p2p COMMAND --help`` documents every option. An option's own help
always wins.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer
from typer.models import ParameterInfo

COMMON_HELP: dict[str, str] = {
    "runs_dir": "folder of the runs (environment: P2P_RUNS_DIR)",
    "quiet": "no progress bars",
    "seed": "random seed: the same seed and settings give the same results",
    "port": "TCP port to listen on",
    "host": "address to listen on",
    "doc_width": "W of the doc search: candidate docs kept per iteration",
    "doc_expand": "L of the doc search: new docs proposed from each kept one",
    "doc_depth": "T of the doc search: expansion rounds",
}


def fill_function(function: Callable[..., Any]) -> Callable[..., Any]:
    """Give the options of a command function that have no help their common text."""
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function
    for name, param in params.items():
        info = param.default
        if isinstance(info, ParameterInfo) and not getattr(info, "help", None) \
                and name in COMMON_HELP and type(info).__name__ == "OptionInfo":
            info.help = COMMON_HELP[name]
    return function


def fill_app(app: typer.Typer) -> None:
    """:func:`fill_function` on every command of ``app`` and of its sub-apps."""
    for command in app.registered_commands:
        if command.callback is not None:
            fill_function(command.callback)
    if app.registered_callback is not None and app.registered_callback.callback is not None:
        fill_function(app.registered_callback.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            fill_app(group.typer_instance)
