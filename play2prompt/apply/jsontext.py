"""JSON edited as text: every value's span in the source, so a string can be replaced or a key
added without touching any other byte (the file's own layout, indent and key order stay)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring
from typing import Any

from play2prompt.errors import UserError

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Node:
    """A value of the document and where it is: ``text[start:end]``. An object's ``keys``
    map each key to its value's node; an array's ``items`` hold its
    values' nodes."""

    start: int
    end: int
    value: Any
    keys: dict[str, Node] = field(default_factory=dict)
    items: list[Node] = field(default_factory=list)

    def get(self, *path: str | int) -> Node | None:
        node: Node | None = self
        for step in path:
            if node is None:
                return None
            if isinstance(step, int):
                node = node.items[step] if 0 <= step < len(node.items) else None
            else:
                node = node.keys.get(step)
        return node


def parse(text: str, source: str = "JSON") -> Node:
    """The document's tree of spans; one line for text that is not JSON."""
    try:
        node, end = _value(text, _skip(text, 0))
    except (ValueError, IndexError) as exc:
        raise UserError(f"{source}: not valid JSON ({exc})") from exc
    if _skip(text, end) != len(text):
        raise UserError(f"{source}: not valid JSON (extra data after the document)")
    return node


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def _value(text: str, i: int) -> tuple[Node, int]:
    ch = text[i]
    if ch == "{":
        return _object(text, i)
    if ch == "[":
        return _array(text, i)
    if ch == '"':
        value, end = scanstring(text, i + 1)
        return Node(i, end, value), end
    value, end = _DECODER.raw_decode(text, i)
    return Node(i, end, value), end


def _object(text: str, start: int) -> tuple[Node, int]:
    keys: dict[str, Node] = {}
    i = _skip(text, start + 1)
    while text[i] != "}":
        if text[i] != '"':
            raise ValueError(f"a key expected at offset {i}")
        key, i = scanstring(text, i + 1)
        i = _skip(text, i)
        if text[i] != ":":
            raise ValueError(f"':' expected at offset {i}")
        node, i = _value(text, _skip(text, i + 1))
        keys[key] = node
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
    value = {k: n.value for k, n in keys.items()}
    return Node(start, i + 1, value, keys), i + 1


def _array(text: str, start: int) -> tuple[Node, int]:
    items: list[Node] = []
    i = _skip(text, start + 1)
    while text[i] != "]":
        node, i = _value(text, i)
        items.append(node)
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return Node(start, i + 1, [n.value for n in items], items=items), i + 1


@dataclass
class TextEdits:
    """Replacements of spans of one text, applied together."""

    text: str
    spans: list[tuple[int, int, str]] = field(default_factory=list)

    def set_value(self, obj: Node, key: str, value: Any) -> None:
        """``obj[key] = value`` (any JSON value): the old value's span replaced, or the key
        added first in the object, laid out as the object's first key is."""
        literal = json.dumps(value, ensure_ascii=False)
        if key in obj.keys:
            node = obj.keys[key]
            self.spans.append((node.start, node.end, literal))
            return
        inner = _skip(self.text, obj.start + 1)
        if self.text[inner] == "}":
            self.spans.append((obj.start + 1, obj.start + 1, f"{json.dumps(key)}: {literal}"))
            return
        gap = self.text[obj.start + 1:inner]
        self.spans.append((inner, inner, f"{json.dumps(key)}: {literal},{gap or ' '}"))

    def result(self) -> str:
        out = self.text
        for start, end, new in sorted(self.spans, reverse=True):
            out = out[:start] + new + out[end:]
        return out
