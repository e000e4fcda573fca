"""``p2p eval tools.json --queries FILE``: the user's own queries, baseline vs optimized."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def tools_command(
    tools_file: Path = typer.Argument(..., help="tools.json (or a list of specs)"),
    queries: Path = typer.Option(..., "--queries", help="JSON Lines: one query per line"),
    module: Optional[str] = typer.Option(None, help="Python module/file with the functions"),
    task_model: str = typer.Option("embedded", help="Task model spec (M_T)"),
    mode: str = typer.Option("function-calling", help="function-calling | prompting"),
    prompts: Optional[str] = typer.Option(None, help="optimized prompts: runs/<id> or a run id"),
    oracle: Optional[Path] = typer.Option(
        None, help="tools file with correct docs: an oracle side, the headroom it leaves "
                   "(under --opaque its docs are shown under the opaque names: only the docs "
                   "differ)"),
    opaque: Optional[str] = typer.Option(
        None, "--opaque", metavar="SETTING,...",
        help="show the tools opaque, as OpaqueToolsBench does: a comma list of names "
             "(function_1..N by the rank of the sorted real names), descriptions, param-docs "
             "(blank), params (removed); the queries' calls name the real tools, the real tools "
             "run. Default: the opacity --prompts was optimized under (another one is an "
             "error)"),
    demos: int = typer.Option(5, help="k demonstrations per tool from the run"),
    variant: str = typer.Option("full", help="full | desc-only | demo-only"),
    drop_param_desc: float = typer.Option(0.0, help="drop param docs with prob p (both sides)"),
    seed: int = typer.Option(0, help="seed of the dropout and of the task model"),
    temperature: float = typer.Option(0.0, help="task model temperature"),
    limit: Optional[int] = typer.Option(None, help="first N queries of each category"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="output folder"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
    max_concurrency: Optional[int] = typer.Option(None, help="LLM requests in flight"),
    allow_side_effects: Optional[list[str]] = typer.Option(
        None, "--allow-side-effects", metavar="TOOL,...|all",
        help="tools the evaluation may execute although they may change things; the others "
             "are never executed"),
    only: Optional[list[str]] = typer.Option(
        None, "--tools", metavar="NAME,...",
        help="only these tools, and the queries whose calls use only them"),
    reuse_calls: Optional[str] = typer.Option(
        None, "--reuse-calls", metavar="RUN,...",
        help="earlier evaluations or runs (same task model, same weights) whose identical "
             "LLM calls this one reuses: a side evaluated before costs no call"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress display"),
    json_progress: bool = typer.Option(
        False, "--json-progress", help="progress as one JSON object per line and event on "
                                       "standard error, no bars"),
    as_json: bool = typer.Option(False, "--json",
                                 help="print the results (summary.json) as one JSON document "
                                      "instead of tables"),
) -> None:
    """Evaluate a task model on your own queries, with the original and the optimized docs."""
    from play2prompt.cli._common import console_err
    from play2prompt.cli._eval_common import execute_eval
    from play2prompt.config import split_names
    from play2prompt.evaluation.opaque import chosen_opacity, opaque_suite
    from play2prompt.evaluation.queries import load_queries, only_tools, tools_suite
    from play2prompt.evaluation.session import SuiteRequest
    from play2prompt.results import load_run_result
    from play2prompt.tools.effects import check_allow, consent_notes, parse_allow
    from play2prompt.tools.loading import load_tools

    tools = load_tools(tools_file, module=module)
    allow = parse_allow(allow_side_effects)
    check_allow(tools, allow)
    for note in consent_notes(tools, allow):
        console_err.print(f"warning: {note}", highlight=False, markup=False)
    query_file = load_queries(queries, tools)
    universe = [t.name for t in tools]
    if only:
        tools, query_file = only_tools(tools, query_file, only)
    opacity = chosen_opacity(opaque, load_run_result(prompts, runs_dir) if prompts else None)
    if opacity:
        suite = opaque_suite(tools, query_file, opacity, tools_file.stem, tools_file.parent,
                             universe)
        allow = tuple(suite.shown_names.get(a, a) for a in allow)
    else:
        suite = tools_suite(tools, query_file, tools_file.stem, tools_file.parent)
    execute_eval(SuiteRequest(suite, task_model=task_model, mode=mode, prompts=prompts,
                              demos=demos, variant=variant, drop_param_desc=drop_param_desc,
                              seed=seed, limit=limit, temperature=temperature, out=out,
                              runs_dir=runs_dir, quiet=quiet, max_concurrency=max_concurrency,
                              oracle=oracle, allow_side_effects=allow,
                              reuse_calls=tuple(split_names([reuse_calls or ""]))),
                 as_json=as_json,
                 json_progress=json_progress)
