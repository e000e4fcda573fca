"""``p2p export RUN --format F [-o FILE]``: a finished run's docs and demos for an agent."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from play2prompt.cli._common import console_err


def export_command(
    run: str = typer.Argument(..., help="run id or run folder (runs/<id>)"),
    fmt: str = typer.Option("openai", "--format", "-f",
                            help="openai | anthropic | mcp | dspy | python | markdown, or 'all' "
                                 "(needs -o DIR)"),
    out: Optional[Path] = typer.Option(None, "--output", "-o",
                                       help="file to write (a folder with --format all); "
                                            "default: standard output"),
    demos: Optional[int] = typer.Option(None, "--demos", min=0,
                                        help="at most k demos per tool (default: all)"),
    demos_inline: bool = typer.Option(False, "--demos-inline",
                                      help="put the demos inside each tool's description"),
    original: bool = typer.Option(False, "--original",
                                  help="export the original docs (D0), without demos"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
) -> None:
    """Export a finished run's tools (optimized docs and demos) in an agent's format."""
    from play2prompt.emit import ExportOptions, available_exporters, export_run, get_exporter
    from play2prompt.errors import UserError
    from play2prompt.results import load_run_result

    result = load_run_result(run, runs_dir)
    options = ExportOptions(demos=demos, demos_inline=demos_inline, original=original)
    if fmt == "all":
        if out is None:
            raise UserError("--format all writes one file per format: give a folder with -o DIR")
        out.mkdir(parents=True, exist_ok=True)
        for name in available_exporters():
            path = out / f"p2p_{name}{get_exporter(name).suffix}"
            written = _write(result, name, options, path)
            console_err.print(f"{name}: wrote {', '.join(map(str, written))}", highlight=False)
        return
    if out is None:
        sys.stdout.write(export_run(result, fmt, options))
        return
    written = _write(result, fmt, options, out)
    console_err.print(f"wrote {', '.join(map(str, written))} ({fmt}, {len(result.tools)} "
                      "tools)", highlight=False)


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
