"""``p2p report RUN``: a run's report (HTML and Markdown); ``p2p report RUN RUN ...`` or
``p2p report --sweep NAME``: the methods' docs side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from play2prompt.errors import UserError


def report_command(
    runs: Optional[list[str]] = typer.Argument(None, help="runs/<id> or a run id; several "
                                                          "runs: their docs side by side"),
    sweep: Optional[str] = typer.Option(None, "--sweep", help="a sweep's name: the docs of "
                                                              "its methods side by side"),
    tool: Optional[list[str]] = typer.Option(None, "--tool", help="only this tool "
                                                                  "(repeatable; comparisons)"),
    oracle: Optional[Path] = typer.Option(None, "--oracle", help="tools file with correct "
                                          "docs: a column of its own (comparisons)"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="output folder "
                                                                 "(default: <run>/report)"),
    evals: Optional[list[Path]] = typer.Option(
        None, "--eval", help="an evaluation folder of this run's prompts that is not recorded "
        "in the run (p2p eval ... --prompts RUN records its folder there, wherever -o puts "
        "it; runs/eval-* folders are found too) (repeatable)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR",
                                  help="where runs and evaluation folders are"),
) -> None:
    """Write a run's report. It opens with the answer: per tool, doc changed or kept and why,
    demos, and the evaluations of its prompts (original / optimized / oracle, wins and losses,
    McNemar p); then cost, docs (word diff), demos with outputs, search curves.
    Several runs, or --sweep: each method's docs per tool side by side, with their cost."""
    from play2prompt.cli._common import console
    from play2prompt.report import build_comparison, build_report

    runs = list(runs or [])
    if sweep and runs:
        raise UserError("give runs or --sweep NAME, not both")
    if not sweep and not runs:
        raise UserError("give a run (or several, or --sweep NAME)")
    if evals and (sweep or len(runs) > 1):
        raise UserError("--eval goes with one run")
    if sweep or len(runs) > 1:
        files = build_comparison(runs, sweep=sweep, runs_dir=runs_dir, out_dir=out,
                                 tools=tool or None, oracle=oracle)
        console.print(f"comparison: {files.html} (self-contained), {files.markdown}",
                      highlight=False)
        return
    if tool or oracle:
        raise UserError("--tool and --oracle go with several runs or --sweep")
    files = build_report(runs[0], runs_dir, out, evals or ())
    charts = files.charts
    drawn = charts.why_none or f"{charts.count} chart(s) in {files.html.parent / 'plots'}"
    console.print(files.sentence, highlight=False, markup=False)
    console.print(f"report: {files.html} (self-contained), {files.markdown}, {drawn}",
                  highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command("report")(report_command)
