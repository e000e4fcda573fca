"""The ``p2p`` command line. Commands are thin: they parse options and call library functions.

User mistakes (:class:`~play2prompt.errors.UserError`) print one line and exit with code 2.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading

import typer
from rich.markup import escape

from play2prompt.cli import data, evaluate, optimize, runs
from play2prompt.cli._common import console, console_err
from play2prompt.cli._help import fill_app
from play2prompt.cli._interrupt import (
    INTERRUPTED,
    Interrupted,
    interrupt_line,
    interrupted_by,
    on_sigint,
)
from play2prompt.errors import UserError, describe_failure

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
                "play2prompt.cli.models", "play2prompt.cli.drift", "play2prompt.cli.lint",
                "play2prompt.cli.apply"):
    try:
        __import__(_module)
        sys.modules[_module].register(app)  # type: ignore[attr-defined]
    except ModuleNotFoundError as _exc:
        if _exc.name != _module:
            raise
fill_app(app)


def main(argv: list[str] | None = None) -> int:
    handler = None
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        handler = signal.signal(signal.SIGINT, on_sigint)
    try:
        code = _main(argv)
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
    if code == 130 and handler is not None:
        _exit_if_runtime_busy(code)
    return code


def _exit_if_runtime_busy(code: int) -> None:
    """An interrupted command whose embedded model is still generating (llama.cpp cannot be
    cancelled) ends here, its own cleanup done, without waiting for the generation and without
    the interpreter's finalization, which would free the model under it
    (:mod:`play2prompt.lm.detached`)."""
    from play2prompt.lm.detached import busy

    if busy():
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _main(argv: list[str] | None) -> int:
    try:
        code = app(args=argv, standalone_mode=False, prog_name="p2p")
    except UserError as exc:
        # escaped: a message may hold brackets (pip install 'play2prompt[ray]')
        console_err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False,
                          soft_wrap=True, markup=True)
        return exc.exit_code
    except (KeyboardInterrupt, Interrupted) as exc:
        console_err.print(interrupt_line(exc), highlight=False, markup=False)
        return 130
    except SystemExit as exc:
        return int(exc.code or 0)
    except OSError as exc:  # the environment: a full disk, a file where a folder should be
        console_err.print(f"[bold red]error:[/] {escape(os_error_line(exc))}",
                          highlight=False, soft_wrap=True, markup=True)
        return 2
    except Exception as exc:  # noqa: BLE001 - click usage errors and the like
        if _is_click_error(exc, "ClickException"):
            console_err.print(f"[bold red]error:[/] {usage_line(exc)}", highlight=False,
                              soft_wrap=True, markup=True)
            return 2
        if interrupted_by(exc) is not None:  # click's Abort; an interrupt inside an import
            console_err.print(interrupt_line(exc), highlight=False, markup=False)
            return 130
        if _is_click_error(exc, "Abort"):
            return 1
        if os.environ.get("P2P_TRACEBACK"):
            raise
        console_err.print(f"[bold red]error:[/] {escape(describe_failure(exc))} (not "
                          "expected: P2P_TRACEBACK=1 shows the traceback)", highlight=False,
                          soft_wrap=True, markup=True)
        return 1
    if code == 130:  # typer's answer to a KeyboardInterrupt
        console_err.print(INTERRUPTED, highlight=False, markup=False)
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


def os_error_line(exc: OSError) -> str:
    """An error of the operating system on one line: what, where, and the run's notes (which
    run to continue)."""
    what = exc.strerror or str(exc) or type(exc).__name__
    where = f": {exc.filename}" if exc.filename else ""
    fix = "; free some space (what was written is kept)" if exc.errno == errno.ENOSPC else ""
    notes = "".join(f"; {n}" for n in getattr(exc, "__notes__", ()))
    return " ".join(f"{what}{where}{fix}{notes}".split())


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
