"""``p2p eval TARGET``: TARGET is a registered benchmark's name (bfcl, stabletoolbench, spider,
or a third-party one) or a tools.json evaluated on the user's own ``--queries``."""

from __future__ import annotations

import typer

from play2prompt.cli._benchmarks import BenchmarkGroup
from play2prompt.cli.eval_tools import tools_command


class _EvalGroup(BenchmarkGroup):
    """Unknown sub-command names are taken as a tools.json path for the ``tools`` command."""

    attribute = "eval_command"

    def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            args = ["tools", *args]
        return super().resolve_command(ctx, args)


app = typer.Typer(cls=_EvalGroup, help="Evaluate a task model, baseline vs optimized prompts.",
                  no_args_is_help=True)
app.command("tools")(tools_command)
