"""The doc linter: problems in a tool's documentation that a reader (or a model) trips over.

Errors make the spec unusable (required names missing from properties, unknown types, a
parameters block that is not an object); warnings make it thin (empty descriptions). The
linter score is used as a tie-breaker between documentation candidates of equal accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.tools.types import is_known_type


@dataclass(frozen=True)
class LintIssue:
    tool: str
    field: str
    message: str
    severity: str  # "error" | "warning"

    def __str__(self) -> str:
        return f"{self.tool}: {self.field}: {self.message} [{self.severity}]"


def lint_spec(name: str, description: str, parameters: Any) -> list[LintIssue]:
    """Lint a raw function spec (before type normalisation)."""
    issues: list[LintIssue] = []

    def add(field: str, message: str, severity: str = "error") -> None:
        issues.append(LintIssue(name, field, message, severity))

    if not str(description or "").strip():
        add("description", "empty tool description", "warning")
    if not isinstance(parameters, Mapping):
        add("parameters", "must be a JSON object schema")
        return issues
    if parameters.get("type") not in (None, "object", "dict"):
        add("parameters.type", f"must be 'object', got {parameters.get('type')!r}")
    props = parameters.get("properties", {})
    if not isinstance(props, Mapping):
        add("parameters.properties", "must be an object")
        return issues
    required = parameters.get("required", []) or []
    if not isinstance(required, list):
        add("parameters.required", "must be a list of parameter names")
        required = []
    for req in required:
        if req not in props:
            add("parameters.required", f"required parameter {req!r} is not in properties")
    for field, message in ref_problems(parameters) + enum_problems(parameters) + \
            bound_problems(parameters):
        add(field, message)
    for pname, schema in props.items():
        field = f"parameters.properties.{pname}"
        if not isinstance(schema, Mapping):
            add(field, "must be an object schema")
            continue
        issues.extend(_lint_type(name, field, schema))
        if not str(schema.get("description", "") or "").strip():
            add(f"{field}.description", "empty parameter description", "warning")
    return issues


def ref_problems(parameters: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every ``$ref`` of the schema that does not point inside it."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("parameters", parameters)]
    while stack:
        field, node = stack.pop()
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if ref is not None and not _resolves(parameters, ref):
                where = "a remote $ref is not supported" if isinstance(ref, str) and not \
                    ref.startswith("#") else "points nowhere in the schema"
                out.append((f"{field}.$ref", f"{ref!r}: {where}"))
            stack.extend((f"{field}.{k}", v) for k, v in node.items() if k != "$ref")
        elif isinstance(node, list):
            stack.extend((f"{field}.{i}", v) for i, v in enumerate(node))
    return sorted(out)


def enum_problems(parameters: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every ``enum`` of the schema that no value can satisfy (an
    empty list) or that is not a list (a property *named* ``enum`` is no keyword)."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any, bool]] = [("parameters", parameters, False)]
    while stack:
        field, node, names = stack.pop()
        if isinstance(node, Mapping):
            enum = None if names else node.get("enum")
            if isinstance(enum, list) and not enum:
                out.append((f"{field}.enum", "empty: no value can satisfy it (leave 'enum' "
                                             "out, or list the accepted values)"))
            elif enum is not None and not isinstance(enum, list):
                out.append((f"{field}.enum", "must be a list of the accepted values"))
            stack.extend((f"{field}.{k}", v, not names and k in _NAME_MAPS)
                         for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((f"{field}.{i}", v, False) for i, v in enumerate(node))
    return sorted(out)


_NUMBER_BOUNDS = (("minimum", "maximum"), ("exclusiveMinimum", "exclusiveMaximum"),
                  ("minimum", "exclusiveMaximum"), ("exclusiveMinimum", "maximum"))
_COUNT_BOUNDS = (("minLength", "maxLength"), ("minItems", "maxItems"),
                 ("minProperties", "maxProperties"), ("minContains", "maxContains"))


def bound_problems(parameters: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every bound of the schema no value can meet or no API takes:
    a bound that is not a finite number (a count bound: a whole number >= 0; ``multipleOf``:
    above 0), a lower bound above its upper one."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any, bool]] = [("parameters", parameters, False)]
    while stack:
        field, node, names = stack.pop()
        if isinstance(node, Mapping):
            if not names:
                out.extend(_bounds_of(field, node))
            stack.extend((f"{field}.{k}", v, not names and k in _NAME_MAPS)
                         for k, v in node.items() if names or k not in _VALUES)
        elif isinstance(node, list):
            stack.extend((f"{field}.{i}", v, False) for i, v in enumerate(node))
    return sorted(out)


# Keywords whose value is data, not a schema
_VALUES = frozenset({"default", "examples", "example", "const", "enum"})


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def _bounds_of(field: str, node: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for key in {k for pair in _NUMBER_BOUNDS for k in pair} | {"multipleOf"}:
        value = node.get(key)
        draft4 = isinstance(value, bool) and key.startswith("exclusive")  # draft 4's flags
        if value is not None and not draft4 and not _number(value):
            out.append((f"{field}.{key}", f"{value!r} is not a finite number"))
    if _number(node.get("multipleOf")) and not node["multipleOf"] > 0:
        out.append((f"{field}.multipleOf", f"{node['multipleOf']!r} must be above 0"))
    for key in {k for pair in _COUNT_BOUNDS for k in pair}:
        value = node.get(key)
        if value is not None and not (_number(value) and value >= 0 and value == int(value)):
            out.append((f"{field}.{key}", f"{value!r} is not a whole number >= 0"))
    for low, high in _NUMBER_BOUNDS + _COUNT_BOUNDS:
        a, b = node.get(low), node.get(high)
        if _number(a) and _number(b):
            strict = low.startswith("exclusive") or high.startswith("exclusive")
            if a > b or (strict and a == b):
                out.append((f"{field}.{low}", f"{low} {a!r} leaves no value up to {high} "
                                              f"{b!r}: no value can satisfy it"))
    return out


# Keywords whose value maps names to schemas (a key there is a name, not a keyword).
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                        "dependentSchemas"})


def _resolves(root: Mapping[str, Any], ref: Any) -> bool:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return False
    node: Any = root
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def _lint_type(tool: str, field: str, schema: Mapping[str, Any]) -> list[LintIssue]:
    issues = []
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for k in kinds:
        if not is_known_type(k):
            issues.append(LintIssue(tool, f"{field}.type", f"unknown type {k!r}", "error"))
    items = schema.get("items")
    if isinstance(items, Mapping):
        issues.extend(_lint_type(tool, f"{field}.items", items))
    return issues


def lint_tool(tool: Any) -> list[LintIssue]:
    """Lint a :class:`~play2prompt.tools.model.Tool` (its current documentation)."""
    return lint_spec(tool.name, tool.description, tool.parameters)


def lint_score(tool: Any) -> float:
    """1.0 for a clean doc, lower for each problem (errors weigh double)."""
    issues = lint_tool(tool)
    weight = sum(2 if i.severity == "error" else 1 for i in issues)
    return 1.0 / (1.0 + weight)
