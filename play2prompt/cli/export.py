"""``p2p export RUN --format F [-o FILE]``: a finished run's docs and demos for an agent.

Each format's file is exactly what its consumer takes. Where the consumer has no place for the
demos (the ``tools=`` lists of OpenAI and Anthropic), they go to a sidecar ``<FILE>.meta.json``
written beside ``-o FILE``; on standard output a warning on stderr names the ways to get them
(``-o``, ``--sidecar``, ``--demos-inline``, or ``--demos 0`` to leave them out knowingly).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from play2prompt.cli._common import console_err

FORMATS_HELP = ("openai | openai-responses | anthropic | mcp | dspy | python | llm | markdown, "
                "the agent frameworks' modules openai-agents | pydantic-ai | langchain | "
                "llamaindex, the gateway overrides toolhive-override | toolhive-toolconfig | "
                "ces-overrides (only the tools whose doc the run changed), or 'all' (needs -o DIR)")


def export_command(
    run: str = typer.Argument(..., help="run id or run folder (runs/<id>)"),
    fmt: str = typer.Option("openai", "--format", "-f", help=FORMATS_HELP),
    out: Optional[Path] = typer.Option(None, "--output", "-o",
                                       help="file to write, its sidecar beside it (a folder "
                                            "with --format all); default: standard output"),
    demos: Optional[int] = typer.Option(None, "--demos", min=0,
                                        help="at most k demos per tool (default: all)"),
    demos_inline: bool = typer.Option(False, "--demos-inline",
                                      help="put the demos inside each tool's description"),
    sidecar: bool = typer.Option(False, "--sidecar",
                                 help="print the sidecar (the run, and the demos a tools= list "
                                      "has no place for) instead of the tools"),
    original: bool = typer.Option(False, "--original",
                                  help="export the original docs (D0), without demos"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR",
                                  help="folder of the runs (a run given by id is looked up "
                                       "there)"),
) -> None:
    """Export a finished run's tools (optimized docs and demos) in an agent's format."""
    from play2prompt.emit import ExportOptions
    from play2prompt.errors import UserError
    from play2prompt.results import load_run_result

    result = load_run_result(run, runs_dir)
    options = ExportOptions(demos=demos, demos_inline=demos_inline, original=original)
    if fmt == "all":
        if out is None:
            raise UserError("--format all writes one file per format: give a folder with -o DIR")
        _write_all(result, options, out)
    elif sidecar:
        _print_sidecar(result, fmt, options, out)
    elif out is None:
        _print_export(result, fmt, options)
    else:
        written = _write(result, fmt, options, out)
        console_err.print(f"wrote {', '.join(map(str, written))} ({fmt}, "
                          f"{_tools_count(result, fmt, options)})", highlight=False, markup=False)


def _tools_count(result: Any, fmt: str, options: Any) -> str:
    """How many tools the file carries: all, or (an override file) those it overrides."""
    from play2prompt.emit import get_exporter

    carried = len(get_exporter(fmt).exported_names(result, options))
    total = len(result.tools)
    return f"{total} tools" if carried == total else f"{carried} of {total} tools overridden"


def _write_all(result: Any, options: Any, folder: Path) -> None:
    from play2prompt.emit import available_exporters, get_exporter

    folder.mkdir(parents=True, exist_ok=True)
    for name in available_exporters():
        suffix = get_exporter(name).suffix
        stem = name.replace("-", "_") if suffix == ".py" else name   # a module imports
        path = folder / f"p2p_{stem}{suffix}"
        written = _write(result, name, options, path)
        console_err.print(f"{name}: wrote {', '.join(map(str, written))}", highlight=False,
                          markup=False)


def _print_export(result: Any, fmt: str, options: Any) -> None:
    """The export on stdout; a warning on stderr when its demos are in the sidecar only."""
    from play2prompt.emit import export_run, get_exporter

    sys.stdout.write(export_run(result, fmt, options))
    left = get_exporter(fmt).demos_outside(result, options)
    if left:
        console_err.print(
            f"warning: {left} demo(s) are not in this output ({fmt}'s file has no place for "
            f"them): write it with -o FILE to get them in FILE.meta.json, print them with "
            f"--sidecar, or put them in the descriptions with --demos-inline (--demos 0 leaves "
            "them out)", highlight=False, markup=False)


def _print_sidecar(result: Any, fmt: str, options: Any, out: Path | None) -> None:
    from play2prompt.emit import get_exporter
    from play2prompt.errors import UserError

    if out is not None:
        raise UserError("--sidecar prints the sidecar; with -o FILE it is written beside FILE "
                        "already")
    text = get_exporter(fmt).sidecar(result, options)
    if text is None:
        raise UserError(f"format {fmt!r} has no sidecar: its file carries the demos itself")
    sys.stdout.write(text)


def _write(result: Any, fmt: str, options: Any, path: Path) -> list[Path]:
    """The export at ``path`` and its sidecar next to it, if the format has one."""
    from play2prompt.emit import export_run, get_exporter
    from play2prompt.emit._base import sidecar_path

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(export_run(result, fmt, options), encoding="utf-8")
    sidecar = get_exporter(fmt).sidecar(result, options)
    if sidecar is None:
        return [path]
    sidecar_path(path).write_text(sidecar, encoding="utf-8")
    return [path, sidecar_path(path)]


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)
