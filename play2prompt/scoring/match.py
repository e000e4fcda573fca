"""Matching calls and outputs, with the semantics of BFCL's executable checker.

- AST match: same function name and the same arguments after normalisation (numbers compare by
  value, strings ignore case and surrounding whitespace, optional arguments equal to their
  schema default may be left out on either side).
- Output match: ``exact`` is equality (ints and floats by value), ``real_time`` accepts numbers
  within 20 %, ``structural`` only asks for the same type and the same keys / length.
- ``rest`` is BFCL's REST check: a JSON object must have the same key set as the recorded
  response, a list the same length with the same key set in every element.
- Sets of calls (multiple / parallel queries) match when the counts agree and there is a
  one-to-one pairing, in any order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from play2prompt.numeric import close, is_number, within
from play2prompt.tools.model import Invocation

MATCH_TYPES = ("exact", "real_time", "structural")
OUTPUT_MATCH_TYPES = (*MATCH_TYPES, "rest")
REAL_TIME_TOLERANCE = 0.2


def values_equal(a: Any, b: Any, *, loose_strings: bool = True) -> bool:
    """Deep equality for argument values."""
    if is_number(a) and is_number(b):
        return close(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower() if loose_strings else a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(
            values_equal(a[k], b[k], loose_strings=loose_strings) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(
            values_equal(x, y, loose_strings=loose_strings) for x, y in zip(a, b))
    return a == b and type(a) is type(b) or (a is None and b is None)


def normalized_arguments(args: Mapping[str, Any], schema: Mapping[str, Any] | None
                         ) -> dict[str, Any]:
    """Arguments with schema defaults filled in for omitted optional parameters."""
    out = dict(args)
    for name, prop in ((schema or {}).get("properties") or {}).items():
        if name not in out and isinstance(prop, Mapping) and "default" in prop:
            out[name] = prop["default"]
    return out


def ast_match(pred: Invocation, gold: Invocation, schema: Mapping[str, Any] | None = None
              ) -> bool:
    if pred.name != gold.name:
        return False
    p = normalized_arguments(pred.arguments, schema)
    g = normalized_arguments(gold.arguments, schema)
    if p.keys() != g.keys():
        return False
    return all(values_equal(p[k], g[k]) for k in g)


def outputs_match(pred: Any, gold: Any, kind: str = "exact") -> bool:
    if kind not in OUTPUT_MATCH_TYPES:
        raise ValueError(f"unknown match type {kind!r} (one of {', '.join(OUTPUT_MATCH_TYPES)})")
    if kind == "rest":
        return _rest(pred, gold)
    if kind == "structural":
        return _structural(pred, gold)
    if kind == "real_time":
        return _within(pred, gold)
    return _exact(pred, gold)


def _exact(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        return close(a, b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_exact(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_exact(x, y) for x, y in zip(a, b))
    return a == b


def _within(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        return within(a, b, REAL_TIME_TOLERANCE)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_within(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_within(x, y) for x, y in zip(a, b))
    return a == b


def _structural(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        return True
    if type(a) is not type(b) and not (isinstance(a, (list, tuple))
                                       and isinstance(b, (list, tuple))):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys()
    if isinstance(a, (list, tuple)):
        return len(a) == len(b)
    return True


def _rest(a: Any, b: Any) -> bool:
    if isinstance(b, Mapping):
        return isinstance(a, Mapping) and set(a) == set(b)
    if isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and len(a) == len(b)
                and all(isinstance(x, Mapping) and isinstance(y, Mapping) and set(x) == set(y)
                        for x, y in zip(a, b)))
    return False


def match_sets(pred: Sequence[Any], gold: Sequence[Any], pair_ok: Callable[[Any, Any], bool]
               ) -> bool:
    """True when ``pred`` and ``gold`` have the same size and pair up one-to-one (any order)."""
    if len(pred) != len(gold):
        return False
    ok = [[pair_ok(p, g) for g in gold] for p in pred]
    used = [False] * len(gold)

    def assign(i: int) -> bool:
        if i == len(pred):
            return True
        for j in range(len(gold)):
            if not used[j] and ok[i][j]:
                used[j] = True
                if assign(i + 1):
                    return True
                used[j] = False
        return False

    return assign(0)
