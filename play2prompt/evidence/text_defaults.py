"""The default of a text option, shown by executions (part of Step 1b's variants,
:mod:`play2prompt.evidence.variants`).

A number or a flag left out shows its default against its neighbours (:func:`~play2prompt.
evidence.candidates.neighbours`); a text has none, and a filter left out can match one value of
it by chance (a search for "charger" without ``category`` finds what ``category="electronics"``
found). A text option whose values are known, those the tool listed (an error's "must be one of
...", a schema ``enum``) or else those play's verified calls set, has the others: the call is
run without the option and with each value, and the value is its default where it is the only
one whose output is the left-out output on every call that separates the values (another value
gave another output), two such calls where play has them: a chance match of a filter does not
hold on another call, and a call where several values match (a percentile at the median, where
every method agrees) narrows the candidates without deciding. In examples/silent the 1.5B set
``method`` of ``percentile`` unasked in 7 of 8 requests, to a value from the listed thirteen
that is not the default; a doc and a schema that name the default (``"linear"``) make the
unasked value harmless and the left-out request a test of it.

Executions only, no LLM call; the tool runs as probes run it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.observed import run_seen
from play2prompt.jsonutil import canonical
from play2prompt.method.example import Example
from play2prompt.method.play import code_verdict
from play2prompt.tools.model import Invocation, Observation, Tool

MAX_VALUES = 16          # values run per base call
BASES = 4                # verified calls tried, those that set the option first
CONFIRM = 2              # of them, those the default must hold on (where there are so many)


def text_values(tool: Tool, param: str, examples: Sequence[Example],
                book: FactBook | None) -> list[str]:
    """The values of text option ``param`` to run: those the tool listed (the facts' longest
    list, else the schema's ``enum``), else the distinct texts verified calls set; [] where
    fewer than two."""
    spec = tool.properties.get(param)
    enum = spec.get("enum") if isinstance(spec, Mapping) else None
    listed = list(book.accepted(param) if book is not None else ()) or [
        v for v in enum or () if isinstance(v, str)]
    if not listed:
        for ex in examples:
            value = ex.invocation.arguments.get(param)
            if ex.verified and not ex.fact and isinstance(value, str) and value not in listed:
                listed.append(value)
    return listed[:MAX_VALUES] if len(listed) > 1 else []


def text_options(tool: Tool) -> list[str]:
    """The optional parameters that take a text (schema type ``string`` or no type)."""
    out = []
    for name, spec in tool.properties.items():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if name not in set(tool.required) and kind in ("string", None):
            out.append(name)
    return out


def bases_for(param: str, examples: Sequence[Example]) -> list[Invocation]:
    """Up to :data:`BASES` verified calls to vary, those that set ``param`` first, each
    without ``param``."""
    verified = [ex for ex in examples if ex.verified and not ex.fact]
    ordered = sorted(verified, key=lambda ex: param not in ex.invocation.arguments)
    out: list[Invocation] = []
    for ex in ordered:
        base = ex.invocation.without(param)
        if base.key() not in {b.key() for b in out}:
            out.append(base)
    return out[:BASES]


def matches(left: Observation, ran: Sequence[Observation], values: Sequence[str]
            ) -> set[str] | None:
    """The values whose call gave the left-out output, where another value's call ran with
    another output; None where the call says nothing (it failed left out, or every value
    that ran gave one output)."""
    if code_verdict(left)[0] != 0:
        return None
    given = canonical(left.output)
    same = {v for v, o in zip(values, ran) if o.ok and canonical(o.output) == given}
    other = any(o.ok and canonical(o.output) != given for o in ran)
    return same if other else None


async def text_default(engine: Any, tool: Tool, param: str, examples: Sequence[Example],
                       book: FactBook | None
                       ) -> tuple[str, Invocation, Observation, Invocation, Observation] | None:
    """(default, the call with it, its output, the call without it, its output) for
    ``param``: the one value every base call that says something matches (two of them where
    there are two; a percentile at the median matches every method, and says nothing), or
    None."""
    values = text_values(tool, param, examples, book)
    bases = bases_for(param, examples) if values else []
    left_in: set[str] | None = None
    said = 0
    first: dict[str, tuple[Invocation, Observation, Invocation, Observation]] = {}
    for base in bases:
        calls = [base, *(base.with_args({param: v}) for v in values)]
        left, *ran = await run_seen(engine, calls)
        same = matches(left, ran, values)
        if same is None:
            continue
        left_in = same if left_in is None else left_in & same
        said += 1
        for v in same:
            at = values.index(v)
            first.setdefault(v, (calls[at + 1], ran[at], base, left))
        if not left_in or (len(left_in) == 1 and said >= CONFIRM):
            break
    if left_in is None or len(left_in) != 1 or said < min(CONFIRM, len(bases)):
        return None
    (value,) = left_in
    return (value, *first[value])


__all__ = ["BASES", "CONFIRM", "MAX_VALUES", "bases_for", "matches", "text_default",
           "text_options", "text_values"]
