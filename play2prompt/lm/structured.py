"""Structured (JSON) outputs on top of any LM.

Every structured output of the method goes through :func:`chat_json`: the JSON schema is sent
for constrained decoding (the embedded model needs it to produce anything usable) and each
choice is parsed and validated; an unusable choice comes back as ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema

from play2prompt.jsonutil import extract_json
from play2prompt.lm._base import LM, ChatRequest, ChatResponse


def object_schema(properties: Mapping[str, Any], required: Sequence[str] | None = None
                  ) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required if required is not None else properties),
        "additionalProperties": False,
    }


def drop_undeclared(value: Any, schema: Mapping[str, Any]) -> Any:
    """Remove keys a closed object schema does not declare (some grammar engines, llguidance
    among them, let extra keys through although ``additionalProperties`` is false)."""
    if isinstance(value, dict) and isinstance(schema, Mapping):
        props = schema.get("properties") or {}
        if schema.get("additionalProperties") is False and props:
            value = {k: v for k, v in value.items() if k in props}
        return {k: drop_undeclared(v, props.get(k, {})) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [drop_undeclared(v, schema["items"]) for v in value]
    return value


def parse_json_choice(text: str, schema: Mapping[str, Any] | None) -> Any:
    """The parsed, schema-valid JSON value of ``text``, or ``None``."""
    try:
        value = extract_json(text)
    except ValueError:
        return None
    if schema is not None:
        value = drop_undeclared(value, schema)
        try:
            jsonschema.validate(value, dict(schema))
        except (jsonschema.ValidationError, jsonschema.SchemaError):
            return None
    return value


async def chat_json(
    lm: LM,
    messages: Sequence[Mapping[str, Any]],
    schema: Mapping[str, Any],
    *,
    role: str,
    seed: int = 0,
    n: int = 1,
    temperature: float = 0.7,
    max_tokens: int = 512,
    validate: bool = True,
) -> tuple[list[Any], ChatResponse]:
    """Ask for ``n`` JSON answers conforming to ``schema``; failures are ``None``.

    With ``validate=False`` any parsed JSON comes back (the caller checks it and wants the
    details of a violation, as tool play does)."""
    request = ChatRequest(
        messages=tuple(messages),
        temperature=temperature,
        max_tokens=max_tokens,
        n=n,
        json_schema=dict(schema),
        seed=seed,
        role=role,
    )
    response = await lm.chat(request)
    check = schema if validate else None
    return [parse_json_choice(c.text, check) for c in response.choices], response
