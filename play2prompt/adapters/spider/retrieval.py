"""Tool retrieval for the open world: BM25 (``bm25s``) over the tools' short descriptions.

A tool is indexed by the words of its name and the first sentence of its description. Text is
lower-cased, split on non-letters (so ``get_name_of_singer`` gives four words), stripped of
English stop words and of plural endings, on both the documents and the queries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from play2prompt.tools.model import Tool

SHORT_CHARS = 200
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "get", "give", "how", "i",
    "in", "is", "it", "list", "many", "me", "much", "of", "on", "or", "show", "than", "that",
    "the", "their", "them", "these", "this", "those", "to", "was", "what", "when", "where",
    "which", "who", "whose", "with"))


def short_description(text: str, limit: int = SHORT_CHARS) -> str:
    """The first sentence of a description (at most ``limit`` characters)."""
    text = " ".join((text or "").split())
    match = re.search(r"(?<=[.!?])\s", text)
    first = text[: match.start()] if match else text
    return first if len(first) <= limit else first[: limit - 3].rstrip() + "..."


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    words = re.split(r"[^a-z0-9]+", text.lower().replace("_", " "))
    return [_stem(w) for w in words if len(w) > 1 and w not in _STOP]


class ToolIndex:
    """BM25 search over a tool library."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        import bm25s

        self.tools = list(tools)
        corpus = [tokens(f"{t.name} {short_description(t.description)}") or ["_empty_"]
                  for t in self.tools]
        self._bm25 = bm25s.BM25()
        self._bm25.index(bm25s.tokenize([" ".join(c) for c in corpus], stopwords=None,
                                        show_progress=False), show_progress=False)

    def search(self, query: str, k: int = 5, exclude: Sequence[str] = ()) -> list[Tool]:
        """The ``k`` best tools for ``query`` (ties and zero scores keep library order)."""
        words = tokens(query)
        if not self.tools or k < 1:
            return []
        skip = set(exclude)
        if not words:
            return [t for t in self.tools if t.name not in skip][:k]
        n = len(self.tools)
        docs, scores = self._bm25.retrieve([words], k=n, show_progress=False)
        ranked = sorted(zip(docs[0].tolist(), scores[0].tolist()), key=lambda p: (-p[1], p[0]))
        out = [self.tools[i] for i, _ in ranked if self.tools[i].name not in skip]
        return out[:k]
