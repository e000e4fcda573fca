"""``p2p lint --exec``: the tools run a few times by code (no LLM) to check what their docs
and errors say.

For each tool that may run (read-only, in a sandbox, or allowed by ``--allow-side-effects``;
a tool named for a write whose source declares nothing counts as writing, as the consent
rules of optimize count a tool that may change things), a *start call* is made from the schema
(:mod:`play2prompt.lint.starts`) and repaired while an error lists the accepted values of an
argument (up to :data:`REPAIRS` times). From it:

- the evidence layer's probes (:func:`play2prompt.evidence.probes.probes`: an unknown word for
  a text, the negative and a hundred times a number) make the tool refuse values, and when the
  start worked the range search (:mod:`play2prompt.evidence.bounds`) finds where a refused
  number's range ends; everything the tool says is read into a
  :class:`~play2prompt.evidence.facts.FactBook`, as tool play reads it;
- each documented enum value is tried (``P2P301`` when refused) and each documented default
  given explicitly and left out (``P2P302`` when refused, or when the two differ while the
  same call twice agrees);
- each distinct error message is judged (:mod:`play2prompt.lint.messages`): ``P2P303`` when
  it teaches nothing, ``P2P304`` when it names only the parameter, each with the better
  message the facts suggest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from play2prompt.evidence.bounds import search_ranges
from play2prompt.evidence.facts import FactBook, evidence_of
from play2prompt.evidence.observed import seen
from play2prompt.evidence.probes import probes
from play2prompt.lint.findings import Finding, Target, make
from play2prompt.lint.messages import NOTHING, TEACHES, blamed, judge, proposal
from play2prompt.lint.starts import repaired, start_call
from play2prompt.lint.static import write_named
from play2prompt.scrub import Scrubber
from play2prompt.tools.effects import needs_consent, refusal_text
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.observations import is_transient
from play2prompt.tools.runtime import ToolRuntime

REPAIRS = 3            # start calls repaired from listed accepted values
MAX_ENUM = 20          # enum values tried per parameter
TOOL_ERRORS = ("exception", "http")   # the tool's own error messages (not ours, not transient)


@dataclass(frozen=True)
class _Probing:
    """What the range search needs of an engine: a runtime and a scrubber."""

    runtime: ToolRuntime
    scrubber: Scrubber


@dataclass(frozen=True)
class ExecReport:
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]         # tools not executed, and why
    calls: int                     # executions made


def gate(target: Target, allow: Sequence[str]) -> str | None:
    """Why the tool must not be executed here (the consent rules of optimize), or None."""
    tool = target.tool
    why = needs_consent(tool, tuple(allow))
    if why is None and not target.effects_declared and write_named(tool) and \
            needs_consent(replace(tool, side_effects=True), tuple(allow)) is not None:
        why = "named for a write and its side effects are not declared"
    return None if why is None else refusal_text(tool.name, why)


def exec_findings(targets: Sequence[Target], allow: Sequence[str] = (),
                  base_dir: Path | None = None, timeout: float = 10.0) -> ExecReport:
    """Run what ``--exec`` checks on every tool that may run."""
    return asyncio.run(_exec(targets, tuple(allow), base_dir or Path.cwd(), timeout))


async def _exec(targets: Sequence[Target], allow: tuple[str, ...], base_dir: Path,
                timeout: float) -> ExecReport:
    ctx = ExecContext(base_dir=base_dir, default_timeout=timeout, allow_side_effects=allow)
    runtime = ToolRuntime([t.tool for t in targets], ctx, fail_after=None)
    found: list[Finding] = []
    notes: list[str] = []
    try:
        for target in targets:
            why = gate(target, allow)
            if why is not None:
                notes.append(why)
                continue
            checked = await _ToolCheck(target.tool, runtime).run()
            found += [f.at(target.location) for f in checked]
    finally:
        runtime.close()
    return ExecReport(tuple(found), tuple(notes), runtime.executions)


class _ToolCheck:
    """The --exec checks of one tool."""

    def __init__(self, tool: Tool, runtime: ToolRuntime) -> None:
        self.tool = tool
        self.runtime = runtime
        self.book = FactBook(tool)
        self._order: list[tuple[str | None, Invocation, Observation] | None] = []
        self.refused: dict[str, list[Any]] = {}     # documented enum values refused

    async def call(self, inv: Invocation, varied: str | None = None) -> Observation:
        """Run ``inv`` and read what it shows; kept in the order the calls were made (calls
        made together finish in any order)."""
        slot = len(self._order)
        self._order.append(None)
        obs = seen(await self.runtime.run(inv), self.runtime.scrubber)
        self.book.observe(inv, obs, varied)
        self._order[slot] = (varied, inv, obs)
        return obs

    @property
    def ran(self) -> list[tuple[str | None, Invocation, Observation]]:
        return [r for r in self._order if r is not None]

    async def run(self) -> list[Finding]:
        start = start_call(self.tool)
        obs = await self.call(start)
        for _ in range(REPAIRS):
            if obs.ok:
                break
            better = repaired(self.tool, start, self.book, obs.error or "")
            if better is None:
                break
            start, obs = better, await self.call(better)
        if obs.ok:     # the optional arguments probed too, at their documented defaults
            full = Invocation(start.name, {**{n: s["default"] for n, s in
                                              self.tool.properties.items()
                                              if "default" in (s or {})}, **start.arguments})
            if full.key() != start.key() and (await self.call(full)).ok:
                start = full
        calls = [(p, inv) for p, inv in probes(self.tool, start) if inv.key() != start.key()]
        await asyncio.gather(*(self.call(inv, p) for p, inv in calls))
        out: list[Finding] = []
        if obs.ok:
            probed = [(p or "", i, o) for p, i, o in self.ran if p]
            await search_ranges(self.tool, _Probing(self.runtime, self.runtime.scrubber),
                                self.book, start, probed)  # type: ignore[arg-type]
            out += await self.enums(start)
            out += await self.defaults(start)
        return out + self.errors()

    async def enums(self, start: Invocation) -> list[Finding]:
        out = []
        for name, schema in self.tool.properties.items():
            values = [v for v in (schema or {}).get("enum") or [] if v is not None
                      and start.arguments.get(name) != v][:MAX_ENUM]
            for value in values:
                inv = start.with_args({name: value})
                obs = await self.call(inv, name)
                if _refused(obs):
                    self.refused.setdefault(name, []).append(value)
                    out.append(make("P2P301", self.tool.name, f"parameters.properties.{name}"
                                    ".enum", f"documented value {value!r} is refused: "
                                    f"{obs.error}", evidence=evidence_of(inv, obs)))
        return out

    async def defaults(self, start: Invocation) -> list[Finding]:
        out = []
        required = set(self.tool.required)
        for name, schema in self.tool.properties.items():
            if name in required or "default" not in (schema or {}):
                continue
            given = start.with_args({name: schema["default"]})
            left = start.without(name)
            with_default, without = await self.call(given, name), await self.call(left)
            field = f"parameters.properties.{name}.default"
            if _refused(with_default) and not _refused(without):
                out.append(make("P2P302", self.tool.name, field, f"documented default "
                                f"{schema['default']!r} is refused: {with_default.error}",
                                evidence=evidence_of(given, with_default)))
            elif with_default.ok and without.ok and with_default.output != without.output:
                again = await self.call(Invocation(left.name, dict(left.arguments)))
                if again.ok and again.output == without.output:
                    out.append(make("P2P302", self.tool.name, field, f"{name} left out does "
                                    f"not act as the documented default "
                                    f"{schema['default']!r}: the outputs differ",
                                    evidence=evidence_of(given, with_default)))
        return out

    def errors(self) -> list[Finding]:
        """One finding per distinct error message that does not teach."""
        out, seen_texts = [], set()
        for varied, inv, obs in self.ran:
            if obs.ok or obs.error_type not in TOOL_ERRORS or is_transient(obs):
                continue
            text = obs.error or ""
            verdict = judge(self.tool, inv, text)
            key = _shape(text, inv)
            if verdict == TEACHES or key in seen_texts:
                continue
            seen_texts.add(key)
            param = blamed(self.tool, inv, text, varied)
            rule = "P2P303" if verdict == NOTHING else "P2P304"
            better = proposal(self.tool, self.book, param, inv, text,
                              self.refused.get(param or "", ()))
            sent = f" (for {param}={inv.arguments.get(param)!r})" if param else ""
            out.append(make(rule, self.tool.name, "error" + (f".{param}" if param else ""),
                            f"error {text[:200]!r}{sent}", proposal=better,
                            evidence=evidence_of(inv, obs)))
        return out


def _refused(obs: Observation) -> bool:
    return not obs.ok and obs.error_type in TOOL_ERRORS and not is_transient(obs)


def _shape(text: str, inv: Invocation) -> str:
    """The error without the values of the call (one message, whatever value it echoes)."""
    out = text
    for value in inv.arguments.values():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value):
            out = out.replace(repr(value), "<v>").replace(str(value), "<v>")
    return out


__all__ = ["ExecReport", "exec_findings", "gate"]
