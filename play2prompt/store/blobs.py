"""Tool outputs and error texts stored once: large ones live in the ``blobs`` table, addressed
by content.

An execution and the search candidates that saw it (play attempts, examples) each carry the
observation; an output or an error text bigger than :data:`BLOB_MIN` characters is written once
to ``blobs`` under the SHA-256 of its JSON text and referenced as ``{"$blob": KEY}`` from
everywhere else, so a store grows with the distinct texts, not with how often a tool repeats
one. Reading resolves the references, so callers see whole observations.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

BLOB_MIN = 1024                     # characters of JSON text: smaller outputs stay inline
REF = "$blob"
_OBSERVATION_KEYS = frozenset({"ok", "output", "error_type"})
_REF_TEXT = re.compile(r'"\$blob": "([0-9a-f]{64})"')


def _is_observation(value: Mapping[str, Any]) -> bool:
    return value.keys() >= _OBSERVATION_KEYS


def pack(value: Any, put: Callable[[str, str], None]) -> Any:
    """``value`` with every large observation output replaced by a reference; ``put(key,
    json_text)`` stores the output."""
    if isinstance(value, Mapping):
        out = {k: pack(v, put) for k, v in value.items()}
        if _is_observation(value):
            for field in ("output", "error"):
                if value.get(field) is not None:
                    out[field] = _stored(value[field], put)
        return out
    if isinstance(value, (list, tuple)):
        return [pack(v, put) for v in value]
    return value


def _stored(value: Any, put: Callable[[str, str], None]) -> Any:
    """``value`` as it is when small, else a reference to its JSON text, stored once."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= BLOB_MIN:
        return value
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    put(key, text)
    return {REF: key}


def unpack(value: Any, get: Callable[[str], str | None]) -> Any:
    """``value`` with every reference replaced by the stored output (None if missing)."""
    if isinstance(value, Mapping):
        if set(value) == {REF}:
            text = get(str(value[REF]))
            return None if text is None else json.loads(text)
        return {k: unpack(v, get) for k, v in value.items()}
    if isinstance(value, list):
        return [unpack(v, get) for v in value]
    return value


def refs_in(text: str) -> set[str]:
    """The blob keys referenced in a stored JSON text."""
    return set(_REF_TEXT.findall(text))
