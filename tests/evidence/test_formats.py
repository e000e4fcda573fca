"""The ``format-probes`` component: a text a tool refuses ("bad time '2 hours'") tried in the
standard formats, and in the values the tool lists, until a call runs; its format confirmed
by two more values of it."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.formats import blamed, candidates
from play2prompt.evidence.names import DEFAULT_EVIDENCE, EVIDENCE, FORMAT_PROBES
from play2prompt.evidence.probes import Prober
from play2prompt.evidence.registry import evidence_for
from play2prompt.lm.fake import FakeLM
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.model import Invocation, Tool
from tests.conftest import module_context

# two tools written in the shape of thin third-party code: errors quote the value, and say
# what would be right only where a list is short
MODULE = textwrap.dedent('''
    import re

    def pace(distance, time):
        m = re.fullmatch(r"(\\d+):([0-5]\\d)(?::([0-5]\\d))?", time.strip())
        if not m:
            raise ValueError(f"bad time {time!r}")
        return {"per_km": round(int(m.group(1)) / distance, 2)}

    def ship(weight, service, destination):
        if service not in ("STD", "EXP", "NXT"):
            raise ValueError(f"unknown service {service!r}; use STD, EXP or NXT")
        if destination not in ("US", "GB", "DE", "FR"):
            raise ValueError(f"no rates for destination {destination!r}")
        return {"price": 3 + weight / 1000}

    def workdays(start, end, mask="1111100"):
        if not re.fullmatch(r"[01]{7}", mask):
            raise ValueError(f"Invalid weekmask string {mask!r}")
        return {"days": (int(end) - int(start)) * mask.count("1") // 7}
''')


@pytest.fixture
def exec_ctx(tmp_path):
    with module_context(tmp_path, "thin.py", MODULE, default_timeout=30.0) as ctx:
        yield ctx


def _tool(name, **types) -> Tool:
    return Tool(name, "", {"type": "object", "required": list(types), "properties": {
        p: {"type": t} for p, t in types.items()}}, {"python": f"thin:{name}"})


def _probe(make_engine, tool, arguments, evidence=EVIDENCE):
    """Play's one call failed; the probes start from it."""
    engine = make_engine([tool], FakeLM(), evidence=evidence)
    inv = Invocation(tool.name, arguments)
    obs = asyncio.run(engine.runtime.run(inv))
    assert not obs.ok
    book = FactBook(tool)
    evidence_for(engine).fact_reader.observe(book, inv, obs)
    prober = Prober(tool, engine, book)
    play = PlayResult(None, None, (Attempt(inv, obs, -1, "failed"),), "k")
    asyncio.run(evidence_for(engine).probes.run(prober, [play]))
    return book, prober


def test_a_refused_time_runs_in_a_standard_format_confirmed_by_two_more(make_engine):
    book, prober = _probe(make_engine, _tool("pace", distance="number", time="string"),
                          {"distance": 5, "time": "2 hours"})
    assert prober.engine.uses[FORMAT_PROBES] == 1
    ran = [r.invocation.arguments["time"] for r in prober.repaired if r.how == "formatting"]
    assert ran[0] == "12:30" and {"08:15", "17:45"} <= set(ran)   # 12:30:00 runs too
    assert set(book.examples("time", 10)) >= {"12:30", "08:15"}
    # failed tries are code's guesses: no "'2024-01-15' is rejected" in the facts
    assert not any("2024-01-15" in f.text for f in book.facts)


def test_a_listed_value_fixes_one_text_and_the_error_moves_on_to_the_next(make_engine):
    """service is refused with a list; once it is STD the error quotes the destination, which
    runs as a country code; the two other country codes confirm it."""
    book, prober = _probe(make_engine,
                          _tool("ship", weight="integer", service="string",
                                destination="string"),
                          {"weight": 500, "service": "express", "destination": "New York"})
    ran = [(r.invocation.arguments["service"], r.invocation.arguments["destination"])
           for r in prober.repaired if r.how == "formatting"]
    assert ran == [("STD", "US"), ("STD", "GB"), ("STD", "DE")]
    shown = [s for s in book.sentences("destination") if s.startswith("For example:")]
    assert len(shown) == 1 and shown[0].count("'") == 4      # two country codes


def test_blame_goes_to_the_text_the_error_quotes_else_names():
    tool = _tool("ship", weight="integer", service="string", destination="string")
    call = Invocation("ship", {"weight": 5, "service": "express", "destination": "Paris"})
    assert blamed(tool, call, "no rates for destination 'Paris'") == "destination"
    assert blamed(tool, call, "unknown service 'express'") == "service"
    assert blamed(tool, call, "destination must be a code") == "destination"
    assert blamed(tool, call, "weight out of range") is None      # a number: not a text
    book = FactBook(tool)
    # the text's own code first (the same meaning), then each standard format's first value
    assert [v for _, v in candidates(book, "destination", "Paris")][:3] == \
        ["Europe/Paris", "12:30", "12:30:00"]
    assert candidates(book, "destination", "Canada")[0] == ("country", "CA")


def test_a_refused_country_name_runs_as_its_own_code(make_engine):
    """'Germany' refused: DE, its own code, is tried first and runs; the call keeps its
    meaning (not some other country's code)."""
    _, prober = _probe(make_engine,
                       _tool("ship", weight="integer", service="string",
                             destination="string"),
                       {"weight": 500, "service": "STD", "destination": "Germany"})
    ran = [r.invocation.arguments["destination"] for r in prober.repaired
           if r.how == "formatting"]
    assert ran[0] == "DE" and len(ran) == 3


def test_on_by_default_and_nothing_tried_without_it(make_engine):
    assert FORMAT_PROBES in DEFAULT_EVIDENCE
    _, prober = _probe(make_engine, _tool("pace", distance="number", time="string"),
                       {"distance": 5, "time": "2 hours"},
                       evidence=tuple(n for n in DEFAULT_EVIDENCE if n != FORMAT_PROBES))
    assert prober.engine.uses[FORMAT_PROBES] == 0
    assert not [r for r in prober.repaired if r.how == "formatting"]


def test_an_optional_text_refused_is_first_tried_left_out(make_engine):
    tool = Tool("workdays", "", {"type": "object", "required": ["start", "end"], "properties": {
        "start": {"type": "string"}, "end": {"type": "string"}, "mask": {"type": "string"}}},
        {"python": "thin:workdays"})
    book, prober = _probe(make_engine, tool, {"start": "0", "end": "14", "mask": "Mon Tue"})
    (ran,) = [r.invocation for r in prober.repaired if r.how == "formatting"]
    assert ran.arguments == {"start": "0", "end": "14"}
    assert any(s.startswith("Optional; leave it out") for s in book.sentences("mask"))
