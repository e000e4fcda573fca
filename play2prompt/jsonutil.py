"""Canonical JSON, stable hashes and conversion of arbitrary values to JSON."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Convert a tool output (tuples, sets, numpy scalars, objects) into plain JSON values."""
    if _depth > 50:
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool) and _too_long(value):
        return big_int_text(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, _depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v, _depth + 1) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        try:
            return to_jsonable(item(), _depth + 1)
        except Exception:  # noqa: BLE001 - anything unconvertible falls back to repr
            pass
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        try:
            return to_jsonable(tolist(), _depth + 1)
        except Exception:  # noqa: BLE001
            pass
    return repr(value)


_MAX_DIGITS = 4000   # below Python's default limit on int -> str conversion (4300 digits)


def _digits(value: int) -> int:
    """About how many decimal digits ``value`` has (without converting it)."""
    return int(abs(value).bit_length() * 0.30103) + 1


def _too_long(value: int) -> bool:
    return _digits(value) > _MAX_DIGITS


def big_int_text(value: int) -> str:
    """An integer too long for decimal text (``str`` refuses past 4300 digits): exact, in hex."""
    return f"{hex(value)} (an integer of about {_digits(value)} decimal digits, in hexadecimal)"


def canonical(value: Any) -> str:
    """Deterministic compact JSON (sorted keys) of a JSON-able value."""
    return json.dumps(to_jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stable_hash(*parts: Any, length: int = 16) -> str:
    """A short hex digest of the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical(list(parts)).encode()).hexdigest()[:length]


def derive_seed(*parts: Any) -> int:
    """A 31-bit seed derived from ``parts`` (independent of call order or concurrency)."""
    return int(stable_hash(*parts, length=8), 16) & 0x7FFFFFFF


def extract_json(text: str) -> Any:
    """Parse JSON from model output: the whole text, a fenced block, or the first {...}/[...]."""
    text = (text or "").strip()
    if not text:
        raise ValueError("empty output")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    if "```" in text:
        for block in text.split("```")[1::2]:
            label, newline, rest = block.partition("\n")
            block = rest if newline and label.strip().isalpha() else block  # ```json\n...
            try:
                return json.loads(block.strip())
            except json.JSONDecodeError:
                continue
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                return decoder.raw_decode(text[i:])[0]
            except json.JSONDecodeError:
                continue
    raise ValueError(f"no JSON found in output: {text[:80]!r}")
