"""Reading a tool's error text: its clauses, the accepted values a clause lists, which parameter
a clause names, and whether it echoes a call's value or offers it as advice.

Plain text rules, no LLM (see :mod:`play2prompt.evidence.facts`, which turns what they find into
facts of the tool, and :mod:`play2prompt.evidence.error_reading`, which reads a whole error). The
English words and phrases these rules look for are data, in ``data/error_words.json``, loaded
once on first use.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from play2prompt.numeric import any_is, is_number

MAX_LIST = 40                # accepted values kept per parameter
QUOTED = re.compile(r"['\"`]([^'\"`]{1,60})['\"`]")
_OPENS = re.compile(r"(?:[a-z_]+\()?([\[({])")     # a repr's brackets: (…), [..], dict_keys([..])
_CLOSES = {"[": "]", "(": ")", "{": "}"}
_TOKEN = re.compile(r"^['\"`]?([\w./+\-]{1,40}(?: [\w./+\-]{1,20}){0,2})['\"`]?$")
_CUT = re.compile(r"\s*\.\.\.\[truncated: \d+ chars\]\s*$")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w]|\.\d)")
# a number that is a bound, not an echo: in an interval, a range, or after a comparison
_BOUND = re.compile(
    r"[\[(]\s*[-+]?[\d.]+\s*,\s*[-+]?[\d.]+\s*[\])]|[-+]?\d+(?:\.\d+)?\s*(?:\.\.|-|to)\s*[-+]?\d"
    r"+(?:\.\d+)?|(?:[<>]=?|=>|=<|==|than|least|most|of|between|and|maximum|minimum|max|min|"
    r"exceed|exceeds|base)\s*[-+]?\d+(?:\.\d+)?", re.I)


@cache
def words(file: str = "error_words.json") -> dict[str, Any]:
    """Word lists kept as data (``data/<file>``; the reader's by default)."""
    text = resources.files("play2prompt.evidence").joinpath(f"data/{file}").read_text(
        encoding="utf-8")
    return json.loads(text)


@cache
def pattern(name: str, file: str = "error_words.json") -> re.Pattern[str]:
    """One regular expression made of the word list ``name`` of ``data/<file>``
    (alternatives, word-bounded)."""
    items = words(file)[name]
    return re.compile(r"(?<![\w])(?:" + "|".join(items) + r")(?![\w])", re.I)


@cache
def _wrapper() -> re.Pattern[str]:
    return re.compile(r"^\s*(?:" + "|".join(words()["wrappers"]) + r")\s*", re.I)



def unwrap(error: str) -> tuple[str, bool]:
    """The error without what wraps a tool's own words (an exception class, "HTTP 422 from
    URL:", "MCP error -32602:", "Error executing tool X:"), and whether it was cut short."""
    text, n = _CUT.subn("", error.strip())
    while True:
        stripped = _wrapper().sub("", text, count=1)
        if stripped == text:
            return text.strip(), bool(n)
        text = stripped


def clauses(error: str) -> list[str]:
    """The error split into clauses, without what wraps it."""
    text = unwrap(error)[0]
    parts = re.split(r";\s+|(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.\s+(?=[A-Z'\"(\[])|\n", text)
    return [p.strip(" .;:") for p in parts if p.strip(" .;:")]


def is_internal(clause: str) -> bool:
    """The clause is Python's own words about an operation, or about the caller's access (a
    key, a quota, a permission): not the tool's words about a value."""
    return any(pattern(name).search(clause) for name in ("internal", "internal_ops",
                                                           "environment"))


def is_constraint(clause: str) -> bool:
    """The clause states what a value must be ("must be in 1..12", "at least one")."""
    return bool(pattern("constraint").search(clause))


def predicate_at(clause: str) -> int:
    """Where the clause's predicate starts (its first verb or modal); its length if none."""
    m = pattern("predicate").search(clause)
    return m.start() if m else len(clause)


def is_bare(clause: str, names: list[str]) -> bool:
    """Nothing but "invalid <name>": no rule in it."""
    rest = clause.lower()
    for name in names:
        for form in name_forms(name):
            rest = rest.replace(form.lower(), " ")
    left = [w for w in re.findall(r"[\w']+", rest) if w not in words()["bare"]]
    return not left


def _separators(tail: str) -> list[str]:
    return [i.strip() for i in re.split(r",\s*(?:and\s+|or\s+)?|\s+or\s+|\s+and\s+|\s*\|\s*",
                                        tail.strip().rstrip(".")) if i.strip()]


def value_list(clause: str) -> tuple[str, ...]:
    """The accepted values a clause lists ("units: c, cm, ft" / "one of a, b or c" / "must be
    'asc' or 'desc'"), if any: three or more short items, or two quoted ones. A list in
    brackets is read inside them (Python's repr of a tuple, list or ``dict_keys``: "one of
    (1, 2, 4), got 5"); quoted items that open a longer list are the list ("either 'pearson',
    'spearman', or a callable, 'cosine' was supplied")."""
    intro = re.compile(r"(?<![\w])(?:" + "|".join(words()["list_intro"]) + r")\s*(?:values?)?"
                       r"\s*[:=]?\s*", re.I)
    for m in intro.finditer(clause):
        items = _separators(_bracketed(clause[m.end():]))
        run = list(itertools.takewhile(_quoted, items))
        items = run if len(run) >= 2 else items
        tokens = [t.group(1) for t in map(_TOKEN.match, items) if t]
        quoted = all(map(_quoted, items))
        if len(tokens) == len(items) and (len(tokens) >= 3 or (len(tokens) == 2 and quoted)):
            return tuple(dict.fromkeys(tokens))[:MAX_LIST]
    return ()


def _quoted(item: str) -> bool:
    return len(item) > 1 and item[:1] in "'\"`" and item[-1:] == item[:1]


def _bracketed(tail: str) -> str:
    """What the brackets that open ``tail`` hold ("dict_keys(['a', 'b'])" -> "'a', 'b'"), else
    ``tail`` itself."""
    m = _OPENS.match(tail)
    if m is None:
        return tail
    end = tail.find(_CLOSES[m.group(1)], m.end())
    return tail[m.end():end] if end > 0 else tail


def single_accepted(clause: str) -> str | None:
    """The one value a clause says is allowed ("outside the allowed repository '/tmp/repo'")."""
    intro = "|".join(words()["single_accepted"])
    m = re.search(rf"(?<![\w])(?:{intro})\s+(?:[\w-]+\s+){{0,3}}?['\"`]([^'\"`]{{1,60}})['\"`]",
                  clause, re.I)
    return m.group(1) if m else None


def name_forms(param: str) -> set[str]:
    """How a text may write a parameter's name: as is, with spaces, camelCase split."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", param).replace("_", " ").replace("-", " ")
    return {param, spaced, spaced.replace(" ", "_")}


def mentions(text: str, param: str) -> bool:
    """The text names the parameter (as written, with spaces for underscores, camelCase)."""
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text, re.I)
               for n in name_forms(param))


def mention_at(text: str, param: str) -> int:
    """Where the text first names the parameter (-1 if it does not)."""
    spots = [m.start() for n in name_forms(param)
             for m in [re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text, re.I)] if m]
    return min(spots) if spots else -1


def norm(name: str) -> str:
    """A name compared loosely: case, underscores and dashes ignored."""
    return re.sub(r"[_\-\s]", "", name).lower()


def numbers(text: str) -> list[str]:
    """The numbers a text states as values: not those that are bounds ("in [0.0, 1.0]",
    "1..12", "at least 3", "maximum of 2")."""
    bounds = [m.span() for m in _BOUND.finditer(text)]
    return [m.group(0) for m in _NUMBER.finditer(text)
            if not any(a <= m.start() < b for a, b in bounds)]


def contains_value(text: str, value: Any) -> bool:
    """The text echoes the value (a number by value and not as a bound, a text as a word or
    quoted, a list by one of its text items)."""
    if isinstance(value, bool) or value is None:
        return False
    if is_number(value):
        return any_is(numbers(text), value)
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, str) and len(v) > 1 and contains_value(text, v) for v in value)
    if isinstance(value, dict):
        return False
    s = str(value).strip()
    if not s:
        return False
    quoted = {q.strip().lower() for q in QUOTED.findall(text)}
    if s.lower() in quoted:
        return True
    return len(s) > 1 and bool(re.search(rf"(?<![\w.]){re.escape(s)}(?![\w]|\.\w)", text, re.I))


def echo_at(text: str, value: Any) -> int:
    """Where the text first echoes ``value`` (-1 if it does not)."""
    if not contains_value(text, value):
        return -1
    if is_number(value):
        m = next((m for m in _NUMBER.finditer(text) if any_is([m.group(0)], value)), None)
        return m.start() if m else -1
    items = value if isinstance(value, (list, tuple)) else [value]
    spots = [text.lower().find(str(v).strip().lower()) for v in items if isinstance(v, str)
             or not isinstance(value, (list, tuple))]
    found = [s for s in spots if s >= 0]
    return min(found) if found else -1


def without(text: str, value: Any) -> str:
    """``text`` without the echo of ``value`` (quoted or bare, never inside a longer number or
    word, never a bound), its punctuation tidied."""
    if is_number(value):
        spans = _echo_spans(text, value)
        out = "".join(text[b:e] for b, e in zip([0] + [e for _, e in spans],
                                                  [s for s, _ in spans] + [len(text)]))
    else:
        out = re.sub(_value_pattern(value), " ", text, flags=re.I)
    out = re.sub(r"\(\s*\)|\[\s*\]|\s+([,.;:)])", r"\1", out)
    out = re.sub(r"([,;:])\s*[,;:]", r"\1", out)
    out = re.sub(r"\s{2,}", " ", out).strip(" :;,.-")
    return _drop_end(out, "clause_end") if cut_at_end(text, value) else out


def _echo_spans(text: str, value: Any) -> list[tuple[int, int]]:
    """Where ``text`` echoes ``value``: a text quoted or bare, a number never as a bound."""
    if not is_number(value):
        return [m.span() for m in re.finditer(_value_pattern(value), text, re.I)]
    bounds = [m.span() for m in _BOUND.finditer(text)]
    return [m.span() for m in _NUMBER.finditer(text) if any_is([m.group(0)], value)
            and not any(a <= m.start() < b for a, b in bounds)]


def _value_pattern(value: Any) -> str:
    """A text value, quoted or bare (as :func:`without` cuts it)."""
    s = re.escape(str(value).strip())
    return rf"['\"`]{s}['\"`]|(?<![\w.]){s}(?![\w]|\.\d)"


def _end_echo(text: str, value: Any) -> int:
    """Where the echo of ``value`` that ``text`` ends on starts (punctuation and quotes
    aside); -1 when it ends on none."""
    spans = _echo_spans(text, value)
    return spans[-1][0] if spans and not re.search(r"\w", text[spans[-1][1]:]) else -1


def cut_at_end(text: str, value: Any) -> bool:
    """``text`` ends on an echo of ``value`` (punctuation and quotes aside)."""
    return _end_echo(text, value) >= 0


def _drop_end(text: str, kind: str) -> str:
    """``text`` without the words of ``cut_end[kind]`` it ends on ("..., got" -> "...")."""
    ends = set(words()["cut_end"][kind])
    while (m := re.search(r"[\s,;:]*\b(\w+)$", text)) and m.group(1).lower() in ends:
        text = text[:m.start()]
    return text.strip(" :;,.-")


def fragment(text: str, value: Any) -> bool:
    """Cutting ``value`` out of ``text`` leaves a fragment: the value ends the clause as the
    object of a preposition ("cannot convert 'm' to 'zzqx'" -> "cannot convert 'm' to"), so
    what is left states no rule. "expected a hex colour like '#1a2b3c', got 'x'" is no
    fragment: "got" introduces the value after a complete clause."""
    at = _end_echo(text, value)
    if at < 0:
        return False
    head = _drop_end(text[:at].strip(" '\"`"), "clause_end")
    m = re.search(r"\b(\w+)$", head)
    return bool(m) and m.group(1).lower() in set(words()["cut_end"]["preposition"])


def quotes_other(text: str, args: Mapping[str, Any], skip: Iterable[str]) -> bool:
    """``text`` still quotes the text value of an argument not in ``skip`` ("cannot convert
    'm'" after 'zzqx' was cut: a statement about that pair of values, no rule of one)."""
    skipped = set(skip)
    return any(isinstance(v, str) and v.strip() and re.search(
        rf"['\"`]{re.escape(v.strip())}['\"`]", text, re.I)
        for p, v in args.items() if p not in skipped)



def offered(text: str, value: Any) -> bool:
    """The error offers ``value`` as a good example ("use IANA names like 'America/New_York'"):
    advice that happens to quote the call's own value, not a rejection of it."""
    if not isinstance(value, str) or not value.strip():
        return False
    advice = "|".join(words()["advice"])
    return bool(re.search(rf"(?<![\w])(?:{advice})\s*:?\s*\S*?['\"`]?{re.escape(value.strip())}"
                          rf"(?![\w])", text, re.I))
