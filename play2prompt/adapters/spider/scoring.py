"""Scoring an agent's final answer against the gold rows, lenient on shape.

The gold result is a multiset of rows. An answer matches when one of its readings has the same
rows: a scalar is one row of one column; a list of scalars is one column (or one row); a list of
records or of lists is rows; a record is one row; a string holding JSON is read as that JSON, and
a plain string listing several items ("a, b and c") is also read as one column. Row order is
ignored, and so is the order of values inside a row and the column names. Numbers compare by
value (to 4 decimals; "3" equals 3 and 3.0), strings without case or surrounding blanks.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

Row = tuple[str, ...]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def norm_value(value: Any) -> str:
    """A canonical token for one value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"n:{float(value):.4f}"
    if isinstance(value, (int, float)):
        return f"n:{round(float(value), 4):.4f}"
    text = str(value).strip()
    plain = text.replace(",", "") if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", text) else text
    if _NUMBER.fullmatch(plain):
        return f"n:{round(float(plain), 4):.4f}"
    return "s:" + " ".join(text.lower().split())


def norm_row(values: Sequence[Any]) -> Row:
    return tuple(sorted(norm_value(v) for v in values))


def gold_rows(gold: Sequence[Any]) -> Counter[Row]:
    rows = [list(r.values()) if isinstance(r, Mapping) else list(r) for r in gold]
    return Counter(norm_row(r) for r in rows)


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _split_items(text: str) -> list[str]:
    parts = re.split(r"\s*(?:,|;|\n|\band\b)\s*", text.strip().rstrip("."))
    return [p for p in parts if p]


def readings(answer: Any, depth: int = 0) -> list[list[list[Any]]]:
    """Every way of reading ``answer`` as rows (lists of values)."""
    if depth > 3:
        return []
    if isinstance(answer, str):
        text = answer.strip()
        if text[:1] in "[{":
            try:
                return readings(json.loads(text), depth + 1)
            except json.JSONDecodeError:
                pass
        out: list[list[list[Any]]] = [[[text]]]
        items = _split_items(text)
        if len(items) > 1:
            out.append([[i] for i in items])
        return out
    if _is_scalar(answer):
        return [[[answer]]]
    if isinstance(answer, Mapping):
        out = [[list(answer.values())]] if all(_is_scalar(v) for v in answer.values()) else []
        for value in answer.values():
            if isinstance(value, (list, Mapping)):
                out += readings(value, depth + 1)
        return out
    if isinstance(answer, (list, tuple)):
        items = list(answer)
        if all(_is_scalar(x) for x in items):
            return [[[x] for x in items], [items]]
        rows = []
        for x in items:
            if isinstance(x, Mapping):
                rows.append(list(x.values()))
            elif isinstance(x, (list, tuple)):
                rows.append(list(x))
            else:
                rows.append([x])
        out = [rows]
        if len(items) == 1:
            out += readings(items[0], depth + 1)
        return out
    return [[[str(answer)]]]


def answer_matches(answer: Any, gold: Sequence[Any]) -> bool:
    """Whether the final answer equals the gold rows (see the module docstring)."""
    if answer is None:
        return False
    target = gold_rows(gold)
    for rows in readings(answer):
        try:
            counted = Counter(norm_row(r) for r in rows)
        except TypeError:
            continue
        if counted == target:
            return True
    return False
