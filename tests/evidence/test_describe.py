"""The ``describe`` component: a tool documented with nothing (opaque BFCL's function_3) is
described once from its executed calls; the description reaches what the generator reads
(the request writer's prompt, the facts doc) and never the task model's D0 (R_e). A tool with
a real description gets no call."""

from __future__ import annotations

import asyncio
import textwrap
from types import SimpleNamespace

import pytest

from play2prompt.evidence.describe import describe_tool, needs_description
from play2prompt.evidence.facts import facts_doc
from play2prompt.evidence.names import DESCRIBE, EVIDENCE, USES
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
    return FakeLM(rules=[
        (DESCRIBE_MARK, {"description": SAID, "parameters": {
            "k": "the number of successes", "n": "the number of trials",
            "p": "the probability of success in one trial"}}),
        (M1, fill), (M3, {"query": QUERY}), (REREAD, fill),
        ("How should the next request", {"reflection": "Say it plainly."})])


def _run(make_engine, tool: Tool, evidence=EVIDENCE):
    """Two iterations of Step 1 (the second after the describe hook), as the beam runs them."""
    gen = _generator()
    task = FakeLM(default=lambda request, i: tool_call("function_3", ARGS))
    engine = make_engine([tool], gen, task, lam=1.0, max_tries=2, evidence=evidence)
    space = ExampleSpace(tool, engine)
    USES.clear()

    async def run():
        await space.propose(None, 1, 0, ["n0"])
        await space.end_iteration(0, [])
        await space.propose(None, 1, 1, ["n1"])

    asyncio.run(run())
    return gen, task, space


def _describes(gen: FakeLM) -> list:
    return [r for r in gen.requests if DESCRIBE_MARK in prompt_text(r)]


def test_a_blank_tool_is_described_once_for_the_generator_never_for_the_task_model(
        make_engine):
    tool = _tool()
    gen, task, space = _run(make_engine, tool)
    (asked,) = _describes(gen)
    assert USES[DESCRIBE] == 1
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

    on, _, _ = _run(fresh, _tool())
    off, _, _ = _run(fresh, _tool(), tuple(n for n in EVIDENCE if n != DESCRIBE))
    for store in stores:
        store.close()
    assert not _describes(off) and USES[DESCRIBE] == 0
    assert len(on.requests) == len(off.requests) + 1


def test_a_documented_tool_gets_no_describe_call(make_engine):
    tool = _tool("Binomial probability of k successes in n trials.")
    assert not needs_description(tool) and not needs_description(_tool("Converts units."))
    gen, _, _ = _run(make_engine, tool)
    assert not _describes(gen) and USES[DESCRIBE] == 0


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
