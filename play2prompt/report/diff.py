"""Word diffs of two texts (original vs optimized doc), as HTML and as Markdown."""

from __future__ import annotations

import difflib
import html
import re

_TOKEN = re.compile(r"\S+")


def word_ops(old: str, new: str) -> list[tuple[str, str]]:
    """(op, text) pieces: op is ``=`` (kept), ``-`` (removed) or ``+`` (added)."""
    a, b = _TOKEN.findall(old or ""), _TOKEN.findall(new or "")
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", " ".join(b[j1:j2])))
    return out


def diff_html(old: str, new: str) -> str:
    parts = []
    for op, text in word_ops(old, new):
        esc = html.escape(text)
        tag = {"-": "del", "+": "ins"}.get(op)
        parts.append(f"<{tag}>{esc}</{tag}>" if tag else esc)
    return " ".join(parts) or "<em>(empty)</em>"


def diff_markdown(old: str, new: str) -> str:
    parts = []
    for op, text in word_ops(old, new):
        text = text.replace("|", "\\|")
        parts.append(text if op == "=" else f"~~{text}~~" if op == "-" else f"**{text}**")
    return " ".join(parts) or "*(empty)*"
