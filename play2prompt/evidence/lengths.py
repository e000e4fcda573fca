"""Index errors: a call that failed because the tool read past the end of a list ("list index
out of range"), tried again by code with its sizes changed, so the tool shows which argument
bounds which.

The error names no argument, and a small generator that reads it changes the wrong one (it
tries other rates where the tool wanted fewer years). Two shapes are tried (:func:`resized`):

- a list argument shorter than a whole-number argument (``inflation_rate=[2, 4, 6]`` with
  ``years=20``, where the tool reads one rate a year): the call with the number cut to the
  list's length, and with the list made as long as the number (its items repeated); lists of
  different lengths (``item``, ``quantity``, ``price``) cut to the shortest;
- a whole number the tool uses as an index into a table of its own (``activity_level=6``
  where it knows five levels): the call with 1; when that runs and no list explains the
  error, the values between 1 and the one that failed are halved (:func:`largest`), a few
  executions, to the largest that runs.

A resized call that runs is a repaired call (a valid call found by code). It gives a
``rule`` fact (:func:`length_fact`, :func:`largest`): "inflation_rate takes at least
`years` items (one for each): years=20 with 3 items failed (list index out of range); years=3
ran.", valued ``("length", "years")``; "activity_level takes at most 5: 6 failed (list index
out of range).", valued ``("max", "5")``. The errors that count are data
(``data/error_words.json``, ``type_shape.index``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.tools.model import Invocation, Observation

MAX_ITEMS = 60       # a list is made at most this long to match a number
MAX_HALVINGS = 7     # executions that look for the largest index that runs (1..128)
LENGTH, MAX = "length", "max"   # a rule fact's first value (what the rest say)


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.I) for p in words()["type_shape"]["index"])


def index_error(error: str) -> str:
    """What ``error`` says when it says the tool read past the end of a list, text or array
    ("list index out of range"); "" when it says no such thing."""
    found = (p.search(error) for p in _patterns())
    return next((m.group(0) for m in found if m), "")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def resized(inv: Invocation) -> list[tuple[tuple[str, ...], Invocation]]:
    """The calls :mod:`this module <play2prompt.evidence.lengths>` tries for ``inv``, which
    failed with an index error: (the arguments changed, the call), the lists' cases first."""
    args = inv.arguments
    lists = {p: v for p, v in args.items() if isinstance(v, list) and v}
    # the smallest numbers first: a count of years or items, not an amount of money
    numbers = dict(sorted(((p, v) for p, v in args.items() if _whole(v)), key=lambda i: i[1]))
    out: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    for name, items in lists.items():
        for count, n in numbers.items():
            if n > len(items):
                out.append(((count,), {count: len(items)}))
                if n <= MAX_ITEMS:
                    out.append(((name,), {name: (items * (n // len(items) + 1))[:n]}))
    shortest = min((len(v) for v in lists.values()), default=0)
    longer = tuple(p for p, v in lists.items() if len(v) > shortest)
    if longer:
        out.append((longer, {p: lists[p][:shortest] for p in longer}))
    out += [((count,), {count: 1}) for count, n in numbers.items() if n != 1]
    calls = {}
    for names, changed in out:
        call = Invocation(inv.name, {**args, **changed})
        calls.setdefault(call.key(), (names, call))
    return list(calls.values())


def length_fact(start: Invocation, error: str, call: Invocation, obs: Observation
                ) -> list[Fact]:
    """What ``call`` (a resized ``start``, which failed with ``error``, that ran) shows
    about lengths: a list that needs at least as many items as a number says; lists that
    need the same length. Empty for an index probe (a number set to 1 that no list bounds)."""
    before, after = start.arguments, call.arguments
    changed = [p for p in after if after[p] != before.get(p)]
    lists = {p: v for p, v in before.items() if isinstance(v, list) and v}
    shown = evidence_of(call, obs)
    failed = index_error(error) or "an index error"
    if len(changed) == 1 and _whole(before.get(changed[0])):
        count = changed[0]
        fits = [p for p, v in lists.items() if len(v) == after[count] < before[count]]
        return [Fact(p, "rule", f"{p} takes at least `{count}` items (one for each): "
                     f"{count}={before[count]} with {len(lists[p])} items failed ({failed}); "
                     f"{count}={after[count]} ran.", (LENGTH, count), shown, call.key())
                for p in fits]
    if len(changed) == 1 and isinstance(after[changed[0]], list) \
            and len(after[changed[0]]) > len(lists.get(changed[0], ())):
        name = changed[0]
        counts = [p for p, v in before.items() if _whole(v) and v == len(after[name])]
        return [Fact(name, "rule", f"{name} takes at least `{c}` items (one for each): "
                     f"{len(before[name])} items with {c}={before[c]} failed ({failed}); "
                     f"{before[c]} items ran.", (LENGTH, c), shown, call.key())
                for c in counts[:1]]
    if changed and all(isinstance(after[p], list) for p in changed):
        same = [p for p in lists if p in changed or len(lists[p]) == len(after[changed[0]])]
        said = ", ".join(f"`{p}`" for p in same)
        return [Fact(p, "rule", f"{said} take lists of the same length: lists of "
                     f"{', '.join(str(len(lists[q])) for q in same)} items failed ({failed}).",
                     (LENGTH, *[q for q in same if q != p]), shown, call.key())
                for p in same]
    return []


async def largest(run: Callable[[Invocation], Awaitable[tuple[Observation, bool]]],
                  start: Invocation, failed: Observation, param: str
                  ) -> tuple[list[tuple[Invocation, Observation]], Fact | None]:
    """The largest value of ``param`` that runs, between 1 (which ran) and ``start``'s (which
    failed with the index error ``failed``), by halving: at most :data:`MAX_HALVINGS`
    executions through ``run``, which says whether a call worked. The calls run, and a
    ``max`` fact when the bound was found (the next value up failed with an index error)."""
    good, bad = 1, int(start.arguments[param])
    done: list[tuple[Invocation, Observation]] = []
    last = (start, failed)
    while bad - good > 1 and len(done) < MAX_HALVINGS:
        mid = (good + bad) // 2
        call = start.with_args({param: mid})
        obs, works = await run(call)
        done.append((call, obs))
        if works:
            good = mid
        elif not obs.ok and index_error(obs.error or ""):
            bad, last = mid, (call, obs)
        else:
            return done, None
    if bad - good != 1:
        return done, None
    call, obs = last
    shown = evidence_of(call, obs)
    return done, Fact(param, "rule", f"{param} takes at most {good}: {bad} failed "
                      f"({index_error(obs.error or '')}).", (MAX, str(good)), shown, call.key())


__all__ = ["LENGTH", "MAX", "MAX_HALVINGS", "MAX_ITEMS", "index_error", "largest",
           "length_fact", "resized"]
