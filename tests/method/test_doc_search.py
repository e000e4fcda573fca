"""Step 2: doc search, with the held-out guard against D0."""

import asyncio
import json

import pytest

from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.doc_search import doc_problems, evidence_doc, search_doc, split_examples
from play2prompt.method.example_search import Example
from play2prompt.tools.model import Invocation, ToolDoc

REWRITE = {"description": "REWRITTEN loan calculator returning the monthly payment.",
           "params": {"principal": "The loan amount in dollars.",
                      "annual_rate": "The yearly rate as a percentage, 5.5 means 5.5 %.",
                      "years": "The loan term in whole years."}}


def _examples(engine):
    async def build():
        out = []
        for k in range(1, 7):
            inv = Invocation("loan_payment", {"principal": 1000 * k, "annual_rate": 5,
                                              "years": k})
            obs = await engine.runtime.run(inv)
            out.append(Example("loan_payment", f"I borrow {1000 * k} at 5 percent for {k} years",
                               inv, obs, "ok", 3.0, 1.0, 4.0,
                               {"values_present": 1.0, "answer_ok": True}))
        return out

    return asyncio.run(build())


def _task_model(examples, correct_for):
    """Answers right exactly when ``correct_for(doc_is_rewrite, query)``."""
    by_query = {e.query: e.invocation for e in examples}

    def reply(request, i):
        rewritten = "REWRITTEN" in json.dumps(request.tools)
        query = request.messages[-1]["content"]
        inv = by_query[query]
        if correct_for(rewritten, query):
            return tool_call(inv.name, dict(inv.arguments))
        return tool_call(inv.name, {**inv.arguments, "years": 99})

    return FakeLM(default=reply)


def _generator():
    return FakeLM(rules=[("What should change", {"critique": "Say the rate is a percentage."}),
                         ("Write the improved documentation", REWRITE)])


@pytest.fixture
def tool(example_tools):
    return next(t for t in example_tools if t.name == "loan_payment")


def test_never_below_d0_on_held_out(tool, make_engine):
    engine = make_engine([tool], _generator(), FakeLM(), evidence_notes=False)
    examples = _examples(engine)
    train, hold = split_examples(examples, engine.config.holdout,
                                 (engine.config.seed, tool.name, "split"))
    held = {e.query for e in hold}
    # The rewrite wins every training example and loses every held-out one.
    engine.task_model = _task_model(examples, lambda rw, q: rw != (q in held))
    out = asyncio.run(search_doc(tool, engine, examples))
    assert out.scores["best_train"] > out.scores["d0_train"]
    assert out.scores["best_holdout"] < out.scores["d0_holdout"]
    assert not out.changed and out.doc == tool.doc and "held-out" in out.reason


def test_better_rewrite_is_chosen(tool, make_engine):
    engine = make_engine([tool], _generator(), FakeLM(), evidence_notes=False)
    examples = _examples(engine)
    engine.task_model = _task_model(examples, lambda rw, q: rw)
    out = asyncio.run(search_doc(tool, engine, examples))
    assert out.changed and out.doc.description.startswith("REWRITTEN")
    assert out.scores["best_holdout"] >= out.scores["d0_holdout"]
    docs = engine.store.candidates(tool="loan_payment", stage="doc")
    assert {c["state"] for c in docs} >= {"kept", "dropped"}


def test_too_few_examples_give_unscored_notes_or_d0(tool, make_engine):
    engine = make_engine([tool], _generator(), FakeLM())
    out = asyncio.run(search_doc(tool, engine, [], ["ValueError: unknown unit 'miles'"]))
    assert out.changed and "not scored: only 0 usable example" in out.reason
    assert "unknown unit 'miles'" in out.doc.description and not engine.task_model.requests
    assert asyncio.run(search_doc(tool, engine, [])).doc == tool.doc     # play saw nothing
    quiet = make_engine([tool], _generator(), FakeLM(), evidence_notes=False)
    out = asyncio.run(search_doc(tool, quiet, _examples(quiet)[:1], ["ValueError: x"]))
    assert not out.changed and out.doc == tool.doc and "usable example" in out.reason


def test_on_a_tie_the_notes_doc_beats_d0_and_d0_beats_a_rewrite(tool, make_engine):
    tool = tool.with_doc(ToolDoc("Loan calculator.", {"principal": "The amount borrowed.",
                                                      "annual_rate": "The yearly rate.",
                                                      "years": "The term in years."}))
    engine = make_engine([tool], _generator(), FakeLM())
    examples = _examples(engine)
    engine.task_model = _task_model(examples, lambda rw, q: True)     # every doc scores 1.0
    out = asyncio.run(search_doc(tool, engine, examples))
    assert out.changed and out.reason.startswith("notes from tool play")
    assert "Returns an object with monthly_payment" in out.doc.description
    plain = make_engine([tool], _generator(), FakeLM(), evidence_notes=False)
    plain.task_model = _task_model(_examples(plain), lambda rw, q: True)
    out = asyncio.run(search_doc(tool, plain, _examples(plain)))
    assert not out.changed and out.doc == tool.doc


def test_degenerate_rewrites_are_rejected():
    assert doc_problems(ToolDoc("Loan {{loan_payment(x", {"a": "Fine words here"}), "loan")
    assert doc_problems(ToolDoc("A good description of it.", {"a": "n/a"}), "loan")
    rep = "business days of " * 12
    assert doc_problems(ToolDoc(rep, {"a": "The amount."}), "loan")
    assert not doc_problems(ToolDoc("Computes a loan payment.", {"a": "The amount."}), "loan")


def test_evidence_doc_reports_what_play_showed(tool, make_engine):
    engine = make_engine([tool], _generator(), FakeLM())
    doc = evidence_doc(tool, _examples(engine)[:2], ["ValueError: principal must be positive"])
    assert "1000" not in doc.params["principal"] and "monthly_payment" in doc.description
    assert "principal must be positive" in doc.description


def test_evidence_doc_lists_text_values_that_ran_not_numbers(example_tools, make_engine):
    fx = next(t for t in example_tools if t.name == "convert_currency")
    engine = make_engine([fx], _generator(), FakeLM())
    inv = Invocation("convert_currency", {"amount": 12.5, "from_currency": "USD",
                                          "to_currency": "EUR"})
    obs = asyncio.run(engine.runtime.run(inv))
    ex = Example("convert_currency", "12.5 dollars in euros?", inv, obs, "ok", 3.0, 1.0, 4.0, {})
    doc = evidence_doc(fx, [ex])
    assert '"USD"' in doc.params["from_currency"] and '"EUR"' in doc.params["to_currency"]
    assert "12.5" not in json.dumps(doc.to_dict())
