"""``p2p data spider`` and ``p2p eval spider``: thin commands over :mod:`.build` and
:mod:`.evaluate`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

import typer

from play2prompt.benchmarks import Line, Output, Table
from play2prompt.errors import UserError
from play2prompt.progress import progress_bars
from play2prompt.store.meta import Meta


def data_command(
    spider_dir: Path = typer.Option(..., "--spider-dir",
                                    help="Spider folder: database/<db>/<db>.sqlite, dev.json, "
                                         "train_spider.json"),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder for tools and problems"),
    split: str = typer.Option("dev", help="dev | train"),
    limit: Optional[int] = typer.Option(None, help="Keep at most N problems"),
    obfuscate: bool = typer.Option(False, "--obfuscate",
                                   help="function_N names and random parameter names"),
    generator: str = typer.Option("embedded", help="Model writing the seed docs ('none': "
                                                   "mechanical docs only)"),
    seed: int = typer.Option(0, help="Seed for doc sampling and obfuscated names"),
    metaprompts: Optional[Path] = typer.Option(None, help="Folder overriding meta-prompts"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> Output:
    """Build executable tools and problems from a Spider folder ("Hell or High Water")."""
    from play2prompt.adapters.spider.build import build_spider
    from play2prompt.lm.registry import make_lm
    from play2prompt.store.db import RunStore

    if limit is not None and limit < 1:
        raise UserError("--limit must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    store = RunStore(out / "build.db")
    lm = None if generator.strip().lower() == "none" else make_lm(generator, log=store)
    try:
        with progress_bars(not quiet) as prog:
            task = prog.add_task("seed docs", total=None) if prog is not None else None

            def on_doc(name: str, source: str) -> None:
                if prog is not None:
                    prog.advance(task)

            result = build_spider(spider_dir, out, split=split, limit=limit,
                                  obfuscate=obfuscate, generator=lm, seed=seed,
                                  metaprompts_dir=metaprompts, on_doc=on_doc)
    finally:
        if lm is not None:
            lm.close()
        store.close()
    return [Table.of(f"spider ({split}) -> {out}", ["", "count"],
                     [[k, v] for k, v in result.stats.items()]),
            Line(f"tools: {out / 'tools.json'} | problems: {out / 'problems.jsonl'}")]


def eval_command(
    data: Path = typer.Option(..., "--data", "-d", help="Folder written by p2p data spider"),
    task_model: str = typer.Option("embedded", "--task-model", help="Task model spec"),
    world: str = typer.Option("closed", help="closed (solutions + distractors) | open "
                                             "(search_tools + get_info)"),
    distractors: int = typer.Option(4, help="Distractor tools in the closed world"),
    settings: str = typer.Option("none,fault", help="Comma list of none, fault, giveup"),
    mode: str = typer.Option("function-calling", help="function-calling | prompting"),
    max_turns: int = typer.Option(6, help="Turn limit per problem"),
    limit: Optional[int] = typer.Option(None, help="Evaluate at most N problems"),
    all_problems: bool = typer.Option(False, "--all-problems",
                                      help="Also problems without a backup plan"),
    prompts: Optional[str] = typer.Option(None, "--prompts",
                                          help="Optimization run (id or path): also evaluate "
                                               "its optimized docs and demos"),
    demos: int = typer.Option(1, help="Demonstrations per tool with --prompts"),
    only_optimized: bool = typer.Option(False, "--only-optimized",
                                        help="With --prompts: only problems whose solution "
                                             "functions were all optimized"),
    seed: int = typer.Option(0),
    bootstrap: int = typer.Option(1000, help="Bootstrap resamples for the 95% intervals"),
    concurrency: int = typer.Option(4, help="Episodes run at once"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
    run_id: Optional[str] = typer.Option(None, help="Name of the evaluation run"),
    resume: Optional[str] = typer.Option(None, help="Continue this evaluation run"),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Folder for summary.csv/json and trajectories "
                                            "(default: the run folder)"),
    metaprompts: Optional[Path] = typer.Option(None, help="Folder overriding meta-prompts"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> Output:
    """Backup-plan evaluation on Spider tools: accuracy without and with faults."""
    from play2prompt.adapters.spider.evaluate import EVAL_NAME, EvalConfig, evaluate
    from play2prompt.adapters.spider.report import summarize, table_rows, write_outputs
    from play2prompt.evaluation.session import EvalSession
    from play2prompt.metaprompts import MetaPrompts
    from play2prompt.tools.runtime import ToolRuntime

    cfg = EvalConfig(world=world, distractors=distractors,
                     settings=tuple(s.strip() for s in settings.split(",") if s.strip()),
                     mode=mode, max_turns=max_turns, seed=seed, limit=limit,
                     all_problems=all_problems, concurrency=concurrency)
    if mode not in ("function-calling", "prompting"):
        raise UserError(f"--mode must be function-calling or prompting, got {mode!r}")
    tools, chosen, sides, lines = _load_inputs(data, cfg, prompts, demos, runs_dir,
                                               only_optimized)
    config = {**cfg.to_dict(), "data": str(data.resolve()), "task_model": task_model,
              "prompts": prompts, "demos": demos}
    with EvalSession.open(runs_dir, "spider-eval", resume=resume, run_id=run_id) as session:
        session.start(config, key=Meta.EVAL_CONFIG)
        lm = session.model(task_model)
        runtime = ToolRuntime(tools, session.context(data.resolve()), session.store)
        try:
            with progress_bars(not quiet) as prog:
                total = len(chosen) * len(cfg.settings) * len(sides)
                task = prog.add_task("episodes", total=total) if prog is not None else None
                results = asyncio.run(evaluate(
                    lm, chosen, sides, {t.name: t for t in tools}, cfg, runtime,
                    store=session.store, prompts=MetaPrompts(metaprompts),
                    on_item=lambda _r: prog.advance(task) if prog is not None else None))
        finally:
            runtime.close()
        rows = summarize(results, bootstrap, seed)
        session.store.put_eval(EVAL_NAME, EVAL_NAME, config, {"rows": rows})
    paths = write_outputs(out or session.run_dir, rows, results, config)
    columns, body = table_rows(rows)
    return [*lines, Table.of(f"spider backup-plan eval ({cfg.world} world, {task_model})",
                             columns, body),
            Line("written: " + ", ".join(str(p) for p in paths))]


def _load_inputs(data: Path, cfg: Any, prompts: Optional[str], k: int, runs_dir: Path,
                 only_optimized: bool = False
                 ) -> tuple[list[Any], list[Any], list[Any], list[Line]]:
    from play2prompt.adapters.spider.evaluate import select_problems
    from play2prompt.adapters.spider.problems import PROBLEMS_FILE, TOOLS_FILE, read_problems
    from play2prompt.evaluation.items import PromptSide
    from play2prompt.tools.loading import load_tools

    if not (data / TOOLS_FILE).is_file():
        raise UserError(f"{data} has no {TOOLS_FILE} (make it with: p2p data spider "
                        f"--spider-dir DIR -o {data})")
    tools = load_tools(data / TOOLS_FILE)
    library = {t.name: t for t in tools}
    problems = read_problems(data / PROBLEMS_FILE)
    missing = sorted({c.name for p in problems for s in p.solutions for c in s} - set(library))
    if missing:
        raise UserError(f"{data / PROBLEMS_FILE} uses functions missing from {TOOLS_FILE}: "
                        + ", ".join(missing[:5]))
    sides = [PromptSide("original")]
    if not prompts:
        if only_optimized:
            raise UserError("--only-optimized needs --prompts RUN")
        return tools, select_problems(problems, cfg), sides, []
    from play2prompt.results import load_run_result

    run = load_run_result(prompts, runs_dir)
    known = [n for n in run.tools if n in library]
    if not known:
        raise UserError(f"run {run.run_id!r} optimized none of the tools in {data}")
    optimized = {n: run.tools[n].optimized for n in library if n in run.tools}
    sides.append(PromptSide("optimized", tools=optimized,
                            demos={n: run.demos(n, k) for n in known}))
    if only_optimized:
        problems = [p for p in problems if p.solution_functions <= set(known)]
    note = Line(f"optimized docs and demos from run {run.run_id}: {len(known)} of "
                f"{len(library)} tools")
    return tools, select_problems(problems, cfg), sides, [note]
