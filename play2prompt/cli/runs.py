"""``p2p runs list`` and ``p2p runs show`` (``--json``: the same as one JSON document)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import typer

from play2prompt.cli._common import console, fmt, print_json, table
from play2prompt.store.meta import EVAL_KIND, Meta

app = typer.Typer(help="List and inspect runs.", no_args_is_help=True)

RUNS_DIR_HELP = "folder of the runs"
JSON_HELP = "print one JSON document instead of tables"


@app.command("list")
def list_command(
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR", help=RUNS_DIR_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List the runs in the runs folder: optimization runs and evaluations, apart."""
    from play2prompt.store.runs import list_runs

    runs = [_listed(i) for i in list_runs(runs_dir)]
    if as_json:
        print_json({"runs_dir": str(runs_dir), "runs": runs})
        return
    if not runs:
        console.print(f"no runs in {runs_dir}", highlight=False, markup=False)
        return
    for kind, title in (("optimize", "runs"), (EVAL_KIND, "evaluations"), ("?", "unreadable")):
        rows = [[r["run_id"], r["created"], r["status"], r["tools"], r["llm_samples"]]
                for r in runs if r["kind"] == kind]
        if rows:
            console.print(table(title, ["run", "created", "status", "tools done",
                                        "LLM samples"], rows))


def _listed(info: Any) -> dict[str, Any]:
    from play2prompt.store.runs import read_meta

    try:
        kind = "?" if info.status == "unreadable" else (read_meta(info.path).kind or "optimize")
    except Exception:  # noqa: BLE001 - a broken folder is listed, not fatal
        kind = "?"
    return {"run_id": info.run_id, "kind": kind, "created": info.created,
            "status": info.status, "tools": info.tools, "llm_samples": info.samples,
            "path": str(info.path)}


@app.command("show")
def show_command(
    run: str = typer.Argument(..., help="run id or run folder (runs/<id>)"),
    runs_dir: Path = typer.Option(Path("runs"), envvar="P2P_RUNS_DIR", help=RUNS_DIR_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show a run: models, per-tool results, cost and speed."""
    from play2prompt.store.runs import open_run

    store = open_run(run, runs_dir, read_only=True)
    try:
        data = show_data(store)
    finally:
        store.close()
    if as_json:
        print_json(data)
    else:
        print_show(data)


def show_data(store: Any) -> dict[str, Any]:
    """What ``runs show`` tells, as JSON data."""
    from play2prompt.scrub import Scrubber
    from play2prompt.store.reuse import reuse_of
    from play2prompt.store.runs import shown_status

    meta = store.all_meta()
    calls = store.call_stats()
    reused = reuse_of(store)
    last = meta.get(Meta.LAST_STATS) or {}
    data = {
        "run_id": meta.get(Meta.RUN_ID), "kind": meta.get(Meta.KIND) or "optimize",
        "status": shown_status(store.run_dir, store.run_meta()),
        "created": meta.get(Meta.CREATED), "path": str(store.run_dir),
        "models": Scrubber().value(meta.get(Meta.MODELS) or {}),   # keys in URLs
        "refreshed_from": meta.get(Meta.REFRESHED_FROM),
        "reused_calls": None if reused is None else reused.to_dict(),
        "tools": {name: _tool_data(r) for name, r in store.results().items()},
        "llm_calls": calls["total"], "llm_calls_by_role": calls["by_role"],
        "llm_calls_by_prompt": by_prompt(store),
        "speed": last.get("speed") or {},
        "tool_executions": store.execution_stats(),
    }
    if data["kind"] == EVAL_KIND:
        data["evaluations"] = [{"eval_id": e.get("eval_id"), "name": e.get("name"),
                                "summary": e.get("summary")} for e in store.evals()]
    return data


def _tool_data(result: Mapping[str, Any]) -> dict[str, Any]:
    s = result.get("stats", {})
    return {"valid_calls": s.get("valid_invocations"),
            "verified_examples": s.get("verified_examples"),
            "fact_tests": s.get("fact_tests"),
            "fact_tests_failed_by_original": s.get("fact_tests_failed_by_original"),
            "facts_by_source": s.get("facts_by_source") or {},
            "schema_constraints": s.get("schema_constraints") or {},
            "demos": s.get("demos"), "best_reward": s.get("best_reward"),
            "evidence_calls": s.get("evidence_calls") or {},
            "doc_changed": bool(result.get("doc_changed")),
            "doc_reason": result.get("doc_reason", ""), "scores": result.get("scores") or {}}


def print_show(data: Mapping[str, Any]) -> None:
    """``runs show`` for a person: plain lines and one table, nothing cut in a pipe."""
    out = console.print
    kind = " evaluation" if data["kind"] == EVAL_KIND else ""
    out(f"run {data['run_id']}{kind} ({data['status']}), created {data['created']}",
        highlight=False, markup=False)
    models = ", ".join(f"{k} {v}" for k, v in data["models"].items()) or "-"
    out(f"models: {models}", highlight=False, markup=False)
    origin = data["refreshed_from"]
    if origin:
        out(f"refreshed from run {origin.get('run')}: re-optimized "
            f"{', '.join(origin.get('reoptimized') or []) or 'none'}; reused "
            f"{', '.join(origin.get('reused') or []) or 'none'}", highlight=False, markup=False)
    reused = data.get("reused_calls")
    if reused:
        out(f"reused calls: {reused['seeded']} samples seeded from run(s) "
            f"{', '.join(reused['runs'])}; {reused['hit']} of them answered this run",
            highlight=False, markup=False)
    for ev in data.get("evaluations", []):
        out(f"evaluation {ev['name']} ({ev['eval_id']}): results in {data['path']}/summary.md",
            highlight=False, markup=False)
    if data["tools"]:
        out(table("tools", ["tool", "valid calls", "verified examples",
                            "facts (error/probe/output)", "fact tests (D0 fails)",
                            "schema keywords", "demos", "best reward", "doc changed", "why"],
                  [_tool_row(name, t) for name, t in data["tools"].items()]))
    used = evidence_total(data["tools"].values())
    if used:
        out("evidence components' calls (all tools): "
            + ", ".join(f"{name} {n}" for name, n in used.items()), highlight=False, markup=False)
    total = data["llm_calls"]
    out(f"logged LLM samples: {total['samples']} ({total['failed']} failed), tokens "
        f"{total['prompt_tokens']} prompt + {total['completion_tokens']} completion",
        highlight=False, markup=False)
    if data["llm_calls_by_prompt"]:
        out(table("LLM samples by prompt (summed latency: slots overlap)",
                  ["prompt", "role", "samples", "prompt tokens", "processed", "generated",
                   "latency s", "share"],
                  [[r["prompt"], r["role"], r["samples"], r["prompt_tokens"],
                    "-" if r["processed"] is None else r["processed"], r["completion_tokens"],
                    r["latency_s"], r["share"]] for r in data["llm_calls_by_prompt"]]))
    for model, sp in data["speed"].items():
        out(_speed_line(model, sp), highlight=False, markup=False)
    execs = data["tool_executions"]
    out(f"tool executions: {sum(v['total'] for v in execs.values())} "
        f"({sum(v['ok'] for v in execs.values())} ok)", highlight=False, markup=False)


def by_prompt(store: Any) -> list[dict[str, Any]]:
    """The answered samples by the template that opened them (``metaprompts.opened_by``) and
    role, the largest summed latency first: where a run's model time went. ``processed``: the
    prompt tokens the model computed (not served from its prefix cache; None where the store
    did not log it)."""
    from play2prompt.metaprompts import MetaPrompts, opened_by

    openings = MetaPrompts().openings()
    rows: dict[tuple[str, str], list[float]] = {}
    known = True
    for role, first, n, ptok, ctok, lat, cached in store.samples_by_opening():
        acc = rows.setdefault((opened_by(first, openings), role), [0, 0, 0, 0.0, 0])
        known = known and cached is not None
        for i, v in enumerate((n, ptok, ctok, lat, cached or 0)):
            acc[i] += v
    total = sum(acc[3] for acc in rows.values())
    return [{"prompt": name, "role": role, "samples": int(a[0]), "prompt_tokens": int(a[1]),
             "processed": int(a[1] - a[4]) if known else None,
             "completion_tokens": int(a[2]), "latency_s": round(a[3], 1),
             "share": f"{100 * a[3] / total:.0f} %" if total else "-"}
            for (name, role), a in sorted(rows.items(), key=lambda kv: -kv[1][3])]


def evidence_total(tools: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The evidence components' calls summed over the tools, by name (``--evidence``)."""
    total: Counter[str] = Counter()
    for t in tools:
        total.update(t.get("evidence_calls") or {})
    return dict(sorted(total.items()))


def _tool_row(name: str, t: Mapping[str, Any]) -> list[Any]:
    tests = (f"{t['fact_tests']} ({t['fact_tests_failed_by_original'] or 0})"
             if t["fact_tests"] is not None else "-")
    found = t.get("facts_by_source") or {}
    facts = "/".join(str(found.get(k, 0)) for k in ("error", "probe", "output")) \
        if found else "-"
    shipped = sum(len(c) for c in (t.get("schema_constraints") or {}).values())
    return [name, t["valid_calls"], t["verified_examples"], facts, tests, shipped, t["demos"],
            fmt(t["best_reward"]), "yes" if t["doc_changed"] else "no", t["doc_reason"]]


def _speed_line(model: str, sp: Mapping[str, Any]) -> str:
    share = sp.get("share_of_ceiling")
    return (f"speed of {model} (last session): busy {sp.get('busy_s')} s, "
            f"{sp.get('prompt_tokens_processed')} prompt tokens processed, "
            f"{sp.get('completion_tokens')} generated, {sp.get('tokens_per_s')} "
            f"tokens/s" + (f", {share:.0%} of the ceiling measured here"
                           if share is not None else
                           " (no ceiling measured here: bench/bench_ceiling.py)"))
