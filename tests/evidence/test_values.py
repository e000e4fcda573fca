"""The ``value-probes`` component: a tool that takes any text and acts on a few values only
(BFCL's nutrition calculator and its goal "lose" / "gain") is shown, by comparing outputs,
which texts it acts on; a tool that reads its text (echoes it, or refuses an unknown one)
costs no call."""

from __future__ import annotations

import asyncio
import re
import textwrap
from dataclasses import replace

import pytest

from play2prompt.evidence.facts import PROBE_WORD, Fact, FactBook, facts_doc
from play2prompt.evidence.names import DEFAULT_EVIDENCE, EVIDENCE, VALUE_PROBES
from play2prompt.evidence.probes import Prober
from play2prompt.evidence.registry import evidence_for
from play2prompt.evidence.values import ValueProbe, unacted, words_of
from play2prompt.lm.fake import FakeLM, prompt_text
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.model import Invocation, Observation, Tool
from tests.conftest import module_context

MARK = "You help find which values a function's text parameter takes"

# written here in the shape of a plain if / elif chain: the goal's other texts fall through
MODULE = textwrap.dedent('''
    def needs(weight, goal, gender="female"):
        calories = 24 * weight * (1.0 if gender == "male" else 0.9)
        if goal == "lose":
            calories -= 500
        elif goal == "gain":
            calories += 500
        return {"calories": round(calories, 1)}

    def greet(name):
        return {"greeting": "Hello, " + name}
''')

PARAMS = {"type": "object", "required": ["weight", "goal"], "properties": {
    "weight": {"type": "number"}, "goal": {"type": "string"}, "gender": {"type": "string"}}}


@pytest.fixture
def exec_ctx(tmp_path):
    with module_context(tmp_path, "diet.py", MODULE, default_timeout=30.0) as ctx:
        yield ctx


def _needs() -> Tool:
    return Tool("function_7", "", PARAMS, {"python": "diet:needs"})


def _greet() -> Tool:
    return Tool("function_2", "", {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}}}, {"python": "diet:greet"})


def _generator(values=("lose", "gain", "maintain", "weight_loss")) -> FakeLM:
    return FakeLM(rules=[(MARK, {"values": list(values)})])


def _probe(make_engine, tool, arguments, evidence=EVIDENCE, gen=None, failed=None):
    gen = gen or _generator()
    engine = make_engine([tool], gen, evidence=evidence)
    inv = Invocation(tool.name, arguments)
    obs = asyncio.run(engine.runtime.run(inv))
    assert obs.ok, obs.error
    attempts = [Attempt(inv, obs, 0, "worked")]
    if failed is not None:     # a call of play that failed for another reason
        bad = Invocation(tool.name, failed)
        attempts.insert(0, Attempt(bad, Observation(False, None, "IndexError: list index out "
                                                    "of range", "exception"), -1, "failed"))
    play = PlayResult(None, None, tuple(attempts), "k")
    book = FactBook(tool)
    prober = Prober(tool, engine, book)
    asyncio.run(evidence_for(engine).probes.run(prober, [play]))
    return gen, book, prober


def test_the_texts_a_tool_acts_on_are_found_by_their_outputs(make_engine):
    gen, book, prober = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"})
    (asked,) = [r for r in gen.requests if MARK in prompt_text(r)]
    shown = prompt_text(asked)
    assert "goal='weight loss'" in shown and "Its value 'weight loss'" in shown
    assert prober.engine.uses[VALUE_PROBES] == 1
    said = " ".join(book.sentences("goal"))
    assert "Only 'lose' or 'gain' change the result" in said
    assert "'weight loss', 'maintain' or 'weight_loss'" in said   # the call's own value first
    assert "For example" not in said        # the call's text is not one the tool acts on
    assert book.acted_on("goal") == ("lose", "gain")
    doc = facts_doc(prober.tool, book)
    assert "'lose'" in doc.params["goal"]
    tried = [inv.arguments["goal"] for p, inv, _ in prober.probed if p == "goal"]
    assert {"lose", "gain", "maintain", "weight_loss"} <= set(tried)
    # gender="female" is the tool's fallback too, but the call did not give it: not probed
    assert "gender" not in unacted(*prober.worked, prober.probed)


def test_a_text_the_tool_reads_costs_no_call(make_engine):
    gen, book, prober = _probe(make_engine, _greet(), {"name": "Ada"})
    assert not [r for r in gen.requests if MARK in prompt_text(r)]
    assert prober.engine.uses[VALUE_PROBES] == 0 and not book.acted_on("name")


def test_off_by_default_and_off_with_the_probes(make_engine):
    assert VALUE_PROBES not in DEFAULT_EVIDENCE
    gen, book, _ = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"},
                          evidence=DEFAULT_EVIDENCE)
    assert not [r for r in gen.requests if MARK in prompt_text(r)]
    assert not book.acted_on("goal")
    no_probes = tuple(n for n in EVIDENCE if n != "probes")
    gen, _, _ = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"},
                       evidence=no_probes)
    assert not gen.requests


def test_no_fact_when_no_proposed_value_changes_the_output(make_engine):
    gen, book, _ = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"},
                          gen=_generator(("reduce", "cut", "slim down")))
    assert [r for r in gen.requests if MARK in prompt_text(r)]
    assert not book.acted_on("goal")
    assert not any("unknown word" in s for s in book.sentences("goal"))


def test_the_texts_play_gave_the_parameter_elsewhere_are_tried_first(make_engine):
    """The generator only paraphrases; a call of play that failed for another reason had
    the value the tool acts on."""
    gen, book, _ = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"},
                          gen=_generator(("reduce", "cut")),
                          failed={"weight": -1, "goal": "gain", "gender": "male"})
    assert book.acted_on("goal") == ("gain",)
    assert "Only 'gain' changes the result" in " ".join(book.sentences("goal"))
    (asked,) = [r for r in gen.requests if MARK in prompt_text(r)]
    item = asked.json_schema["properties"]["values"]["items"]
    assert re.fullmatch(item["pattern"], "lose") and not re.fullmatch(item["pattern"], "to lose")
    assert "\\" not in item["pattern"]     # llama.cpp's grammar converter takes no \S


def _obs(output) -> Observation:
    return Observation(True, output)


def test_unacted_needs_the_unknown_word_alone_to_give_the_same_output():
    start = Invocation("t", {"goal": "weight loss", "weight": 70})
    same = Invocation("t", {"goal": PROBE_WORD, "weight": 70})
    other = Invocation("t", {"goal": PROBE_WORD, "weight": 80})
    out = {"calories": 1512.0}
    assert unacted(start, _obs(out), [("goal", same, _obs(out))]) == ["goal"]
    assert unacted(start, _obs(out), [("goal", same, _obs({"calories": 1.0}))]) == []
    assert unacted(start, _obs(out), [("goal", other, _obs(out))]) == []   # two changes
    failed = Observation(False, None, "ValueError: unknown goal", "exception")
    assert unacted(start, _obs(out), [("goal", same, failed)]) == []


def test_a_value_fact_needs_values_acted_on_and_values_alike():
    inv = Invocation("t", {"goal": "lose"})
    tried = ((inv, _obs(1)),)
    assert ValueProbe("goal", ("lose",), ("x",), tried).fact().text == (
        "Only 'lose' changes the result; other texts, such as 'x', give the same result as "
        "an unknown word.")
    assert ValueProbe("goal", (), ("x",), tried).fact() is None
    assert ValueProbe("goal", ("lose",), (), tried).fact() is None
    book = FactBook(Tool("t", "", {"type": "object", "properties": {
        "goal": {"type": "string"}}}))
    book.add(Fact("goal", "example", "weight loss", ("weight loss",), "", "c1"))
    assert "For example: 'weight loss'." in book.sentences("goal")
    book.add(ValueProbe("goal", ("lose",), ("weight loss",), tried).fact())
    assert not any(s.startswith("For example") for s in book.sentences("goal"))


def test_the_words_of_a_phrase_are_tried_after_the_proposals(make_engine):
    """The 1.5B proposed "weight_loss" and such; the call's own "lose weight" holds "lose"."""
    gen, book, prober = _probe(make_engine, _needs(), {"weight": 70, "goal": "lose weight"},
                               gen=_generator(("weight_loss", "weight_gain")))
    assert book.acted_on("goal") == ("lose", "gain")
    tried = [inv.arguments["goal"] for p, inv, _ in prober.probed if p == "goal"]
    assert tried.index("weight_gain") < tried.index("lose")
    assert words_of(["lose weight", "weight_gain", "cut", "10 kg"]) == ["lose", "weight", "gain"]


M3F = "The value to say in another everyday form"
REREAD = "Write the arguments."


def test_a_text_the_tool_acts_on_becomes_a_fact_test_the_doc_as_given_fails(make_engine):
    """The acted-value variant: every verified call set a goal the tool ignores; the value
    probe's call with "lose" is asked as people say it ("lose weight", the word inside the
    phrase is no fault here), re-read with the facts as "lose", and the task model with the
    doc as given writes the phrase: R_e = 1. The fact is the value probe's."""
    from play2prompt.evidence.fact_tests import write_fact_tests
    from play2prompt.evidence.variants import ACTED, acted_calls
    from play2prompt.lm.fake import tool_call
    from play2prompt.method.example_search import Example, ExampleSpace

    query = "I weigh 70 kg and I want to lose weight: how many calories a day?"
    gen = FakeLM(rules=[(MARK, {"values": ["lose", "gain", "maintain"]}),
                        (M3F, {"query": query}),
                        (REREAD, {"weight": 70, "goal": "lose"})])
    task = FakeLM(rules=[("lose weight", tool_call("function_7",
                                                   {"weight": 70, "goal": "lose weight"}))])
    tool = _needs()
    engine = make_engine([tool], gen, task, evidence=EVIDENCE, lam=1.0, fact_tests=1)
    inv = Invocation(tool.name, {"weight": 70, "goal": "weight loss"})

    async def run():
        obs = await engine.runtime.run(inv)
        play = PlayResult(inv, obs, (Attempt(inv, obs, 0, "worked"),), "k")
        space = ExampleSpace(tool, engine, FactBook(tool))
        await evidence_for(engine).probes.run(space.prober, [play])
        ex = Example(tool.name, "I weigh 70 kg, goal weight loss.", inv, obs, "", 3.0, 0.0,
                     3.0, solved=True)
        found = acted_calls([ex], space.probed, space.book)
        return found, await write_fact_tests(tool, engine, space, [ex]), space.book

    found, tests, book = asyncio.run(run())
    assert [(v.param, v.kind, v.invocation.arguments["goal"]) for v in found] == [
        ("goal", ACTED, "lose")]
    (test,) = tests
    assert test.query == query and test.invocation.arguments == {"weight": 70, "goal": "lose"}
    assert test.observation.output == {"calories": 1012.0}
    assert test.verified and (test.solved, test.r_e) == (False, 1.0)
    assert test.fact.startswith("goal: Only 'lose' or 'gain' change the result")
    # a verified call that already sets that text leaves nothing to show; another acted text
    # does not ("gain" shows nothing of "lose")
    probed = [("goal", test.invocation, test.observation)]
    lose = Example(tool.name, "q", test.invocation, test.observation, "", 3.0, 0.0, 3.0,
                   solved=True)
    gain = replace(lose, invocation=Invocation(tool.name, {"weight": 70, "goal": "gain"}))
    assert acted_calls([lose], probed, book) == []
    assert [v.invocation for v in acted_calls([gain], probed, book)] == [test.invocation]


def test_an_acted_value_no_draft_got_right_is_written_in_parts(make_engine):
    """request-parts for the acted-value test: the 1.5B's m3-fact drafts echo the prompt or
    write code; the parts say each value, the acted one as play's own phrase for it ("lose
    weight": asked for "lose" alone, the 1.5B wrote "The goal is lose.", which D0 solves)."""
    from play2prompt.evidence.fact_tests import write_fact_tests
    from play2prompt.lm.fake import tool_call
    from play2prompt.method.example_search import Example, ExampleSpace

    gen = FakeLM(rules=[(MARK, {"values": ["lose", "gain"]}),
                        (M3F, {"query": "function_7(weight=70, goal='lose')"}),
                        ("Write the person's message in parts.", {
                            "want": "How many calories should I eat a day?",
                            "value_1": "I weigh 70 kg.", "value_2": "I want to lose weight."}),
                        (REREAD, {"weight": 70, "goal": "lose"})])
    task = FakeLM(rules=[("lose weight", tool_call("function_7",
                                                   {"weight": 70, "goal": "lose weight"}))])
    tool = _needs()
    evidence = tuple(n for n in EVIDENCE if n != "request-parts")
    for names in (EVIDENCE, evidence):
        engine = make_engine([tool], gen, task, evidence=names, lam=1.0, fact_tests=1)
        inv = Invocation(tool.name, {"weight": 70, "goal": "lose weight"})

        async def run(engine, inv):
            obs = await engine.runtime.run(inv)
            play = PlayResult(inv, obs, (Attempt(inv, obs, 0, "worked"),), "k")
            space = ExampleSpace(tool, engine, FactBook(tool))
            await evidence_for(engine).probes.run(space.prober, [play])
            ex = Example(tool.name, "I weigh 70 kg, goal lose weight.", inv, obs, "", 3.0,
                         0.0, 3.0, solved=True)
            return await write_fact_tests(tool, engine, space, [ex])

        tests = asyncio.run(run(engine, inv))
        if names == evidence:          # without the component no test is written
            assert tests == []
            continue
        (test,) = tests
        assert test.query == ("How many calories should I eat a day? I weigh 70 kg. I want to "
                              "lose weight.")
        assert test.invocation.arguments["goal"] == "lose" and test.r_e == 1.0
        # the parts are asked for the phrase of play's own texts that holds the word
        parts = [r for r in gen.requests if "message in parts" in prompt_text(r)]
        assert "value_2: the goal is lose weight" in prompt_text(parts[-1])


def test_a_verified_call_whose_text_holds_the_acted_word_is_relabelled_by_code(make_engine):
    """goal="gain weight" computes as for an unknown word; the request asked to gain. Once
    the value probes show the tool acts only on "lose" and "gain", the example is one of
    goal="gain" (request-gates' rescaling, at writing and on the verified examples)."""
    from play2prompt.evidence.gates import acted_text, rescaled

    _, book, _ = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"})
    assert book.acted_on("goal") == ("lose", "gain")
    said = "I weigh 70 kg and my goal is to gain weight."
    call = Invocation("function_7", {"weight": 70, "goal": "gain weight"})
    assert rescaled(said, call, book) == Invocation("function_7", {"weight": 70,
                                                                   "goal": "gain"})
    assert acted_text(said, "gain", ("lose", "gain")) is None          # already acted on
    assert acted_text("I want to bulk up.", "gain weight", ("lose", "gain")) is None
    assert acted_text("lose or gain?", "lose or gain", ("lose", "gain")) is None   # two
    assert rescaled(said, call, FactBook(_needs())) is None        # no fact: nothing to do


def test_a_description_offering_texts_the_tool_ignores_is_refuted(make_engine):
    """The describe step guessed "Can be 'gain weight', 'lose weight', or 'maintain weight'";
    the value probes showed the tool acts only on "lose" and "gain": the facts doc drops the
    guess (the 1.5B copied it over the fact) and keeps the fact."""
    _, book, prober = _probe(make_engine, _needs(), {"weight": 70, "goal": "weight loss"})
    book.add(Fact("goal", "describes", "The person's goal. Can be 'gain weight', 'lose "
                  "weight', or 'maintain weight'."))
    said = facts_doc(prober.tool, book).params["goal"]
    assert said.startswith("The person's goal. Only 'lose' or 'gain' change the result")
    assert "Can be" not in said
