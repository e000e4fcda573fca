"""``p2p optimize``: play with every tool, then emit optimized docs and demonstrations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from play2prompt.cli._common import console, console_err, fmt, table
from play2prompt.cli._help import grouped
from play2prompt.cli._interrupt import resume_hint
from play2prompt.errors import UserError

if TYPE_CHECKING:
    from play2prompt.config import OptimizeConfig
    from play2prompt.tools.model import Tool


@grouped({
    "Tools": "tools_file module tools benchmark subset data_dir opaque allow_side_effects",
    "Models": "generator task_model doc_generator mode max_concurrency",
    "Method": "preset_name method draft_rounds no_docs seed",
    "Example search (step 1)": "width expand depth search n_e lam max_tries patience "
                               "llm_grading holdout demos_per_tool choose_demos",
    "Doc search (step 2)": "doc_width doc_expand doc_depth doc_batch drop_param_desc",
    "Beyond the paper": "evidence no_evidence_notes fact_tests probe siblings sibling_pick "
                        "set_check",
    "Running the tools": "runner ray_address tool_timeout observation_limit",
    "Run and output": "runs_dir run_id resume recompute reuse_calls metaprompts quiet "
                      "json_progress",
})
def optimize_command(
    tools_file: Optional[Path] = typer.Argument(None, help="tools.json (or a list of specs)"),
    module: Optional[str] = typer.Option(None, help="Python module/file with the functions"),
    preset_name: Optional[str] = typer.Option(
        None, "--preset", help="quick | default | paper (default: default; with --resume, the "
                               "run's own or nothing)"),
    method: Optional[str] = typer.Option(
        None, help="optimization method: play2prompt (default) | easytool (one rewrite per "
                   "tool from its doc) | draft (explore, analyse, rewrite; --draft-rounds)"),
    draft_rounds: Optional[int] = typer.Option(None, help="rounds of the draft method"),
    generator: str = typer.Option(
        "embedded", help="the model that plays with the tools and writes the docs and "
                         "examples (paper: G_E, G_D)"),
    task_model: Optional[str] = typer.Option(None, help="the model the docs are written for, "
                                                 "the one your agent uses (paper: M_T)"),
    doc_generator: Optional[str] = typer.Option(None, help="the model that rewrites the docs "
                                                    "where not the generator (paper: G_D)"),
    tools: Optional[list[str]] = typer.Option(None, "--tools", metavar="NAME,...",
                                              help="Only these tools (a comma list)"),
    width: Optional[int] = typer.Option(None, help="examples kept per round (paper: W)"),
    expand: Optional[int] = typer.Option(None, help="new examples from each kept one (paper: L)"),
    depth: Optional[int] = typer.Option(None, help="rounds of the example search (paper: T)"),
    search: Optional[str] = typer.Option(None, help="beam | mc (Monte Carlo ablation)"),
    n_e: Optional[int] = typer.Option(None, "--n-e",
                                      help="rounds refining each request (paper: N_E)"),
    lam: Optional[float] = typer.Option(
        None, "--lambda", help="weight of difficulty in an example's score (paper: lambda)"),
    max_tries: Optional[int] = typer.Option(None, help="tool-play try budget per invocation"),
    doc_width: Optional[int] = typer.Option(None), doc_expand: Optional[int] = typer.Option(None),
    doc_depth: Optional[int] = typer.Option(None),
    doc_batch: Optional[int] = typer.Option(None, help="examples per doc evaluation"),
    holdout: Optional[float] = typer.Option(None, help="share of examples held back to compare the "
                                                     "new doc with the original (paper: D0)"),
    demos_per_tool: Optional[int] = typer.Option(None,
                                                 help="demonstrations kept per tool (paper: k)"),
    seed: Optional[int] = typer.Option(None),
    llm_grading: Optional[bool] = typer.Option(None, "--llm-grading/--no-llm-grading",
                                               help="an LLM grades requests and answers "
                                                    "(paper: m2, m5); default: auto"),
    mode: Optional[str] = typer.Option(None, help="task model mode: function-calling|prompting"),
    patience: Optional[int] = typer.Option(None, help="early stop after N flat rounds"),
    drop_param_desc: Optional[float] = typer.Option(None, help="drop param docs with prob p"),
    tool_timeout: Optional[float] = typer.Option(None, help="seconds per tool execution (> 0)"),
    observation_limit: Optional[int] = typer.Option(
        None, help="characters kept of one tool output or error text (default 100000; the "
                   "cut is marked with the full size)"),
    max_concurrency: Optional[list[str]] = typer.Option(
        None, "--max-concurrency", metavar="N|KIND=N",
        help="LLM requests in flight per model: N for every model, or per backend "
             "(repeatable), e.g. --max-concurrency openai-compat=32 --max-concurrency "
             "embedded=2. Embedded: parallel slots; vllm: batch size. Never changes results"),
    runner: str = typer.Option("local", "--runner", "--executor",
                               help="how the tools are run: local (concurrently in this "
                                    "process) | ray (one Ray task per tool); --executor is "
                                    "its old name"),
    ray_address: Optional[str] = typer.Option(None, help="Ray cluster address (default: a "
                                                         "running local cluster or a new one)"),
    recompute: bool = typer.Option(False, "--recompute",
                                   help="with --resume: redo every tool from the run's log"),
    no_docs: bool = typer.Option(False, "--no-docs", help="skip Step 2 (doc search)"),
    evidence: Optional[str] = typer.Option(
        None, "--evidence", metavar="NAME,...|all|none",
        help="the evidence components on (what small models need beyond the paper): "
             "fact-reader, probes, value-probes, range-search, format-probes, request-gates, "
             "request-parts, reread, relabel, doc-completion, claim-check, facts-doc, "
             "fact-tests, unasked-tests, describe, describe-check, known-operations, "
             "output-units, dimensions, levels, conventions, schema-facts, option-effects, "
             "set-check, sibling-contrast; -NAME / +NAME: one off / on the default list "
             "(+reread,-set-check); none: the paper's method exactly (default: all but "
             "doc-completion, reread and relabel, which measured no effect, and "
             "value-probes, request-parts, unasked-tests, known-operations and "
             "output-units)"),
    no_evidence_notes: bool = typer.Option(False, "--no-evidence-notes",
                                           help="no code-written facts doc candidate (as "
                                                "--evidence without facts-doc)"),
    fact_tests: Optional[int] = typer.Option(
        None, "--fact-tests", help="Step 1b: requests per tool that say a value the way people "
        "say it where the tool takes another form, to test play's facts (0: off, the paper; "
        "as --evidence without fact-tests)"),
    probe: Optional[bool] = typer.Option(None, "--probe/--no-probe",
                                         help="probe each tool with out-of-range values "
                                              "(off for tools with side effects; as --evidence "
                                              "with or without probes)"),
    siblings: Optional[int] = typer.Option(
        None, "--siblings", metavar="K",
        help="the task model sees each tool beside K other tools of the run, with their "
             "original docs, when examples and docs are scored; a call to one of them is "
             "wrong (0: the tool alone, the paper; default)"),
    sibling_pick: Optional[str] = typer.Option(
        None, "--sibling-pick", metavar="random|similar",
        help="which K siblings: drawn at random (default) or the K most alike in shape "
             "(names, parameter names and types), the hardest to tell apart"),
    set_check: Optional[int] = typer.Option(
        None, "--set-check", metavar="N",
        help="the tool-set check: once every tool is done, ask up to N verified examples per "
             "tool with all tools shown as they would ship, and undo a tool's change when the "
             "set does better without it (0: off, the paper; as --evidence without "
             "set-check)"),
    choose_demos: Optional[bool] = typer.Option(
        None, "--choose-demos/--fixed-demos",
        help="ship 0, 1 or k demos as held-out accuracy says (default) or always k"),
    allow_side_effects: Optional[list[str]] = typer.Option(
        None, "--allow-side-effects", metavar="TOOL,...|all",
        help="tools play may execute although they may change things (not read-only by "
             "their MCP annotations, HTTP method, SQL or \"side_effects\": true); the others "
             "are never executed; a resumed run takes this command's consent, never the "
             "one it started with"),
    benchmark: Optional[str] = typer.Option(None, help="bfcl | stabletoolbench | spider"),
    subset: Optional[str] = typer.Option(None, help="benchmark subset"),
    data_dir: Optional[Path] = typer.Option(None, help="benchmark data folder"),
    opaque: Optional[str] = typer.Option(
        None, "--opaque", metavar="SETTING,...",
        help="show the tools to the method with parts hidden, as OpaqueToolsBench does: a "
             "comma list of names (function_1..N by the rank of the sorted real names), "
             "descriptions, param-docs (blank), params (removed); the real tools run. A tools "
             "file or --benchmark bfcl (its own numbering)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
    run_id: Optional[str] = typer.Option(None, help="name of the new run"),
    resume: Optional[str] = typer.Option(None, help="continue this run from its store"),
    reuse_calls: Optional[str] = typer.Option(
        None, "--reuse-calls", metavar="RUN_ID,...",
        help="seed this run's call log with the logged samples of these runs whose models are "
             "the same (id and fingerprint): an identical request is answered from them"),
    metaprompts: Optional[Path] = typer.Option(None, help="folder overriding meta-prompts"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress display"),
    json_progress: bool = typer.Option(
        False, "--json-progress", help="progress as one JSON object per line and event on "
                                       "standard error (start, phase, advance, done), no bars"),
) -> None:
    """Optimize tool documentation and find verified demonstrations."""
    from play2prompt.config import preset, split_names
    from play2prompt.evidence.names import chosen
    from play2prompt.lm.registry import parse_concurrency
    from play2prompt.optimize import optimize
    from play2prompt.progress import progress_reporter
    from play2prompt.tools.effects import parse_allow

    _check_flags(recompute, resume, runner, opaque, benchmark, run_id)
    allow = parse_allow(allow_side_effects)

    overrides = dict(
        width=width, expand=expand, depth=depth, search=search, n_e=n_e, lam=lam,
        max_tries=max_tries, doc_width=doc_width, doc_expand=doc_expand, doc_depth=doc_depth,
        doc_batch=doc_batch, holdout=holdout, demos_per_tool=demos_per_tool, seed=seed,
        llm_grading=llm_grading, task_mode=mode,
        patience=patience, drop_param_desc=drop_param_desc, tool_timeout=tool_timeout,
        observation_limit=observation_limit,
        max_concurrency=parse_concurrency(max_concurrency),
        optimize_docs=False if no_docs else None,
        evidence_notes=False if no_evidence_notes else None, probe=probe,
        fact_tests=fact_tests,
        evidence=chosen(evidence, probe=probe, facts_doc=False if no_evidence_notes else None,
                        fact_tests=fact_tests, set_check=set_check),
        choose_demo_count=choose_demos, draft_rounds=draft_rounds, siblings=siblings,
        sibling_pick=sibling_pick, set_check=set_check,
        allow_side_effects=allow or None)
    config = preset(preset_name or "default",
                    **_benchmark_defaults(overrides, benchmark, resume))
    if metaprompts is not None:  # a folder that is not there: one line, and no run folder
        from play2prompt.metaprompts import MetaPrompts

        MetaPrompts(metaprompts)
    loaded, base_dir, label, exec_ctx = None, None, "run", None
    if not resume:
        loaded, base_dir, label, exec_ctx = _load(tools_file, module, tools, benchmark, subset,
                                                  data_dir, config, opaque)
        config = _consent(loaded, config, allow, opaque)
    else:
        _resumed_consent(resume, runs_dir, allow)
        _check_resumed(resume, runs_dir, tools_file, module, tools, preset_name, overrides)
        if tools_file is not None:     # the run's own tools; run from this file's folder
            base_dir = tools_file.resolve().parent
    if not resume:
        from play2prompt.store.runs import new_run_id

        run_id = run_id or new_run_id(label)   # named here: an interrupt names it too
    with resume_hint(_resume_form(resume or run_id or "", runs_dir, bool(resume))), \
            progress_reporter(not quiet, json_progress, unit="calls") as reporter:
        result = optimize(loaded, generator=generator, task_model=task_model,
                          doc_generator=doc_generator, config=config, runs_dir=runs_dir,
                          run_id=run_id, resume=resume, label=label, base_dir=base_dir,
                          metaprompts_dir=metaprompts, reporter=reporter, exec_ctx=exec_ctx,
                          executor=runner, ray_address=ray_address, recompute=recompute,
                          method=method, reuse_calls=split_names([reuse_calls or ""]),
                          prepare=_source_hook(tools_file, module, resume, opaque))
    print_summary(result)


def _source_hook(tools_file: Path | None, module: str | None, resume: str | None,
                 opaque: str | None) -> Callable[[Any], None] | None:
    """A new run from a tools file records every tool the file has (``p2p verify`` then tells
    the tools the run was not asked to optimize from new ones)."""
    if tools_file is None or resume or opaque is not None:
        return None
    from play2prompt.drift.recorded import source_recorder

    return source_recorder(tools_file, module)


def _resume_form(run_id: str, runs_dir: Path, resumed: bool) -> Callable[[], str]:
    """What an interrupt of the run says: the command that continues it, once it is saved."""
    import os
    import shlex

    from play2prompt.store.db import DB_NAME

    where = "" if str(runs_dir) == os.environ.get("P2P_RUNS_DIR", "runs") else \
        f" --runs-dir {shlex.quote(str(runs_dir))}"

    def hint() -> str:
        if not resumed and not (runs_dir / run_id / DB_NAME).exists():
            return ""   # interrupted before the run was created: nothing to continue
        return (f"the run is saved; continue it with p2p optimize --resume "
                f"{shlex.quote(run_id)}{where}")
    return hint


def _check_flags(recompute: bool, resume: str | None, runner: str, opaque: str | None,
                 benchmark: str | None, run_id: str | None = None) -> None:
    """Flags that do not go together, a run id that is no name: one line each."""
    if run_id is not None:   # an empty one too (it would silently get a made-up name)
        from play2prompt.store.runs import check_run_id

        check_run_id(run_id)
    if recompute and not resume:
        raise UserError("--recompute goes with --resume RUN_ID")
    if runner not in ("local", "ray"):
        raise UserError(f"--runner must be local or ray, got {runner!r}")
    if opaque is not None and (benchmark not in (None, "bfcl") or resume):
        raise UserError("--opaque goes with --benchmark bfcl or a tools file, and a new run")


def _benchmark_defaults(overrides: dict[str, Any], benchmark: str | None,
                        resume: str | None) -> dict[str, Any]:
    """``overrides`` with a new benchmark run's recommended settings where none was given."""
    if benchmark and not resume:
        from play2prompt.benchmarks import load_benchmark

        for key, value in getattr(load_benchmark(benchmark), "config_defaults", {}).items():
            if overrides.get(key) is None:
                overrides[key] = value
    return overrides


def _consent(loaded: Sequence[Tool], config: OptimizeConfig, allow: tuple[str, ...],
             opaque: str | None) -> OptimizeConfig:
    """``config`` with the tools allowed side effects named as the run names them (opaque
    names where the tools are made opaque); refuses a name the tools lack, and warns of
    each tool with side effects that will not run."""
    from rich.markup import escape

    from play2prompt.tools.effects import check_allow, consent_notes

    if opaque is not None and allow:  # real names -> the names the run's tools have
        from dataclasses import replace

        from play2prompt.tools.opacity import shown_names

        allow = tuple(shown_names(loaded).get(a, a) for a in allow)
        config = replace(config, allow_side_effects=allow)
    check_allow(loaded, allow)
    for note in consent_notes(loaded, allow):
        console_err.print(f"[yellow]warning:[/] {escape(note)}", highlight=False,
                          markup=True)
    return config


def _resumed_consent(resume: str, runs_dir: Path, allow: tuple[str, ...]) -> None:
    """A resumed run executes with this command's consent only: one warning per tool it will
    not execute, the consent the run was started with named as a hint (never applied)."""
    from rich.markup import escape

    from play2prompt.opening import recorded_consent
    from play2prompt.tools.effects import check_allow, consent_notes

    tools, stored = recorded_consent(resume, runs_dir)
    if tools:
        check_allow(tools, allow)
    for note in consent_notes(tools, allow, stored, f"run {resume}"):
        console_err.print(f"[yellow]warning:[/] {escape(note)}", highlight=False,
                          markup=True)


def _check_resumed(resume: str, runs_dir: Path, tools_file: Path | None, module: str | None,
                   select: list[str] | None, preset_name: str | None,
                   overrides: dict[str, Any]) -> None:
    """A tools file, preset or setting given with --resume must be the run's own."""
    from play2prompt.config import split_names
    from play2prompt.opening import check_resumed_inputs
    from play2prompt.tools.loading import load_tools

    given = None if tools_file is None else load_tools(
        tools_file, module=module, select=split_names(select) or None, check_executors=False)
    check_resumed_inputs(resume, runs_dir, given, str(tools_file), preset_name, overrides)


def _load(tools_file, module, select, benchmark, subset, data_dir, config, opaque=None):
    if select:   # --tools a,b as well as --tools a --tools b
        from play2prompt.config import split_names

        select = split_names(select)
    if benchmark:
        from play2prompt.benchmarks import load_benchmark

        bench = load_benchmark(benchmark)
        extra = {"opaque": opaque} if opaque is not None else {}  # bfcl only (checked)
        loaded = bench.optimize_tools(data_dir=data_dir, subset=subset, select=select,
                                      config=config, **extra)
        label = f"{benchmark}-{subset or 'all'}" + ("-opaque" if opaque else "")
        return loaded.tools, loaded.base_dir, label, loaded.exec_ctx
    if tools_file is None:
        raise UserError("give a tools.json, --benchmark NAME or --resume RUN_ID")
    from play2prompt.tools.loading import load_tools

    loaded = load_tools(tools_file, module=module, select=select)
    if opaque is not None:   # named by rank among all the file's tools, whatever is selected
        from play2prompt.tools.opacity import Opacity, opaque_tools

        every = load_tools(tools_file, module=module, check_executors=False)
        loaded, _ = opaque_tools(loaded, Opacity.parse(opaque), [t.name for t in every])
        return loaded, tools_file.parent, f"{tools_file.stem}-opaque", None
    return loaded, tools_file.parent, tools_file.stem, None


def print_summary(result) -> None:
    rows = []
    for name, r in result.tools.items():
        s, sc = r.stats, r.scores
        before, after = sc.get("d0_train"), sc.get("best_train") if r.doc_changed else sc.get(
            "d0_train")
        tests = (f"{s['fact_tests']} ({s.get('fact_tests_failed_by_original', 0)})"
                 if "fact_tests" in s else "-")
        rows.append([name, s.get("valid_invocations"),
                     f"{s.get('demos')} ({s.get('verified_examples')})", tests,
                     fmt(s.get("best_reward")),
                     "-" if before is None else f"{fmt(before)} -> {fmt(after)}",
                     "yes" if r.doc_changed else "no", s.get("llm_samples")])
    console.print(table(f"run {result.run_id}", [
        "tool", "valid calls", "demos (verified examples)", "fact tests (D0 fails)",
        "best reward", "doc score", "doc changed", "LLM samples"], rows))
    st = result.stats
    sess = st.get("session", {})
    console.print(
        f"wall {st.get('wall_s')} s | LLM calls {sess.get('llm_calls')} "
        f"(cache hits {sess.get('cache_hits')}) | tokens {sess.get('prompt_tokens')} prompt + "
        f"{sess.get('completion_tokens')} completion | tool executions "
        f"{st.get('tool_executions')}")
    console.print(f"results: {result.run_dir}/result.json, {result.run_dir}/tools.optimized.json")
