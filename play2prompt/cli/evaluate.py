"""``p2p eval TARGET``: TARGET is a registered benchmark's name (bfcl, stabletoolbench, spider,
or a third-party one) or a tools.json evaluated on the user's own ``--queries``
(``p2p eval tools.json ...`` is ``p2p eval tools tools.json ...``)."""

from __future__ import annotations

from pathlib import Path

import typer

from play2prompt.cli._benchmarks import BenchmarkGroup
from play2prompt.cli.eval_tools import tools_command

HELP = """Evaluate a task model, baseline vs optimized prompts.

p2p eval TOOLS.json --queries FILE [--prompts RUN]: your own queries on your tools (the same
as p2p eval tools TOOLS.json ...; its options: p2p eval tools --help).

p2p eval BENCHMARK [OPTIONS]: a benchmark's suite (the commands below; p2p eval BENCHMARK
--help)."""


class _EvalGroup(BenchmarkGroup):
    """A first argument that names no command is taken as a tools.json path for the ``tools``
    command; a bare word that is no file either is an unknown benchmark."""

    attribute = "eval_command"

    def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            if not _looks_like_a_file(args[0]):
                known = ", ".join(self.list_commands(ctx))
                ctx.fail(f"no benchmark {args[0]!r} and no such file (commands: {known}; "
                         f"your tools: p2p eval TOOLS.json --queries FILE)")
            args = ["tools", *args]
        return super().resolve_command(ctx, args)


def _looks_like_a_file(arg: str) -> bool:
    """A path that exists, or one with a folder or a suffix (its absence is reported as
    the missing file it is)."""
    path = Path(arg)
    return path.exists() or bool(path.suffix) or len(path.parts) > 1


app = typer.Typer(cls=_EvalGroup, help=HELP, no_args_is_help=True,
                  subcommand_metavar="TOOLS.json|BENCHMARK [ARGS]...")
app.command("tools")(tools_command)
