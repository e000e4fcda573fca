"""Sibling contrast: where the tool-set check sees a tool's requests go to another tool, both
docs say what sets the two apart (written by code from the parameters they do not share and
the wronged example's call), kept only where the set then gets more examples right."""

import asyncio
import json

import pytest

from play2prompt.lm.fake import FakeLM
from play2prompt.method.contrast import confusions, sentences
from play2prompt.method.set_rounds import SetAnswer
from play2prompt.method.tool_set_check import check_tool_set
from play2prompt.tools.model import Invocation
from tests.method.test_tool_set_check import _cases, _entry, _task


@pytest.fixture
def tools(example_tools):
    by_name = {t.name: t for t in example_tools}
    return by_name["loan_payment"], by_name["convert_units"]


def test_the_sentences_name_what_one_tool_takes_and_the_other_does_not(tools):
    loan, units = tools
    call = Invocation("loan_payment", {"principal": 2000, "annual_rate": 5, "years": 2})
    mine, theirs = sentences(loan, units, call)
    assert mine == ("Use it for a request that gives principal, annual_rate, years (e.g. "
                    "principal=2000, annual_rate=5); `convert_units` takes value, from_unit, "
                    "to_unit.")
    assert theirs == "For a request that gives principal, annual_rate, years, use " \
        "`loan_payment`."
    assert sentences(loan, loan, call) is None          # nothing sets them apart


def test_confusions_count_the_other_tool_a_wrong_answer_called(tools, make_engine):
    engine = make_engine(list(tools), FakeLM())
    cases = _cases(engine, 3)
    answers = [SetAnswer(False, ("convert_units",)), SetAnswer(True, ("loan_payment",)),
               SetAnswer(False, ())]
    assert confusions(cases, answers) == {"loan_payment": {"convert_units": 1}}


def _check(tools, make_engine, rule):
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine)
    engine.task_model = _task(rule)
    return asyncio.run(check_tool_set(engine, [_entry(loan), _entry(units)], cases, True))


def test_sentences_that_bring_the_requests_back_are_kept(tools, make_engine):
    check = _check(tools, make_engine,
                   lambda docs, q: None if "use `loan_payment`" in docs else "convert_units")
    assert check.before == 0.0 and check.after == 1.0
    assert set(check.contrasted) == {"loan_payment", "convert_units"}
    assert check.to_dict()["contrast"]["kept"] is True


def test_sentences_that_change_nothing_are_not_kept(tools, make_engine):
    check = _check(tools, make_engine, lambda docs, q: "convert_units")
    assert check.after == 0.0 and check.contrasted == {}
    assert check.contrast is not None and not check.contrast.kept
    assert json.dumps(check.to_dict())                      # the meta stays JSON


def test_a_kept_sentence_is_added_to_the_doc_the_result_ships(tools, make_engine):
    from play2prompt.results import ToolResult
    from play2prompt.set_check_run import contrasted_results
    check = _check(tools, make_engine,
                   lambda docs, q: None if "use `loan_payment`" in docs else "convert_units")
    loan, units = tools
    results = {t.name: ToolResult(t.name, t, t.doc, (), False, "kept the original") for t in
               (loan, units)}
    out = contrasted_results(results, check)
    assert out["convert_units"].doc.description.endswith("use `loan_payment`.")
    assert out["loan_payment"].doc_changed and "sets it apart" in out["loan_payment"].doc_reason
    assert out["loan_payment"].doc.params == loan.doc.params
