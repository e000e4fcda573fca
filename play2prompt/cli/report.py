"""``p2p report RUN``: a run's report (HTML and Markdown)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def report_command(
    run: str = typer.Argument(..., help="runs/<id> or a run id"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="output folder "
                                                                 "(default: <run>/report)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
) -> None:
    """Write a run's report: docs (word diff), demos with outputs, search curves, cost, evals."""
    from play2prompt.cli._common import console
    from play2prompt.report import build_report

    files = build_report(run, runs_dir, out)
    charts = sum(len(c) for c in files.charts.values())
    console.print(f"report: {files.html} (self-contained), {files.markdown}, {charts} chart(s) "
                  f"in {files.html.parent / 'plots'}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("report")(report_command)
