"""``p2p eval TARGET``: TARGET is a benchmark name (bfcl, stabletoolbench, spider) or a
tools.json evaluated on the user's own ``--queries``."""

from __future__ import annotations

import typer
import typer.core


class _EvalGroup(typer.core.TyperGroup):
    """Unknown sub-command names are taken as a tools.json path for the ``tools`` command."""

    def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["tools", *args]
        return super().resolve_command(ctx, args)


app = typer.Typer(cls=_EvalGroup, help="Evaluate a task model, baseline vs optimized prompts.",
                  no_args_is_help=True)


def register_benchmarks() -> None:
    from play2prompt.adapters import BENCHMARKS, load_benchmark

    for name in BENCHMARKS:
        try:
            bench = load_benchmark(name)
        except ModuleNotFoundError:
            continue
        command = getattr(bench, "eval_command", None)
        if command is not None:
            app.command(name)(command)


def register_tools_command() -> None:
    from play2prompt.cli.eval_tools import tools_command

    app.command("tools")(tools_command)


register_tools_command()
register_benchmarks()
