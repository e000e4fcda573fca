"""Doc completion (evidence component ``doc-completion``): a rewrite by G_D is completed by
code before it is scored. A parameter it blanks keeps its facts-doc text, a fact it leaves out
is stated, a D0 statement it drops is kept, what play refuted is taken out. The words that mark
a blank text ("n/a", "tbd") are in ``data/doc_words.json``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import ACCEPTS, Fact, FactBook
from play2prompt.evidence.refuted import strip_refuted
from play2prompt.tools.model import ToolDoc

_CONTENT = re.compile(r"[a-z0-9][a-z0-9'/-]{3,}")


@cache
def _placeholders() -> frozenset[str]:
    return frozenset(words("doc_words.json")["placeholders"])


def is_placeholder(text: str) -> bool:
    return text.lower().strip(".:; ") in _placeholders() or len(text.split()) < 2



def _words(text: str) -> set[str]:
    return set(_CONTENT.findall(text.lower()))


def _says(text: str, sentence: str, share: float = 0.5) -> bool:
    """``text`` already says most of what ``sentence`` says: most of the values of a list
    ("One of: c, cm, mi"), else most of its content words."""
    if sentence.startswith(ACCEPTS):
        values = {v.strip().lower() for v in sentence[len(ACCEPTS):].rstrip(".").split(",")}
        tokens = set(re.findall(r"[\w./+-]+", text.lower()))
        return len(values & tokens) >= share * len(values)
    wanted = _words(sentence)
    return not wanted or len(wanted & _words(text)) >= share * len(wanted)


def complete_text(text: str, original: str, sentences: Sequence[str], fallback: str,
                  facts: Sequence[Fact] = ()) -> str:
    """One text of a rewrite, completed: what the ``facts`` refute taken out; the ``fallback``
    when it is blank or a placeholder; the ``original`` statement put back when the rewrite
    dropped it; every fact sentence it does not already say added."""
    text = strip_refuted(text.strip(), facts)
    if is_placeholder(text):
        return fallback
    if original and not _says(text, original, 1 / 3):
        text = f"{original.rstrip('.')}. {text}"
    for sentence in sentences:
        if not _says(text, sentence):
            text = f"{text.rstrip(' .')}. {sentence}"
    return text


def complete_doc(doc: ToolDoc, d0: ToolDoc, book: FactBook, reference: ToolDoc) -> ToolDoc:
    """A rewrite merged with what must stay (``reference``: the facts doc): never a blank
    parameter, no D0 statement that play did not refute lost, every established fact said."""
    params = {name: complete_text(doc.params.get(name, ""),
                                  strip_refuted(d0.params.get(name, ""), book.of(name)),
                                  book.sentences(name), reference.params[name], book.of(name))
              for name in reference.params}
    return ToolDoc(complete_text(doc.description, d0.description, book.sentences(""),
                                 reference.description), params)
