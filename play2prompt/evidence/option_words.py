"""The words of an option's effect (:mod:`play2prompt.evidence.option_effects`), read back
from its sentence: what one value of an option computes, and the words only it says, for a
fact test that says the value by its operation (:func:`~play2prompt.evidence.convention_forms.
operation_form`)."""

from __future__ import annotations

import json
import re
from typing import Any


def _said(param: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(param)}=(\S+?)(?: \(left out\))? gives ([^;]+?)[;.](?:\s|$)")


def operation_phrase(value: Any, rule: str, param: str) -> tuple[str, str] | None:
    """(what ``param`` = ``value`` computes, a pattern of the words only it says) where
    ``rule`` names it beside another value's operation (the sentence of
    :func:`~play2prompt.evidence.option_effects.option_effect`):
    "the sample standard deviation of the numbers in `a`" and a pattern of "sample" for ddof=1;
    None otherwise (no such sentence, or no word of its own)."""
    said = {v: phrase for v, phrase in _said(param).findall(rule)}
    mine = said.get(json.dumps(value))
    if mine is None or len(said) < 2:
        return None
    others = {w for v, p in said.items() if p != mine for w in _words(p)}
    own = [w for w in _words(mine) if w not in others]
    if not own:
        return None
    return mine.replace("`", ""), r"\b(?:" + "|".join(map(re.escape, own)) + r")\b"


def other_operation(value: Any, rule: str, param: str) -> Any:
    """The value whose operation ``rule`` names beside ``value``'s, where ``value`` is the one
    left out (the default): ``1`` for ddof=0 under "ddof=0 (left out) gives the population
    ...; ddof=1 gives the sample ...". A test of the default said by its operation ("the
    population SD") is one a reader who never sets the option passes; the other value is
    what it must be told to set. None otherwise."""
    default = re.search(rf"\b{re.escape(param)}=(\S+?) \(left out\) gives", rule)
    if default is None or default.group(1) != json.dumps(value):
        return None
    others = [v for v, _ in _said(param).findall(rule) if v != default.group(1)]
    return json.loads(others[0]) if others else None


def _words(phrase: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", phrase.lower()) if len(w) > 2]


__all__ = ["operation_phrase", "other_operation"]
