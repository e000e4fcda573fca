"""Step 1's example rewards: R = R_q + lambda * R_e, with R_q checked by code."""

import asyncio

import pytest

from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.example_search import ExampleSpace, reads_like_code, select_demos
from play2prompt.method.rewards import check_query, value_in_text
from play2prompt.search import Node
from play2prompt.tools.model import Invocation


def _generator():
    def query(request, i):
        text = request.messages[-1]["content"]
        amount = "20000" if "20000" in text else "30000"
        return {"query": f"I need a loan of {amount} at 4.5 percent over 5 years"}

    return FakeLM(rules=[("Write the user's request", query),
                         ("Write the answer", {"answer": "You would pay about 373 a month."}),
                         ("How should the next request", {"reflection": "Be less direct."})])


def _task_model():
    return FakeLM(rules=[
        ("loan of 20000", tool_call("loan_payment", {"principal": 20000, "annual_rate": 4.5,
                                                     "years": 5})),
        ("loan of 30000", tool_call("loan_payment", {"principal": 3000, "annual_rate": 4.5,
                                                     "years": 5})),
    ])


async def _two_examples(engine, tool):
    space = ExampleSpace(tool, engine)
    out = []
    for amount in (20000, 30000):
        inv = Invocation("loan_payment", {"principal": amount, "annual_rate": 4.5, "years": 5})
        obs = await engine.runtime.run(inv)
        out.append(await space._refine(inv, obs, None, f"k{amount}", 0, True))
    return out


@pytest.mark.parametrize("lam", [1.0, 0.0])
def test_difficulty_reward(example_tools, make_engine, lam):
    tool = next(t for t in example_tools if t.name == "loan_payment")
    engine = make_engine([tool], _generator(), _task_model(), lam=lam)
    solved, failed = asyncio.run(_two_examples(engine, tool))
    assert solved.solved and not failed.solved
    assert solved.r_q == failed.r_q == 3.0          # equally good examples
    assert (solved.r_e, failed.r_e) == (0.0, 1.0)
    if lam > 0:
        assert failed.reward > solved.reward       # the one the task model fails ranks first
    else:
        assert failed.reward == solved.reward      # lambda = 0 ignores difficulty
    assert solved.verified and solved.reflection == "Be less direct."


def test_query_checks_by_code():
    inv = Invocation("convert_currency", {"amount": 250, "from_currency": "USD",
                                          "to_currency": "EUR"})
    names = ["amount", "from_currency", "to_currency"]
    good = check_query("I have 250 USD, how much is that in EUR?", inv, names, "About 231 EUR.")
    assert good.values_present == 1.0 and good.no_names and good.first_person and good.answer_ok
    bad = check_query("convert_currency from_currency USD", inv, names, "Error: failed")
    assert bad.values_present < 1 and not bad.no_names and not bad.first_person
    assert not bad.answer_ok and good.score() == 3.0 and bad.score() < 2.0
    assert value_in_text(1500, "a loan of 1,500 dollars") and not value_in_text(15, "150 km")
    assert value_in_text("new_york", "I live in New York")


def test_code_like_queries_are_detected():
    assert reads_like_code("call f(a=1)", "f") and reads_like_code("use tool_x now", "tool_x")
    assert not reads_like_code("I need 5 km in miles", "tool_x")
    assert reads_like_code("SELECT AVG(age) FROM singer WHERE country = 'US'", "t")
    assert reads_like_code("Run `lookup` for me", "t")
    assert not reads_like_code("Select the cheapest flight from Paris", "find_fare")


def test_select_demos_prefers_verified_distinct(example_tools, make_engine):
    tool = next(t for t in example_tools if t.name == "loan_payment")
    engine = make_engine([tool], _generator(), _task_model())
    solved, failed = asyncio.run(_two_examples(engine, tool))
    import dataclasses

    unverified = dataclasses.replace(failed, query="Something else entirely here", reward=9.0,
                                     checks={**failed.checks, "values_present": 0.0})
    nodes = [Node("a", unverified, 9.0, 0), Node("b", solved, solved.reward, 0),
             Node("c", failed, failed.reward, 0), Node("d", solved, solved.reward, 1)]
    demos = select_demos(nodes, 2)
    assert demos == [failed, solved]     # verified first, then reward; duplicates dropped


def test_select_demos_puts_requests_naming_the_tool_last(example_tools, make_engine):
    tool = next(t for t in example_tools if t.name == "loan_payment")
    engine = make_engine([tool], _generator(), _task_model())
    solved, failed = asyncio.run(_two_examples(engine, tool))
    import dataclasses

    leaky = dataclasses.replace(solved, query="Run loan_payment on 20000 at 4.5% for 5 years",
                                reward=9.0, invocation=failed.invocation)
    assert leaky.verified and not leaky.clean and solved.clean
    nodes = [Node("a", leaky, leaky.reward, 0), Node("b", solved, solved.reward, 0)]
    assert select_demos(nodes, 2) == [solved, leaky]
    assert select_demos(nodes, 1) == [solved]
