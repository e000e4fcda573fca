"""Reading a tool's error text: its clauses, the accepted values a clause lists, which parameter
a clause names, and whether it echoes a call's value or offers it as advice.

Plain text rules, no LLM (see :mod:`play2prompt.method.facts`, which turns what they find into
facts of the tool).
"""

from __future__ import annotations

import re
from typing import Any

from play2prompt.numeric import any_is

MAX_LIST = 40                # accepted values kept per parameter
INTERNAL = re.compile(
    r"invalid literal for|nonetype|object has no attribute|unsupported operand|"
    r"positional argument|keyword argument|traceback|line \d+|not subscriptable|"
    r"object is not|list index|key ?error|division by zero|could not convert string", re.I)
_EXC_PREFIX = re.compile(r"^\s*(?:[\w.]+(?:Error|Exception)\s*:\s*)+")
_LIST_INTRO = re.compile(r"(?:one of|known|accepted|allowed|valid|supported|options|choices|"
                         r"[a-z]+s)\s*(?:are|is|values?)?\s*[:=]?\s*", re.I)
_TOKEN = re.compile(r"^['\"`]?([\w./+\-]{1,40}(?: [\w./+\-]{1,20}){0,2})['\"`]?$")
QUOTED = re.compile(r"['\"`]([^'\"`]{1,60})['\"`]")


def clauses(error: str) -> list[str]:
    """The error split into clauses, without exception class prefixes."""
    text = _EXC_PREFIX.sub("", error.strip().splitlines()[0] if error.strip() else "")
    parts = re.split(r";\s+|\.\s+|\n", text)
    return [p.strip(" .;:") for p in parts if p.strip(" .;:")]


def value_list(clause: str) -> tuple[str, ...]:
    """The accepted values a clause lists ("units: c, cm, ft" / "one of a, b or c"), if any."""
    for intro in _LIST_INTRO.finditer(clause):
        tail = clause[intro.end():]
        items = [i.strip() for i in re.split(r",\s*|\s+or\s+|\s*\|\s*", tail) if i.strip()]
        tokens = []
        for item in items:
            m = _TOKEN.match(item)
            if not m:
                break
            tokens.append(m.group(1))
        if len(tokens) >= 3 and len(tokens) == len(items):
            return tuple(dict.fromkeys(tokens))[:MAX_LIST]
    return ()


def mentions(text: str, param: str) -> bool:
    """The text names the parameter (as written or with spaces for underscores)."""
    names = {param, param.replace("_", " ")}
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text, re.I) for n in names)


def contains_value(text: str, value: Any) -> bool:
    """The text echoes the value (a number by value, a text as a word or quoted)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return any_is(re.findall(r"-?\d+(?:\.\d+)?", text), value)
    s = str(value).strip()
    if not s:
        return False
    quoted = {q.strip().lower() for q in QUOTED.findall(text)}
    if s.lower() in quoted:
        return True
    return bool(re.search(rf"(?<![\w.]){re.escape(s)}(?![\w])", text, re.I)) and len(s) > 1


_ADVICE = r"(?:like|e\.g\.?|such as|for example|for instance|try|use)"


def offered(text: str, value: Any) -> bool:
    """The error offers ``value`` as a good example ("use IANA names like 'America/New_York'"):
    advice that happens to quote the call's own value, not a rejection of it."""
    if not isinstance(value, str) or not value.strip():
        return False
    return bool(re.search(rf"\b{_ADVICE}\s*:?\s*['\"`]?{re.escape(value.strip())}(?![\w])",
                          text, re.I))
