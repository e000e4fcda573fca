"""What an optional argument changes, named by code (component ``option-effects``, issue 72:
optional arguments).

A default found by executions (:mod:`play2prompt.evidence.variants`: "Optional; defaults to
0") says what a call without the argument does, not when to set it. numpy's ``std`` takes
``ddof``: left out it is the population standard deviation, ``ddof=1`` the sample one, and a
request says "sample" or "population", never ``ddof``; the 1.5B left ``ddof`` out for every
"sample SD" request of examples/silent. Where the argument's values compute different
well-known operations, the operations say it. Each value (the default and its neighbours) is
set in up to :data:`CALLS` verified calls, the calls are run, and the catalogue of
:mod:`play2prompt.evidence.operations` (no LLM call, a sandboxed child) is tried on each
value's calls: where the default's operation and another value's are both found and differ,
the default fact says both ("ddof=0 (left out) gives the population standard deviation of
the numbers in `a`; ddof=1 gives the sample standard deviation of the numbers in `a`"), and
Step 1b's fact tests say a value by its operation, the words only it has ("the sample standard
deviation", which must say "sample": :func:`~play2prompt.evidence.option_words.operation_phrase`),
never by its number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from play2prompt.evidence.candidates import default_candidates, is_option
from play2prompt.evidence.describe import checked_calls
from play2prompt.evidence.names import OPTION_EFFECTS
from play2prompt.evidence.observed import run_seen
from play2prompt.evidence.operations import known_operation
from play2prompt.tools.model import Tool

if TYPE_CHECKING:  # the examples, facts and variants are passed in; only their types are needed
    from play2prompt.evidence.facts import Fact, FactBook
    from play2prompt.method.example import Example

class _WithFact(Protocol):
    """A variant (:class:`~play2prompt.evidence.variants.Variant`), as this module reads it."""

    @property
    def fact(self) -> Fact: ...


V = TypeVar("V", bound=_WithFact)

CALLS = 3        # verified calls each value is set in
VALUES = 2       # other values tried beside the default


async def operation_of(engine: Any, tool: Tool, param: str, value: Any,
                       examples: Sequence[Example]) -> str | None:
    """What ``tool`` computes with ``param`` set to ``value`` in up to :data:`CALLS` examples'
    calls that ran (run again with ``value``), as the catalogue says it; None where no
    operation holds. What a call computes does not hang on its request's wording: run s72r's
    std had one verified example and another whose request left out numbers of its list, and
    with one call no operation was tried."""
    bases = [ex.invocation for ex in examples if ex.observation.ok and not ex.fact][:CALLS]
    calls = list({c.key(): c for c in (b.with_args({param: value}) for b in bases)}.values())
    if len(calls) < 2:
        return None
    ran = await run_seen(engine, calls)
    cases = checked_calls(list(zip(calls, ran)))
    found = known_operation(tool, cases) if len(cases) >= 2 else None
    return found[0].says if found is not None else None


async def option_effect(engine: Any, tool: Tool, param: str, default: Any,
                        others: Sequence[Any], examples: Sequence[Example]) -> str:
    """The sentence that names what ``param``'s default and one of ``others`` compute, where
    both are known operations and differ; "" otherwise."""
    mine = await operation_of(engine, tool, param, default, examples)
    if mine is None:
        return ""
    for value in list(others)[:VALUES]:
        theirs = await operation_of(engine, tool, param, value, examples)
        if theirs is not None and theirs != mine:
            shown, other = json.dumps(default), json.dumps(value)
            return f" {param}={shown} (left out) gives {mine}; {param}={other} gives {theirs}."
    return ""


async def with_effects(tool: Tool, engine: Any, examples: Sequence[Example],
                       found: dict[str, V], book: FactBook | None) -> dict[str, V]:
    """``found``'s default facts with what the default and another value compute, where the
    operations catalogue names both (:func:`option_effect`)."""
    out = dict(found)
    for param, variant in found.items():
        if variant.fact.values[:1] != ("default",):
            continue
        value = json.loads(variant.fact.values[1])
        accepted = book.accepted(param) if book is not None else ()
        others = [v for v in accepted if v != value] if isinstance(value, str) else \
            default_candidates(value, accepted) if is_option(value) else []
        said = await option_effect(engine, tool, param, value, others, examples)
        if said:
            engine.uses[OPTION_EFFECTS] += 1
            out[param] = replace(variant, fact=replace(variant.fact,
                                                       text=variant.fact.text + said))
    return out


__all__ = ["CALLS", "VALUES", "operation_of", "option_effect", "with_effects"]
