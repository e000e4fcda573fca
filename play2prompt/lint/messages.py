"""Whether a tool's error message teaches the caller anything, and a better one from facts.

An error teaches when it says what is accepted: a list of values, a range or bound ("between 0
and 100", "must be positive", "at least 3"), a type ("must be an integer") or an example or
format offered (a quoted value the call did not send, ``YYYY-MM-DD``). One that only names the
parameter ("parcel weight out of range", "no rates for destination 'zzqx'") says where, not
what; one that names nothing ("Invalid isoformat string: 'zzqx'", Python's own "not enough
values to unpack") teaches nothing. Read with the fact reader's rules
(:mod:`play2prompt.evidence.error_text`, :func:`~play2prompt.evidence.error_reading.read_error`).

The better message is built by code from what executing the tool showed (the
:class:`~play2prompt.evidence.facts.FactBook` of the lint's calls: accepted values other
errors listed, a range the range search found, values and formats that worked) and from the
schema (enum, minimum, maximum): ``destination: 'zzqx' is not accepted. For example: 'US'.``
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from functools import cache
from typing import Any

from play2prompt.evidence.error_reading import read_error
from play2prompt.evidence.error_text import (
    QUOTED,
    clauses,
    contains_value,
    is_internal,
    mentions,
    numbers,
    unwrap,
)
from play2prompt.evidence.facts import FactBook
from play2prompt.lint.static import words_data
from play2prompt.tools.model import Invocation, Tool

TEACHES = "teaches"            # says what is accepted
NAMES = "names"                # names the parameter only
NOTHING = "nothing"            # names no parameter, no value, no range
_TYPES = r"(?:integer|number|string|text|boolean|list|array|object|float|int|str|bool|date)"
_RANGE_WORDS = re.compile(
    r"\b(?:positive|negative|non-negative|nonnegative|between|at least|at most|greater|less|"
    r"more than|fewer than|exceeds?|minimum|maximum|max|min|empty)\b|[<>]=?|\d\s*-\s*\d"
    r"|\b\d+\s*(?:to|\.\.)\s*\d+"
    rf"|\b(?:must|should|has to|needs? to) be (?:an? )?(?:valid )?{_TYPES}\b"
    rf"|\b(?:expected|expects|not an?|valid) (?:an? )?(?:valid )?{_TYPES}\b", re.I)
_FORMAT_WORDS = re.compile(r"\b(?:format|like|e\.g\.|such as|expected|use|valid|known|"
                           r"YYYY|HH:MM|ISO|IANA|RFC)\b", re.I)


def judge(tool: Tool, inv: Invocation, error: str) -> str:
    """:data:`TEACHES`, :data:`NAMES` or :data:`NOTHING` for the error ``inv`` got."""
    text = unwrap(error)[0]
    if any(r.kind == "accepts" for r in read_error(tool, inv.arguments, error)):
        return TEACHES
    if any(is_internal(c) for c in clauses(error)):
        return NOTHING    # Python's own words ("invalid literal for int()") are no message
    if _offers(text, inv) or _bounds(text, inv) or _units().search(text):
        return TEACHES
    return NAMES if any(mentions(text, p) for p in tool.properties) else NOTHING


@cache
def _units() -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(words_data()["error_units"]) + r")\b", re.I)


def _offers(text: str, inv: Invocation) -> bool:
    """A quoted value the call did not send, with words that offer it (``like '#1a2b3c'``)."""
    sent = list(inv.arguments.values())
    offered = [q for q in QUOTED.findall(text)
               if not any(contains_value(q, v) or str(v) == q for v in sent)]
    return bool(offered) and bool(_FORMAT_WORDS.search(text))


def _bounds(text: str, inv: Invocation) -> bool:
    """A range, a bound, a sign or a type, or a number the call did not send."""
    if _RANGE_WORDS.search(text):
        return True
    sent = [v for v in inv.arguments.values() if isinstance(v, (int, float))]
    return any(not any(_same(n, v) for v in sent) for n in numbers(text))


def _same(number: str, value: Any) -> bool:
    try:
        return float(number) == float(value)
    except (TypeError, ValueError):
        return False


def blamed(tool: Tool, inv: Invocation, error: str, varied: str | None) -> str | None:
    """The parameter the error is about: the one a probe varied when the error echoes its
    value, names it or names no other; else the one it names or whose value it echoes."""
    text = unwrap(error)[0]
    named = [n for n in tool.properties if mentions(text, n)]
    echoed = varied in inv.arguments and contains_value(text, inv.arguments[varied]) \
        if varied else False
    if varied and (echoed or varied in named or not named):
        return varied
    echo = next((n for n in inv.arguments if isinstance(inv.arguments[n], str)
                 and contains_value(text, inv.arguments[n])), None)
    return echo or (named[0] if named else None)


def proposal(tool: Tool, book: FactBook, param: str | None, inv: Invocation,
             error: str, refused: Collection[Any] = ()) -> str:
    """The message the tool could have given: the parameter, the value refused, and what the
    facts and the schema say it accepts (its enum less the values the tool ``refused`` or
    the facts say it rejects)."""
    if not param:
        said = [s for s in book.sentences("") if not s.startswith("Returns ")]
        return " ".join(said) if said else ""
    value = inv.arguments.get(param)
    head = f"{param}: {value!r} is not accepted." if param in inv.arguments else \
        f"{param} is required."
    own = [c for c in (_plain(c) for c in clauses(error)) if len(c) > 2]
    said = [s for s in book.sentences(param) if not any(c in _plain(s) for c in own)]
    head, said = _same_refusal(head, said, value)
    schema = dict(tool.properties.get(param) or {})
    if isinstance(schema.get("enum"), list):     # what the tool refused is no choice
        out = book.rejected(param) | {str(v) for v in refused}
        schema["enum"] = [v for v in schema["enum"] if str(v) not in out]
        said = [s for s in said if not s.startswith(("For example", "One of"))]
    stated = [s for s in schema_sentences(schema, not said)
              if not any(_plain(s) in _plain(t) for t in said)]
    return " ".join([head, *stated, *said])


def _same_refusal(head: str, said: list[str], value: Any) -> tuple[str, list[str]]:
    """The head without a fact that refuses the very value it names (``'test' is rejected
    (ref did not resolve)``): its reason goes into the head, said once."""
    again = re.compile(re.escape(repr(str(value))) + r" is rejected(?: \((.+)\))?\.?$")
    rest = []
    for sentence in said:
        found = again.match(sentence)
        if found is None:
            rest.append(sentence)
        elif found.group(1) and head.endswith("is not accepted."):
            head = f"{head[:-1]} ({found.group(1)})."
    return head, rest


def schema_sentences(schema: Mapping[str, Any], typed: bool = True) -> list[str]:
    """What a parameter's schema says it accepts, as sentences (``typed``: its type when
    it says nothing else)."""
    out = []
    if isinstance(schema.get("enum"), list):
        out.append("One of: " + ", ".join(str(v) for v in schema["enum"]) + ".")
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        out.append(f"Between {low} and {high}.")
    elif low is not None:
        out.append(f"At least {low}.")
    elif high is not None:
        out.append(f"At most {high}.")
    if schema.get("format"):
        out.append(f"Format: {schema['format']}.")
    if typed and not out and isinstance(schema.get("type"), str):
        kind = str(schema["type"])
        out.append(f"Takes {'an' if kind[0] in 'aeiou' else 'a'} {kind}.")
    return out


def _plain(text: str) -> str:
    return re.sub(r"[^\w]+", " ", text).strip().lower()
