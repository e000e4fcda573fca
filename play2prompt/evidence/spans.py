"""Whether a range's end is counted, decided by executions (part of the component
``conventions``, issue 72: a span's end).

A tool that counts over a range given by two parameters (``begindates`` and ``enddates``,
``start`` and ``stop``) follows one of two conventions: both ends counted, as people say "from
3 to 14 June", or the end left out, as numpy's ``busday_count``, Python's ``range`` and most
date APIs have it (a half-open range). Both run, and in the other convention the answer is
silently off by one. Code decides from the tool's own counts: each of three consecutive days
(or whole numbers) ``d`` of the call's start is run as the range ``[d, d]`` and ``[d, d + 1]``.
A range whose two ends are the same day counts nothing on every ``d`` while ``[d, d + 1]``
counts one on some ``d``: the end is left out. Where ``[d, d]`` counts one the end is counted,
which is what people assume, and no fact is said.

The fact is a ``rule`` of the end parameter valued ``("convention", "span", "end-excluded")``;
Step 1b's fact tests say the range as people do, its last counted day with "included"
(:func:`~play2prompt.evidence.convention_forms.span_form`): a thin doc's reader writes that
day, and the answer misses it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from play2prompt.evidence.convention_names import named
from play2prompt.evidence.facts import Fact, evidence_of
from play2prompt.evidence.observed import run_seen
from play2prompt.numeric import is_number
from play2prompt.tools.model import Invocation, Observation, Tool

SPAN, EXCLUDED = "span", "end-excluded"
DAYS = 3                 # consecutive starts tried
_EXCLUDED_SAID = re.compile(r"`(\w+)` is excluded")


def span_pairs(tool: Tool) -> list[tuple[str, str]]:
    """(start, end) parameter pairs: one parameter named as a range's start and one as its
    end (``data/conventions.json``'s ``span_starts`` and ``span_ends``), each once."""
    names = list(tool.properties)
    starts = [n for n in names if named(n, "span_starts")]
    ends = [n for n in names if named(n, "span_ends") and n not in starts]
    return [(starts[0], ends[0])] if len(starts) == 1 and len(ends) == 1 else []


def shifted(value: Any, k: int) -> Any:
    """``value`` moved ``k`` days (a 'YYYY-MM-DD' text) or ``k`` units (a whole number);
    None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + k
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        try:
            return (date.fromisoformat(value.strip()) + timedelta(days=k)).isoformat()
        except ValueError:
            return None
    return None


def count_of(obs: Observation) -> float | None:
    """The count an answer gives: a number, a list's length, or an object's one number."""
    out = obs.output if obs.ok else None
    if isinstance(out, bool) or out is None:
        return None
    if is_number(out):
        return float(out)
    if isinstance(out, list):
        return float(len(out))
    if isinstance(out, Mapping):
        numbers = [v for v in out.values() if is_number(v) and not isinstance(v, bool)]
        return float(numbers[0]) if len(numbers) == 1 else None
    return None


def end_excluded(same: Sequence[Observation], next_one: Sequence[Observation]) -> bool | None:
    """True: every range ``[d, d]`` counted nothing and some ``[d, d + 1]`` counted one (the
    end is left out); False: some ``[d, d]`` counted one (both ends counted); None: the
    answers do not say."""
    counts = [count_of(o) for o in same]
    nexts = [count_of(o) for o in next_one]
    if None in counts or None in nexts:
        return None
    if any(c == 1 for c in counts):
        return False
    return True if all(c == 0 for c in counts) and any(n == 1 for n in nexts) else None


def span_sentence(start: str, end: str, example: tuple[Any, Any] | None) -> str:
    """The fact's text, with a range written both ways where ``example`` (a start and the
    end the tool takes for it) is given."""
    unit = "day" if example is not None and isinstance(example[0], str) else "value"
    said = (f"`{end}` is excluded: the range runs from `{start}` up to the {unit} before "
            f"`{end}`; to include a last {unit}, give the {unit} after it")
    if example is None:
        return said + "."
    first, stop = example
    return said + f" ({first} through {shifted(stop, -1)}, both included, is {start}={first!r}, " \
        f"{end}={stop!r})."


async def span_facts(engine: Any, tool: Tool, calls: Sequence[tuple[Invocation, Observation]],
                     ruled: Mapping[str, str]) -> list[Fact]:
    """The span fact of ``tool``'s (start, end) pair, from a call that ran with both (none
    where ``ruled``, the parameters' rules, says it already)."""
    found = []
    for start, end in span_pairs(tool):
        inv = next((i for i, o in calls if o.ok and shifted(i.arguments.get(start), 1)
                    is not None and shifted(i.arguments.get(end), 1) is not None), None)
        if inv is None or excluded_end(ruled.get(end, ""), end):
            continue
        first = inv.arguments[start]
        days = [shifted(first, k) for k in range(DAYS)]
        same = [inv.with_args({start: d, end: d}) for d in days]
        ahead = [inv.with_args({start: d, end: shifted(d, 1)}) for d in days]
        ran = await run_seen(engine, [*same, *ahead])
        if end_excluded(ran[:DAYS], ran[DAYS:]) is not True:
            continue
        stop = inv.arguments[end]
        example = (first, stop) if type(stop) is type(first) and stop > first else None
        at = next(i for i, o in enumerate(ran[DAYS:]) if count_of(o) == 1)
        how = f"the tool run on the ranges [d, d] and [d, d + 1] for {start}={days!r}: each " \
            f"[d, d] counted nothing; e.g. {evidence_of(ahead[at], ran[DAYS + at])}"
        found.append(Fact(end, "rule", span_sentence(start, end, example), ("convention", SPAN,
                          EXCLUDED), how[:400], ahead[at].key(), "output"))
    return found


def excluded_end(rule: str, name: str) -> bool:
    """``rule`` (a parameter's facts) says ``name`` is a range's excluded end."""
    return any(m.group(1) == name for m in _EXCLUDED_SAID.finditer(rule))


__all__ = ["EXCLUDED", "SPAN", "count_of", "end_excluded", "excluded_end", "shifted",
           "span_facts", "span_pairs", "span_sentence"]
