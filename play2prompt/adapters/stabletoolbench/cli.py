"""``p2p eval stabletoolbench`` and ``p2p data stabletoolbench``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from play2prompt.benchmarks import Line, Output, Table
from play2prompt.errors import UserError

FORMATS = ("auto", "json", "text")


def eval_command(
    subset: Optional[list[str]] = typer.Option(
        None, "--subset", help="subset(s), e.g. G1_instruction; default: every one found"),
    stb_dir: Optional[Path] = typer.Option(
        None, "--stb-dir", help="StableToolBench checkout/download (default: the shared slice)"),
    tools_dir: Optional[Path] = typer.Option(None, help="tools/<Category>/<tool>.json folder"),
    cache_dir: Optional[Path] = typer.Option(None, help="tool_response_cache folder"),
    server: Optional[str] = typer.Option(None, envvar="P2P_STB_SERVER",
                                         help="URL of a running /virtual server"),
    task_model: str = typer.Option("embedded", help="task model spec"),
    judge: Optional[str] = typer.Option(None, help="judge model spec (default: task model)"),
    simulator: Optional[str] = typer.Option(
        None, help="model simulating APIs missing from the cache (default: task model)"),
    prompts: Optional[str] = typer.Option(
        None, help="optimization run (id or path): evaluate its docs and demos too"),
    baseline: bool = typer.Option(True, "--baseline/--no-baseline",
                                  help="also evaluate the original docs"),
    demos_per_tool: int = typer.Option(1, help="demos per tool with --prompts (paper: 1)"),
    max_steps: int = typer.Option(8, help="ReAct steps per query"),
    limit: Optional[int] = typer.Option(None, help="first N queries of each subset"),
    evaluate_times: int = typer.Option(3, help="judge runs per answer (averaged)"),
    code_checks: Optional[bool] = typer.Option(
        None, "--code-checks/--no-code-checks",
        help="code marks answers without any successful call, or restating the request, as "
             "unsolved; default: on only for judges too small to judge (embedded)"),
    react_format: str = typer.Option("auto", "--format",
                                     help="ReAct steps: auto | json (schema) | text"),
    seed: int = typer.Option(0),
    output: Optional[Path] = typer.Option(
        None, "-o", "--output", help="output folder (reused: its store replays calls)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
    metaprompts: Optional[Path] = typer.Option(None, help="folder overriding prompts"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> Output:
    """StableToolBench: ReAct with the original (and optimized) docs, solvable pass rate."""
    from play2prompt.adapters.stabletoolbench.run import EvalRequest, run_eval

    if react_format not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}")
    for label, value in (("--max-steps", max_steps), ("--evaluate-times", evaluate_times),
                         ("--limit", limit if limit is not None else 1)):
        if value < 1:
            raise UserError(f"{label} must be at least 1")
    request = EvalRequest(
        subsets=list(subset or []), stb_dir=stb_dir, tools_dir=tools_dir, cache_dir=cache_dir,
        server=server, task_model=task_model, judge=judge, simulator=simulator,
        prompts=prompts, baseline=baseline, demos_per_tool=demos_per_tool,
        max_steps=max_steps, limit=limit, evaluate_times=evaluate_times, fmt=react_format,
        code_checks=code_checks,
        seed=seed, output=output, runs_dir=runs_dir, metaprompts=metaprompts, quiet=quiet)
    return run_eval(request)[1]


def data_command(
    stb_dir: Optional[Path] = typer.Option(None, "--stb-dir", help="StableToolBench folder"),
) -> Output:
    """Show the StableToolBench data found: subsets, queries, tool files, response cache."""
    from play2prompt.adapters.stabletoolbench.data import SUBSETS, load_queries, resolve_source

    source = resolve_source(stb_dir)
    rows: list[list[Any]] = []
    for name in source.subsets():
        path = source.query_file(name)
        queries = load_queries(source, name)
        rows.append([name, len(queries), SUBSETS.get(name, "-"), path])
    return [Table.of(f"StableToolBench data in {source.root}",
                     ["subset", "queries here", "full set", "file"], rows),
            Line(f"tool files: {source.tools_dir or 'none (docs from the query files)'}"),
            Line(f"response cache: {source.cache_dir or 'none (server or simulator)'}")]
