"""claim-check: a rewrite's stated default, checked by running the tool without the parameter
and with the claimed value; a refuted claim's sentence is taken out before the rewrite is
scored."""

import asyncio

import pytest

from play2prompt.evidence.claims import as_value, check_claims, claimed_default
from play2prompt.evidence.names import CLAIM_CHECK, DEFAULT_EVIDENCE, EVIDENCE
from play2prompt.lm.fake import FakeLM
from play2prompt.tools.model import Invocation, ToolDoc

CALL = Invocation("add_days", {"date": "2025-03-07", "days": 3})   # a Friday: weekdays matter


@pytest.fixture
def add_days(example_tools):
    return next(t for t in example_tools if t.name == "add_days")


def _doc(business_days: str) -> ToolDoc:
    return ToolDoc("Date calculator that returns the date and weekday.",
                   {"date": "Format: YYYY-MM-DD.", "days": "The number of days to add.",
                    "business_days": business_days})


def _check(make_engine, tool, doc, calls=(CALL,)):
    engine = make_engine([tool], FakeLM(), evidence=EVIDENCE)
    return asyncio.run(check_claims(doc, tool, engine, list(calls)))


def test_a_refuted_default_is_taken_out_and_a_true_one_kept(make_engine, add_days):
    wrong = _doc("A boolean indicating whether to consider business days. Defaults to True.")
    out = _check(make_engine, add_days, wrong)
    assert out.params["business_days"] == "A boolean indicating whether to consider business days."
    assert out.params["date"] == wrong.params["date"] and out.description == wrong.description
    right = _doc("Count only weekdays. Default: false.")
    assert _check(make_engine, add_days, right) == right


def test_nothing_left_falls_back_to_the_original_text(make_engine, add_days):
    out = _check(make_engine, add_days, _doc("Defaults to true."))
    assert out.params["business_days"] == add_days.doc.params.get("business_days", "")


def test_claims_no_call_can_test_are_left_as_written(make_engine, add_days):
    doc = _doc("Defaults to True.")
    assert _check(make_engine, add_days, doc, calls=()) == doc
    failing = Invocation("add_days", {"date": "not a date", "days": 3})
    assert _check(make_engine, add_days, doc, calls=(failing,)) == doc
    # a required parameter has no default to test
    required = ToolDoc("Date calculator.", {"date": "a date", "days": "Defaults to 7.",
                                            "business_days": ""})
    assert _check(make_engine, add_days, required) == required


def test_reading_claims():
    assert claimed_default("Count weekdays. Defaults to True.") == (" Defaults to True.", "True")
    assert claimed_default("The default value is 10 units.")[1] == "10"
    assert claimed_default("Paint needed. Defaults to 2.5 litres.") == (
        " Defaults to 2.5 litres.", "2.5")     # a decimal point ends no sentence
    assert claimed_default("Whether to count weekdays.") is None
    assert as_value("True", {"type": "boolean"}) is True
    assert as_value("maybe", {"type": "boolean"}) is None
    assert as_value("10", {"type": "integer"}) == 10
    assert as_value("2.5", {"type": "number"}) == 2.5
    assert as_value("km", {"type": "string", "enum": ["m", "cm"]}) is None
    assert as_value("cm", {"type": "string", "enum": ["m", "cm"]}) == "cm"
    assert as_value("the", {"type": "string"}) is None     # "defaults to the current date"


def test_on_by_default():
    assert CLAIM_CHECK in EVIDENCE and CLAIM_CHECK in DEFAULT_EVIDENCE
