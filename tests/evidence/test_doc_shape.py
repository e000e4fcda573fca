"""A doc's shape (:mod:`play2prompt.evidence.doc_shape`): a parameter listing in the
description, a parameter's text that is its type alone, a stray script; each a rewrite's
reason to be drawn again and a shipped doc's problem."""

from __future__ import annotations

from play2prompt.evidence.doc_shape import (
    MIXED_SCRIPT,
    PARAM_LIST,
    TYPE_ONLY,
    listed_params,
    shape_problems,
    stray_script,
    type_only,
)
from play2prompt.method.doc_search import doc_problems
from play2prompt.tools.model import ToolDoc

# run s72j's utc_timestamp doc, as it shipped (the description cut at 600 characters)
S72J = ("Timestamp for a UTC date and time.\nParameters:\n"
        "  - year (integer, required): year must be between 1 and 9999.\n"
        "  - month (integer, required): `month` counts from 0: 0 is January, 11 is December.\n"
        "  - second (integer, optional): Optional; defaults to 0 (a call without it gave the "
        "same结果")


def test_a_description_that_lists_parameters_with_types_is_a_listing():
    assert listed_params(S72J) == ["year", "month", "second"]
    assert listed_params("1. `page` (int): the page\n2. per_page (int): its size") == [
        "page", "per_page"]
    # prose that names a parameter, or a type in parentheses mid-sentence, lists nothing
    assert listed_params("The year (an integer) and the month, counted from 0.") == []
    assert listed_params("Returns the amount (integer cents) charged.") == []


def test_a_type_alone_says_nothing_the_schema_does_not():
    for text in ("integer, required", "Integer.", "string, optional", "an integer"):
        assert type_only(text), text
    for text in ("integer, optional, defaults to 0", "the day of the month", "", "Required."):
        assert not type_only(text), text


def test_a_cjk_run_in_english_text_is_stray_but_a_cjk_doc_is_not():
    assert stray_script(S72J) == "结果"
    assert stray_script("返回给定日期的时间戳") is None
    assert stray_script("Timestamp for a date.") is None


def test_each_slip_is_named_by_kind_and_field():
    found = shape_problems(S72J, {"year": "integer, required", "day": "the day of the month"})
    assert [(k, f) for k, f, _ in found] == [(PARAM_LIST, ""), (MIXED_SCRIPT, ""),
                                            (TYPE_ONLY, "year")]


def test_a_rewrite_with_such_a_slip_is_drawn_again():
    doc = ToolDoc(S72J, {"year": "integer, required", "month": "The month, counted from 0."})
    found = doc_problems(doc, "utc_timestamp")
    assert any("parameter-list" in p for p in found)
    assert any(p.startswith("parameter year: type-only") for p in found)
    clean = ToolDoc("The Unix timestamp in milliseconds of a UTC date and time.",
                    {"year": "Four-digit year.", "month": "The month, counted from 0."})
    assert doc_problems(clean, "utc_timestamp") == []
