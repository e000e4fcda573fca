"""How a request says a value (:class:`Form`): made by code from a fact
(:mod:`play2prompt.evidence.everyday`, :mod:`play2prompt.evidence.convention_forms`) and checked
in every request written for it (Step 1b)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from play2prompt.method.rewards import value_in_text


@dataclass(frozen=True)
class Form:
    """How a request says a value: ``text`` to say, the ``numbers`` it must contain and a
    ``mark`` (a regular expression, case-insensitive) it must match too, such as a unit or a
    month's name."""

    kind: str                       # unit | percent | fraction | ratio | date | time | unit name
    #                                 | zone name | country name | currency name | level
    text: str
    numbers: tuple[float, ...] = ()
    mark: str = ""
    as_given_ok: bool = False       # the call's own number is part of the form ("5 %")
    value: float | None = None      # the value the form says, where not the call's (a ratio
    #                                 says the round share nearest to it: 86 for 85.5)
    exact_code: bool = False        # the call's value is a code, written as given only in its
    #                                 own case ("US", not the word "us")
    standard: str = ""              # the standard the code follows ("a two-letter country
    #                                 code (ISO 3166-1), not the country's name")

    def said_in(self, query: str) -> bool:
        if any(not value_in_text(n, query) for n in self.numbers):
            return False
        return not self.mark or re.search(self.mark, query, re.I) is not None


__all__ = ["Form"]
