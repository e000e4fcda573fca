"""Validate invocation arguments against a tool's JSON Schema before running it."""

from __future__ import annotations

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
