"""``p2p sweep``: ablation grids (or Optuna searches) over Play2Prompt's settings."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

import typer

from play2prompt.errors import UserError


def sweep_command(
    tools_file: Optional[Path] = typer.Argument(None, help="tools.json (with --queries)"),
    queries: Optional[Path] = typer.Option(None, "--queries", help="JSON Lines query file"),
    module: Optional[str] = typer.Option(None, help="Python module/file with the functions"),
    benchmark: Optional[str] = typer.Option(None, help="bfcl"),
    categories: Optional[str] = typer.Option(None, help="BFCL categories (comma-separated): "
                                                        "the benchmark's subset"),
    data_dir: Optional[Path] = typer.Option(None, help="benchmark data folder"),
    opaque: Optional[str] = typer.Option(
        None, "--opaque", metavar="SETTING,...",
        help="the tools shown opaque, as OpaqueToolsBench does (names, descriptions, "
             "param-docs, params): every method optimizes and is evaluated on the opaque "
             "tools, the real tools run (a tools file, or --benchmark bfcl: each question "
             "shows its own function_1.., as p2p eval bfcl --opaque)"),
    limit: Optional[int] = typer.Option(None, help="first N queries of each category"),
    name: Optional[str] = typer.Option(None, help="sweep name (folder runs/sweeps/NAME)"),
    variants: str = typer.Option(
        "full,desc-only,demo-only,easy",
        help="comma-separated: baseline (original docs) | easytool | draft (the baseline "
             "methods) | desc-only | demo-only | full | easy (Play2Prompt's) | oracle"),
    oracle: Optional[str] = typer.Option(
        None, "--oracle", metavar="FILE|packaged",
        help="tools file with correct docs of the same tools (or 'packaged': the benchmark's "
             "own, BFCL): adds the oracle variant"),
    draft_rounds: Optional[int] = typer.Option(None, help="rounds of the draft variant"),
    space: Optional[list[str]] = typer.Option(
        None, "--space", metavar="NAME=V1,V2",
        help="a swept setting (repeatable): search, depth, expand (L), width (W), n_e, lam, "
             "demos, dropout, seed"),
    grid: bool = typer.Option(True, "--grid/--no-grid", help="every point of the space"),
    sampler: Optional[str] = typer.Option(None, help="Optuna sampler instead of the grid: "
                                                     "tpe | random"),
    n_trials: Optional[int] = typer.Option(None, help="trial budget of a sampler"),
    metric: str = typer.Option("accuracy", help="maximized: accuracy | ast | delta | acc:CAT"),
    minimize_calls: bool = typer.Option(False, "--minimize-calls",
                                        help="also minimize LLM calls (multi-objective)"),
    storage: Optional[str] = typer.Option(None, help="Optuna storage URL (default: SQLite "
                                                     "in the sweep folder)"),
    resume: bool = typer.Option(False, "--resume", help="continue a killed sweep"),
    worker: bool = typer.Option(False, "--worker", help="join a sweep other machines run"),
    reuse_calls: Optional[str] = typer.Option(
        None, "--reuse-calls", metavar="RUN,...",
        help="earlier runs (same models) whose identical LLM calls every new trial reuses"),
    preset_name: str = typer.Option("quick", "--preset", help="quick | default | paper"),
    generator: str = typer.Option("embedded", help="Generator model spec (G_E, G_D)"),
    task_model: Optional[str] = typer.Option(None, help="Task model spec (M_T)"),
    mode: str = typer.Option("function-calling", help="function-calling | prompting"),
    temperature: float = typer.Option(0.0, help="task model temperature at evaluation"),
    max_concurrency: Optional[int] = typer.Option(None, help="LLM requests in flight"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR",
                                  help="folder of the runs (the sweep's in runs/sweeps/NAME)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress lines"),
    as_json: bool = typer.Option(False, "--json",
                                 help="print the summary as one JSON document (progress lines "
                                      "go to stderr)"),
) -> None:
    """Run an ablation sweep: methods and variants x settings, optimized and evaluated, as
    tables + plots (each method against the original docs, query by query)."""
    from play2prompt.cli._common import console, console_err
    from play2prompt.cli._interrupt import resume_hint
    from play2prompt.config import preset, split_names
    from play2prompt.evaluation.runner import EvalSettings
    from play2prompt.store.runs import check_run_id
    from play2prompt.sweep.runner import run_sweep
    from play2prompt.sweep.space import SweepSpace
    from play2prompt.sweep.study import SweepSpec

    if sampler and sampler not in ("tpe", "random"):
        raise UserError(f"--sampler must be tpe or random, got {sampler!r}")
    if not grid and not sampler:
        raise UserError("--no-grid needs --sampler tpe|random")
    if limit is not None and limit < 1:
        raise UserError("--limit must be >= 1")
    if name is not None:
        check_run_id(name)  # it names folders: runs/sweeps/NAME, runs/sweep-NAME-*
    target = _target(tools_file, queries, module, benchmark, categories, data_dir, limit,
                     opaque)
    if oracle is not None:
        target = target.with_oracle(_oracle_file(oracle, benchmark))
    overrides = {"max_concurrency": max_concurrency, "task_mode": mode,
                 "draft_rounds": draft_rounds}
    default = re.sub(r"[^A-Za-z0-9._-]+", "-", target.name).strip("-.") or "sweep"
    spec = SweepSpec(name=name or default, space=SweepSpace.parse(space or [], variants),
                     base=preset(preset_name, **overrides), sampler=sampler or "grid",
                     n_trials=n_trials, metric=metric, minimize_calls=minimize_calls,
                     storage=storage, resume=resume, worker=worker,
                     reuse_calls=tuple(split_names([reuse_calls or ""])))
    out = console_err if as_json else console
    log = (lambda _msg: None) if quiet else (lambda msg: out.print(msg, highlight=False))
    hint = (f"the sweep {spec.name!r} is saved; continue it with the same command"
            f"{'' if resume or worker else ' and --resume'}")
    with resume_hint(hint):
        result = run_sweep(spec, target, generator=generator, task_model=task_model,
                           settings=EvalSettings(mode=mode, temperature=temperature),
                           runs_dir=runs_dir, max_concurrency=max_concurrency, log=log)
    if as_json:
        from play2prompt.cli._common import print_json

        print_json(json_result(result))
    else:
        print_result(result)


def _target(tools_file: Path | None, queries: Path | None, module: str | None,
            benchmark: str | None, categories: str | None, data_dir: Path | None,
            limit: int | None, opaque: str | None = None) -> Any:
    from play2prompt.benchmarks import load_benchmark
    from play2prompt.sweep.target import benchmark_target, tools_target

    if benchmark:
        # --opaque: a benchmark with an opaque evaluation (bfcl), else one line saying so
        return benchmark_target(load_benchmark(benchmark), data_dir, categories, limit,
                                opaque or None)
    if tools_file is None or queries is None:
        raise UserError("give --benchmark bfcl, or a tools.json with --queries FILE")
    return tools_target(tools_file, queries, module, limit, opaque)


def _oracle_file(oracle: str, benchmark: str | None) -> Path:
    if oracle != "packaged":
        return Path(oracle)
    if benchmark != "bfcl":
        raise UserError("--oracle packaged: only --benchmark bfcl ships oracle docs; give a "
                        "tools file with correct docs")
    from play2prompt.adapters.bfcl.suite import oracle_docs_path

    return oracle_docs_path()


def print_result(result: Any) -> None:
    from play2prompt.cli._common import console
    from play2prompt.evaluation.report import rich_table
    from play2prompt.sweep.tables import verdicts

    if result.trials.empty:
        console.print("no finished trial")
    else:
        console.print(rich_table(result.summary, f"sweep {result.name}: exec accuracy (%)"))
        for line in verdicts(result.summary):
            console.print(line, highlight=False, markup=False)
        _print_ablation(result.ablation)
        for key, value in result.cost.items():
            console.print(f"{key.replace('_', ' ')}: {value}", highlight=False)
    for line in result.failed:
        console.print(f"failed: {line}", highlight=False, markup=False)
    console.print(f"results: {result.sweep_dir}/summary.md, trials.csv, plots/")


def _print_ablation(table: Any) -> None:
    """The evidence ablation table (a sweep with an evidence axis that takes ``all``)."""
    from play2prompt.cli._common import console
    from play2prompt.evaluation.report import rich_table
    from play2prompt.sweep.ablation import CAPTION, TITLE

    if table is None or table.empty:
        return
    console.print(rich_table(table, f"{TITLE.lower()}: each evidence value against all"))
    console.print(CAPTION, highlight=False, markup=False)


def json_result(result: Any) -> dict[str, Any]:
    """The sweep's summary as JSON data: the table's rows, the verdicts, the cost, what
    failed and where the files are."""
    import json

    from play2prompt.sweep.tables import verdicts

    empty = result.trials.empty
    rows = [] if empty else json.loads(result.summary.to_json(orient="records"))
    return {"name": result.name, "summary": rows,
            "verdicts": [] if empty else list(verdicts(result.summary)),
            "evidence_ablation": [] if result.ablation.empty
            else json.loads(result.ablation.to_json(orient="records")),
            "cost": dict(result.cost), "failed": list(result.failed),
            "results_dir": str(result.sweep_dir)}


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep_command)
