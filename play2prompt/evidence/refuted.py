"""What the facts refute in a doc text: a value the tool rejected given as an example, a unit
a rule of the tool contradicts, a sentence offering texts a value probe showed the tool does not
act on. :func:`strip_refuted` takes them out of D0 before the facts doc is written
(:func:`play2prompt.evidence.facts.facts_doc`), and out of the labels requests are written
from."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from play2prompt.evidence.error_text import words
from play2prompt.method.discovery import Fact

ACTS_ON = "acts-on"          # a rule's first value where the rest are the only texts the tool
                             # acts on (:mod:`play2prompt.evidence.values`)


def refuted_phrases(doc_text: str, facts: Sequence[Fact]) -> list[str]:
    """Phrases of a D0 text that the facts refute: an example value the tool rejected ("e.g.
    miles"), or a unit that a rule of the tool contradicts ("in meters" where the tool says
    centimetres). A worked conversion ("For example, 1.7 metres is 170.") names the unit
    people say, not the one the tool takes, so it tells no unit."""
    found = []
    intro = "|".join(words()["example_intro"])
    for fact in facts:
        if fact.kind == "rejects":
            for value in fact.values:
                m = re.search(rf"[,;(]?\s*(?:{intro})?\s*['\"]?"
                              rf"{re.escape(value)}['\"]?(?![\w])", doc_text, re.I)
                if m and m.group(0).strip(" ,;(").lower() != "":
                    found.append(m.group(0))
        if fact.kind == "rule" and fact.values[:1] == (ACTS_ON,):
            found.extend(_ignored_sentences(doc_text, fact.values[1:]))
    rules = " ".join(f.text for f in facts
                     if f.kind == "rule" and tuple(f.values[:1]) != ("converts",))
    before = "|".join(words()["unit_preposition"])
    for family in words()["unit_families"]:
        said = _units_in(doc_text, family)
        told = _units_in(rules, family)
        if said and told and not (said & told):
            for unit in said:
                m = re.search(rf"(?:\b(?:{before})\s+)?\b(?:{family[unit]})\b", doc_text, re.I)
                if m:
                    found.append(m.group(0))
    return found


def _ignored_sentences(doc_text: str, acted: Sequence[str]) -> list[str]:
    """The sentences of a doc text that offer a quoted text the tool does not act on ("Can be
    'gain weight', 'lose weight', or 'maintain weight'." where a value probe showed it acts
    only on "lose" and "gain"): the describe step's guesses, which a 1.5B copies over the
    fact."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", doc_text):
        quoted = re.findall(r"'([^']+)'|\"([^\"]+)\"", sentence)
        if any((a or b) not in acted for a, b in quoted):
            out.append(sentence)
    return out


def _units_in(text: str, family: Mapping[str, str]) -> set[str]:
    return {unit for unit, words in family.items()
            if re.search(rf"\b(?:{words})\b", text, re.I)}


def strip_refuted(text: str, facts: Sequence[Fact]) -> str:
    """``text`` without the phrases the facts refute, its punctuation tidied."""
    for phrase in refuted_phrases(text, facts):
        text = text.replace(phrase, " ")
    text = re.sub(r"\(\s*\)|\s+([,.;:])", r"\1", text)
    text = re.sub(r"\s{2,}", " ", text)
    return text.strip(" ,;:-")


__all__ = ["ACTS_ON", "refuted_phrases", "strip_refuted"]
