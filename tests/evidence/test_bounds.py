"""The ``range-search`` component: a number parameter a probe made the tool refuse gets both
ends of its accepted range found by running the tool; a number's range of 0 to 100 is said
to be a percentage, which Step 1b's fact tests then say the everyday way."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from play2prompt.evidence.bounds import edge, range_text, refused, roundest
from play2prompt.evidence.everyday import number_form, tool_unit, typical_value
from play2prompt.evidence.facts import FactBook, facts_doc
from play2prompt.evidence.names import DEFAULT_EVIDENCE, EVIDENCE, RANGE_SEARCH
from play2prompt.evidence.probes import Prober
from play2prompt.evidence.registry import evidence_for
from play2prompt.lm.fake import FakeLM
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.model import Invocation, Observation, Tool
from tests.conftest import module_context

# a rate in percent whose only error names no scale, and a resting heart rate whose upper
# bound depends on another argument (written here in the shape of plain range checks)
MODULE = textwrap.dedent('''
    def grow(principal, annual_rate, years):
        if principal < 0:
            raise ValueError("principal cannot be negative")
        if not 0 <= annual_rate <= 100:
            raise ValueError(f"annual_rate out of range: {annual_rate}")
        return {"balance": round(principal * (1 + annual_rate / 100) ** years, 2)}

    def zone(age, resting_hr):
        if not 30 <= resting_hr < 220 - age:
            raise ValueError(f"implausible resting heart rate: {resting_hr}")
        return {"low": resting_hr + 1}

    def grade(score):
        if not 0 <= score <= 100:
            raise ValueError("score must be between 0 and 100")
        return {"letter": "A" if score >= 90 else "B"}

    def split(total, tip):
        if not 0 <= tip <= 1:
            raise ValueError("tip must be between 0 and 1")
        return {"total": round(total * (1 + tip), 2)}
''')


@pytest.fixture
def exec_ctx(tmp_path):
    with module_context(tmp_path, "money.py", MODULE, default_timeout=30.0) as ctx:
        yield ctx


def _grow() -> Tool:
    return Tool("savings", "Compute savings growth.", {
        "type": "object", "required": ["principal", "annual_rate", "years"], "properties": {
            "principal": {"type": "number"}, "annual_rate": {"type": "number"},
            "years": {"type": "number"}}}, {"python": "money:grow"})


def _zone() -> Tool:
    return Tool("zone", "", {"type": "object", "required": ["age", "resting_hr"], "properties": {
        "age": {"type": "integer"}, "resting_hr": {"type": "integer"}}}, {"python": "money:zone"})


def _tool(name, **types) -> Tool:
    return Tool(name, "", {"type": "object", "required": list(types), "properties": {
        p: {"type": t} for p, t in types.items()}}, {"python": f"money:{name}"})


def _probe(make_engine, tool, arguments, evidence=EVIDENCE, others=()):
    engine = make_engine([tool], FakeLM(), evidence=evidence)
    attempts = []
    for args in (arguments, *others):     # play's calls that worked, the first probed
        inv = Invocation(tool.name, args)
        obs = asyncio.run(engine.runtime.run(inv))
        assert obs.ok, obs.error
        attempts.append(Attempt(inv, obs, 0, "worked"))
    book = FactBook(tool)
    prober = Prober(tool, engine, book)
    play = PlayResult(None, None, tuple(attempts), "k")
    asyncio.run(evidence_for(engine).probes.run(prober, [play]))
    return book, prober


def _facts(book, param):
    return [f for f in book.facts if f.param == param]


def test_roundest_prefers_zero_then_fewest_digits_then_a_leading_one():
    assert roundest(-0.05, 0.0005) == 0
    assert roundest(50, 500) == 100
    assert roundest(1100, 1900) == 1500
    assert roundest(150, 199, integer=True) == 150
    assert roundest(0.2, 0.8, integer=True) is None


@pytest.mark.parametrize(("accepts", "ok", "bad", "integer", "end"), [
    (lambda v: v <= 100, 50, 500, False, (100, 100.00001)),       # at most 100
    (lambda v: v < 190, 60, 6000, True, (189, 190)),               # below 190
    (lambda v: v <= 30000, 500, 50000, True, (30000, 30001)),
])
def test_an_end_is_found_between_a_value_that_works_and_one_refused(accepts, ok, bad, integer,
                                                                    end):
    calls = []

    async def run(value):
        calls.append(value)
        return accepts(value)

    found = asyncio.run(edge(run, ok, bad, integer))
    assert found is not None and found[0] == pytest.approx(end[0])
    assert found[1] == pytest.approx(end[1], rel=1e-6)
    assert len(calls) <= 16


def test_an_unclear_answer_ends_the_search():
    async def run(value):
        return None

    assert asyncio.run(edge(run, 1, 1000, False)) is None
    assert refused(Observation(False, None, "timed out after 30 s", "timeout")) is None
    assert refused(Observation(True, {"items": []})) is None
    assert refused(Observation(False, None, "side effects: not allowed", "consent")) is None
    assert refused(Observation(False, None, "ValueError: out of range", "exception")) is True


def test_a_rate_in_percent_gets_its_range_and_reads_as_a_percentage(make_engine):
    # the call says 0.05 (a fraction, as a model reading "interest rate" writes it); the tool
    # refuses its negative and accepts 5: only the upper bound says percent
    book, prober = _probe(make_engine, _grow(),
                          {"principal": 5000, "annual_rate": 0.05, "years": 10})
    assert prober.engine.uses[RANGE_SEARCH] == 1
    rule = next(f.text for f in _facts(book, "annual_rate") if "between" in f.text)
    assert rule == "annual_rate must be between 0 and 100 (a percentage: 5 means 5 %)."
    assert tool_unit(rule) == "percent"
    assert typical_value(0.05, rule) == 5          # the fact test's call: 5, said "5 %"
    assert number_form(5, rule).text == "5 %"
    assert "between 0 and 100" in facts_doc(prober.tool, book).params["annual_rate"]
    # principal: refused below 0, never above: no range, no fact
    assert not any("between" in f.text or "at most" in f.text
                   for f in _facts(book, "principal"))
    searched = [inv.arguments["annual_rate"] for p, inv, _ in prober.probed
                if p == "annual_rate"]
    assert 100 in searched and len(searched) <= 2 * 16 + 3


def test_an_integer_range_is_said_by_the_values_accepted(make_engine):
    book, _ = _probe(make_engine, _zone(), {"age": 30, "resting_hr": 60})
    rules = [f.text for f in _facts(book, "resting_hr") if "must be" in f.text]
    assert "resting_hr must be between 30 and 189." in rules, rules
    assert range_text("x", (0, True), (1, False), False) == "x must be at least 0 and less than 1"
    # checked on another call that worked: the upper end moves with the age, no fact
    book, prober = _probe(make_engine, _zone(), {"age": 30, "resting_hr": 60},
                          others=[{"age": 60, "resting_hr": 55}])
    assert not [f for f in _facts(book, "resting_hr") if "must be" in f.text]
    ran = [inv.arguments for _, inv, _ in prober.probed if inv.arguments.get("age") == 60]
    assert {"age": 60, "resting_hr": 189} in ran
    # an integer from 0 to 100 may be a count: no scale is said
    assert range_text("n", (0, True), (100, True), True) == "n must be between 0 and 100"
    assert tool_unit(range_text("n", (0, True), (100, True), True)) is None


def test_a_range_the_tool_states_is_not_said_twice(make_engine):
    book, _ = _probe(make_engine, _tool("split", total="number", tip="number"),
                     {"total": 80, "tip": 0.15})
    assert [f.text for f in _facts(book, "tip") if "between" in f.text] == \
        ["Tip must be between 0 and 1."]
    book, _ = _probe(make_engine, _tool("grade", score="number"), {"score": 88})
    said = sorted(f.text for f in _facts(book, "score") if f.kind == "rule")
    assert said == ["Score must be between 0 and 100.", "score is a percentage: 5 means 5 %."]
    assert tool_unit(said[1]) == "percent"


def test_on_by_default_and_off_with_the_probes(make_engine):
    assert RANGE_SEARCH in DEFAULT_EVIDENCE
    book, prober = _probe(make_engine, _grow(),
                          {"principal": 5000, "annual_rate": 0.05, "years": 10},
                          evidence=tuple(n for n in DEFAULT_EVIDENCE if n != RANGE_SEARCH))
    assert prober.engine.uses[RANGE_SEARCH] == 0
    assert not any("between" in f.text for f in _facts(book, "annual_rate"))
    without = tuple(n for n in EVIDENCE if n != "probes")
    book, prober = _probe(make_engine, _grow(),
                          {"principal": 5000, "annual_rate": 0.05, "years": 10},
                          evidence=without)
    assert prober.engine.uses[RANGE_SEARCH] == 0
