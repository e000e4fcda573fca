"""Validate invocation arguments against a tool's JSON Schema before running it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import jsonschema


def validation_errors(parameters: Mapping[str, Any], arguments: Any) -> list[str]:
    """Human-readable schema violations of ``arguments`` (empty when valid)."""
    if not isinstance(arguments, Mapping):
        return [f"arguments must be a JSON object, got {type(arguments).__name__}"]
    schema = dict(parameters)
    if schema.get("properties") and "additionalProperties" not in schema:
        # An argument the docs do not name is a cheap rejection, not a TypeError at run time.
        schema["additionalProperties"] = False
    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
    except jsonschema.SchemaError:
        # A broken schema in the docs must not block execution; only check required/extra names.
        return _minimal_errors(schema, arguments)
    validator = validator_cls(schema)
    try:
        found = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    except Exception:  # noqa: BLE001 - e.g. a $ref that resolves nowhere: the same fallback
        return _minimal_errors(schema, arguments)
    return [f"{'.'.join(str(p) for p in err.path)}: {err.message}" if err.path else err.message
            for err in found]


def _minimal_errors(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> list[str]:
    props = schema.get("properties", {}) or {}
    errors = [f"missing required argument {r!r}" for r in schema.get("required", []) or []
              if r not in arguments]
    if props and schema.get("additionalProperties") is False:
        errors += [f"unknown argument {k!r}" for k in arguments if k not in props]
    return errors


_INTEGER = re.compile(r"[+-]?\d+")
_TRUE = frozenset({"true", "1", "yes", "on", "t", "y"})
_FALSE = frozenset({"false", "0", "no", "off", "f", "n"})


def lax_arguments(parameters: Mapping[str, Any], arguments: Any) -> Any:
    """``arguments`` with top-level texts coerced as pydantic's lax mode (what the MCP SDK's
    servers do) takes them: ``"2"`` for an ``integer``, ``"2.5"`` for a ``number``,
    ``"true"``/``"false"`` (``yes``/``no``, ``1``/``0``) for a ``boolean``; anything else, and
    every parameter that also takes a string, as given (the schema check then judges)."""
    if not isinstance(arguments, Mapping):
        return arguments
    props = parameters.get("properties") or {}
    out = dict(arguments)
    for name, value in arguments.items():
        schema = props.get(name) if isinstance(props, Mapping) else None
        if isinstance(schema, Mapping) and isinstance(value, str):
            out[name] = _lax(schema.get("type"), value)
    return out


def _lax(kind: Any, text: str) -> Any:
    kinds = set(kind) if isinstance(kind, list) else {kind}
    stripped = text.strip()
    if "string" in kinds or not stripped:
        return text
    if kinds & {"integer", "number"} and _INTEGER.fullmatch(stripped):
        return int(stripped)
    if "number" in kinds:
        try:
            number = float(stripped)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    if "boolean" in kinds and stripped.lower() in _TRUE | _FALSE:
        return stripped.lower() in _TRUE
    return text
