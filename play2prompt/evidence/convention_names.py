"""The names the conventions families go by (``data/conventions.json``): which parameters and
output fields may follow a convention, read by :mod:`play2prompt.evidence.conventions` and its
families (:mod:`play2prompt.evidence.spans`, :mod:`play2prompt.evidence.shares`)."""

from __future__ import annotations

import re
from functools import cache

from play2prompt.evidence.error_text import words

DATA = "conventions.json"


@cache
def pattern(key: str) -> re.Pattern[str]:
    """The pattern ``data/conventions.json`` holds under ``key``, case-insensitive."""
    return re.compile(words(DATA)[key], re.I)


def named(name: str, key: str) -> bool:
    """Whether the parameter or field ``name`` is one :func:`pattern` ``key`` names, its
    underscores read as spaces or as written."""
    return pattern(key).search(name.replace("_", " ")) is not None or \
        pattern(key).search(name) is not None


__all__ = ["DATA", "named", "pattern"]
