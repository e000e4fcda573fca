"""Docs in the accepted form: leftovers of patterns, of the interpreter and of the probes, and
repeats, found and taken out; refusal-only texts reported (issue 72, item 6)."""

from __future__ import annotations

import pytest

from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import PROBE_WORD, Fact, FactBook, facts_doc
from play2prompt.evidence.hygiene import (
    INTERNAL,
    PROBE,
    QUOTED,
    REFUSAL,
    REGEX,
    REPEATED,
    UNASKED_EXAMPLE,
    cleaned,
    problems,
    refused_text,
    split_sentences,
)
from play2prompt.evidence.reshape import CODE_FORMS
from play2prompt.tools.model import Tool, ToolDoc


def _kinds(text: str, description: str = "Computes it.", tool: Tool | None = None) -> list[str]:
    return [p.kind for p in problems(ToolDoc(description, {"p": text}), tool)]


@pytest.mark.parametrize("text", [
    "2 for semi-?annually.", "Colou?r name.", "Digits like \\d+ only.", "A code (?:EU|US).",
    "Any text but [^0-9].", "Anything .* goes.", "Units (kg|lb).", "Repeated x{2,4}.",
    "Case (?i) aside."])
def test_regex_fragments_are_leftovers(text):
    assert _kinds(text) == [REGEX]


@pytest.mark.parametrize("text", [
    "Compounded semi-annually.", "A rate from 0-100.", "Costs $5.", "A date, e.g. 2024-01-01.",
    "Is it late? Yes.", "See https://example.com/api?key=1 for keys.", "Match 'a.*b' or '\\d'.",
    "A regular expression such as ^\\d{3}$.", "A path like C:\\data\\files.", "Weight in kg/m2."])
def test_plain_text_quoted_patterns_and_pattern_docs_are_fine(text):
    assert _kinds(text) == []


@pytest.mark.parametrize("text", [
    "int() argument must be a string, a bytes-like object or a real number, not 'complex'.",
    "invalid literal for int() with base 10: 'x'.", "'NoneType' object is not subscriptable.",
    "unsupported operand type(s) for +: 'int' and 'str'.",
    "Traceback (most recent call last): boom.", "f() takes 2 positional arguments but 3 were "
    "given.", "Raised by numpy.core._exceptions when it fails."])
def test_interpreter_messages_are_leftovers(text):
    assert _kinds(text) == [INTERNAL]


@pytest.mark.parametrize("text", [
    "A list index, counted from 0.", "Division by zero gives an error.",
    "Takes keyword arguments only.", "An object of type person."])
def test_prose_about_operations_is_fine(text):
    assert _kinds(text) == []


def test_the_probe_word_and_probe_literals_are_leftovers():
    assert {PROBE_WORD, "lambda *args: 0"} == set(words("doc_words.json")["probe_values"])
    assert "lambda *args: 0" in CODE_FORMS
    assert _kinds(f"'{PROBE_WORD}' is rejected.") == [PROBE]
    assert _kinds(f"Unknown: {PROBE_WORD.upper()}.") == [PROBE]
    assert _kinds("For example: lambda *args: 0.") == [PROBE]
    assert _kinds(f"A code like {PROBE_WORD}ab or lambda x: x * 2.") == []


def test_a_sentence_said_twice_in_a_text_or_in_the_description_and_a_parameter():
    assert _kinds("Rate in percent. rate  in PERCENT.") == [REPEATED]
    doc = ToolDoc("Loan cost. Weight must be positive.", {"w": "Weight must be positive.",
                                                         "h": "Weight must be positive."})
    assert [(p.kind, p.field) for p in problems(doc)] == [(REPEATED, "")]   # params: their rule
    assert _kinds("Required. Required.") == []                              # too short to count
    out = cleaned(doc)
    assert out.description == "Loan cost." and out.params == doc.params


def test_refusal_only_texts_are_reported_not_taken_out():
    alone = ["the value. Negative values work too (e.g. principal=-1000).",
             "'-3' is not accepted."]
    for text in alone:
        assert _kinds(text) == [REFUSAL]
        assert cleaned(ToolDoc("Tool.", {"p": text})).params["p"] == text
    said = ["height. Height is in centimetres. '1.75' is rejected (height looks like metres).",
            "A number between 0 and 100. '150' is rejected."]
    for text in said:
        assert _kinds(text) == []
        assert cleaned(ToolDoc("Tool.", {"p": text})).params["p"] == text
    enum = Tool("t", "Tool.", {"type": "object", "properties": {
        "p": {"type": "integer", "enum": [1, 2]}}})
    assert _kinds(alone[1], tool=enum) == []          # the schema says what it takes


def test_a_refused_text_is_taken_out_it_is_copied():
    """The 1.5B copies a value a doc quotes, refused or not (roll='end' in 6 of 8 calls of
    examples/silent's busday_offset, run s72f): a quoted text refused goes, with or without
    a statement of what is accepted; D0's own sentence stays."""
    for text, left in (("method. 'mean' is rejected (unknown method).", "method."),
                       ("country. 'Canada' is rejected (no rates). For example: 'US'.",
                        "country. For example: 'US'."),
                       ("'x' is not accepted.", "")):
        assert _kinds(text) == [QUOTED]
        assert cleaned(ToolDoc("Tool.", {"p": text})).params["p"] == left
    doc = ToolDoc("Tool.", {"p": "'x' is not accepted."})
    assert cleaned(doc, original=doc).params["p"] == "'x' is not accepted."


def test_a_refusal_beside_the_listed_values_is_taken_out():
    doc = ToolDoc("Tool.", {"p": "method. One of: sum, avg. 'mean' is rejected (unknown)."})
    assert cleaned(doc).params["p"] == "method. One of: sum, avg."
    assert cleaned(doc, original=doc).params["p"] == doc.params["p"]   # D0's own stays


def test_cleaning_keeps_a_clean_doc_and_the_original_doc_s_sentences():
    clean = ToolDoc("Converts units.", {"value": "the value, e.g. 2.5.", "unit": "One of: m, ft."})
    assert cleaned(clean) is clean
    d0 = ToolDoc("Converts units.", {"value": "the value", "unit": "unit (m|ft)"})
    doc = ToolDoc("Converts units.", {"value": "the value. 2 for semi-?annually.",
                                      "unit": "unit (m|ft). One of: m, ft."})
    out = cleaned(doc, d0)
    assert out.params == {"value": "the value.", "unit": "unit (m|ft). One of: m, ft."}
    assert cleaned(out, d0) == out and problems(cleaned(doc)) == []


def test_sentences_end_at_a_period_not_after_an_abbreviation_or_inside_parentheses():
    assert split_sentences("A value (e.g. 1.75. or 2). Then more! Last, i.e. this.") == [
        "A value (e.g. 1.75. or 2).", "Then more!", "Last, i.e. this."]
    assert split_sentences("") == []


def test_the_facts_doc_is_cleaned():
    tool = Tool("loan", "Loan cost.", {"type": "object", "properties": {
        "periods": {"type": "integer", "description": "periods a year"}}})
    book = FactBook(tool, [
        Fact("periods", "rule", "periods takes the number of times a year (2 for "
             "semi-?annually).", (), "", "c1"),
        Fact("periods", "rule", "Periods must be at least 1.", (), "", "c2")])
    assert facts_doc(tool, book).params["periods"] == (
        "periods a year. Periods must be at least 1. periods takes the number of times a year.")


def test_a_leftover_in_parentheses_goes_with_them_the_sentence_stays():
    text = ("inflation takes at least `years` items (years=20 with 3 items failed (list index "
            "out of range)). '1+2j' is rejected (int() argument must be a real number).")
    assert _kinds(text) == [INTERNAL, INTERNAL]
    assert cleaned(ToolDoc("Tool.", {"p": text})).params["p"] == (
        "inflation takes at least `years` items (years=20 with 3 items failed).")
    twice = "A rate. A rate (2 for semi-?annually)."
    assert cleaned(ToolDoc("Tool.", {"p": twice})).params["p"] == "A rate."


def test_example_texts_beside_leave_it_out_are_taken_out():
    leave = "Optional; leave it out when the request does not give it (a call without it ran)."
    doc = ToolDoc("Create a charge.", {
        "description": f"{leave} For example: 'Additional charge for order #5678'.",
        "currency": "For example: 'EUR', 'usd'."})
    assert [(p.kind, p.field) for p in problems(doc)] == [(UNASKED_EXAMPLE, "description")]
    out = cleaned(doc)
    assert out.params == {"description": leave, "currency": "For example: 'EUR', 'usd'."}
    assert problems(out) == [] and cleaned(out) == out
    d0 = ToolDoc("Create a charge.", {"description": "For example: 'Coffee'."})   # D0's own
    mine = ToolDoc("x", {"description": f"{leave} For example: 'Coffee'."})
    assert "'Coffee'" in cleaned(mine, d0).params["description"]


def test_a_string_parameters_refused_digits_are_a_refused_text():
    tool = Tool("busday_count", "Count business days.", {"type": "object", "properties": {
        "weekmask": {"type": "string"}, "height": {"type": "number"}}})
    said = "'00011111111' is rejected (invalid business day weekmask string)."
    scale = "'1.75' is rejected (height looks like metres)."
    doc = ToolDoc("Count business days.", {"weekmask": f"Optional. {said}", "height": scale})
    assert [(p.kind, p.field) for p in problems(doc, tool)] == [(QUOTED, "weekmask"),
                                                                (REFUSAL, "height")]
    assert cleaned(doc, tool=tool).params == {"weekmask": "Optional.", "height": scale}
    assert refused_text(said, text=True) and not refused_text(said)
