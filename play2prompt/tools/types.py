"""Type normalisation: BFCL / Python / StableToolBench type names -> JSON Schema.

BFCL writes ``dict``, ``float``, ``tuple`` and ``any``; Python-minded specs write ``str``,
``int``, ``list``; ToolBench writes ``STRING``, ``NUMBER``, ``ENUM``. Everything becomes a
JSON-Schema type so that ``jsonschema`` can validate invocations.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}

_ALIASES = {
    "str": "string",
    "string": "string",
    "text": "string",
    "char": "string",
    "date": "string",
    "datetime": "string",
    "time": "string",
    "enum": "string",
    "int": "integer",
    "integer": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "number": "number",
    "decimal": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "list": "array",
    "array": "array",
    "tuple": "array",
    "set": "array",
    "dict": "object",
    "object": "object",
    "map": "object",
    "none": "null",
    "null": "null",
}

# Types that put no constraint on the value.
_ANY = {"any", "anytype", "mixed", "unknown", ""}


def normalize_type(name: Any) -> str | None:
    """Map one type name to a JSON-Schema type; ``None`` for 'any'; raise on unknown names."""
    if not isinstance(name, str):
        raise ValueError(f"type must be a string, got {name!r}")
    key = name.strip().lower()
    if key in _ANY:
        return None
    if key in _ALIASES:
        return _ALIASES[key]
    # ToolBench writes e.g. "DATE (YYYY-MM-DD)" or "TIME (24-hour HH:MM)".
    head = key.split("(")[0].strip()
    if head in _ALIASES:
        return _ALIASES[head]
    raise ValueError(f"unknown type {name!r}")


def is_known_type(name: Any) -> bool:
    try:
        normalize_type(name)
    except ValueError:
        return False
    return True


def normalize_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return a JSON-Schema copy of ``schema`` with every type name normalised.

    Unknown type names are dropped (no constraint) rather than kept: the doc linter reports
    them on the original spec, and validation must not fail on a typo in the docs.
    """
    if not schema:
        return {"type": "object", "properties": {}}
    out = copy.deepcopy(dict(schema))
    _normalize_node(out)
    if out.get("type") is None and "properties" in out:
        out["type"] = "object"
    return out


def _normalize_node(node: dict[str, Any]) -> None:
    if "type" in node:
        node_type = node["type"]
        if isinstance(node_type, list):
            mapped = []
            for t in node_type:
                try:
                    n = normalize_type(t)
                except ValueError:
                    n = None
                if n is None:
                    mapped = []
                    break
                mapped.append(n)
            if mapped:
                node["type"] = sorted(set(mapped), key=mapped.index)
            else:
                node.pop("type")
        else:
            try:
                n = normalize_type(node_type)
            except ValueError:
                n = None
            if n is None:
                node.pop("type")
            else:
                node["type"] = n
    for key in ("properties", "patternProperties", "definitions", "$defs"):
        if isinstance(node.get(key), dict):
            for child in node[key].values():
                if isinstance(child, dict):
                    _normalize_node(child)
    if isinstance(node.get("items"), dict):
        _normalize_node(node["items"])
    elif isinstance(node.get("items"), list):
        for child in node["items"]:
            if isinstance(child, dict):
                _normalize_node(child)
    for key in ("anyOf", "oneOf", "allOf"):
        for child in node.get(key, []) or []:
            if isinstance(child, dict):
                _normalize_node(child)
    if isinstance(node.get("additionalProperties"), dict):
        _normalize_node(node["additionalProperties"])
    required = node.get("required")
    if required is not None and not isinstance(required, list):
        node.pop("required")
    _coerce_enum_and_default(node)


def _coerce_enum_and_default(node: dict[str, Any]) -> None:
    """BFCL sometimes documents float defaults as strings ('0.5'); make them match the type."""
    kind = node.get("type")
    if kind in ("number", "integer") and isinstance(node.get("default"), str):
        try:
            value = float(node["default"])
            node["default"] = int(value) if kind == "integer" and value.is_integer() else value
        except ValueError:
            node.pop("default")
