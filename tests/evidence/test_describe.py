"""The ``describe`` component: a tool documented with nothing (opaque BFCL's function_3) is
described once from its executed calls; the description reaches what the generator reads
(the request writer's prompt, the facts doc) and never the task model's D0 (R_e). A tool with
a real description gets no call."""

from __future__ import annotations

import asyncio
import textwrap
from types import SimpleNamespace

import pytest

from play2prompt.evidence.describe import (
    describe_tool,
    needs_description,
    verified_description,
)
from play2prompt.evidence.facts import facts_doc
from play2prompt.evidence.names import DESCRIBE, OUTPUT_UNITS
from play2prompt.evidence.names import EVIDENCE as ALL
from play2prompt.lm.fake import FakeLM, prompt_text, tool_call
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.discovery import discovered_tool
from play2prompt.method.example_search import ExampleSpace
from play2prompt.scrub import REDACTED, Scrubber
from play2prompt.tools.model import Invocation, Observation, Tool
from tests.conftest import module_context

DESCRIBE_MARK = "You work out what an undocumented function does"
M1 = "Write the arguments for a new call to "
M3 = "Write the person's message"
REREAD = "Write the arguments."
SAID = "Returns the probability of exactly k successes in n independent trials."
QUERY = "What is the chance of exactly 3 successes in 5 tries when each has probability 0.7?"
ARGS = {"k": 3, "n": 5, "p": 0.7}
PARAMS = {"type": "object", "required": ["k", "n", "p"], "properties": {
    "k": {"type": "integer"}, "n": {"type": "integer"}, "p": {"type": "number"}}}

MODULE = textwrap.dedent('''
    from math import comb

    def binomial(k, n, p):
        return round(comb(n, k) * p ** k * (1 - p) ** (n - k), 4)
''')


@pytest.fixture
def exec_ctx(tmp_path):
    with module_context(tmp_path, "stats.py", MODULE, default_timeout=30.0) as ctx:
        yield ctx


def _tool(description: str = "") -> Tool:
    return Tool("function_3", description, PARAMS, {"python": "stats:binomial"})


def _generator() -> FakeLM:
    def fill(request, i):
        props = (request.json_schema or {}).get("properties") or {}
        return {k: v for k, v in ARGS.items() if k in props}
    def said(request, i):
        out = {"description": SAID, "parameters": {
            "k": "the number of successes", "n": "the number of trials",
            "p": "the probability of success in one trial"}}
        if "guesses" in (request.json_schema or {}).get("properties", {}):   # describe-check
            guess = {"operation": "binomial probability", "description": SAID,
                     "python": "round(math.comb(n, k) * p ** k * (1 - p) ** (n - k), 4)"}
            return {"guesses": [guess] * 3, "parameters": out["parameters"]}
        return out
    return FakeLM(rules=[
        (DESCRIBE_MARK, said),
        (M1, fill), (M3, {"query": QUERY}), (REREAD, fill),
        ("How should the next request", {"reflection": "Say it plainly."})])


# every component but output-units (its own tests script its formula call)
EVIDENCE = tuple(n for n in ALL if n != OUTPUT_UNITS)


def _run(make_engine, tool: Tool, evidence=EVIDENCE):
    """Two iterations of Step 1 (the second after the describe hook), as the beam runs them."""
    gen = _generator()
    task = FakeLM(default=lambda request, i: tool_call("function_3", ARGS))
    engine = make_engine([tool], gen, task, lam=1.0, max_tries=2, evidence=evidence)
    space = ExampleSpace(tool, engine)

    async def run():
        await space.propose(None, 1, 0, ["n0"])
        await space.end_iteration(0, [])
        await space.propose(None, 1, 1, ["n1"])

    asyncio.run(run())
    return gen, task, space


def _describes(gen: FakeLM) -> list:
    return [r for r in gen.requests if DESCRIBE_MARK in prompt_text(r)]


UNCHECKED = tuple(n for n in EVIDENCE if n != "describe-check")


def test_a_blank_tool_is_described_once_for_the_generator_never_for_the_task_model(
        make_engine):
    tool = _tool()
    gen, task, space = _run(make_engine, tool, UNCHECKED)
    (asked,) = _describes(gen)
    assert space.engine.uses[DESCRIBE] == 1
    shown = prompt_text(asked)
    assert "k (integer), n (integer), p (number)" in shown
    assert "function_3(k=3, n=5, p=0.7) -> 0.3087" in shown        # the executed call
    writes = [r for r in gen.requests if M3 in prompt_text(r)]
    # described from iteration 0's executed calls before its requests are written: the
    # first request already knows what the tool does
    assert SAID in prompt_text(writes[0]) and SAID in prompt_text(writes[-1])
    first = gen.requests.index(writes[0])
    assert gen.requests.index(asked) < first
    assert "the number of trials: 5" in prompt_text(writes[-1])   # labels: the meanings
    doc = facts_doc(discovered_tool(tool, space.book), space.book)
    assert doc.description.startswith(SAID)                   # the facts doc candidate has it
    assert doc.params["p"].startswith("the probability of success")
    assert task.requests and not any(SAID in prompt_text(r) for r in task.requests)  # R_e: D0
    assert not any("number of trials" in prompt_text(r) for r in task.requests)
    assert space.current.description == ""                    # the tool R_e gets keeps D0


def test_describing_costs_exactly_one_call(tmp_path, exec_ctx):
    from play2prompt.config import preset
    from play2prompt.engine import build_engine
    from play2prompt.store.db import RunStore

    stores = []

    def fresh(tools, generator, task_model, **overrides):   # a store each: no cached reply
        stores.append(RunStore(tmp_path / f"run{len(stores)}" / "run.db"))
        return build_engine(tools, stores[-1], preset("quick", **overrides),
                            generator=generator.with_log(stores[-1]),
                            task_model=task_model.with_log(stores[-1]), exec_ctx=exec_ctx)

    on, _, _ = _run(fresh, _tool(), UNCHECKED)
    off, _, _ = _run(fresh, _tool(), tuple(n for n in UNCHECKED if n != DESCRIBE))
    checked, _, space = _run(fresh, _tool())       # describe-check: its first guess holds
    for store in stores:
        store.close()
    assert not _describes(off) and space.engine.uses[DESCRIBE] == 1
    assert len(on.requests) == len(off.requests) + 1
    assert len(checked.requests) == len(on.requests) + 1


def test_a_documented_tool_gets_no_describe_call(make_engine):
    tool = _tool("Binomial probability of k successes in n trials.")
    assert not needs_description(tool) and not needs_description(_tool("Converts units."))
    gen, _, space = _run(make_engine, tool)
    assert not _describes(gen) and space.engine.uses[DESCRIBE] == 0


def test_the_outputs_shown_are_scrubbed():
    secret = "hunter2-very-secret-value"
    gen = _generator()
    engine = SimpleNamespace(scrubber=Scrubber((secret,)), prompts=MetaPrompts(), generator=gen)
    calls = [(Invocation("function_3", ARGS), Observation.success({"token": secret, "p": 0.3})),
             (Invocation("function_3", {"k": 9}), Observation.failure("exception", secret))]
    said = asyncio.run(describe_tool(_tool(), engine, calls))
    assert said is not None and said.text == SAID
    (asked,) = gen.requests
    assert secret not in prompt_text(asked) and REDACTED in prompt_text(asked)
    assert dict(said.params)["n"] == "the number of trials"


def test_a_sentence_the_length_bound_cut_off_is_dropped():
    """Run opq-fix shipped "... If True, weekends are included; if False, weekends": the
    schema's 120 characters ended the meaning mid-sentence (and mid-claim)."""
    from play2prompt.evidence.describe import whole_sentences

    cut = ("A boolean indicating whether to include weekends in the calculation. If True, "
           "weekends are included; if False, weekends")
    assert len(cut) == 119                                  # 120 with the space it was cut at
    assert whole_sentences(cut, 120) == ("A boolean indicating whether to include weekends in "
                                         "the calculation.")
    assert whole_sentences("The start date.", 120) == "The start date."
    assert whole_sentences("short  text\nno stop", 120) == "short text no stop"
    assert whole_sentences("x" * 120, 120) == "x" * 120      # no sentence to fall back on


GCD_CALLS = [(Invocation("function_25", {"a": a, "b": b}), Observation.success(out))
             for a, b, out in ((15, 9, 3), (42, 13, 1), (12, 8, 4))]
GCD_TOOL = Tool("function_25", "", {"type": "object", "properties": {
    "a": {"type": "integer"}, "b": {"type": "integer"}}}, {"python": "m:f"})
RETRY = "Your expression was run on the calls"


def _guesser(*tries: tuple[str, ...]) -> FakeLM:
    """A generator whose n-th describe answer guesses the n-th tuple of expressions."""
    def answer(request, i):
        n = sum(RETRY in m["content"] for m in request.messages)
        guesses = [{"operation": e, "python": e, "description": f"Returns {e}."}
                   for e in tries[min(n, len(tries) - 1)]]
        return {"guesses": guesses,
                "parameters": {"a": "the first number", "b": "the second number"}}
    return FakeLM(rules=[(DESCRIBE_MARK, answer)])


def _checked(gen: FakeLM, calls=GCD_CALLS):
    engine = SimpleNamespace(scrubber=Scrubber(), prompts=MetaPrompts(), generator=gen)
    return asyncio.run(verified_description(GCD_TOOL, engine, calls))


def test_a_wrong_expression_is_told_where_it_missed_and_a_right_one_is_kept():
    gen = _guesser(("a + b", "a % b", "1"), ("a * b", "math.gcd(a, b)", "a"))
    said = _checked(gen)
    assert said.text == "Returns math.gcd(a, b). Computed as: math.gcd(a, b)."
    assert said.check.holds and said.check.checked == 3
    assert dict(said.params)["a"] == "the first number"
    first, retry = gen.requests[0], gen.requests[-1]
    assert "function_25(a=15, b=9) -> 3" in prompt_text(first)
    assert "guesses" in first.json_schema["properties"]
    told = prompt_text(retry)
    assert "on 1 of 3" in told                             # the best guess: a % b (12 % 8)
    assert "function_25(a=15, b=9): your expression gives 6; the tool returned 3" in told
    assert '"python": "a % b"' in told                     # its own answer, before the miss
    fact = said.facts()[0]
    assert "run on 3 of them (3 matched)" in fact.evidence


def test_no_guess_that_holds_gives_nothing_to_replace_the_description_with():
    gen = _guesser(("a + b", "a * b", "1"))
    assert _checked(gen) is None
    assert len(gen.requests) == 3 and len([r for r in gen.requests if r.temperature > 0]) == 2
    assert all(r.n == 1 for r in gen.requests)         # one sampled answer a retry (SAMPLES)


def test_one_comparable_output_cannot_decide_so_nothing_is_asked():
    gen = _guesser(("a + b", "a", "b"))
    blob = (Invocation("function_25", {"a": 1, "b": 2}), Observation.success({"$blob": "ab"}))
    assert _checked(gen, [GCD_CALLS[0], blob]) is None and not gen.requests


def test_describe_check_counts_its_use_and_describe_off_turns_it_off(make_engine):
    from play2prompt.evidence.names import DESCRIBE_CHECK

    # each run's engine shares one store (cached replies), so the unchecked run goes first
    gen, _, space = _run(make_engine, _tool(),
                         tuple(n for n in EVIDENCE if n != DESCRIBE_CHECK))
    (asked,) = _describes(gen)
    assert "guesses" not in asked.json_schema["properties"]
    assert space.engine.uses[DESCRIBE_CHECK] == 0
    _, _, space = _run(make_engine, _tool())
    assert space.engine.uses[DESCRIBE_CHECK] == 1
    gen, _, space = _run(make_engine, _tool(), tuple(n for n in EVIDENCE if n != DESCRIBE))
    assert space.engine.uses[DESCRIBE_CHECK] == 0 and not _describes(gen)


def test_with_describe_check_a_guess_that_holds_replaces_the_first_description(make_engine):
    """The tool is described as soon as one call ran (the first requests already know what
    it does); once the probes gave a second comparable output, the description is checked
    and the guess whose expression holds replaces it, in what later requests read."""
    gen, _, space = _run(make_engine, _tool())
    first, checked = _describes(gen)
    assert "guesses" not in first.json_schema["properties"]
    assert "guesses" in checked.json_schema["properties"]
    writes = [r for r in gen.requests if M3 in prompt_text(r)]
    assert gen.requests.index(first) < gen.requests.index(writes[0])   # described at once
    assert gen.requests.index(checked) < gen.requests.index(writes[-1])
    assert "Computed as" not in prompt_text(writes[0])
    assert "Computed as: round(math.comb" in prompt_text(writes[-1])
    shown = prompt_text(checked).split("Calls that ran")[1]
    assert shown.count("function_3(") >= 2                # the probes' calls are shown too
    (fact,) = [f for f in space.book.facts if f.kind == "describes" and not f.param]
    assert fact.text.startswith(SAID) and "Computed as: round(math.comb" in fact.text
    assert "matched)" in fact.evidence                    # its expression was run on them


def test_a_replaced_description_leaves_no_trace_in_the_book():
    from play2prompt.evidence.facts import Fact, FactBook
    from play2prompt.method.discovery import DESCRIBES

    book = FactBook(GCD_TOOL, [Fact("", DESCRIBES, "Returns the sum.", (), "reading"),
                               Fact("a", DESCRIBES, "the first addend", (), "reading"),
                               Fact("a", "rule", "a must be an integer.", (), "error")])
    assert book.forget(DESCRIBES) == 2
    assert [f.kind for f in book.facts] == ["rule"] and book.forget(DESCRIBES) == 0


def test_concurrent_proposals_describe_the_tool_once(make_engine):
    """The beam proposes from each kept node at once; the tool is described by the first
    proposal to get there, not once per proposal."""
    gen = _generator()
    task = FakeLM(default=lambda request, i: tool_call("function_3", ARGS))
    engine = make_engine([_tool()], gen, task, lam=1.0, max_tries=2, evidence=UNCHECKED)
    space = ExampleSpace(_tool(), engine)

    async def run():
        await asyncio.gather(space.propose(None, 1, 0, ["a"]), space.propose(None, 1, 0, ["b"]))

    asyncio.run(run())
    assert len(_describes(gen)) == 1 and engine.uses[DESCRIBE] == 1
