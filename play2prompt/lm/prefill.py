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


CALL_CLOSE = f'{WS} "}}" {WS} "}}"'   # a call's: the arguments' closing brace and the call's


def rest_grammar(params: Mapping[str, Any], close: str = CALL_CLOSE,
                 layout: Mapping[str, str] | None = None, start: int = 0,
                 extras_only: bool = False) -> str:
    """The llguidance grammar of an object after its key number ``start`` and colon: that
    value, the later properties in order (the optional ones skippable), additional ones where
    the schema allows them (named as no declared one is, as llguidance's own JSON grammar has
    them), then ``close``. ``layout``: llguidance's one-line options (``x-guidance``), the
    separators then fixed; free whitespace without it. ``extras_only``: what follows the comma
    after the last declared property (an additional one, then maybe more)."""
    props = list(params["properties"].items())
    required = set(params.get("required") or ())
    item_sep = _lark(layout["item_separator"]) if layout else f'{WS} "," {WS}'
    key_sep = _lark(layout["key_separator"]) if layout else f'{WS} ":" {WS}'

    def value(schema: Any) -> str:
        return "%json " + json.dumps({**schema, "x-guidance": layout} if layout else schema)

    lines, seq = [], []
    if not extras_only:
        lines.append(f"v{start}: {value(props[start][1])}")
        after_colon = layout["key_separator"].split(":", 1)[1] if layout else ""
        seq += [_lark(after_colon) if after_colon else "" if layout else WS, f"v{start}"]
        for i, (key, schema) in enumerate(props[start + 1:], start + 1):
            item = f"{item_sep} {_lark(json.dumps(key))} {key_sep} v{i}"
            lines.append(f"v{i}: {value(schema)}")
            seq.append(item if key in required else f"({item})?")
    extra = params.get("additionalProperties", True)
    if extra is not False:
        declared = " | ".join(_lark(json.dumps(key)) for key, _ in props)
        lines += [f"EXTRA_KEY: {JSON_STRING} & ~({declared})",
                  f"extra_value: {value(extra if isinstance(extra, Mapping) else {})}"]
        if extras_only:
            seq.append(f"{WS} EXTRA_KEY {key_sep} extra_value")
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


@dataclass(frozen=True)
class Layout:
    """How a model separates its call's arguments and closes the call: the text from a value's
    end to the next key's quote (Qwen2.5-Coder: ``,\n    "``) and after the last value
    (``\n  }\n}``). Learned from its own calls, as the header is."""

    sep: str
    close: str


_ARGS = re.compile(r'"arguments"\s*:\s*\{')
_SEP = re.compile(r'\s*,\s*"')
_CLOSE = re.compile(r"\s*\}\s*\}\s*$")
_DECODE = json.JSONDecoder()


def layout_of(text: str) -> Layout | None:
    """The layout of an emulated call's arguments (None where they have fewer than two keys
    or are not plain JSON)."""
    found = _ARGS.search(text) if header_of(text) else None
    if found is None:
        return None
    at, seps = found.end(), set()
    while True:
        try:
            at = re.compile(r'\s*"').match(text, at).end() - 1           # type: ignore[union-attr]
            _, at = _DECODE.raw_decode(text, at)                          # the key
            at = re.compile(r"\s*:\s*").match(text, at).end()            # type: ignore[union-attr]
            _, at = _DECODE.raw_decode(text, at)                          # its value
        except (AttributeError, ValueError):
            return None
        sep = _SEP.match(text, at)
        if sep is None:
            close = _CLOSE.match(text, at)
            return Layout(seps.pop(), close.group(0)) if close and len(seps) == 1 else None
        seps.add(sep.group(0))
        at = sep.end() - 1


STOP = "\n"   # where a written layout's value ends (a scalar value has no raw newline)
_SCALAR = {"string", "number", "integer", "boolean", "null"}


def _scalar(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return all(not isinstance(v, (dict, list)) for v in values)
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return bool(kinds) and all(k in _SCALAR for k in kinds) and not set(schema) & {
        "anyOf", "oneOf", "allOf", "$ref"}


def stops_after(params: Mapping[str, Any], k: int, layout: Layout) -> bool:
    """Whether a call stops where value number ``k`` ends (:data:`STOP`) to have what comes
    next written: the value is a scalar, the layout puts a newline there, and what follows is
    forced once the model has chosen a comma or not (the next key, required; or, after the
    last, the closing or an additional property)."""
    props = list(params["properties"].items())
    required = set(params.get("required") or ())
    if k >= len(props) or not _scalar(props[k][1]) or not layout.sep.startswith(",\n") \
            or not layout.close.startswith(STOP):
        return False
    return k == len(props) - 1 or props[k + 1][0] in required


@dataclass(frozen=True)
class Step:
    """What is written after a call stopped at a value's end: the text, and the grammar of
    what the model writes next (None: the call is complete) from property ``k`` on."""

    written: str
    grammar: str | None
    k: int


def next_step(params: Mapping[str, Any], k: int, text: str, layout: Layout, colon: str
              ) -> Step | None:
    """After the model's ``text`` stopped where value ``k`` ends: the next key written (a
    comma, and a required key comes next), the closing written (no comma after the last
    value), or an additional property left to the model (a comma after the last); None
    where the text ends otherwise (ask as before)."""
    props = list(params["properties"].items())
    tail = text.rstrip()
    if tail.endswith(","):
        if k + 1 < len(props):
            written = layout.sep.split(",", 1)[1] + json.dumps(props[k + 1][0])[1:-1] + colon
            return Step(written, rest_grammar(params, start=k + 1), k + 1)
        if params.get("additionalProperties", True) is False:
            return None
        return Step("", rest_grammar(params, extras_only=True), len(props))
    if k == len(props) - 1 and not tail.endswith("}"):
        return Step(layout.close, None, len(props))
    return None


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


__all__ = ["HEADER_AGREEMENT", "STOP", "Agreement", "Layout", "Opening", "Step", "chosen",
           "first_required", "layout_of", "name_grammar", "next_step", "object_plan",
           "opening_of", "plan", "rest_grammar", "stops_after"]
