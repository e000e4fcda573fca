"""``p2p lint``: a tool set's documentation checked before it is deployed, no LLM.

:func:`lint` reads the targets' docs with the static rules (:mod:`.static`) and, with
``execute``, runs the tools that may run a few times (:mod:`.execute`) to check that the
documented enum values and defaults work and that the error messages teach. Sources (a
tools.json, an OpenAPI spec, a Python module) are read by :mod:`.sources`; the rules and
findings are in :mod:`.findings`; text, JSON and SARIF output in :mod:`.report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from play2prompt.lint.findings import RULES, Finding, Rule, Target, exit_code, ordered
from play2prompt.lint.static import MAX_TOKENS, lint_targets

__all__ = ["RULES", "Finding", "LintResult", "Rule", "Target", "exit_code", "lint", "merged"]


@dataclass(frozen=True)
class LintResult:
    findings: tuple[Finding, ...]
    tools: int
    notes: tuple[str, ...] = ()
    calls: int = 0               # executions --exec made


def lint(targets: Sequence[Target], *, max_tokens: int = MAX_TOKENS, execute: bool = False,
         allow: Sequence[str] = (), base_dir: Path | None = None, timeout: float = 10.0,
         found: Sequence[Finding] = ()) -> LintResult:
    """Every finding of ``targets`` (plus ``found``, what reading the source found), most
    severe first. ``execute``: the --exec checks too, tools with side effects only when
    ``allow`` names them (or ``all``) or in a sandbox."""
    findings = [*found, *lint_targets(targets, max_tokens)]
    notes: tuple[str, ...] = ()
    calls = 0
    if execute:
        from play2prompt.lint.execute import exec_findings

        report = exec_findings(targets, allow, base_dir, timeout)
        findings += report.findings
        notes, calls = report.notes, report.calls
    return LintResult(tuple(ordered(findings)), len(targets), notes, calls)


def merged(results: Sequence[LintResult]) -> LintResult:
    """Several sources' results as one."""
    return LintResult(tuple(ordered(f for r in results for f in r.findings)),
                      sum(r.tools for r in results),
                      tuple(n for r in results for n in r.notes), sum(r.calls for r in results))
