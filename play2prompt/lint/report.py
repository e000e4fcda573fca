"""``p2p lint``'s output: text for a person, JSON for a program, SARIF 2.1.0 for code scanning.

SARIF: one run whose driver lists every rule (id, name, help, default level); each finding is a
result with its rule, level (``error``, ``warning``, ``note`` for info), message (with the fix
hint), the file and line its tool is written at (a server's tools have none) and the tool as a
logical location; the field, hint and proposal ride in the result's ``properties``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.lint.findings import RULES, SEVERITIES, Finding

SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}


def text_report(findings: Sequence[Finding], tools: int, notes: Sequence[str] = ()) -> str:
    """One block per finding (where, rule, message, fix, proposal), then the notes and a
    summary line."""
    lines = []
    for f in findings:
        where = _where(f.location)
        lines.append(f"{where}{f.tool}: {f.field}: {f.message} [{f.severity} {f.rule} "
                     f"{f.name}]")
        lines.append(f"    fix: {f.hint}")
        if f.proposal:
            lines.append(f"    proposed: {f.proposal}")
    lines += [f"note: {n}" for n in notes]
    c = counts(findings)
    lines.append(f"{len(findings)} finding(s) in {tools} tool(s): {c['error']} error(s), "
                 f"{c['warning']} warning(s), {c['info']} info")
    return "\n".join(lines) + "\n"


def _where(location: Mapping[str, Any]) -> str:
    if not location.get("uri"):
        return ""
    line = location.get("line")
    return f"{location['uri']}:{line}: " if line else f"{location['uri']}: "


def json_report(findings: Sequence[Finding], tools: int, notes: Sequence[str] = ()
                ) -> dict[str, Any]:
    return {"tools": tools, "counts": counts(findings),
            "findings": [f.to_dict() for f in findings], "notes": list(notes)}


def sarif_report(findings: Sequence[Finding], version: str, base: Path | None = None
                 ) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``findings``; file paths relative to ``base`` (default: here)."""
    ids = list(RULES)
    rules = [{"id": r.id, "name": r.name, "shortDescription": {"text": r.summary},
              "help": {"text": r.help}, "defaultConfiguration": {"level": _LEVEL[r.severity]},
              "properties": {"tags": ["documentation"] + (["exec"] if r.needs_exec else [])}}
             for r in RULES.values()]
    results = [_result(f, ids.index(f.rule), base or Path.cwd()) for f in findings]
    driver = {"name": "p2p lint", "fullName": "play2prompt tool documentation linter",
              "version": version, "rules": rules}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results,
                      "columnKind": "unicodeCodePoints"}]}


def _result(f: Finding, index: int, base: Path) -> dict[str, Any]:
    text = f"{f.tool}: {f.message}. Fix: {f.hint}"
    if f.proposal:
        text += f" Proposed: {f.proposal}"
    location: dict[str, Any] = {"logicalLocations": [
        {"name": f.tool, "fullyQualifiedName": f"{f.tool}.{f.field}", "kind": "function"}]}
    uri = f.location.get("uri")
    if uri:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(str(uri), base)}}
        if f.location.get("line"):
            physical["region"] = {"startLine": int(f.location["line"])}
        location["physicalLocation"] = physical
    props = {"tool": f.tool, "field": f.field, "severity": f.severity, "hint": f.hint}
    if f.proposal:
        props["proposal"] = f.proposal
    if f.evidence:
        props["evidence"] = f.evidence
    return {"ruleId": f.rule, "ruleIndex": index, "level": _LEVEL[f.severity],
            "message": {"text": text}, "locations": [location],
            "partialFingerprints": {"p2pFinding/v1": f"{f.rule}:{f.tool}:{f.field}"},
            "properties": props}


def _uri(path: str, base: Path) -> str:
    """A relative URI for a file under ``base`` (how code scanning matches it to the
    repository), else the absolute file URI."""
    full = Path(path).resolve()
    try:
        return full.relative_to(base.resolve()).as_posix()
    except ValueError:
        return full.as_uri() if os.path.isabs(str(full)) else full.as_posix()
