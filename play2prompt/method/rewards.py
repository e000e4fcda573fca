"""Rewards of Step 1: R_q (example quality) and R_e (difficulty), R = R_q + lambda * R_e.

What makes a request unusable (code, identifiers, copied instructions, a call it does not
determine) is a gate, checked in :mod:`play2prompt.method.requests`: a gated example gets no
reward at all. R_q grades what is left, on the paper's 1-3 scale: a short, first-person request,
with the numbers of the call written out (an implied number such as "two weeks" for 14 days is
allowed by the gate but scores lower); the LLM grade (m5) is averaged in only when the generator
graded well in the run's calibration.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence.error_text import pattern, words
from play2prompt.numeric import any_is, in_digits, is_number
from play2prompt.tools.model import Invocation

MAX_QUERY_WORDS = 60
EVERYDAY = "everyday_forms.json"   # the percent words
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*(?:\.\d+)?")


@dataclass(frozen=True)
class QueryChecks:
    values_present: float   # fraction of the call's numbers written in the request
    short: bool
    first_person: bool
    missing_values: tuple[str, ...] = ()

    def score(self) -> float:
        """The code-checked R_q on the 1-3 scale."""
        parts = [self.values_present, float(self.short), float(self.first_person)]
        weights = [1.0, 0.5, 0.5]
        frac = sum(p * w for p, w in zip(parts, weights)) / sum(weights)
        return 1.0 + 2.0 * frac

    def to_dict(self) -> dict[str, Any]:
        return {"values_present": round(self.values_present, 3), "short": self.short,
                "first_person": self.first_person, "missing_values": list(self.missing_values)}

    def describe(self) -> str:
        notes = []
        if self.missing_values:
            notes.append("the request does not write out: " + ", ".join(self.missing_values))
        if not self.short:
            notes.append("the request is too long")
        if not self.first_person:
            notes.append("the request is not in the first person")
        return "; ".join(notes) or "all checks passed"


def leaf_values(value: Any) -> Iterable[Any]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from leaf_values(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaf_values(v)
    else:
        yield value


def whole_word(text: str, case: bool = False) -> re.Pattern[str]:
    """``text`` as a whole word (or words), in any case (``case``: in its own case only): not
    inside a longer word or number."""
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(text)}(?![A-Za-z0-9])",
                      0 if case else re.I)


def value_in_text(value: Any, text: str) -> bool:
    """Whether ``text`` states ``value`` (numbers by value, strings case-insensitively)."""
    if isinstance(value, bool) or value is None:
        return True  # flags are usually implied by wording; not checkable by string search
    low = text.lower()
    if isinstance(value, (int, float)):   # in digits or in words ("seven days" states 7)
        return any_is(_NUMBER.findall(text), value) or \
            any_is(_NUMBER.findall(in_digits(text)), value)
    s = str(value).strip().lower()
    if not s:
        return True
    if s in low:
        return True
    # Separators written differently: "new_york" vs "new york", "2024-01-05" vs "2024/01/05".
    norm = re.sub(r"[\s_\-/]+", " ", s)
    return norm in re.sub(r"[\s_\-/]+", " ", low)


def percent_pattern() -> str:
    """What says "per cent" after a number: "%" or a percent word of the data file."""
    return rf"%|\b(?:{words(EVERYDAY)['percent']})\b"


def said_as_percent(value: Any, text: str) -> bool:
    """A fraction said as the percentage people say ("5 %" or "5 percent" for 0.05)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < abs(value) < 1:
        return False
    said = rf"(-?\d+(?:\.\d+)?)\s*(?:{percent_pattern()})"
    return any_is(re.findall(said, in_digits(text), re.I), value * 100)


def counts_per_year(name: str) -> bool:
    """The parameter ``name`` says it counts times a year (``compounding``,
    ``payments_per_year``)."""
    return re.search(words(EVERYDAY)["per_year_params"], name, re.I) is not None


def per_year_words(name: str, value: Any) -> str | None:
    """The words that say ``value`` times a year ("monthly|every month" for 12), where the
    parameter ``name`` counts times a year (:func:`counts_per_year`); None otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not counts_per_year(name):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return words(EVERYDAY)["per_year"].get(str(int(value)))


def per_year_mark(name: str, value: Any) -> str | None:
    """The pattern (case-insensitive) a request says ``value`` times a year with: one of
    :func:`per_year_words` as a whole word; None where there is none."""
    said = per_year_words(name, value)
    return None if said is None else rf"\b(?:{said})\b"


def said_per_year(name: str, value: Any, text: str) -> bool:
    """A count a year said as how often ("compounded monthly" for ``compounding=12``)."""
    mark = per_year_mark(name, value)
    return mark is not None and re.search(mark, text, re.I) is not None


def missing_numbers(query: str, inv: Invocation) -> list[str]:
    """The numbers of the call the request does not write out (by value: "1,500" is 1500; a
    fraction may be said as a percentage, "5 %" for 0.05, and a count a year as how often,
    "monthly" for 12 compounding periods, as people say them). Other scale and unit slips
    ("5" for 0.05) are where small models go wrong, so a number must otherwise be written as
    the call has it; whether "5 %" meant 0.05 is the re-reading's to check."""
    return [str(v) for name, v in _numbers(inv)
            if not value_in_text(v, query) and not said_as_percent(v, query)
            and not said_per_year(name, v, query)]


def _numbers(inv: Invocation) -> list[tuple[str, Any]]:
    return [(name, v) for name, value in inv.arguments.items()
            for v in leaf_values(value) if is_number(v)]


def check_query(query: str, invocation: Invocation) -> QueryChecks:
    numbers = _numbers(invocation)
    missing = tuple(missing_numbers(query, invocation))
    present = 1.0 if not numbers else 1.0 - len(missing) / len(numbers)
    words = len(query.split())
    return QueryChecks(
        values_present=present,
        short=3 <= words <= MAX_QUERY_WORDS,
        first_person=bool(pattern("first_person", "request_words.json").search(query)),
        missing_values=missing,
    )


def quality_reward(checks: QueryChecks, llm_grade: float | None = None) -> float:
    """R_q in [1, 3]."""
    code = checks.score()
    return code if llm_grade is None else (code + float(llm_grade)) / 2.0


def total_reward(r_q: float, r_e: float, lam: float) -> float:
    return r_q + lam * r_e
