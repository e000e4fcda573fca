"""The tool model: Tool, ToolDoc, Invocation, Observation.

A :class:`Tool` is an OpenAI-style function spec (name, description, JSON-Schema parameters)
plus how to execute it. Its documentation is the tool description together with the
per-parameter descriptions; :class:`ToolDoc` holds exactly that part, so an optimized doc can be
applied back onto the tool (``tool.with_doc(doc)``) and rendered into any export format.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from play2prompt.jsonutil import canonical, json_default, to_jsonable
from play2prompt.tools.effects import declared_side_effects, inferred_reason


@dataclass(frozen=True)
class ToolDoc:
    """The documentation of one tool: a description and one text per parameter, and the JSON
    Schema keywords (``enum``, ``minimum``, ``default``...) the doc adds to each parameter's
    schema (``constraints``: schema is documentation too)."""

    description: str
    params: Mapping[str, str] = field(default_factory=dict)
    constraints: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"description": self.description, "params": dict(self.params)}
        if self.constraints:
            out["constraints"] = {p: dict(c) for p, c in self.constraints.items()}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolDoc:
        params = data.get("params") or {}
        constraints = data.get("constraints") or {}
        return cls(str(data.get("description") or ""), {str(k): str(v) for k, v in params.items()},
                   {str(k): dict(v) for k, v in constraints.items() if isinstance(v, Mapping)})

    def with_constraints(self, constraints: Mapping[str, Mapping[str, Any]]) -> ToolDoc:
        """This doc with ``constraints`` (empty ones left out) in place of its own."""
        kept = {p: dict(c) for p, c in sorted(constraints.items()) if c}
        return replace(self, constraints=kept)

    def render(self, name: str, parameters: Mapping[str, Any] | None = None) -> str:
        """Plain-text rendering used inside meta-prompts."""
        props = (parameters or {}).get("properties", {}) if parameters else {}
        required = set((parameters or {}).get("required", []) or [])
        lines = [f"Tool: {name}", f"Description: {self.description or '(none)'}", "Parameters:"]
        names = list(props) or list(self.params)
        if not names:
            lines.append("  (no parameters)")
        for pname in names:
            schema = {**props.get(pname, {}), **self.constraints.get(pname, {})}
            kind = schema.get("type", "any")
            extra = []
            if "enum" in schema:
                extra.append("one of " + ", ".join(json.dumps(v) for v in schema["enum"]))
            if "default" in schema:
                extra.append(f"default {json.dumps(schema['default'])}")
            if schema.get("examples"):
                extra.append("example " + ", ".join(json.dumps(v, ensure_ascii=False)
                                                    for v in list(schema["examples"])[:2]))
            tag = "required" if pname in required else "optional"
            desc = self.params.get(pname, "") or "(no description)"
            suffix = f" ({'; '.join(extra)})" if extra else ""
            lines.append(f"  - {pname} ({kind}, {tag}): {desc}{suffix}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Tool:
    """A callable tool: an OpenAI function spec plus its executor spec."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    executor: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    # executing it may change something (play2prompt.tools.effects): the tools file's
    # "side_effects"; None is replaced by what the executor tells (MCP annotations, HTTP
    # method, SQL statement; other kinds: False)
    side_effects: bool | None = None

    def __post_init__(self) -> None:
        if self.side_effects is None:
            inferred = inferred_reason(self.executor, self.meta) is not None
            object.__setattr__(self, "side_effects", inferred)

    @property
    def properties(self) -> Mapping[str, Any]:
        return self.parameters.get("properties", {}) or {}

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []) or [])

    @property
    def doc(self) -> ToolDoc:
        params = {n: str(s.get("description", "") or "") for n, s in self.properties.items()}
        return ToolDoc(self.description or "", params)

    def with_doc(self, doc: ToolDoc) -> Tool:
        """A copy of this tool with ``doc`` applied (schema otherwise untouched). An empty text
        adds no ``description`` to a parameter that has none (nothing documents it; no
        consumer should see ``"description": ""`` appear)."""
        params = copy.deepcopy(dict(self.parameters))
        props = params.get("properties", {}) or {}
        for pname, schema in props.items():
            if pname in doc.params and isinstance(schema, dict) and \
                    (doc.params[pname] or "description" in schema):
                schema["description"] = doc.params[pname]
            if isinstance(schema, dict):
                schema.update({k: copy.deepcopy(v) for k, v in
                               doc.constraints.get(pname, {}).items() if k not in schema})
        return replace(self, description=doc.description, parameters=params)

    def render_doc(self) -> str:
        return self.doc.render(self.name, self.parameters)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``tools=`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(dict(self.parameters)),
            },
        }

    def to_dict(self) -> dict[str, Any]:
        """The tools.json entry (OpenAI spec + executor + meta; ``side_effects`` when the tool
        has them or its executor alone would say it has)."""
        entry = self.to_openai()
        if self.executor is not None:
            entry["executor"] = copy.deepcopy(dict(self.executor))
        if self.meta:
            entry["meta"] = to_jsonable(dict(self.meta))
        if self.side_effects or inferred_reason(self.executor, self.meta) is not None:
            entry["side_effects"] = self.side_effects
        return entry

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> Tool:
        fn = entry.get("function", entry)
        return cls(
            name=fn["name"],
            description=fn.get("description", "") or "",
            parameters=fn.get("parameters") or {"type": "object", "properties": {}},
            executor=entry.get("executor"),
            meta=entry.get("meta") or {},
            side_effects=declared_side_effects(entry, f"tool {fn['name']!r}"),
        )


@dataclass(frozen=True)
class Invocation:
    """A call of a tool with arguments."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        return canonical({"name": self.name, "arguments": dict(self.arguments)})

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": to_jsonable(dict(self.arguments))}

    def with_args(self, values: Mapping[str, Any]) -> Invocation:
        """This call with ``values`` set (added, or in place of its own)."""
        return Invocation(self.name, {**self.arguments, **values})

    def without(self, param: str) -> Invocation:
        """This call with ``param`` left out."""
        return Invocation(self.name, {k: v for k, v in self.arguments.items() if k != param})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Invocation:
        return cls(str(data["name"]), dict(data.get("arguments") or {}))

    def to_python(self) -> str:
        """``name(a=1, b='x')``: the call in Python syntax."""
        args = ", ".join(f"{k}={_py_literal(v)}" for k, v in self.arguments.items())
        return f"{self.name}({args})"

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


def _py_literal(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_py_literal(v) for v in value) + "]"
    return repr(value)


@dataclass(frozen=True)
class Observation:
    """The result of executing an invocation: an output or a typed error."""

    ok: bool
    output: Any = None
    error: str | None = None
    error_type: str | None = None  # schema | exception | timeout | http | unavailable | crash
    latency_s: float = 0.0

    @classmethod
    def success(cls, output: Any, latency_s: float = 0.0) -> Observation:
        return cls(True, to_jsonable(output), None, None, latency_s)

    @classmethod
    def failure(cls, error_type: str, error: str, latency_s: float = 0.0) -> Observation:
        return cls(False, None, error, error_type, latency_s)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "output": self.output,
            "error": self.error,
            "error_type": self.error_type,
            "latency_s": round(self.latency_s, 6),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Observation:
        return cls(
            bool(data["ok"]),
            data.get("output"),
            data.get("error"),
            data.get("error_type"),
            float(data.get("latency_s") or 0.0),
        )

    def render(self, limit: int = 1500) -> str:
        """Short text for prompts."""
        if not self.ok:
            return f"ERROR ({self.error_type}): {self.error}"[:limit]
        text = json.dumps(self.output, ensure_ascii=False, default=json_default)
        return text if len(text) <= limit else text[:limit] + " ...(truncated)"
