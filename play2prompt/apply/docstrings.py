"""Docstrings as texts: the description (before the first section) and a Google-style
``Args:`` section, each replaced on its own; the other sections stay as written."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping

WIDTH = 88
_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns?|Raises|"
                      r"Yields?|Examples?|Notes?|See Also|Attributes|Warnings?):\s*$")
_ARGS = ("Args", "Arguments", "Parameters", "Params")
_ENTRY = re.compile(r"^(\s+)(\*{0,2}\w+)(\s*\([^)]*\))?\s*:\s?(.*)$")


def read_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """What a docstring says (Google, NumPy, Sphinx or Epydoc style, read by
    ``docstring_parser``): its description (summary and body) and each parameter's text."""
    import docstring_parser

    parsed = docstring_parser.parse(doc)
    description = "\n\n".join(p for p in (parsed.short_description, parsed.long_description)
                               if p)
    return description, {p.arg_name: p.description or "" for p in parsed.params}


def fill(text: str, width: int) -> list[str]:
    """``text`` wrapped to ``width`` paragraph by paragraph (a paragraph that is a list, or
    indented, keeps its lines)."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text.strip()):
        lines = para.splitlines()
        if len(lines) > 1 and any(re.match(r"\s|[-*]\s|\d+[.)]\s", ln) for ln in lines):
            out.extend(lines)
        else:
            out.extend(textwrap.wrap(" ".join(para.split()), width) or [""])
        out.append("")
    return out[:-1]


def with_docs(doc: str, description: str | None, params: Mapping[str, str],
              width: int = WIDTH) -> str:
    """``doc`` (a cleaned docstring) with a new description and new parameter texts."""
    lines = doc.splitlines()
    start = next((i for i, ln in enumerate(lines) if _SECTION.match(ln)), len(lines))
    head, rest = lines[:start], lines[start:]
    if description is not None:
        head = fill(description, width)
    while head and not head[-1].strip():
        head.pop()
    if params:
        rest = _with_args(rest, params, width)
    return "\n".join(head + ([""] if rest else []) + rest).strip("\n")


def _with_args(rest: list[str], params: Mapping[str, str], width: int) -> list[str]:
    start = next((i for i, ln in enumerate(rest) if _SECTION.match(ln) and
                  _SECTION.match(ln).group(1) in _ARGS), None)  # type: ignore[union-attr]
    if start is None:
        entries = [line for p, text in params.items() for line in _entry("    ", p, "", text,
                                                                         width)]
        return ["Args:", *entries, *([""] if rest else []), *rest]
    end = next((i for i in range(start + 1, len(rest)) if _SECTION.match(rest[i])), len(rest))
    section, todo, i = [rest[start]], dict(params), start + 1
    indent = "    "
    while i < end:
        m = _ENTRY.match(rest[i])
        j = i + 1
        while j < end and rest[j].strip() and len(rest[j]) - len(rest[j].lstrip()) > \
                len(m.group(1) if m else ""):
            j += 1
        if m and m.group(2).lstrip("*") in todo:
            indent = m.group(1)
            name = m.group(2).lstrip("*")
            section.extend(_entry(indent, m.group(2), m.group(3) or "", todo.pop(name), width))
        else:
            section.extend(rest[i:j])
            indent = m.group(1) if m else indent
        i = j
    while section and not section[-1].strip():
        section.pop()
    for name, text in todo.items():
        section.extend(_entry(indent, name, "", text, width))
    tail = rest[end:]
    return rest[:start] + section + ([""] if tail else []) + tail


def _entry(indent: str, name: str, kind: str, text: str, width: int) -> list[str]:
    first = f"{indent}{name}{kind}: "
    words = textwrap.wrap(" ".join(text.split()), max(20, width - len(first)))
    more = textwrap.wrap(" ".join(words[1:]), max(20, width - len(indent) - 4))
    return [first + (words[0] if words else "")] + [indent + "    " + w for w in more]
