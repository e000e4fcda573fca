"""Well-known operations, tried by code on an undocumented tool's calls (component
``known-operations``, issue 27: what a tool does, learned from its outputs on varied inputs).

``describe-check`` asks the generator to guess the operation as a Python expression and runs
the guesses on the calls that ran. A 1.5B guesses the operations it thinks of first: on
opaque BFCL (a), run bfcl-a-ver, it wrote ``k * n``, ``k / n``, ``k ** n`` and ``abs(k)`` five
times for ``calculate_permutations`` (``function_13(k=3, n=5) -> 60.0``) and never a
permutation, and the tool shipped as "the sum of the first n natural numbers raised to the
power k". Where no guess holds (or without the generator's check), this component tries a
catalogue of well-known operations (``data/operations.json``: arithmetic, powers and roots,
gcd, combinations and permutations, statistics of a list, conversions of binary and
hexadecimal text, ...) on every parameter, or ordered pair of parameters, of the types each
takes: a few hundred expressions, evaluated in the same sandboxed child as the guesses
(:func:`play2prompt.evidence.formula.evaluate_many`), no LLM call. The operation that gives
the outputs (:attr:`formula.Check.holds`: every output where it is defined) describes the tool
in words written by code ("Returns the number of ways to arrange k items chosen from n in
order (permutations). Computed as: math.perm(n, k).") and replaces the first description, as
a held guess does. When several hold, the one that matched most calls, the first in the
catalogue's order among equals.
"""

from __future__ import annotations

import keyword
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence import formula
from play2prompt.evidence.describe import Description, checked_calls, computed
from play2prompt.evidence.error_text import words
from play2prompt.tools.model import Invocation, Observation, Tool

FILE = "operations.json"
CHUNK = 24              # expressions evaluated by one child (a child that times out loses these)
MAX_EXPRESSIONS = 600   # tried per tool (six parameters of one type give 30 ordered pairs)
KINDS = {"integer": "number", "number": "number", "array": "array", "string": "string"}


@dataclass(frozen=True)
class Operation:
    """One catalogue operation over the tool's parameters: its expression, what it computes
    and what each parameter it takes means (where the catalogue says)."""

    python: str
    says: str
    meanings: tuple[tuple[str, str], ...] = ()
    uses: frozenset[str] = frozenset()    # the parameters it takes


def _fill(text: str, names: Mapping[str, str], code: bool) -> str:
    for slot, name in names.items():
        text = text.replace("{" + slot + "}", name if code else f"`{name}`")
    return text


def _operation(entry: Mapping[str, Any], names: Mapping[str, str]) -> Operation:
    said = entry.get("params") or {}
    return Operation(_fill(str(entry["python"]), names, True),
                     _fill(str(entry["says"]), names, False),
                     tuple((names[slot], str(m)) for slot, m in said.items() if slot in names),
                     frozenset(names.values()))


def candidates(tool: Tool, must: Collection[str] = frozenset()) -> list[Operation]:
    """The catalogue's operations over ``tool``'s parameters, by their JSON types: each
    one-parameter operation on each parameter, each two-parameter one on each ordered pair
    (one order where the operation commutes); of those that take every parameter of
    ``must``, at most :data:`MAX_EXPRESSIONS` (the cap after the filter: a tool of many
    parameters otherwise lost the pairs of its last ones before they were looked at)."""
    table = words(FILE)
    kinds = {n: KINDS.get(str((s or {}).get("type"))) for n, s in tool.properties.items()
             if n.isidentifier() and not keyword.iskeyword(n)}
    names = [n for n, k in kinds.items() if k]
    out = [_operation(e, {"x": n}) for n in names for e in table.get(kinds[n] or "", [])]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            for entry in table.get(f"{kinds[a]},{kinds[b]}", []):
                if not (entry.get("commutes") and j < i):
                    out.append(_operation(entry, {"a": a, "b": b}))
    return [op for op in out if set(must) <= op.uses][:MAX_EXPRESSIONS]


def needed(tool: Tool, cases: Sequence[tuple[str, Mapping[str, Any], Any]]) -> set[str]:
    """The parameters an operation must take to describe ``tool``: the required ones and any
    the calls gave different values (an operation that leaves one out may agree with the
    outputs only because the calls that ran never showed what it does: BFCL's investment
    tool ran only with years <= 0, where it returns the initial investment)."""
    varied = {n for n in tool.properties
              if len({repr(args.get(n)) for _, args, _ in cases}) > 1}
    return set(tool.required) | varied


def known_operation(tool: Tool, cases: Sequence[tuple[str, Mapping[str, Any], Any]]
                    ) -> tuple[Operation, formula.Check] | None:
    """The catalogue operation that takes every :func:`needed` parameter and gives
    ``cases``' outputs (each: the call as Python, its arguments, its output), or None."""
    ops = candidates(tool, needed(tool, cases))
    args = [a for _, a, _ in cases]
    best: tuple[Operation, formula.Check] | None = None
    for start in range(0, len(ops), CHUNK):
        chunk = ops[start:start + CHUNK]
        for op, results in zip(chunk, formula.evaluate_many([o.python for o in chunk], args)):
            check = formula.checked(op.python, cases, results)
            if check.holds and (best is None or check.matched > best[1].matched):
                best = (op, check)
    return best


def known_description(tool: Tool, calls: Sequence[tuple[Invocation, Observation]]
                      ) -> Description | None:
    """The description of the catalogue operation that gives the outputs of ``calls``
    (executed; up to :data:`~play2prompt.evidence.describe.MAX_CHECKED` distinct ones that
    ran are checked), or None (fewer than two comparable outputs, or no operation holds)."""
    cases = checked_calls(calls)
    if len(cases) < formula.MIN_DEFINED:
        return None
    found = known_operation(tool, cases)
    if found is None:
        return None
    op, check = found
    said = dict(op.meanings)
    text = f"Returns {op.says}. {computed(check)}"
    return Description(text[0].upper() + text[1:],
                       tuple((n, said.get(n, "")) for n in tool.properties), check)


__all__ = ["Operation", "candidates", "known_description", "known_operation", "needed"]
