"""The first call ``p2p lint --exec`` makes of a tool, written by code from its schema and doc.

Only the required arguments are given (the tool's own defaults act for the rest), each:
the first enum value, else the default, else the schema's first example, else a value the
doc gives ("unit name, e.g. miles"), else a value of the schema's ``format``, else one that
fits the parameter's name (``date``, ``timezone``, ``country``: ``samples`` in
``data/lint_words.json``), else by type (a text ``test``, a number within its bounds, ``1``
when none, ``false``, an empty list or object). A start refused with an error that lists an
argument's accepted values is :func:`repaired` with the first of them, as tool play would;
one whose error names a number argument, with that number ten times larger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from play2prompt.evidence.error_text import mentions
from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.probes import doc_examples
from play2prompt.lint.static import name_words, words_data
from play2prompt.tools.model import Invocation, Tool


def start_call(tool: Tool) -> Invocation:
    """A call with every required argument given a plausible value."""
    return Invocation(tool.name, {name: start_value(name, tool.properties.get(name) or {})
                                  for name in tool.required})


def start_value(name: str, schema: Mapping[str, Any]) -> Any:
    """A plausible value of one parameter (see the module)."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind in ("number", "integer"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return _text(name, schema)


def _number(schema: Mapping[str, Any], integer: bool) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 1
    if isinstance(low, (int, float)) and value <= low:
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
    if isinstance(high, (int, float)) and value >= high:
        value = high - (1 if "exclusiveMaximum" in schema and "maximum" not in schema else 0)
    return int(value) if integer else value


def _text(name: str, schema: Mapping[str, Any]) -> str:
    given = doc_examples(str(schema.get("description") or ""))
    if given:
        return given[0]
    data = words_data()
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in data["format_samples"]:
        return str(data["format_samples"][fmt])
    found = [data["samples"][w] for w in name_words(name) if w in data["samples"]]
    return str(found[-1]) if found else "test"


NUMBER_STEPS = (10, 100, 1000)   # a refused number the error names is tried at these


def repaired(tool: Tool, start: Invocation, book: FactBook, error: str = ""
             ) -> Invocation | None:
    """``start`` with the first argument the facts list accepted values for (and whose value
    is not one of them) given the first of them; else a number argument the ``error`` names
    given the next of :data:`NUMBER_STEPS`; None when there is none."""
    listed = _listed(tool, start, book)
    if listed is not None:
        return listed
    for name, value in start.arguments.items():
        kind = (tool.properties.get(name) or {}).get("type")
        if kind in ("number", "integer") and mentions(error, name) and \
                isinstance(value, (int, float)):
            later = [v for v in NUMBER_STEPS if v > value]
            if later:
                return start.with_args({name: later[0]})
    return None


def _listed(tool: Tool, start: Invocation, book: FactBook) -> Invocation | None:
    for name in [*start.arguments, *tool.required]:
        accepted = book.accepted(name)
        if accepted and str(start.arguments.get(name)) not in accepted:
            value: Any = accepted[0]
            kind = (tool.properties.get(name) or {}).get("type")
            if kind in ("number", "integer"):
                try:
                    value = int(value) if kind == "integer" else float(value)
                except ValueError:
                    continue
            return start.with_args({name: value})
    return None
