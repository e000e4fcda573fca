"""Token diffs of two texts (original vs optimized doc), as HTML and as Markdown.

A token is a word, one punctuation mark or a run of white space, so "value" -> "value." is
one added "." (a diff by white space struck "value" and added "value."); the pieces join back
into the texts exactly.
"""

from __future__ import annotations

import difflib
import html
import re

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def word_ops(old: str, new: str) -> list[tuple[str, str]]:
    """(op, text) pieces: op is ``=`` (kept), ``-`` (removed) or ``+`` (added); the ``=`` and
    ``-`` pieces join into ``old``, the ``=`` and ``+`` ones into ``new``."""
    a, b = _TOKEN.findall(old or ""), _TOKEN.findall(new or "")
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
    return out


def _marked(text: str, before: str, after: str) -> str:
    """``text`` marked, its white space at either end left outside the marks (Markdown
    renders no ``~~ x~~``); white space alone is left unmarked."""
    core = text.strip()
    if not core:
        return text
    start = text.index(core)
    return f"{text[:start]}{before}{core}{after}{text[start + len(core):]}"


def diff_html(old: str, new: str) -> str:
    parts = []
    for op, text in word_ops(old, new):
        tag = {"-": "del", "+": "ins"}.get(op)
        esc = html.escape(text)
        parts.append(_marked(esc, f"<{tag}>", f"</{tag}>") if tag else esc)
    return "".join(parts) or "<em>(empty)</em>"


def diff_markdown(old: str, new: str) -> str:
    parts = []
    for op, text in word_ops(old, new):
        text = " ".join(text.replace("|", "\\|").split("\n"))
        parts.append(text if op == "=" else _marked(text, "~~", "~~") if op == "-"
                     else _marked(text, "**", "**"))
    return "".join(parts) or "*(empty)*"
