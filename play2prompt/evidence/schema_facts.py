"""Facts the schema language can hold, put into the schema a doc ships (component
``schema-facts``, issue 72: schema is documentation).

A fact stated only in prose is read by a small task model and then not obeyed: an
accepted-values list in the description left the 1.5B writing a name outside it in 2 of 8
requests, while the schema it decodes against would have held it. What code proved and JSON
Schema can say goes into the doc's ``constraints`` (:class:`~play2prompt.tools.model.ToolDoc`),
which :meth:`~play2prompt.tools.model.Tool.with_doc` writes into the parameters' schema, so the
doc search validates the candidate with it, every export carries it and ``p2p eval`` decodes
against it:

- ``enum``: the accepted values the tool listed (a text parameter);
- ``pattern``: a text's parts a reshaped call showed ("HH:MM");
- ``minimum`` / ``maximum`` (or their exclusive forms): both ends of a range the range
  search found (:mod:`play2prompt.evidence.bounds`);
- ``default``: the value a call without the argument was shown to give the same answer as
  (:mod:`play2prompt.evidence.variants`), first in the ``enum`` where it is listed;
- ``minimum`` (and a month's ``maximum``): from the base an index was shown to count from
  (:mod:`play2prompt.evidence.conventions`).

A keyword the original schema has already is left as it is; D0 itself gets none (the
original doc stays the original), so a candidate carries them only where it is another doc,
and ships them only where it wins the honest selection.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.tools.model import Tool, ToolDoc

BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _range(values: tuple[str, ...], kind: str | None) -> dict[str, Any]:
    """``minimum``/``maximum`` (or exclusive) of a range fact's values ``("range", low,
    low accepted, high, high accepted)``."""
    try:
        low, high = float(values[1]), float(values[3])
    except (IndexError, ValueError):
        return {}
    whole = kind == "integer"
    out: dict[str, Any] = {}
    for key, value, accepted in (("minimum", low, values[2]), ("maximum", high, values[4])):
        number: Any = int(value) if whole and value == int(value) else value
        out[key if accepted == "1" else "exclusive" + key.capitalize()] = number
    return out


def _default(values: tuple[str, ...]) -> dict[str, Any]:
    try:
        return {"default": json.loads(values[1])} if len(values) > 1 else {}
    except ValueError:
        return {}


def _index_range(fact: Fact) -> dict[str, Any]:
    """The range an index base gives (:mod:`play2prompt.evidence.conventions`): from the
    base; a month's twelve values (0 to 11 where it counts from 0: December is 11, and 12,
    which such tools take as the next January, is no month a request means)."""
    base = int(fact.values[2])
    month = "is January" in fact.text            # index_sentence's words for a month
    return {"minimum": base, **({"maximum": base + 11} if month else {})}


def _default_first(found: dict[str, Any]) -> dict[str, Any]:
    """The default, where it is one of the listed values, put first in the ``enum`` (the
    1.5B filled in ``percentile``'s ``method`` unasked from the middle of thirteen listed
    methods; the value it reads first is then the one a call without it gives)."""
    enum, default = found.get("enum"), found.get("default")
    if isinstance(enum, list) and default in enum:
        found["enum"] = [default, *(v for v in enum if v != default)]
    return found


def schema_constraints(tool: Tool, book: FactBook) -> dict[str, dict[str, Any]]:
    """Per parameter, the JSON Schema keywords its facts prove that its schema lacks."""
    narrowed = book.narrowed_schema(tool.parameters).get("properties", {})
    out: dict[str, dict[str, Any]] = {}
    for name, spec in tool.properties.items():
        if not isinstance(spec, Mapping):
            continue
        found: dict[str, Any] = {k: narrowed[name][k] for k in ("enum", "pattern")
                                 if k in narrowed.get(name, {}) and k not in spec}
        for fact in book.of(name):
            if fact.kind != "rule":
                continue
            if fact.values[:1] == ("range",) and spec.get("type") in ("number", "integer"):
                found.update(_range(fact.values, spec.get("type")))
            elif fact.values[:1] == ("default",):
                found.update(_default(fact.values))
            elif fact.values[:2] == ("convention", "index") and spec.get("type") == "integer":
                found.update(_index_range(fact))
        found = {k: v for k, v in found.items() if k not in spec and not (
            k in BOUNDS and any(s in spec for s in BOUNDS))}
        found = _default_first(found)
        if found:
            out[name] = dict(sorted(found.items()))
    return out


def constrained(doc: ToolDoc, tool: Tool, book: FactBook) -> ToolDoc:
    """``doc`` carrying the constraints ``book`` proves (those it has already kept)."""
    proved = schema_constraints(tool, book)
    merged = {p: {**proved.get(p, {}), **dict(doc.constraints.get(p, {}))}
              for p in {*proved, *doc.constraints}}
    return doc.with_constraints(merged)


__all__ = ["BOUNDS", "constrained", "schema_constraints"]
