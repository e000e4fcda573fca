"""``p2p apply RUN --to SOURCE``: a run's optimized docs written back into the tools' sources,
as a unified diff (``--write`` changes the files)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from play2prompt.cli._common import console, console_err


def apply_command(
    run: str = typer.Argument(..., help="run id or run folder (runs/<id>)"),
    to: list[Path] = typer.Option(..., "--to", help="a source of the tools: a tools.json, an "
                                  "OpenAPI spec (.yaml/.yml/.json), a Python module (.py: "
                                  "docstrings, @mcp.tool(description=...)); repeatable"),
    write: bool = typer.Option(False, "--write", help="change the files instead of printing "
                               "the diff"),
    tools: Optional[list[str]] = typer.Option(None, "--tools", metavar="NAME,...",
                                              help="only these tools (a comma list)"),
    force: bool = typer.Option(False, "--force", help="write over a text the source holds "
                               "that is not the one the run started from (left as it is "
                               "otherwise, with a note)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR",
                                  help="folder of the runs (a run given by id is looked up "
                                       "there)"),
) -> None:
    """Write the docs a run changed back where they live: only tools whose doc the run
    changed, only the texts that differ; everything else in the files stays byte for byte."""
    from play2prompt.apply import apply_run
    from play2prompt.config import split_names
    from play2prompt.results import load_run_result

    result = load_run_result(run, runs_dir)
    edits, changes = apply_run(result, to, split_names(tools) if tools else None, force)
    for edit in edits:
        if edit.changed and write:
            edit.write()
        elif edit.changed:
            console.print(edit.diff(), markup=False, highlight=False, end="", soft_wrap=True)
    _summary(edits, changes, write)


def _summary(edits: list, changes: list, write: bool) -> None:
    def say(line: str) -> None:
        console_err.print(line, markup=False, highlight=False, soft_wrap=True)

    if not changes:
        say("the run changed no tool's doc: nothing to apply")
        return
    for edit in edits:
        verb = "wrote" if write else "diff for"
        names = ", ".join(edit.written) if edit.written else "no tool of the run"
        say(f"{verb} {edit.path} ({edit.kind}): {names}")
        for note in dict.fromkeys(edit.notes):
            say(f"  {note}")
    placed = {name for edit in edits for name in edit.written}
    missing = [c.tool for c in changes if c.tool not in placed]
    if missing:
        say(f"not found in the sources given: {', '.join(missing)}")


def register(root: typer.Typer) -> None:
    root.command("apply")(apply_command)
