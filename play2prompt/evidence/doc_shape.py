"""A doc's shape: text in the wrong place or in no language a reader expects, found by code
(issue 72, item 6: docs in the accepted form).

Three slips of a small rewriting model that no sentence check sees, each a rewrite's reason to
be drawn again (:func:`~play2prompt.method.doc_search.doc_problems`) and each reported among a
shipped doc's problems (:func:`~play2prompt.evidence.hygiene.problems`):

- ``parameter-list``: the description lists parameters with their types ("- year (integer,
  required): ..."), the parameters' own texts left as their type alone. Run s72j shipped such a
  utc_timestamp doc (it won 0.20 -> 0.40 on its training examples): the listing named a
  ``second`` that the tool does not have, the 1.5B set ``second`` in 5 of 8 calls, each refused,
  and the month fact, now in the description only, was not obeyed (1 of 8 right, the correct
  docs 4).
- ``type-only``: a parameter's text that says only its type and whether it is required
  ("integer, required"), which the schema says already.
- ``mixed-script``: a run of Chinese, Japanese or Korean characters inside English text (the
  same doc ended "... gave the same结果").
"""

from __future__ import annotations

import re

PARAM_LIST, TYPE_ONLY, MIXED_SCRIPT = "parameter-list", "type-only", "mixed-script"

_TYPES = r"integer|int|string|str|number|float|boolean|bool|array|list|object|dict"
_LISTED = re.compile(
    rf"^\s*(?:[-*\u2022]\s*|\d+[.)]\s*)?`?([A-Za-z_]\w*)`?\s*\((?:{_TYPES})\b", re.I | re.M)
_TYPE_ONLY = re.compile(rf"^(?:(?:{_TYPES}|required|optional|an?)[\s,;:.]*)+$", re.I)
_TYPE_WORD = re.compile(rf"\b(?:{_TYPES})\b", re.I)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_LATIN_WORD = re.compile(r"\b[A-Za-z]{2,}\b")
MIN_LISTED = 2           # parameters listed with a type before a description is a listing
MIN_LATIN = 3            # English words around a CJK run before it is a stray one


def listed_params(text: str) -> list[str]:
    """The names ``text`` lists one to a line with a type ("- year (integer, ...)")."""
    return _LISTED.findall(text)


def type_only(text: str) -> bool:
    """``text`` says only a type and whether it is required ("integer, required"; a bare
    "Required." names no type and is left to the other checks)."""
    clean = text.strip()
    return bool(_TYPE_ONLY.match(clean)) and bool(_TYPE_WORD.search(clean))


def stray_script(text: str) -> str | None:
    """The first run of CJK characters in an otherwise English ``text``; None otherwise."""
    found = _CJK.search(text)
    if found is None or len(_LATIN_WORD.findall(text)) < MIN_LATIN:
        return None
    return found.group(0)


def shape_problems(description: str, params: dict[str, str]) -> list[tuple[str, str, str]]:
    """(kind, field, text) of each slip: field "" is the description."""
    out = []
    listed = listed_params(description)
    if len(listed) >= MIN_LISTED:
        out.append((PARAM_LIST, "", "lists " + ", ".join(listed)))
    for field, text in [("", description), *params.items()]:
        if field and type_only(text):
            out.append((TYPE_ONLY, field, text.strip()))
        if (run := stray_script(text)) is not None:
            out.append((MIXED_SCRIPT, field, run))
    return out


__all__ = ["MIXED_SCRIPT", "PARAM_LIST", "TYPE_ONLY", "listed_params", "shape_problems",
           "stray_script", "type_only"]
