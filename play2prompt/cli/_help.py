"""Help: plain text in groups, and the options every command shares.

Every command's ``--help`` (and ``-h``, everywhere) is click's plain text, never cut: a long
option name gets a line of its own, piped or in 80 columns (rich's tables shrank the names to
"--allow-side-eff…"), a flag shows no metavar, and the options come in the groups their
``rich_help_panel`` names (:class:`PanelCommand`), in the order they first appear.

The common help:
``--runs-dir``, ``--quiet``, ``--seed`` and the like recur across commands (some built by
benchmarks' adapters); an option declared without help gets its text from :data:`COMMON_HELP`
by parameter name, so ``p2p COMMAND --help`` documents every option. An option's own help
always wins.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import click
import typer
import typer.core
from typer.models import ParameterInfo

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
# a repeatable option's or a variadic argument's metavar names its items: <list[Path]> -> <path>
_LIST_METAVAR = re.compile(r"<list\[(\w+)\]>")


class PanelCommand(typer.core.TyperCommand):
    """A command whose plain help lists its options in their groups (``rich_help_panel``;
    "Options" for an option without one)."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        groups: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            record = (_LIST_METAVAR.sub(lambda m: f"<{m.group(1).lower()}>", record[0]),
                      record[1])
            name = "Arguments" if param.param_type_name == "argument" else \
                getattr(param, "rich_help_panel", None) or "Options"
            groups.setdefault(name, []).append(record)
        for name, records in sorted(groups.items(), key=lambda g: g[0] != "Arguments"):
            with formatter.section(name):
                formatter.write_dl(records)

COMMON_HELP: dict[str, str] = {
    "runs_dir": "folder of the runs (environment: P2P_RUNS_DIR)",
    "quiet": "no progress bars",
    "seed": "random seed: the same seed and settings give the same results",
    "port": "TCP port to listen on",
    "host": "address to listen on",
    "doc_width": "candidate docs kept per round of the doc search (paper: W)",
    "doc_expand": "new docs proposed from each kept one (paper: L)",
    "doc_depth": "rounds of the doc search (paper: T)",
}


def grouped(groups: dict[str, str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator that puts a command's options in help groups: ``{group: "param param"}``
    by parameter name; every parameter of the command must be in one (a new option without a
    group fails the help tests, not the user)."""

    def apply(function: Callable[..., Any]) -> Callable[..., Any]:
        params = inspect.signature(function).parameters
        for group, names in groups.items():
            for name in names.split():
                info = params[name].default
                if isinstance(info, ParameterInfo):
                    info.rich_help_panel = group
        return function
    return apply


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
    """:func:`fill_function` on every command of ``app`` and of its sub-apps; plain help in
    groups (:class:`PanelCommand`) and ``-h`` for each."""
    app.rich_markup_mode = None
    app.info.context_settings = {**HELP_OPTIONS, **(_settings(app.info.context_settings))}
    for command in app.registered_commands:
        if command.cls in (None, typer.core.TyperCommand):   # typer's default
            command.cls = PanelCommand
        command.context_settings = {**HELP_OPTIONS, **_settings(command.context_settings)}
        if command.callback is not None:
            fill_function(command.callback)
    if app.registered_callback is not None and app.registered_callback.callback is not None:
        fill_function(app.registered_callback.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            fill_app(group.typer_instance)


def _settings(value: Any) -> dict[str, Any]:
    """A command's own context settings (typer's placeholder for none: empty)."""
    return dict(value) if isinstance(value, dict) else {}
