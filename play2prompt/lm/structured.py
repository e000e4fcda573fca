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


def parse_json_choice(text: str, schema: Mapping[str, Any] | None) -> Any:
    """The parsed, schema-valid JSON value of ``text``, or ``None``."""
    try:
        value = extract_json(text)
    except ValueError:
        return None
    if schema is not None:
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
) -> tuple[list[Any], ChatResponse]:
    """Ask for ``n`` JSON answers conforming to ``schema``; failures are ``None``."""
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
    return [parse_json_choice(c.text, schema) for c in response.choices], response
