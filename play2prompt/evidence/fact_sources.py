"""Where a fact came from (``p2p runs show``'s facts by source): an error of play's calls, a
probe's call (a refusal, a range, a default), or outputs compared by code."""

from __future__ import annotations

from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.refuted import ACTS_ON

_PROBED = frozenset({"range", "default", "sign", "unasked", "parts", "max", "length", ACTS_ON})
SOURCES = ("error", "probe", "output")


def source_of(fact: Fact) -> str | None:
    """Where ``fact`` came from: an error of play's calls, a probe's call (a refusal, a range,
    a default), or outputs compared by code; None for what is no fact about a convention
    (an example value, the output's shape, a description)."""
    if fact.kind in ("example", "output", "describes") or fact.values[:1] == ("converts",):
        return None
    if fact.source:
        return fact.source
    return "probe" if fact.values[:1] and fact.values[0] in _PROBED else "error"


def fact_sources(book: FactBook) -> dict[str, int]:
    """How many of ``book``'s facts each source gave."""
    found = [source_of(f) for f in book.facts]
    return {s: found.count(s) for s in SOURCES}
