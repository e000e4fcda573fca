"""The ``known-operations`` component: where the generator's guesses at an undocumented tool's
operation all failed, a catalogue of well-known operations is run on the calls that ran, by
code; one that gives the outputs where it is defined describes the tool."""

from __future__ import annotations

import asyncio
import math
from collections import Counter

from play2prompt.evidence.components import Describe
from play2prompt.evidence.describe import Description
from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.formula import Check, checked
from play2prompt.evidence.names import (
    DEFAULT_EVIDENCE,
    DESCRIBE_CHECK,
    KNOWN_OPERATIONS,
)
from play2prompt.evidence.operations import (
    MAX_EXPRESSIONS,
    candidates,
    known_description,
    needed,
)
from play2prompt.method.discovery import DESCRIBES
from play2prompt.tools.model import Invocation, Observation, Tool

INTS = {"type": "object", "required": ["n", "k"], "properties": {
    "n": {"type": "integer"}, "k": {"type": "integer"}}}


def _loop_factorial(x: int) -> int:
    out = 1
    for i in range(2, x + 1):
        out *= i
    return out


def permutations(n: int, k: int) -> float:
    """Written here as a loop, the way such tools often are: no error on odd inputs."""
    return _loop_factorial(n) / _loop_factorial(n - k)


def _calls(fn, name: str, args: list[dict]) -> list[tuple[Invocation, Observation]]:
    return [(Invocation(name, a), Observation(True, fn(**a))) for a in args]


# play's calls and the probes' (a negative, a hundred times, as evidence/probes.py varies them)
PERM_CALLS = [{"n": 5, "k": 3}, {"n": 6, "k": 4}, {"n": 5, "k": -3}, {"n": 5, "k": 300},
              {"n": -5, "k": 3}, {"n": 500, "k": 3}]


def test_permutations_are_found_where_defined_though_probes_went_outside_the_domain():
    tool = Tool("function_13", "", INTS)
    said = known_description(tool, _calls(permutations, tool.name, PERM_CALLS))
    assert said is not None
    assert said.text.startswith("Returns the number of ways to arrange `k` items chosen "
                                "from `n` in order (permutations).")
    assert "Computed as: math.factorial(n) / math.factorial(n - k)" in said.text
    assert said.check is not None and said.check.raised == 2 and said.check.holds
    assert dict(said.params)["n"] == "the number of items to choose from"


def test_an_operation_must_take_every_required_parameter_and_every_one_that_varied():
    tool = Tool("t", "", {"type": "object", "required": ["a", "b"], "properties": {
        "a": {"type": "number"}, "b": {"type": "number"}}})
    # b never changes the output on the calls that ran: abs(a) agrees, but b is required
    calls = _calls(lambda a, b: abs(a), "t", [{"a": 3, "b": 10}, {"a": -4, "b": 10},
                                               {"a": 7, "b": 10}])
    assert "abs(a)" in [op.python for op in candidates(tool)]
    assert known_description(tool, calls) is None
    optional_b = Tool("t", "", {**tool.parameters, "required": ["a"]})
    assert "Computed as: abs(a)." in known_description(optional_b, calls).text
    cases = [("", {"a": 1, "c": 2}, 0), ("", {"a": 1, "c": 3}, 0)]
    assert needed(Tool("u", "", {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "number"}, "c": {"type": "number"}}}), cases) == {"a", "c"}


def test_nothing_is_said_when_no_operation_holds_or_too_few_outputs():
    tool = Tool("t", "", INTS)
    odd = _calls(lambda n, k: n * 7 + k ** 3 - 11, "t", [{"n": 2, "k": 3}, {"n": 9, "k": 1},
                                                         {"n": 4, "k": 5}])
    assert known_description(tool, odd) is None
    one = _calls(lambda n, k: math.gcd(n, k), "t", [{"n": 4, "k": 6}])
    assert known_description(tool, one) is None


def test_candidates_follow_the_parameters_types_and_try_one_order_of_what_commutes():
    tool = Tool("t", "", {"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "number"}, "s": {"type": "string"},
        "xs": {"type": "array"}, "not-a-name": {"type": "number"}}})
    ops = [op.python for op in candidates(tool)]
    assert "math.gcd(a, b)" in ops and "math.gcd(b, a)" not in ops
    assert "a - b" in ops and "b - a" in ops
    assert "statistics.mean(xs)" in ops and "statistics.mean(a)" not in ops
    assert "int(s, 2)" in ops and not any("not-a-name" in op for op in ops)


def test_the_cap_counts_only_operations_that_take_the_needed_parameters():
    """Twelve numbers give more ordered pairs than the cap: those of the last two, which the
    calls varied, are still tried."""
    props = {f"p{i}": {"type": "number"} for i in range(12)}
    tool = Tool("t", "", {"type": "object", "properties": props})
    assert len(candidates(tool)) == MAX_EXPRESSIONS
    assert not any(op.uses == {"p10", "p11"} for op in candidates(tool))
    ops = candidates(tool, {"p10", "p11"})
    assert ops and all({"p10", "p11"} <= op.uses for op in ops)
    assert "p10 * p11" in [op.python for op in ops]


def test_a_call_the_expression_raises_on_is_outside_its_domain_not_a_miss():
    cases = [("f(1)", {"x": 1}, 1.0), ("f(4)", {"x": 4}, 2.0), ("f(-1)", {"x": -1}, 7.0)]
    held = checked("math.sqrt(x)", cases, [{"value": 1.0}, {"value": 2.0},
                                           {"error": "ValueError: math domain error"}])
    assert held.holds and held.raised == 1 and held.defined == 2 and held.matched == 2
    assert not Check("e", 5, 2, (), 3).holds          # defined on fewer than half
    assert not Check("e", 3, 1, (), 2).holds          # defined on one call only
    assert not Check("e", 4, 2, (), 1).holds          # a miss where it is defined


def _book(tool: Tool) -> FactBook:
    book = FactBook(tool)
    book.add(Fact("", DESCRIBES, "Returns the sum of the first n numbers to the power k.", (),
                  "the generator's reading of executed calls"))
    book.add(Fact("k", DESCRIBES, "The exponent.", (), "the generator's reading"))
    return book


def test_the_component_replaces_the_first_description_only_when_on():
    tool = Tool("function_13", "", INTS)
    calls = _calls(permutations, tool.name, PERM_CALLS)
    assert KNOWN_OPERATIONS not in DEFAULT_EVIDENCE and DESCRIBE_CHECK in DEFAULT_EVIDENCE
    book = _book(tool)
    uses: Counter = Counter()
    assert asyncio.run(Describe(uses, operations=True).verify(tool, None, calls, book))
    said = [f.text for f in book.facts]
    assert any("(permutations)" in t for t in said) and "The exponent." not in said
    assert uses == {KNOWN_OPERATIONS: 1}
    book = _book(tool)
    assert asyncio.run(Describe(Counter()).verify(tool, None, calls, book))     # both checks off
    assert "The exponent." in [f.text for f in book.facts]


def test_a_description_from_the_catalogue_is_a_description_like_a_guess():
    tool = Tool("t", "", INTS)
    said = known_description(tool, _calls(lambda n, k: math.comb(n, k), "t", [
        {"n": 5, "k": 2}, {"n": 7, "k": 3}, {"n": 9, "k": 4}]))
    assert isinstance(said, Description)
    assert said.text.startswith("Returns the number of ways to choose `k` items from `n`")
    facts = said.facts()
    assert facts[0].kind == DESCRIBES and "its expression run on 3 of them" in facts[0].evidence


def _guessing(*expressions: str):
    """A generator that guesses the 3 ``expressions`` on every try (engine-like)."""
    from types import SimpleNamespace

    from play2prompt.lm.fake import FakeLM
    from play2prompt.metaprompts import MetaPrompts
    from play2prompt.scrub import Scrubber

    def answer(request, i):
        return {"guesses": [{"operation": e, "python": e, "description": f"Returns {e}."}
                            for e in expressions], "parameters": {"n": "n", "k": "k"}}
    gen = FakeLM(rules=[("You work out what an undocumented function does", answer)])
    return SimpleNamespace(scrubber=Scrubber(), prompts=MetaPrompts(), generator=gen), gen


def test_where_the_catalogue_holds_the_generator_gets_one_try_and_a_guess_that_holds_wins():
    tool = Tool("function_13", "", INTS)
    calls = _calls(permutations, tool.name, PERM_CALLS)
    engine, gen = _guessing("k * n", "k ** n", "k")         # never holds
    book = _book(tool)
    uses: Counter = Counter()
    assert asyncio.run(Describe(uses, check=True, operations=True).verify(tool, engine, calls,
                                                                        book))
    assert len(gen.requests) == 1                           # not three tries
    assert any("(permutations)" in f.text for f in book.facts)
    assert uses == {KNOWN_OPERATIONS: 1, DESCRIBE_CHECK: 1}
    perm = "math.factorial(n) / math.factorial(n - k)"
    engine, gen = _guessing("k * n", perm, "k")              # holds at once: its words stay
    book = _book(tool)
    asyncio.run(Describe(Counter(), check=True, operations=True).verify(tool, engine, calls,
                                                                        book))
    assert book.facts[0].text.startswith(f"Returns {perm}. Computed as: {perm}")
    tool = Tool("function_99", "", INTS)                    # no operation holds: all tries
    calls = _calls(lambda n, k: n * 7 + k * 3 + 1, tool.name, PERM_CALLS[:2] + [{"n": 2, "k": 9}])
    engine, gen = _guessing("k * n", "k ** n", "k")
    asyncio.run(Describe(Counter(), check=True, operations=True).verify(tool, engine, calls,
                                                                        _book(tool)))
    assert len(gen.requests) == 3
