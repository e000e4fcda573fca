"""``p2p verify``, ``p2p refresh`` and ``p2p drift simulate``: when tools change after a run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from play2prompt.cli._common import console, console_err, fmt, table
from play2prompt.errors import UserError

drift_app = typer.Typer(help="Simulate tool drift (for evaluation).", no_args_is_help=True)
MATCH_HELP = ("how outputs are compared: exact | real_time | structural; TOOL=KIND for one "
              "tool (repeatable)")


def _matches(values: list[str] | None) -> tuple[str, dict[str, str]]:
    default, by_tool = "exact", {}
    for value in values or []:
        name, sep, kind = value.partition("=")
        if sep:
            by_tool[name] = kind
        else:
            default = value
    return default, by_tool


def verify_command(
    run: str = typer.Argument(..., help="run id or run folder"),
    tools: Optional[Path] = typer.Option(None, "--tools", help="the tools file as it is now "
                                         "(default: the run's own tools and executors)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
    match: Optional[list[str]] = typer.Option(None, "--match", help=MATCH_HELP),
    limit: int = typer.Option(10, min=1, help="recorded calls replayed per tool"),
    timeout: Optional[float] = typer.Option(None, help="seconds per tool execution"),
    allow_side_effects: Optional[list[str]] = typer.Option(
        None, "--allow-side-effects", metavar="TOOL,...|all",
        help="tools verify may replay although they may change things (the others are "
             "reported unchecked)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
) -> None:
    """Replay a run's demos and verified calls against the tools as they are now.

    Exit status: 0 nothing drifted (the file's tools the run did not optimize are reported,
    not drift), 1 a tool drifted (output changed, now fails, schema changed, gone, or new),
    2 an error (bad input, or verify could not finish). No LLM call."""
    from play2prompt.drift.recorded import open_recorded
    from play2prompt.drift.verify import errors_exit_2, verify_run
    from play2prompt.tools.effects import parse_allow
    from play2prompt.tools.loading import load_tools

    default, by_tool = _matches(match)
    with errors_exit_2():           # an error is never drift's exit status
        current = load_tools(tools) if tools is not None else None
        warn_consent(run, runs_dir, tools, parse_allow(allow_side_effects))
        with open_recorded(run, runs_dir) as recorded:
            report = verify_run(recorded, current, base_dir=tools.parent if tools else None,
                                match=default, match_by_tool=by_tool, limit=limit,
                                timeout=timeout, tools_file=str(tools) if tools else None,
                                allow_side_effects=parse_allow(allow_side_effects))
    if as_json:
        sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
    else:
        print_verify(report)
    if report.exit_code:
        raise SystemExit(report.exit_code)


def warn_consent(run: str, runs_dir: Path, tools_file: Path | None,
                 allow: tuple[str, ...]) -> None:
    """Refuse an ``--allow-side-effects`` name that is no tool; one warning line per tool that
    will not be executed (RUN's own consent named as a hint, never applied)."""
    from play2prompt.drift.recorded import open_recorded
    from play2prompt.tools.effects import check_allow, consent_notes
    from play2prompt.tools.loading import load_tools

    with open_recorded(run, runs_dir) as recorded:
        tools = load_tools(tools_file) if tools_file is not None else list(
            recorded.tools.values())
        stored = recorded.meta.config.get("allow_side_effects")
        source = f"run {recorded.run_id}"
    check_allow(tools, allow)
    for note in consent_notes(tools, allow, stored, source):
        console_err.print(f"warning: {note}", highlight=False, markup=False)


def print_verify(report: Any) -> None:
    from play2prompt.drift.verify import LABELS

    rows = []
    for t in report.tools:
        counts = t.to_dict()["replayed"]
        replayed = f"{counts['ok']}/{len(t.calls)}" if t.calls else "-"
        detail = t.detail()
        rows.append([t.name, LABELS[t.status], replayed,
                     detail if len(detail) <= 160 else detail[:157] + "..."])
    against = report.tools_file or "its own tools"
    console.print(table(f"run {report.run_id} against {against}",
                        ["tool", "status", "calls ok", "what changed"], rows))
    drifted, left = report.drifted, report.unoptimized
    aside = f" ({len(left)} tool(s) not optimized by this run)" if left else ""
    console.print(f"drifted: {', '.join(drifted)}{aside}" if drifted else f"no drift{aside}")


def refresh_command(
    run: str = typer.Argument(..., help="run id or run folder"),
    tools_file: Path = typer.Argument(..., help="the tools file as it is now"),
    run_id: Optional[str] = typer.Option(None, help="name of the new run"),
    generator: Optional[str] = typer.Option(None, help="generator spec (default: the run's)"),
    task_model: Optional[str] = typer.Option(None, help="task model spec (default: the run's)"),
    doc_generator: Optional[str] = typer.Option(None, help="doc generator spec"),
    match: Optional[list[str]] = typer.Option(None, "--match", help=MATCH_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the outcome as JSON"),
    allow_side_effects: Optional[list[str]] = typer.Option(
        None, "--allow-side-effects", metavar="TOOL,...|all",
        help="tools this refresh may execute although they may change things (verify, the "
             "re-checked facts, play); RUN's own consent is never reused"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """A new run that re-optimizes only the tools that drifted since RUN, starting from the
    facts still true; the others' results are copied without an LLM call."""
    from play2prompt.drift.refresh import refresh
    from play2prompt.progress import progress_reporter
    from play2prompt.tools.effects import parse_allow

    default, by_tool = _matches(match)
    allow = parse_allow(allow_side_effects)
    warn_consent(run, runs_dir, tools_file, allow)
    with progress_reporter(not quiet and not as_json, unit="calls") as reporter:
        outcome = refresh(run, tools_file, runs_dir=runs_dir, run_id=run_id,
                          generator=generator, task_model=task_model,
                          doc_generator=doc_generator, reporter=reporter, match=default,
                          match_by_tool=by_tool, allow_side_effects=allow)
    if as_json:
        sys.stdout.write(json.dumps(refresh_summary(outcome), indent=2) + "\n")
        return
    print_refresh(outcome)


def refresh_summary(outcome: Any) -> dict[str, Any]:
    result = outcome.result
    tools = {}
    for t in outcome.plan.report.tools:
        action = outcome.plan.action(t.name)
        stats = result.tools[t.name].stats if result and t.name in result.tools else {}
        facts = outcome.facts.get(t.name)
        tools[t.name] = {"status": t.status, "action": action,
                         "llm_samples": stats.get("llm_samples", 0),
                         "facts": facts.to_dict() if facts else None}
    session = (result.stats.get("session") or {}) if result else {}
    return {"run": outcome.plan.run_id, "new_run": result.run_id if result else None,
            "llm_calls": session.get("llm_calls", 0), "llm_samples": session.get("llm_samples",
                                                                                  0),
            "tools": tools}


def print_refresh(outcome: Any) -> None:
    from play2prompt.drift.verify import LABELS

    summary = refresh_summary(outcome)
    if summary["new_run"] is None:
        console.print(f"nothing drifted since run {summary['run']}: no new run")
        return
    rows = []
    for name, t in summary["tools"].items():
        f = t["facts"]
        facts = (f"{f['kept']} kept, {f['refuted']} refuted, {f['found']} new" if f else "-")
        rows.append([name, LABELS[t["status"]], t["action"], facts, fmt(t["llm_samples"])])
    console.print(table(f"run {summary['new_run']} (refreshed from {summary['run']})",
                        ["tool", "status", "action", "facts", "LLM samples"], rows))
    console.print(f"LLM calls {summary['llm_calls']} ({summary['llm_samples']} samples) | "
                  f"results: {outcome.result.run_dir}/result.json")


@drift_app.command("simulate")
def simulate_command(
    tools_file: Path = typer.Argument(..., help="tools.json whose tools run Python functions"),
    out: Path = typer.Option(..., "-o", "--out", help="folder for the drifted tool set"),
    queries: Optional[Path] = typer.Option(None, "--queries",
                                           help="query set to rewrite (JSON Lines)"),
    kinds: str = typer.Option("rename,unit,values,removed,output", "--kinds",
                              help="comma-separated: rename, unit, values, removed, output"),
    tool: Optional[list[str]] = typer.Option(None, "--tool", metavar="KIND=NAME",
                                             help="the tool a kind drifts (repeatable)"),
) -> None:
    """Write drifted versions of a tools file: specs, real wrapping executors, and the query
    set's gold calls rewritten to match."""
    from play2prompt.drift.simulate import simulate

    chosen = {}
    for item in tool or []:
        kind, sep, name = item.partition("=")
        if not sep or not name:
            raise UserError(f"--tool must look like KIND=NAME, got {item!r}")
        chosen[kind] = name
    wanted = [k.strip() for k in kinds.split(",") if k.strip()]
    if not wanted:
        raise UserError("--kinds names no drift kind")
    sim = simulate(tools_file, out, wanted, queries=queries, chosen=chosen)
    for drift in sim.drifts:
        console.print(f"{drift.kind}: {drift.describe()}", highlight=False)
    written = "tools.json, drifted_tools.py, drift.json" + (
        f", queries.jsonl ({sim.queries} queries)" if queries else "")
    console_err.print(f"wrote {out}/: {written}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
    app.command("refresh")(refresh_command)
    app.add_typer(drift_app, name="drift")
