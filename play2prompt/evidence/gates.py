"""The request gates: what code checks of a request written by m3 before it is re-read
(evidence component ``request-gates``). A request must read like a person's message: no code,
URL, query string or dump of values; no tool or parameter identifier; no run of ``LEAK_NGRAM``
words copied from a meta-prompt or from the feedback the generator was given; every number of
the call as written; no yes/no option said the other way round; no value said on a scale the
facts of play refute ("5 %" for 0.05 where the tool takes a percentage, so 5 % is 5: such a
request is an example of the rescaled call when that call works, :func:`rescaled`). The
English words looked for are in ``data/request_words.json``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from play2prompt.evidence.conventions import counted_from_one
from play2prompt.evidence.error_text import pattern
from play2prompt.evidence.error_text import words as word_lists
from play2prompt.evidence.everyday import (
    family,
    tool_unit,
    typical_value,
    unit_scales,
    unit_words,
)
from play2prompt.method.rewards import (
    missing_numbers,
    said_as_percent,
    value_in_text,
    whole_word,
)
from play2prompt.numeric import is_number, plain_number
from play2prompt.tools.model import Invocation, Tool

if TYPE_CHECKING:
    from play2prompt.evidence.facts import FactBook

WORDS = "request_words.json"
FORMS = "everyday_forms.json"   # the unit scales
LEAK_NGRAM = 4
_CODE = re.compile(r"[A-Za-z_]\w*\s*\([^)]*=|[{}]|\w+_\w+\s*=|\bSELECT\b.+\bFROM\b|`|"
                   r"[?&]\w+=|\b\w\w+\s*=\s*['\"\w]|\b[A-Za-z_]\s*=\s*['\"A-Za-z_]|"
                   r"\b(?:True|False|None|null)\b|"
                   r"\b[A-Z][a-z]+/[A-Z][A-Za-z_]+|\b[a-z]+_[a-z_]+\b")
_URL = re.compile(r"https?://|www\.|\b\w+\.(?:com|org|net|io)\b", re.I)
_WORD = re.compile(r"[a-z0-9']+")
_NUM = r"-?\d+(?:\.\d+)?"
_NUMBER_RUN = re.compile(rf"[\[(]*\s*{_NUM}(?:\s*[\])]*\s*,\s*[\[(]*\s*{_NUM})+\s*[\])]*")


def reads_like_code(query: str, tool_name: str) -> bool:
    """A query that is really a function call (or names the tool by its identifier) is no user
    request. A one-letter name given a number is how people write mathematics ("the slope at
    x = 5", "choose k = 3 of n = 10"), not code; a tool named by a plain word ("percentile",
    "distance", as library functions are) is a word people say."""
    return bool(_CODE.search(query)) or (
        identifier_like(tool_name) and tool_name.lower() in query.lower())


def identifier_like(name: str) -> bool:
    """A name no one types in prose: with an underscore, a digit or an inner capital."""
    return bool(re.search(r"_|\d|[a-z][A-Z]", name))


def value_dump(query: str) -> bool:
    """A list of bare values ("gaming mouse, electronics, 100, True") instead of a request.
    A run of numbers (a list the call takes: "the mean of [2, 4, 6, 8]", "of 3, 5, 7 and 9")
    counts as one value: a request around it is a request, numbers alone are a dump."""
    text = _NUMBER_RUN.sub(" ", query)
    if text != query and len(_WORD.findall(text.lower())) < 3:
        return True
    parts = [p.strip() for p in re.split(r"[,;]", text) if p.strip()]
    short = sum(len(p.split()) <= 2 for p in parts)
    return (len(parts) >= 4 and short >= len(parts) - 1) or (len(parts) >= 3
                                                              and short == len(parts))


def ngrams(text: str, n: int = LEAK_NGRAM) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def leaks(query: str, sources: Iterable[str], allowed: str = "", n: int = LEAK_NGRAM) -> bool:
    """The request repeats ``n`` words in a row from a meta-prompt or from feedback (word runs
    that also occur in ``allowed``, e.g. the earlier request the feedback quotes, are fine)."""
    mine = ngrams(query, n) - ngrams(allowed, n)
    return any(mine & ngrams(src, n) for src in sources if src)


def identifiers(tool: Tool) -> list[str]:
    """The names a user would never type: the tool's and its identifier-like parameters'."""
    params = [p for p in tool.properties if "_" in p or re.search(r"[a-z][A-Z]", p)]
    return [tool.name, *params] if identifier_like(tool.name) else params


def unsaid_texts(query: str, inv: Invocation, tool: Tool) -> list[str]:
    """The free texts (two words or more) the call sets for an optional parameter that the
    request does not hold (case and spacing aside): such a request teaches setting the
    argument unasked. Run s72j shipped a create_charge demo, "... I forgot the description
    ...", whose call set description='Example charge'; the 1.5B then set a description in 6
    of 8 requests that gave none."""
    required = set(tool.required)
    said = " ".join(query.lower().split())
    return [name for name, value in inv.arguments.items()
            if name not in required and isinstance(value, str) and len(value.split()) >= 2
            and " ".join(value.lower().split()) not in said]


def flag_conflicts(query: str, inv: Invocation) -> list[str]:
    """Switches the request contradicts: it names a yes/no option ("business days" for
    ``business_days``) without negating it while the call switches it off, or negates it
    while the call switches it on. Options the request does not name are not checked."""
    found = []
    for name, value in inv.arguments.items():
        if not isinstance(value, bool):
            continue
        words = [w for w in re.split(r"[_\W]+", name.lower())
                 if len(w) > 3 and w not in word_lists(WORDS)["flag_filler"]]
        if not words or not all(re.search(rf"\b{re.escape(w[:-1])}", query, re.I)
                                for w in words):
            continue
        anchor = re.search(rf"\b{re.escape(max(words, key=len)[:-1])}", query, re.I)
        assert anchor is not None
        before = query[max(0, anchor.start() - 30):anchor.start()]
        said = not pattern("negation", WORDS).search(before)
        if said != value:
            found.append(f"it {'asks for' if said else 'rules out'} "
                         f"{' '.join(words)} but the call sets it to {str(value).lower()}")
    return found


def _said_as_percentage(query: str, name: str, value: object, book: FactBook) -> float | None:
    """The value the request means where it says ``value`` of parameter ``name`` only as a
    percentage of it ("5 %" for 0.05) and the facts of play say the tool takes a percentage
    (:func:`~play2prompt.evidence.everyday.typical_value`: 5); None otherwise."""
    if not is_number(value) or value_in_text(value, query) or not said_as_percent(value, query):
        return None
    return typical_value(value, book.rules(name))


def _said_in_other_unit(query: str, name: str, value: object, book: FactBook) -> float | None:
    """The value the request means where it says ``value`` of parameter ``name`` followed by
    another unit of the family of the one the facts say the tool takes ("10 meters long" for
    length=10 where the tool takes centimetres: 1000); None otherwise. Play's calls of a tool
    in centimetres are often said in metres by m3 and verified as written (run fresh22: the
    paint tool's "10 meters long, 15 meters wide" for 10 x 15): such an example votes for
    the doc that ignores the unit and against the one that states it."""
    if not is_number(value) or isinstance(value, bool):
        return None
    unit = tool_unit(book.rules(name))
    scales = unit_scales()
    if unit not in scales:
        return None
    shown = re.escape(plain_number(value))
    symbols = word_lists(FORMS)["symbols"]
    for other in family(unit):
        said = unit_words(other)
        sym = symbols.get(other)
        before = rf"(?:{sym})\s?{shown}(?:\.0+)?(?![\d.,])|" if sym else ""
        after = rf"|(?:{sym})\b" if sym else ""
        if other != unit and re.search(
                rf"{before}(?<![\d.,]){shown}(?:\.0+)?\s?(?:(?:{said})\b|{re.escape(other)}\b"
                rf"{after})", query, re.I):
            meant = round(float(value) * scales[other] / scales[unit], 6)
            return int(meant) if isinstance(value, int) and meant.is_integer() else meant
    return None


def _meant(query: str, name: str, value: object, book: FactBook) -> float | None:
    """What the request means by ``value`` where it says it on a scale the facts refute: as a
    percentage (:func:`_said_as_percentage`) or in another unit (:func:`_said_in_other_unit`)."""
    meant = _said_as_percentage(query, name, value, book)
    if meant is None:
        meant = _said_in_other_unit(query, name, value, book)
    return meant if meant is not None else counted_from_one(query, name, value,
                                                            book.rules(name))


def scale_conflicts(query: str, inv: Invocation, book: FactBook) -> list[str]:
    """Numbers of the call the request says on a scale the facts refute: "5 %" for
    annual_rate=0.05 where play established that the tool takes a percentage (so 5 % is 5, and
    the call computes a 0.05 % loan). Such an example teaches the task model the opposite of
    the fact; a 1.5B re-reader, itself reading "5 %" as 0.05, lets it through (run base:
    two of loan_payment's four verified examples, which then voted its facts doc down)."""
    found = []
    for name, value in inv.arguments.items():
        if (meant := _said_as_percentage(query, name, value, book)) is not None:
            found.append(f"it says {meant:g} % where the call has {value}, but the tool takes a "
                         f"percentage ({meant:g} % is {meant:g})")
        elif (meant := _said_in_other_unit(query, name, value, book)) is not None:
            found.append(f"it says {value} in another unit than the tool takes ({name} "
                         f"{meant:g} is what it means)")
        elif (meant := counted_from_one(query, name, value, book.rules(name))) is not None:
            found.append(f"it counts {name} from 1 where the tool counts from 0 ({name} "
                         f"{meant} is what it means)")
    return found


def acted_text(query: str, value: object, acted: Sequence[str]) -> str | None:
    """The one text the tool acts on (a value probe's fact) that a call's other text holds as
    a word and the request says too ("gain" of goal="gain weight" where the tool acts only on
    "lose" and "gain": the person asked to gain, the call computed as for an unknown word);
    None otherwise."""
    if not isinstance(value, str) or not acted or value in acted:
        return None
    found = [a for a in acted if whole_word(a).search(value) and whole_word(a).search(query)]
    return found[0] if len(found) == 1 else None


def rescaled(query: str, inv: Invocation, book: FactBook) -> Invocation | None:
    """The call the request asks for where it says values on the scale the facts give ("5 %"
    for annual_rate=0.05 is annual_rate=5 where the tool takes a percentage; "10 meters" for
    length=10 is length=1000 where it takes centimetres): play's calls are often atypical
    (fractions, a room 10 cm long), and people say the typical value; or where the call's text
    holds the one text the tool acts on (:func:`acted_text`). None: nothing to rescale."""
    meant = {name: _meant(query, name, value, book) for name, value in inv.arguments.items()}
    meant.update({name: word for name, value in inv.arguments.items()
                  if (word := acted_text(query, value, book.acted_on(name))) is not None})
    args = {name: v for name, v in meant.items() if v is not None}
    return inv.with_args(args) if args else None


def request_problems(query: str, tool: Tool, sources: Sequence[str] = (),
                     allowed: str = "", inv: Invocation | None = None,
                     book: FactBook | None = None) -> list[str]:
    """What code finds wrong with a request (empty: it passes the code gates); ``book``: the
    facts of play, against which the request's scales are checked too."""
    problems = []
    words = len(query.split())
    if words < 3:
        problems.append("it is too short to be a request")
    if words > 60:
        problems.append("it is too long")
    low = query.lower()
    if reads_like_code(query, tool.name) or any(n.lower() in low for n in identifiers(tool)):
        problems.append("it reads like code or names the tool or a parameter")
    if _URL.search(query):
        problems.append("it contains a web address")
    if value_dump(query):
        problems.append("it is a list of values, not a request")
    if leaks(query, sources, allowed):
        problems.append("it copies text from the instructions instead of writing a new request")
    if inv is not None:
        missing = missing_numbers(query, inv)
        if missing:
            problems.append("it does not state " + ", ".join(missing) + " as written")
        problems.extend(flag_conflicts(query, inv))
        problems.extend(f"it does not say the {name} the call sets ({inv.arguments[name]!r}); "
                        f"say it, or the call leaves {name} out"
                        for name in unsaid_texts(query, inv, tool))
        if book is not None:
            problems.extend(scale_conflicts(query, inv, book))
    return problems
