"""What of an emulated call is written for the embedded model rather than generated.

A call the model writes under the grammar is mostly text the grammar leaves no choice about: its
header (``{"name": "``, the tool's name once chosen, ``", "arguments":``), and in the arguments
the opening brace and the first key, which comes first because the grammar keeps a schema's
properties in their order and the first is required. Each such token costs a decoding step;
written for the model, the same text is computed as prompt, in one batch. Whitespace is the
model's own choice, so what is written is learned from the model's first calls at temperature 0
(:class:`Agreement`): nothing is written until they all agree.

- one tool: the header with its name, then the arguments' opening and first key (:func:`plan`);
- several tools: the model first writes the name alone (:func:`name_grammar`), then the call
  goes on as for that one tool;
- a structured answer on one line (``strict_structured``): its first key (:func:`object_plan`),
  the layout then fixed by the grammar, nothing to learn.

The grammar of the rest (:func:`rest_grammar`) is what llguidance's JSON schema allows after the
first key: the properties in their order, the optional ones skippable, then any additional
properties the schema allows, then the closing braces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from play2prompt.lm.toolcalls import (
    WS,
    CallHeader,
    _fn,
    call_arguments_schema,
    header_of,
    quoted_name,
)

HEADER_AGREEMENT = 8   # calls at temperature 0 that must start alike before anything is written
# a JSON string; an additional property's key is one that names no declared property
JSON_STRING = r'/"(\\(["\\\/bfnrt]|u[a-fA-F0-9]{4})|[^"\\\x00-\x1F\x7F])*"/'
T = TypeVar("T")


@dataclass(frozen=True)
class Opening:
    """How a model opens a call's arguments: the text after ``"arguments":`` up to the first
    key (Qwen2.5-Coder: `` {\\n    "``) and after that key up to its colon (``":``). The
    whitespace after the colon is left to the model: written for it, a space would split the
    token the model writes there (`` "``, a space and a quote, one token)."""

    open: str
    colon: str


_OPENING = re.compile(r'"arguments"\s*:(\s*\{\s*")(?:[^"\\]|\\.)*("\s*:)')


def opening_of(text: str) -> Opening | None:
    """The opening of the arguments of an emulated call (None where they have no key)."""
    found = _OPENING.search(text) if header_of(text) else None
    return Opening(found.group(1), found.group(2)) if found else None


class Agreement(Generic[T]):
    """What a model's first :data:`HEADER_AGREEMENT` observations agree on; one that differs
    (or a None) and nothing is ever agreed."""

    def __init__(self) -> None:
        self.seen: list[T | None] | None = []

    @property
    def value(self) -> T | None:
        seen = self.seen
        return seen[0] if seen is not None and len(seen) >= HEADER_AGREEMENT else None

    def add(self, value: T | None) -> None:
        seen = self.seen
        if seen is None or len(seen) >= HEADER_AGREEMENT:
            return
        seen.append(value)
        if None in seen or len(set(seen)) > 1:
            self.seen = None


def _lark(text: str) -> str:
    """``text`` as a lark string literal."""
    return json.dumps(text)


_NOTES = ("title", "description", "$schema")   # words that leave a grammar as it is


def first_required(params: Mapping[str, Any]) -> str | None:
    """The first property of an object schema where the grammar makes it the first key (it is
    required and the schema a plain object), else None."""
    props = params.get("properties")
    if set(params) - {"type", "properties", "required", "additionalProperties", *_NOTES} \
            or params.get("type") != "object" or not isinstance(props, Mapping) or not props:
        return None
    required = params.get("required") or ()
    if any(key not in props for key in required):
        return None
    first = next(iter(props))
    return first if first in required else None


def rest_grammar(params: Mapping[str, Any], close: str = f'{WS} "}}" {WS} "}}"',
                 layout: Mapping[str, str] | None = None) -> str:
    """The llguidance grammar of an object after its first key and colon: the first value,
    the other properties in order (the optional ones skippable), additional ones where the
    schema allows them (named as no declared one is, as llguidance's own JSON grammar has
    them), then ``close`` (a call's: the arguments' closing brace and the call's). ``layout``:
    llguidance's one-line options (``x-guidance``), the separators then fixed; free
    whitespace without it."""
    props = list(params["properties"].items())
    required = set(params.get("required") or ())
    item_sep = _lark(layout["item_separator"]) if layout else f'{WS} "," {WS}'
    key_sep = _lark(layout["key_separator"]) if layout else f'{WS} ":" {WS}'

    def value(schema: Any) -> str:
        return "%json " + json.dumps({**schema, "x-guidance": layout} if layout else schema)

    lines = [f"v0: {value(props[0][1])}"]
    after_colon = layout["key_separator"].split(":", 1)[1] if layout else ""
    seq = [_lark(after_colon) if after_colon else "" if layout else WS, "v0"]
    for i, (key, schema) in enumerate(props[1:], 1):
        item = f"{item_sep} {_lark(json.dumps(key))} {key_sep} v{i}"
        lines.append(f"v{i}: {value(schema)}")
        seq.append(item if key in required else f"({item})?")
    extra = params.get("additionalProperties", True)
    if extra is not False:
        declared = " | ".join(_lark(json.dumps(key)) for key, _ in props)
        lines += [f"EXTRA_KEY: {JSON_STRING} & ~({declared})",
                  f"extra_value: {value(extra if isinstance(extra, Mapping) else {})}"]
        seq.append(f"({item_sep} EXTRA_KEY {key_sep} extra_value)*")
    seq.append(close)
    return "%llguidance {}\nstart: " + " ".join(seq) + "\n" + "\n".join(lines)


def plan(fn: Mapping[str, Any], header: CallHeader, opening: Opening | None
         ) -> tuple[str, str] | None:
    """The text written for a call to ``fn`` (its header, and its arguments' opening and first
    key where the model's opening is known and the grammar forces that key) and the grammar of
    the rest; None where only the header can be written (:func:`toolcalls.prefilled`)."""
    params = call_arguments_schema(fn)
    key = first_required(params) if opening is not None else None
    if key is None or opening is None:
        return None
    prefix = header.of(fn) + opening.open + json.dumps(key)[1:-1] + opening.colon
    return prefix, rest_grammar(params)


def object_plan(schema: Any, layout: Mapping[str, str]) -> tuple[str, str] | None:
    """The start of a one-line structured answer to ``schema`` (``{"key":``, where its first
    key is forced; the space after it left to the grammar, see :class:`Opening`) and the
    grammar of the rest; None where nothing is forced."""
    params = schema if isinstance(schema, Mapping) else {}
    key = first_required(params)
    if key is None:
        return None
    prefix = "{" + json.dumps(key) + layout["key_separator"].split(":", 1)[0] + ":"
    return prefix, rest_grammar(params, '"}"', layout)


def name_grammar(tools: Sequence[Mapping[str, Any]]) -> str:
    """The grammar of a tool's name and its closing quote, one alternative a tool: what the
    model writes first when several tools are shown."""
    names = " | ".join(_lark(quoted_name(_fn(t))) for t in tools)
    return "%llguidance {}\nstart: " + names


def chosen(text: str, tools: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The tool whose name (and closing quote) ``text`` is, if any."""
    return next((t for t in tools if quoted_name(_fn(t)) == text), None)


__all__ = ["HEADER_AGREEMENT", "Agreement", "Opening", "chosen", "first_required",
           "name_grammar", "object_plan", "opening_of", "plan", "rest_grammar"]
