"""Canonical JSON, stable hashes and conversion of arbitrary values to JSON."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import hashlib
import json
import math
import uuid
from pathlib import PurePath
from typing import Any

_NOT_KNOWN = object()


def json_form(value: Any) -> Any:
    """The JSON form of a value JSON has no type for, as JSON serializers write it: dates and
    times in ISO 8601, a UUID or a path as its text, a decimal as a number (its text when a
    float would change it), a timedelta in seconds, an enum member as its value, a dataclass
    or pydantic model as its fields; :data:`_NOT_KNOWN` for anything else. Also the
    ``default=`` hook of ``json.dumps`` (:func:`json_default`)."""
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, PurePath)):
        return str(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return str(value)
        if value == value.to_integral_value():
            return int(value)
        return float(value) if decimal.Decimal(repr(float(value))) == value else str(value)
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)  # pydantic models
    if callable(dump) and not isinstance(value, type):
        try:
            return dump(mode="json")
        except Exception:  # noqa: BLE001 - not a pydantic model after all
            return _NOT_KNOWN
    return _NOT_KNOWN


def json_default(value: Any) -> Any:
    """``json.dumps(..., default=json_default)``: :func:`json_form`, else the value's text."""
    form = json_form(value)
    return str(value) if form is _NOT_KNOWN else form


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Convert a tool output (tuples, sets, numpy scalars, dates, UUIDs, objects) into plain
    JSON values; what has no JSON form becomes its ``repr``."""
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
    form = json_form(value)
    if form is not _NOT_KNOWN:
        return to_jsonable(form, _depth + 1)
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


@dataclasses.dataclass(frozen=True)
class JsonScan:
    """A JSON text read once, character by character, without parsing (so a text cut short or
    nested without limit costs no recursion): its brackets outside strings, in order, and
    where a string left open at the end starts (-1: none) and whether the text ends right
    after a backslash in it."""

    brackets: tuple[tuple[int, str], ...]
    open_string: int = -1
    escaped: bool = False


def scan_json(text: str) -> JsonScan:
    """The :class:`JsonScan` of ``text`` (a string's quotes and escapes respected)."""
    brackets: list[tuple[int, str]] = []
    in_string, escaped, start = False, False, -1
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string, start = True, i
        elif ch in "[]{}":
            brackets.append((i, ch))
    return JsonScan(tuple(brackets), start if in_string else -1, in_string and escaped)
