"""The default of a text option, shown by executions (part of Step 1b's variants,
:mod:`play2prompt.evidence.variants`).

A number or a flag left out shows its default against its neighbours (:func:`~play2prompt.
evidence.variants.neighbours`); a text has none, and a filter left out can match one value of
it by chance (a search for "charger" without ``category`` finds what ``category="electronics"``
found). A text option whose values are known, those the tool listed (an error's "must be one
of ...", a schema ``enum``) or else those play's verified calls set, has the others: the call
is run without the option and with each value, and the value is its default where it is the
only one whose output is the left-out output while another value that ran gave another. Where
a second verified call exists the same value must do so again there (a chance match of a
filter does not hold on another call). In examples/silent the 1.5B set ``method`` of
``percentile`` unasked in 7 of 8 requests, to a value from the listed thirteen that is not the
default; a doc and a schema that name the default (``"linear"``) make the unasked value
harmless and the left-out request a test of it.

Executions only, no LLM call; the tool runs as probes run it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.evidence.facts import FactBook, run_seen
from play2prompt.jsonutil import canonical
from play2prompt.method.example import Example
from play2prompt.method.play import code_verdict
from play2prompt.tools.model import Invocation, Observation, Tool

MAX_VALUES = 16          # values run per base call
BASES = 2                # verified calls a default must hold on (where there are so many)


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


def only_match(left: Observation, ran: Sequence[Observation], values: Sequence[str]
               ) -> str | None:
    """The one value whose call gave the left-out output, where another value's call ran
    with another output; None otherwise (no value, two, or none that differed)."""
    if code_verdict(left)[0] != 0:
        return None
    given = canonical(left.output)
    same = [v for v, o in zip(values, ran) if o.ok and canonical(o.output) == given]
    other = any(o.ok and canonical(o.output) != given for o in ran)
    return same[0] if len(same) == 1 and other else None


async def text_default(engine: Any, tool: Tool, param: str, examples: Sequence[Example],
                       book: FactBook | None
                       ) -> tuple[str, Invocation, Observation, Invocation, Observation] | None:
    """(default, the call with it, its output, the call without it, its output) for
    ``param``, or None where the executions do not single one out on every base call."""
    values = text_values(tool, param, examples, book)
    bases = bases_for(param, examples) if values else []
    found: tuple[str, Invocation, Observation, Invocation, Observation] | None = None
    for base in bases:
        calls = [base, *(Invocation(base.name, {**base.arguments, param: v}) for v in values)]
        left, *ran = await run_seen(engine, calls)
        value = only_match(left, ran, values)
        if value is None or (found is not None and value != found[0]):
            return None
        if found is None:
            at = values.index(value)
            found = (value, calls[at + 1], ran[at], base, left)
    return found


__all__ = ["BASES", "MAX_VALUES", "bases_for", "only_match", "text_default", "text_options",
           "text_values"]
