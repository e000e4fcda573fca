"""``p2p verify``: a run's demos as regression tests of its tools.

Every call the run recorded as working (demos, verified examples, other logged calls; see
:mod:`play2prompt.drift.recorded`) is executed again with the tool's current executor and its
output compared with the recorded one by the checker evaluation uses
(:func:`play2prompt.scoring.checker.check_calls`: ``exact``, ``real_time`` within 20 % for
numbers, ``structural``); the current parameter schemas are compared with the run's. Per tool:

- ``ok``: every replayed call gives what it gave;
- ``output_changed``: a call runs but its output no longer matches;
- ``now_fails``: a call that worked now fails (the error, scrubbed, is in the report);
- ``schema_changed``: parameters added, removed, retyped, accepted values changed...;
- ``gone``: the tool is no longer in the tools file (``replaced by`` a tool whose ``meta``
  says ``"replaces": NAME``); ``new``: a tool added since the run (the file the run started
  from did not have it, or it replaces one of the run's tools);
- ``unoptimized``: a tool of the file the run was not asked to optimize (``p2p optimize FILE
  --tools A`` optimizes A only), or, where the run did not record its file's tools, any tool
  the run did not optimize: not drift, the run says nothing about it;
- ``unchecked``: nothing to replay (no call worked in the run) or an executor that would ask a
  language model (verify never does).

A tool that may change things is replayed only with verify's own consent
(``allow_side_effects``): the run's consent is never reused, only named as a hint.
No LLM is called and nothing is written. The report is scrubbed with the secrets of both the
run's tools and the current ones. Exit status: 0 nothing drifted (ok, unchecked and unoptimized
tools only), 1 a tool drifted, 2 an error (bad input, or verify could not finish).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from play2prompt.drift.recorded import RecordedCall, RecordedRun
from play2prompt.errors import ToolsFileError, UserError, describe_failure
from play2prompt.scoring.checker import check_calls
from play2prompt.scoring.match import MATCH_TYPES, outputs_match
from play2prompt.scrub import Scrubber, for_tools
from play2prompt.tools.executors._base import ExecContext, executor_class, executor_kind
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.observations import is_transient
from play2prompt.tools.runtime import ToolRuntime

OK, OUTPUT_CHANGED, NOW_FAILS = "ok", "output_changed", "now_fails"
SCHEMA_CHANGED, GONE, NEW, UNCHECKED = "schema_changed", "gone", "new", "unchecked"
UNOPTIMIZED = "unoptimized"
DRIFT = (GONE, SCHEMA_CHANGED, NOW_FAILS, OUTPUT_CHANGED, NEW)   # by precedence
LABELS = {OK: "ok", OUTPUT_CHANGED: "output changed", NOW_FAILS: "now fails",
          SCHEMA_CHANGED: "schema changed", GONE: "tool gone", NEW: "new tool",
          UNCHECKED: "not checked", UNOPTIMIZED: "not optimized by this run"}
EXIT_OK, EXIT_DRIFT, EXIT_ERROR = 0, 1, 2   # an error exits 2, like every command's bad input
TEXT_LIMIT = 300                   # characters of an output or error shown in the report
DEFAULT_LIMIT = 10                 # recorded calls replayed per tool
_DOC_KEYS = frozenset({"description", "title", "examples"})


@dataclass(frozen=True)
class CallCheck:
    """One recorded call executed again: ``ok``, ``changed`` or ``fails``."""

    source: str
    call: Mapping[str, Any]          # the invocation (scrubbed)
    status: str
    detail: str = ""
    recorded: str = ""               # the output then (scrubbed, bounded)
    now: str = ""                    # the output or error now (same)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "call": dict(self.call), "status": self.status,
                "detail": self.detail, "recorded": self.recorded, "now": self.now}


@dataclass(frozen=True)
class ToolCheck:
    name: str
    status: str
    schema: tuple[str, ...] = ()     # what changed in the parameter schema, in words
    calls: tuple[CallCheck, ...] = ()
    note: str = ""

    @property
    def drifted(self) -> bool:
        return self.status in DRIFT

    def detail(self) -> str:
        """The first thing that shows the drift, on one line."""
        bad = sorted((c for c in self.calls if c.status != "ok"),
                     key=lambda c: c.status != "fails")         # a failure says the most
        parts = [*self.schema[:2], *(f"{c.detail}" for c in bad[:1]), self.note]
        return "; ".join(p for p in parts if p)

    def to_dict(self) -> dict[str, Any]:
        counts = {s: sum(1 for c in self.calls if c.status == s)
                  for s in ("ok", "changed", "fails")}
        return {"name": self.name, "status": self.status, "drifted": self.drifted,
                "schema_changes": list(self.schema), "note": self.note, "replayed": counts,
                "calls": [c.to_dict() for c in self.calls]}


@dataclass(frozen=True)
class VerifyReport:
    run_id: str
    tools_file: str | None
    match: str
    tools: tuple[ToolCheck, ...]

    @property
    def drifted(self) -> list[str]:
        return [t.name for t in self.tools if t.drifted]

    @property
    def unoptimized(self) -> list[str]:
        return [t.name for t in self.tools if t.status == UNOPTIMIZED]

    @property
    def exit_code(self) -> int:
        return EXIT_DRIFT if self.drifted else EXIT_OK

    def status_of(self, name: str) -> str | None:
        return next((t.status for t in self.tools if t.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run_id, "tools_file": self.tools_file, "match": self.match,
                "drifted": self.drifted, "not_optimized": self.unoptimized,
                "exit_code": self.exit_code,
                "tools": [t.to_dict() for t in self.tools]}


def _shape(schema: Any) -> Any:
    """A schema without its documentation (descriptions, titles, examples)."""
    if isinstance(schema, Mapping):
        return {k: _shape(v) for k, v in schema.items() if k not in _DOC_KEYS}
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


def schema_changes(old: Tool, new: Tool) -> list[str]:
    """What differs between two parameter schemas, in words (documentation text aside)."""
    po, pn = old.properties, new.properties
    out = [f"parameter {p!r} removed" for p in po if p not in pn]
    out += [f"parameter {p!r} added" for p in pn if p not in po]
    out += [f"looks like {a!r} renamed to {b!r}" for a, b in renamed_params(old, new).items()]
    for p in (p for p in po if p in pn):
        a, b = _shape(po[p]), _shape(pn[p])
        if a == b:
            continue
        if a.get("type") != b.get("type"):
            out.append(f"{p!r}: type {a.get('type')} -> {b.get('type')}")
        elif a.get("enum") != b.get("enum"):
            out.append(f"{p!r}: accepted values {_values(a)} -> {_values(b)}")
        else:
            out.append(f"{p!r}: schema changed")
    ro, rn = set(old.required), set(new.required)
    out += [f"{p!r} now required" for p in sorted(rn - ro) if p in po]
    out += [f"{p!r} no longer required" for p in sorted(ro - rn) if p in pn]
    rest = ({k: v for k, v in _shape(old.parameters).items() if k not in ("properties",
                                                                            "required")},
            {k: v for k, v in _shape(new.parameters).items() if k not in ("properties",
                                                                            "required")})
    if rest[0] != rest[1]:
        out.append("parameters: schema changed")
    return out


def renamed_params(old: Tool, new: Tool) -> dict[str, str]:
    """{old: new} when exactly one parameter went and one of the same type came."""
    gone = [p for p in old.properties if p not in new.properties]
    came = [p for p in new.properties if p not in old.properties]
    if len(gone) == 1 and len(came) == 1 and \
            old.properties[gone[0]].get("type") == new.properties[came[0]].get("type"):
        return {gone[0]: came[0]}
    return {}


def _values(schema: Mapping[str, Any]) -> str:
    enum = schema.get("enum")
    return ", ".join(map(str, enum[:8])) + (" ..." if len(enum) > 8 else "") if enum else "any"


def replaced(tools: Sequence[Tool]) -> dict[str, str]:
    """Old tool name -> the tool that says it replaces it (``meta: {"replaces": NAME}``)."""
    return {str(t.meta["replaces"]): t.name for t in tools if t.meta.get("replaces")}


def check_matching(run: RecordedRun, tools: Sequence[Tool], source: str) -> None:
    """One line when the tools share nothing with the run (the wrong file or run)."""
    names = {t.name for t in tools} | set(replaced(tools))
    if not names & set(run.tools):
        raise UserError(f"{source}: none of its tools is in run {run.run_id!r} (run: "
                        f"{', '.join(sorted(run.tools))}; file: "
                        f"{', '.join(sorted(t.name for t in tools))})")


def verify_run(run: RecordedRun, tools: Sequence[Tool] | None = None, *,
               base_dir: Path | None = None, match: str = "exact",
               match_by_tool: Mapping[str, str] | None = None, limit: int = DEFAULT_LIMIT,
               timeout: float | None = None, tools_file: str | None = None,
               allow_side_effects: Sequence[str] = ()) -> VerifyReport:
    """Check ``run`` against ``tools`` (default: the run's own tools, executed as recorded;
    relative executor paths resolve against ``base_dir``, default the run's). A tool that may
    change things is replayed only when ``allow_side_effects`` names it (or ``all``)."""
    from play2prompt import limits

    if timeout is not None:
        limits.SECONDS.check(timeout, "--timeout")
    by_tool = dict(match_by_tool or {})
    for kind in (match, *by_tool.values()):
        if kind not in MATCH_TYPES:
            raise UserError(f"--match must be one of {', '.join(MATCH_TYPES)}, got {kind!r}")
    current = list(tools) if tools is not None else list(run.tools.values())
    check_matching(run, current, tools_file or f"run {run.run_id}")
    unknown = sorted(set(by_tool) - set(run.tools))
    if unknown:
        raise UserError(f"--match names tool(s) not in run {run.run_id!r}: {', '.join(unknown)}")
    scrubber = for_tools(list(run.tools.values())).merged(for_tools(current))
    ctx = ExecContext(base_dir=Path(base_dir or run.base_dir), scrubber=scrubber,
                      default_timeout=timeout or float(run.meta.config.get("tool_timeout", 10)),
                      allow_side_effects=tuple(allow_side_effects))
    runtime = ToolRuntime(current, ctx, store=None)
    try:
        runtime.preflight()          # the MCP servers' annotations now, before any replay
        checks = asyncio.run(_check_all(run, current, runtime, match, by_tool, limit))
    finally:
        runtime.close()
    return VerifyReport(run.run_id, tools_file, match, tuple(checks))


async def _check_all(run: RecordedRun, current: Sequence[Tool], runtime: ToolRuntime,
                     match: str, by_tool: Mapping[str, str], limit: int) -> list[ToolCheck]:
    now = {t.name: t for t in current}
    successors = replaced(current)
    jobs = [_check_tool(run, name, now.get(name), runtime, by_tool.get(name, match), limit,
                        successors.get(name)) for name in run.tools]
    checks = list(await asyncio.gather(*jobs))
    return checks + [_not_in_run(run, tool) for tool in current if tool.name not in run.tools]


def _not_in_run(run: RecordedRun, tool: Tool) -> ToolCheck:
    """A tool of the file the run did not optimize: ``new`` when it came since the run (it
    replaces a tool, or the file the run started from did not have it), else ``unoptimized``."""
    old = tool.meta.get("replaces")
    if old:
        return ToolCheck(tool.name, NEW, note=f"replaces {old}")
    source = run.source_names
    if source is not None and tool.name not in source:
        return ToolCheck(tool.name, NEW, note="not in the file the run started from")
    why = "" if source is not None else ("the run did not record its file's tools: left out "
                                         "of the run, or new since")
    return ToolCheck(tool.name, UNOPTIMIZED, note=why)


@contextmanager
def errors_exit_2() -> Iterator[None]:
    """Whatever fails inside is an error (exit 2), never drift's exit status (1), so that a CI
    gate tells them apart; a bug keeps its traceback with ``P2P_TRACEBACK=1``."""
    try:
        yield
    except (UserError, OSError):        # the CLI's own one-line errors, exit 2 already
        raise
    except Exception as exc:  # noqa: BLE001 - any other failure: verify could not finish
        if os.environ.get("P2P_TRACEBACK"):
            raise
        raise UserError(f"verify could not finish: {describe_failure(exc)}") from exc


async def _check_tool(run: RecordedRun, name: str, tool: Tool | None, runtime: ToolRuntime,
                      kind: str, limit: int, successor: str | None) -> ToolCheck:
    if tool is None:
        return ToolCheck(name, GONE, note=f"replaced by {successor}" if successor else "")
    schema = tuple(schema_changes(run.tools[name], tool))
    reason = _unverifiable(tool) or _refused(runtime, name, run)
    recorded = [] if reason else run.calls(name, limit)
    calls = tuple(await asyncio.gather(*(_replay(c, runtime, kind) for c in recorded)))
    if schema:
        status = SCHEMA_CHANGED
    elif any(c.status == "fails" for c in calls):
        status = NOW_FAILS
    elif any(c.status == "changed" for c in calls):
        status = OUTPUT_CHANGED
    elif not calls:
        status, reason = UNCHECKED, reason or "no call of this tool worked in the run"
    else:
        status = OK
    return ToolCheck(name, status, schema, calls, reason)


def _unverifiable(tool: Tool) -> str:
    """Why the tool's calls cannot be replayed without a language model, or ""."""
    try:
        needs_lm = executor_class(executor_kind(tool.executor, tool.name), tool.name).needs_lm
    except ToolsFileError as exc:
        return str(exc)
    return "its executor answers with a language model; verify calls none" if needs_lm else ""


def _refused(runtime: ToolRuntime, name: str, run: RecordedRun) -> str:
    """Why the tool's calls are not replayed without the user's consent, or "" (the run's
    own consent named as a hint, never applied)."""
    from play2prompt.tools.effects import stored_hint

    why = runtime.needs_consent(name)
    if why is None:
        return ""
    hint = stored_hint(name, run.meta.config.get("allow_side_effects"), f"run {run.run_id}")
    return f"it may change things ({why}); verify calls none: pass --allow-side-effects {name}" \
        + hint


async def _replay(call: RecordedCall, runtime: ToolRuntime, kind: str) -> CallCheck:
    """Execute a recorded call again (once more after a transient failure) and compare."""
    inv = call.invocation
    outcome = await check_calls([inv], [inv], runtime, expected_outputs=[call.output],
                                match=kind, require_exec=True)
    if outcome.observations and is_transient(outcome.observations[0]):
        outcome = await check_calls([inv], [inv], runtime, expected_outputs=[call.output],
                                    match=kind, require_exec=True)
    obs = outcome.observations[0] if outcome.observations else Observation.failure(
        "unknown", outcome.error or "not executed")
    return _compared(call, obs, bool(outcome.exec_ok), kind, runtime.scrubber)


def _compared(call: RecordedCall, obs: Observation, same: bool, kind: str,
              scrubber: Scrubber) -> CallCheck:
    shown = scrubber.value(call.invocation.to_dict())
    recorded = scrubber.text(Observation.success(call.output).render(), TEXT_LIMIT)
    if not obs.ok:
        error = scrubber.text(f"{obs.error_type}: {obs.error}", TEXT_LIMIT)
        transient = " (transient)" if is_transient(obs) else ""
        detail = f"{_short(call.invocation)} now fails{transient}: {error}"
        return CallCheck(call.source, shown, "fails", scrubber.text(detail), recorded, error)
    now = scrubber.text(obs.render(), TEXT_LIMIT)
    if same:
        return CallCheck(call.source, shown, "ok", "", recorded, now)
    closest = next((k for k in MATCH_TYPES if outputs_match(obs.output, call.output, k)), None)
    how = f"still matches as {closest}" if closest else "different structure"
    detail = f"{_short(call.invocation)}: output changed ({kind} match fails, {how})"
    return CallCheck(call.source, shown, "changed", scrubber.text(detail), recorded, now)


def _short(inv: Invocation) -> str:
    text = inv.to_python()
    return text if len(text) <= 80 else text[:77] + "..."
