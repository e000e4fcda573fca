"""The ``p2p`` command line. Commands are thin: they parse options and call library functions.

User mistakes (:class:`~play2prompt.errors.UserError`) print one line and exit with code 2.
"""

from __future__ import annotations

import sys

import typer
from rich.markup import escape

from play2prompt.cli import data, evaluate, optimize, runs
from play2prompt.cli._common import console, console_err
from play2prompt.cli._help import fill_app
from play2prompt.errors import UserError

app = typer.Typer(
    name="p2p",
    help="play2prompt: make LLM agents use tools correctly, without labelled data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from play2prompt import __version__

        console.print(f"p2p (play2prompt) {__version__}", highlight=False, markup=False)
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_print_version,
                                       is_eager=True, help="print the version and exit")
          ) -> None:
    pass


app.command("optimize")(optimize.optimize_command)
app.add_typer(runs.app, name="runs")
app.add_typer(evaluate.app, name="eval")
app.add_typer(data.app, name="data")

for _module in ("play2prompt.cli.export", "play2prompt.cli.serve", "play2prompt.cli.sweep",
                "play2prompt.cli.report", "play2prompt.cli.mcp_import",
                "play2prompt.cli.models", "play2prompt.cli.drift"):
    try:
        __import__(_module)
        sys.modules[_module].register(app)  # type: ignore[attr-defined]
    except ModuleNotFoundError as _exc:
        if _exc.name != _module:
            raise
fill_app(app)


def main(argv: list[str] | None = None) -> int:
    try:
        app(args=argv, standalone_mode=False, prog_name="p2p")
    except UserError as exc:
        # escaped: a message may hold brackets (pip install 'play2prompt[ray]')
        console_err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False,
                          soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        console_err.print("interrupted: the run is saved; continue it with --resume RUN_ID")
        return 130
    except SystemExit as exc:
        return int(exc.code or 0)
    except Exception as exc:  # noqa: BLE001 - click usage errors and the like
        if _is_click_error(exc, "ClickException"):
            console_err.print(f"[bold red]error:[/] {usage_line(exc)}", highlight=False,
                              soft_wrap=True, markup=True)
            return 2
        if _is_click_error(exc, "Abort"):
            return 1
        raise
    return 0


def usage_line(exc: Exception) -> str:
    """A usage error on one line, with where to read the usage."""
    from rich.markup import escape

    message = " ".join(str(exc.format_message()).split())  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", "") if ctx is not None else ""
    hint = f" (see '{path} --help')" if path else ""
    return escape(message + hint)


def _is_click_error(exc: Exception, name: str) -> bool:
    """Usage errors come from click or, in recent typer versions, from its vendored copy."""
    import importlib

    for module in ("click.exceptions", "typer._click.exceptions"):
        try:
            cls = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if cls is not None and isinstance(exc, cls):
            return True
    return False


if __name__ == "__main__":
    sys.exit(main())
