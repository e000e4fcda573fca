"""What ``p2p lint`` reports: rules (a registry by id) and the findings they make.

A :class:`Rule` has a stable id (``P2P101``), a short name, a default severity and a help
text; a :class:`Finding` is one problem of one tool: the rule, its severity, the tool, the
field (``description``, ``parameters.properties.unit.description``, ``error``), a message, a
fix hint, and for the execution rules a proposal (the better text) and its evidence. Severity
orders ``error`` > ``warning`` > ``info``; ``--fail-on`` takes one of them, or ``never``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from play2prompt.errors import UserError

SEVERITIES = ("error", "warning", "info")
_RANK = {"error": 3, "warning": 2, "info": 1, "never": 99}
FAIL_ON = ("error", "warning", "info", "never")


@dataclass(frozen=True)
class Rule:
    """One check: ``id`` (stable, for SARIF and suppression), ``name`` (kebab-case), its
    default ``severity``, a one-line ``summary`` and a ``help`` text (how to fix it)."""

    id: str
    name: str
    severity: str
    summary: str
    help: str
    needs_exec: bool = False


@dataclass(frozen=True)
class Finding:
    """One problem: the rule that found it, in which tool and field, what and how to fix it."""

    rule: str                     # a Rule id
    severity: str
    tool: str
    field: str
    message: str
    hint: str
    proposal: str = ""            # the better text (execution rules: from play's facts)
    evidence: str = ""            # the call and what the tool said
    location: Mapping[str, Any] = field(default_factory=dict)   # {"uri":, "line":}

    @property
    def name(self) -> str:
        return RULES[self.rule].name

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "name": self.name, "severity": self.severity,
                               "tool": self.tool, "field": self.field,
                               "message": self.message, "hint": self.hint}
        if self.proposal:
            out["proposal"] = self.proposal
        if self.evidence:
            out["evidence"] = self.evidence
        if self.location:
            out["location"] = dict(self.location)
        return out

    def at(self, location: Mapping[str, Any]) -> Finding:
        return replace(self, location=dict(location))


@dataclass(frozen=True)
class Target:
    """One tool as its source gives it: the tool, whether the source says if it changes
    things (a tools file's ``side_effects``, an HTTP method, MCP ``readOnlyHint``), and where
    it is written (``{"uri": "tools.json", "line": 12}``; empty for a server's tools)."""

    tool: Any                      # play2prompt.tools.model.Tool
    effects_declared: bool = False
    location: Mapping[str, Any] = field(default_factory=dict)


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.id: r for r in rules}


RULES: Mapping[str, Rule] = _rules(
    Rule("P2P001", "schema-invalid", "error", "the parameters are not a valid JSON Schema",
         "Fix the schema: an object with properties, known types, required names that "
         "exist, $refs that resolve."),
    Rule("P2P101", "description-missing", "error", "the tool has no description",
         "Say what the tool does, what it returns and when to use it (one or two sentences)."),
    Rule("P2P102", "description-one-word", "warning", "the description is one word",
         "Write a sentence: what the tool does, on what, and what it returns."),
    Rule("P2P103", "description-restates-name", "warning",
         "the description says nothing the tool's name does not",
         "Say what the name cannot: inputs, output, limits, when to prefer it."),
    Rule("P2P104", "description-over-budget", "warning",
         "the tool's documentation is longer than the token budget",
         "Every request pays for it: cut repetition and move examples into the schema "
         "(examples, enum) or raise --max-tokens."),
    Rule("P2P105", "steering-text", "error",
         "injection-like or steering text in the documentation",
         "A tool's doc says how to call it, not what the model must do; remove the "
         "instruction (MCP tool poisoning reads the same)."),
    Rule("P2P106", "siblings-indistinct", "warning",
         "two tools' descriptions do not tell them apart",
         "Say in each description when to use this tool rather than the other."),
    Rule("P2P107", "side-effects-undeclared", "warning",
         "whether the tool changes things is not declared",
         "Declare it: MCP annotations (readOnlyHint, destructiveHint), the HTTP method, or "
         "\"side_effects\": true|false in the tools file."),
    Rule("P2P108", "doc-leftovers", "warning",
         "a regular-expression fragment, an interpreter message, a probe value or a sentence "
         "said twice in the documentation",
         "Say the accepted form in plain words, once; an error message of Python's or a "
         "pattern's syntax tells a model nothing it can use."),
    Rule("P2P201", "param-description-missing", "warning", "a parameter has no description",
         "Say what the value is, its format or unit, and an example."),
    Rule("P2P202", "param-type-missing", "warning", "a parameter has no type",
         "Give it a JSON Schema type (string, number, integer, boolean, array, object)."),
    Rule("P2P203", "param-unit-missing", "warning",
         "a number that measures something names no unit",
         "Name the unit or scale in the description (\"weight in kilograms\", \"rate in "
         "percent: 5 means 5 %\")."),
    Rule("P2P204", "param-enum-missing", "info",
         "free text where a closed set of values fits",
         "List the accepted values as an enum in the schema (constrained decoding and "
         "validation use it), or in the description."),
    Rule("P2P205", "param-choices-in-prose", "warning",
         "the description lists accepted values the schema does not enforce",
         "Move the listed values into the parameter's enum."),
    Rule("P2P301", "enum-value-refused", "error",
         "the tool refuses a value its enum documents",
         "Drop the value from the enum, or make the tool accept it.", needs_exec=True),
    Rule("P2P302", "default-not-honoured", "warning",
         "the documented default is refused or is not what the tool does when the "
         "parameter is left out",
         "Document the default the tool uses (or make the tool use the documented one).",
         needs_exec=True),
    Rule("P2P303", "error-teaches-nothing", "warning",
         "an error message names no parameter, no accepted value and no range",
         "Name the parameter, the value refused and what is accepted; the proposal is "
         "built from what the tool showed when executed.", needs_exec=True),
    Rule("P2P304", "error-names-no-value", "info",
         "an error message names the parameter but not what it accepts",
         "Add the accepted values, format or range to the message; the proposal is built "
         "from what the tool showed when executed.", needs_exec=True),
)


def check_fail_on(value: str) -> str:
    if value not in FAIL_ON:
        raise UserError(f"--fail-on must be one of {', '.join(FAIL_ON)}, got {value!r}")
    return value


def at_or_above(finding: Finding, threshold: str) -> bool:
    """Whether ``finding`` is at least as severe as ``threshold`` (``never``: none is)."""
    return _RANK[finding.severity] >= _RANK[threshold]


def exit_code(findings: Iterable[Finding], fail_on: str) -> int:
    """0 when no finding is at or above ``fail_on``, else 1."""
    return 1 if any(at_or_above(f, fail_on) for f in findings) else 0


def make(rule: str, tool: str, field_: str, message: str, hint: str = "",
         severity: str | None = None, **extra: Any) -> Finding:
    """A finding of ``rule`` (its default severity and help unless given)."""
    spec = RULES[rule]
    return Finding(rule, severity or spec.severity, tool, field_, message, hint or spec.help,
                   **extra)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Most severe first, then by tool, field and rule (a stable report)."""
    return sorted(findings, key=lambda f: (-_RANK[f.severity], f.tool, f.field, f.rule,
                                           f.message))
