"""YAML edited as text: the composer's marks say where each node is, so a scalar is replaced
or a key added on a line of its own without touching any other byte (comments, quoting,
indentation and key order stay as the author wrote them)."""

from __future__ import annotations

import io
import json
from typing import Any

from play2prompt.errors import UserError


class YamlEdits:
    """Replacements in one YAML text, applied together by :meth:`result`."""

    def __init__(self, text: str, source: str) -> None:
        from ruamel.yaml import YAML, YAMLError

        self.text, self.source = text, source
        self.spans: list[tuple[int, int, str]] = []
        self.unplaced: list[str] = []
        try:
            self.data = YAML(typ="safe", pure=True).load(text)
            self.root = YAML(typ="rt").compose(text)
        except YAMLError as exc:
            raise UserError(f"{source}: not a YAML document "
                            f"({' '.join(str(exc).split())[:200]})") from exc

    def _node(self, steps: list[str | int]) -> Any:
        node = self.root
        for step in steps:
            if isinstance(step, int):
                node = node.value[step]
            else:
                node = next(v for k, v in node.value if k.value == step)
        return node

    def set_value(self, steps: list[str | int], key: str, value: Any) -> None:
        """``mapping[key] = value`` for the mapping at ``steps``."""
        mapping = self._node(steps)
        for k, v in mapping.value:
            if k.value == key:
                self._replace(mapping, k, v, value)
                return
        if mapping.flow_style:
            close = self.text.rindex("}", 0, mapping.end_mark.index)
            sep = ", " if mapping.value else ""
            self.spans.append((close, close, f"{sep}{key}: {_flow(value)}"))
            return
        self._insert(mapping, steps, key, value)

    def _insert(self, mapping: Any, steps: list[str | int], key: str, value: Any) -> None:
        """A new ``key: value`` line in a block mapping: after its last one-line scalar
        entry, else before its first key when that key starts its line."""
        anchors = [(k, v) for k, v in mapping.value
                   if v.id == "scalar" and v.end_mark.line == k.start_mark.line]
        first = mapping.value[0][0] if mapping.value else None
        line_start = self.text.rfind("\n", 0, first.start_mark.index) + 1 if first else 0
        if anchors:
            col = anchors[-1][0].start_mark.column
            at = self.text.find("\n", anchors[-1][1].end_mark.index)
            at = len(self.text) if at < 0 else at + 1
        elif first is not None and not self.text[line_start:first.start_mark.index].strip():
            col, at = first.start_mark.column, line_start
        else:
            self.unplaced.append(f"{'/'.join(map(str, steps))}: {key}")
            return
        lines = _block(key, value).splitlines()
        new = "".join(" " * col + line + "\n" if line else "\n" for line in lines)
        if at == len(self.text) and not self.text.endswith("\n"):
            new = "\n" + new.rstrip("\n")
        self.spans.append((at, at, new))

    def _replace(self, mapping: Any, k: Any, v: Any, value: Any) -> None:
        start, end = v.start_mark.index, v.end_mark.index
        block = getattr(v, "style", None) in ("|", ">")
        if mapping.flow_style or (isinstance(value, str) and "\n" not in value):
            new = _flow(value) if mapping.flow_style else _plain(value)
            if block:
                new += "\n"
        else:
            body = _block(k.value, value).split(": ", 1)[1]
            indent = " " * k.start_mark.column
            new = "\n".join(body.splitlines()[:1] + [indent + line if line else ""
                                                     for line in body.splitlines()[1:]])
            new += "\n" if block else ""
        self.spans.append((start, end, new))

    def result(self) -> str:
        out = self.text
        for start, end, new in sorted(self.spans, reverse=True):
            out = out[:start] + new + out[end:]
        return out


def _plain(value: str) -> str:
    """A one-line string as YAML writes it (plain when it can be, quoted when it must)."""
    return render_yaml({"k": value}).split(": ", 1)[1]


def _flow(value: Any) -> str:
    """``value`` inside a flow collection (``{...}``): plain when no flow indicator is in it,
    else as JSON (JSON is YAML's double-quoted and flow style)."""
    if isinstance(value, str) and "\n" not in value:
        plain = _plain(value)
        if not any(ch in plain for ch in ",[]{}#"):
            return plain
    return json.dumps(value, ensure_ascii=False)


def _block(key: str, value: Any) -> str:
    """``key: value`` in block style; a text of several lines as a literal block."""
    if isinstance(value, str) and "\n" in value:
        lines = value.strip("\n").splitlines()
        return f"{key}: |-\n" + "\n".join("  " + line if line else "" for line in lines)
    if isinstance(value, str):
        return f"{key}: {_plain(value)}"
    return render_yaml({key: value})


def render_yaml(value: Any) -> str:
    """``value`` as block YAML (no trailing newline)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 4096
    yaml.allow_unicode = True
    out = io.StringIO()
    yaml.dump(value, out)
    text = out.getvalue()
    if text.endswith("\n...\n"):
        text = text[:-5]
    return text.rstrip("\n")

