"""``p2p data bfcl`` and ``p2p eval bfcl``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from play2prompt.benchmarks import Line, Output
from play2prompt.evaluation.session import SuiteRequest


def data_command(
    data_dir: Optional[Path] = typer.Option(None, help="cache folder (default: user cache)"),
    version: str = typer.Option("26.3", help="nvidia-bfcl wheel version"),
) -> Output:
    """Download BFCL's executable data (the Apache-2.0 nvidia-bfcl wheel, no dependencies)."""
    from play2prompt.adapters.bfcl.data import BFCLData, default_data_dir, download
    from play2prompt.adapters.bfcl.suite import load_suite

    where = data_dir or default_data_dir()
    wheel = download(where, version)
    data = BFCLData(wheel)
    root = data.extract_functions(wheel.parent / "extracted" / wheel.stem)
    suite = load_suite(data, root)
    rest = sum(1 for s in suite.skipped if s.category == "rest")
    exec_total = len(suite.items) + len(suite.skipped) - rest
    return [Line(f"BFCL data: {wheel}"),
            Line(f"{exec_total} exec + {rest} REST questions; {len(suite.items)} exec "
                 f"questions run offline (the others need the network: --online)")]


def eval_command(
    data_dir: Optional[Path] = typer.Option(None, help="folder with the nvidia-bfcl wheel"),
    categories: Optional[list[str]] = typer.Option(
        None, "--categories", help="simple, multiple, parallel, parallel_multiple, rest"),
    task_model: str = typer.Option("embedded", help="Task model spec (M_T)"),
    mode: str = typer.Option("function-calling", help="function-calling | prompting"),
    prompts: Optional[str] = typer.Option(None, help="optimized prompts: runs/<id> or a run id"),
    oracle: bool = typer.Option(
        False, "--oracle", help="add an oracle side: hand-written correct docs of BFCL's "
                                "functions (packaged), and the headroom the prompts recover"),
    oracle_file: Optional[Path] = typer.Option(
        None, "--oracle-file", help="oracle docs from this tools file (implies --oracle)"),
    demos: int = typer.Option(5, help="k demonstrations per tool from the run"),
    variant: str = typer.Option("full", help="full | desc-only | demo-only"),
    drop_param_desc: float = typer.Option(0.0, help="drop param docs with prob p (both sides)"),
    seed: int = typer.Option(0, help="seed of the dropout and of the task model"),
    temperature: float = typer.Option(0.0, help="task model temperature"),
    online: bool = typer.Option(False, "--online", help="also network functions and REST"),
    limit: Optional[int] = typer.Option(None, help="first N queries of each category"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="output folder"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
    max_concurrency: Optional[int] = typer.Option(None, help="LLM requests in flight"),
    opaque: Optional[str] = typer.Option(
        None, "--opaque", help="hide parts of each question's tools as OpaqueToolsBench does: "
                               "a comma list of names, descriptions, param-docs, params"),
    opaque_check: Optional[Path] = typer.Option(
        None, "--opaque-check", help="compare the questions with OpaqueToolsBench's config "
                                     "files in this folder (your own download)"),
    reuse_calls: Optional[str] = typer.Option(
        None, "--reuse-calls", metavar="RUN,...",
        help="earlier evaluations or runs (same task model, same weights) whose identical "
             "LLM calls this one reuses: a side evaluated before costs no call"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> SuiteRequest:
    """BFCL executable: baseline vs optimized prompts, checked by execution."""
    from play2prompt.adapters.bfcl.data import open_data
    from play2prompt.adapters.bfcl.opacity import Opacity
    from play2prompt.adapters.bfcl.opaque_eval import (
        OpaqueSuiteRequest,
        opacity_note,
        run_opacity,
    )
    from play2prompt.adapters.bfcl.suite import load_suite, oracle_docs_path, parse_categories
    from play2prompt.config import split_names

    opacity = Opacity.parse(opaque)
    data, root = open_data(data_dir)
    suite = load_suite(data, root, parse_categories(categories), online=online,
                       opacity=opacity)
    if opaque_check is not None:
        from play2prompt.adapters.bfcl.otb_check import check_opaque

        suite.notes.extend(check_opaque(opaque_check, suite, opacity))
    run = None
    if prompts:
        from play2prompt.results import load_run_result

        run = load_run_result(prompts, runs_dir)
        suite.notes.extend(opacity_note(run, opacity))
    options = dict(task_model=task_model, mode=mode, prompts=prompts, demos=demos,
                   variant=variant, drop_param_desc=drop_param_desc, seed=seed, limit=limit,
                   temperature=temperature, out=out, runs_dir=runs_dir, quiet=quiet,
                   max_concurrency=max_concurrency,
                   oracle=oracle_file or (oracle_docs_path() if oracle else None),
                   reuse_calls=tuple(split_names([reuse_calls or ""])))
    if opacity or run_opacity(run) - {""}:
        return OpaqueSuiteRequest(suite, opacity=opacity, **options)
    return SuiteRequest(suite, **options)
