"""Step 1: rewards (R = R_q + lambda * R_e, gates before rewards), P2P-Easy, demo choice, and
what play learns between iterations."""

import asyncio
import dataclasses
import itertools

import pytest

from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.names import DEFAULT_EVIDENCE
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.demos import select_demos, write_answers
from play2prompt.method.example_search import ExampleSpace
from play2prompt.method.rewards import check_query, value_in_text
from play2prompt.tools.model import Invocation

M3 = "Write the person's message"
REREAD = "Write the arguments."
READING = (*DEFAULT_EVIDENCE, "reread", "relabel")


def _generator(query_for=None, reread=None):
    def query(request, i):
        text = request.messages[-1]["content"]
        if query_for is not None:
            return {"query": query_for(text)}
        amount = "20000" if "20000" in text else "30000"
        return {"query": f"I need a loan of {amount} at 4.5 percent over 5 years"}

    def reread_call(request, i):
        if reread is not None:
            return reread(request)
        text = request.messages[-1]["content"]
        amount = 20000 if "20000" in text else 30000
        return {"principal": amount, "annual_rate": 4.5, "years": 5}

    return FakeLM(rules=[(M3, query), (REREAD, reread_call),
                         ("Write the answer", {"answer": "You would pay about 373 a month."}),
                         ("How should the next request", {"reflection": "Be less direct."})])


def _task_model():
    return FakeLM(rules=[
        ("loan of 20000", tool_call("loan_payment", {"principal": 20000, "annual_rate": 4.5,
                                                     "years": 5})),
        ("loan of 30000", tool_call("loan_payment", {"principal": 3000, "annual_rate": 4.5,
                                                     "years": 5})),
    ])


@pytest.fixture
def loan(example_tools):
    return next(t for t in example_tools if t.name == "loan_payment")


async def _examples(engine, tool, amounts=(20000, 30000)):
    space = ExampleSpace(tool, engine)
    out = []
    for amount in amounts:
        inv = Invocation("loan_payment", {"principal": amount, "annual_rate": 4.5, "years": 5})
        obs = await engine.runtime.run(inv)
        out.append(await space._refine(inv, obs, None, f"k{amount}", 0, True, FactBook(tool)))
    return out


def test_difficulty_reward(loan, make_engine):
    engine = make_engine([loan], _generator(), _task_model(), lam=1.0)
    solved, failed = asyncio.run(_examples(engine, loan))
    assert solved.solved and not failed.solved
    assert solved.r_q == failed.r_q == 3.0          # equally good examples
    assert (solved.r_e, failed.r_e) == (0.0, 1.0)
    assert failed.reward > solved.reward            # the one the task model fails ranks first
    assert solved.verified and solved.reflection == "Be less direct."


def test_easy_never_asks_the_task_model_nor_for_harder_requests(loan, make_engine):
    task = _task_model()
    engine = make_engine([loan], _generator(), task, lam=0.0)
    one, two = asyncio.run(_examples(engine, loan))
    assert not task.requests                                    # no R_e test at lambda 0
    assert one.reward == two.reward == one.r_q and one.r_e == 0.0
    reflections = [r for r in engine.generator.requests
                   if "How should the next request" in r.messages[-1]["content"]]
    assert reflections and all("harder" not in r.messages[0]["content"] for r in reflections)


def test_a_gated_request_gets_no_reward_and_no_task_model_call(loan, make_engine):
    task = _task_model()
    gen = _generator(query_for=lambda _t: "Run loan_payment(principal=20000) now")
    engine = make_engine([loan], gen, task)
    (ex,) = asyncio.run(_examples(engine, loan, (20000,)))
    assert ex.problems and ex.reward == 0.0 and not ex.verified and not task.requests


FX_ARGS = {"amount": 150, "from_currency": "EUR", "to_currency": "USD"}
SWAPPED = {**FX_ARGS, "from_currency": "USD", "to_currency": "EUR"}


def _fx_example(example_tools, make_engine, first_read, second_read):
    """The request asks for dollars to euros, the call is euros to dollars; the generator
    reads the request once with the facts doc and, to relabel, once with the doc m3 saw."""
    fx = next(t for t in example_tools if t.name == "convert_currency")
    reads = itertools.cycle([first_read, second_read])
    gen = FakeLM(rules=[(M3, {"query": "How much is 150 US dollars in euros?"}),
                        (REREAD, lambda request, i: next(reads)),
                        ("How should the next request", {"reflection": "Swap them."})])
    task = FakeLM(rules=[("150 US dollars", tool_call("convert_currency", SWAPPED))])
    engine = make_engine([fx], gen, task, evidence=READING)   # re-reading: off by default
    space = ExampleSpace(fx, engine)

    async def one():
        inv = Invocation("convert_currency", FX_ARGS)
        obs = await engine.runtime.run(inv)
        return await space._refine(inv, obs, None, "k", 0, True, FactBook(fx)), engine

    return asyncio.run(one())


def test_an_inconsistent_request_is_never_verified(example_tools, make_engine):
    """The second reading disagrees with the first: nothing determines the call."""
    ex, _ = _fx_example(example_tools, make_engine, SWAPPED, FX_ARGS)
    assert not ex.verified and ex.reward == 0.0 and "from_currency='USD'" in ex.rederived
    assert ex.invocation.arguments == FX_ARGS
    assert select_demos([ex], 3) == []


def test_a_request_read_twice_as_another_working_call_is_its_example(example_tools,
                                                                      make_engine):
    """Hindsight: both readings say dollars to euros, a call that works, so the request is a
    verified example of that call, with that call's own output."""
    ex, engine = _fx_example(example_tools, make_engine, SWAPPED, SWAPPED)
    assert ex.verified and ex.query == "How much is 150 US dollars in euros?"
    assert ex.invocation.arguments == SWAPPED
    expected = asyncio.run(engine.runtime.run(Invocation("convert_currency", SWAPPED)))
    assert ex.observation.output == expected.output != asyncio.run(
        engine.runtime.run(Invocation("convert_currency", FX_ARGS))).output


def test_a_relabelled_call_must_pass_the_gates_for_its_own_values(example_tools, make_engine):
    """A reading that changes a number the request states ("150" read as 15) is no label."""
    wrong = {**SWAPPED, "amount": 15}
    ex, _ = _fx_example(example_tools, make_engine, wrong, wrong)
    assert not ex.verified and ex.invocation.arguments == FX_ARGS


def test_query_checks_by_code():
    inv = Invocation("loan_payment", {"principal": 1500, "annual_rate": 4.5, "years": 5})
    good = check_query("I borrow 1,500 at 4.5 percent over 5 years; my payment?", inv)
    assert good.values_present == 1.0 and good.first_person and good.score() == 3.0
    vague = check_query("What would a small loan cost monthly over several years", inv)
    assert vague.values_present == 0.0 and not vague.first_person and vague.score() < 2.0
    assert value_in_text(1500, "a loan of 1,500 dollars") and not value_in_text(15, "150 km")
    assert value_in_text("new_york", "I live in New York")


def test_select_demos_prefers_reward_then_different_values_and_words(loan, make_engine):
    engine = make_engine([loan], _generator(), _task_model())
    solved, failed = asyncio.run(_examples(engine, loan))
    same_call = dataclasses.replace(failed, query="Totally different words for this loan",
                                    reward=failed.reward - 0.5)
    near = dataclasses.replace(solved, query="I need a loan of 20000 at 4.5 percent over 6 years",
                               invocation=Invocation("loan_payment", {"principal": 20000,
                                                                      "annual_rate": 4.5,
                                                                      "years": 6}))
    chosen = select_demos([solved, failed, same_call, near], 3)
    assert chosen[0] == failed                      # the highest reward first
    assert near not in chosen                       # reads like a chosen one (word overlap)
    assert select_demos([solved, failed], 1) == [failed]


def test_answers_are_written_only_for_the_demos(loan, make_engine):
    engine = make_engine([loan], _generator(), _task_model())
    solved, failed = asyncio.run(_examples(engine, loan))
    assert solved.answer == "" and failed.answer == ""
    (demo,) = asyncio.run(write_answers([failed], loan, engine))
    assert demo.answer.startswith("You would pay") and demo.demo().answer == demo.answer


def test_play_facts_reach_the_next_iteration_and_probes_run_once(loan, make_engine):
    calls = [{"principal": -5, "annual_rate": 4.5, "years": 5},
             {"principal": 900, "annual_rate": 4.5, "years": 5}]
    gen = FakeLM(rules=[("Write the arguments for a new call", lambda r, i: calls.pop(0))],
                 fill_schema=True)
    engine = make_engine([loan], gen, _task_model(), max_tries=1)
    space = ExampleSpace(loan, engine)

    async def two_rounds():
        await space.propose(None, 1, 0, ["a"])
        await space.end_iteration(0, [])
        await space.propose(None, 1, 1, ["b"])
        await space.end_iteration(0, [])

    asyncio.run(two_rounds())
    assert any("must be positive" in f.text for f in space.book.of("principal"))
    assert any("percentage" in f.text for f in space.book.of("annual_rate"))   # from a probe
    second = [r for r in gen.requests if "call to loan_payment" in r.messages[-1]["content"]][-1]
    assert "must be positive" in second.messages[-1]["content"]
    # probed from the failed call, then once more from the one that worked, never again
    starts = {c["payload"]["from"]["arguments"]["principal"]
              for c in engine.store.candidates(tool="loan_payment", stage="probe")}
    assert starts == {-5, 900}
    recorded = len(engine.store.candidates(tool="loan_payment", stage="probe"))
    asyncio.run(space.end_iteration(0, []))
    assert len(engine.store.candidates(tool="loan_payment", stage="probe")) == recorded
