"""Number comparisons stay correct, and never raise, for integers beyond float range.

Tools return such integers (BFCL's get_fibonacci_number, math_factorial) and models copy them
into later calls; a full BFCL sweep with Qwen2.5-Coder-0.5B stopped on
``OverflowError: int too large to convert to float`` before this."""

import pytest

from play2prompt.evidence.error_text import contains_value
from play2prompt.evidence.facts import FactBook
from play2prompt.method.rewards import (
    check_query,
    missing_numbers,
    said_as_percent,
    value_in_text,
)
from play2prompt.numeric import close, in_digits, parse_number, within
from play2prompt.scoring.match import ast_match, outputs_match, values_equal
from play2prompt.tools.model import Invocation, Observation


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


BIG = _fib(4181)          # 874 digits: float(BIG) raises OverflowError


def test_the_fixture_is_beyond_float_range():
    with pytest.raises(OverflowError):
        float(BIG)


def test_close_is_isclose_in_float_range_and_exact_beyond():
    assert close(25.0, 25) and not close(25.0001, 25)
    assert close(BIG, BIG) and close(BIG, BIG + 1)            # 1e-9 relative, as in range
    assert not close(BIG, 2 * BIG) and not close(BIG, -BIG)
    assert not close(BIG, 1.5) and not close(1e300, BIG)
    assert not close(BIG, float("inf")) and not close(BIG, float("nan"))


def test_within_is_relative_to_the_expected_value_for_any_size():
    assert within(119.0, 100, 0.2) and not within(121, 100, 0.2)
    assert within(BIG + BIG // 10, BIG, 0.2) and not within(2 * BIG, BIG, 0.2)
    assert within(0, 0, 0.2) and not within(BIG, 0, 0.2)


def test_parse_number_reads_long_integers_exactly():
    assert parse_number(str(BIG)) == BIG
    assert parse_number("1,250") == 1250 and parse_number("-3.5") == -3.5
    assert parse_number("abc") is None and parse_number("1e999") is None


def test_argument_and_output_matching_take_huge_integers():
    assert values_equal(BIG, BIG) and not values_equal(BIG, 7.5)
    assert ast_match(Invocation("f", {"n": BIG}), Invocation("f", {"n": BIG}))
    assert outputs_match({"value": BIG}, {"value": BIG}, "exact")
    assert not outputs_match(BIG, BIG * 3, "real_time")
    assert outputs_match(BIG, 4.0, "structural")


def test_a_request_is_checked_for_a_huge_value_it_does_or_does_not_state():
    assert value_in_text(BIG, f"Is {BIG} a Fibonacci number?")
    assert not value_in_text(BIG, "Find the 20th Fibonacci number.")
    assert value_in_text(20, f"The 20th one, not {BIG}.")
    checks = check_query("Find the 20th Fibonacci number.",
                         Invocation("get_fibonacci_number", {"n": BIG}))
    assert checks.missing_values == (str(BIG),)


def test_an_error_about_a_huge_argument_becomes_a_rejection(example_tools):
    assert contains_value(f"n={BIG} is too large", BIG)
    assert not contains_value("n must be at most 1000", BIG)
    tool = next(t for t in example_tools if t.name == "loan_payment")
    book = FactBook(tool)
    inv = Invocation("loan_payment", {"principal": BIG, "annual_rate": 5, "years": 30})
    book.observe(inv, Observation.failure("exception", f"ValueError: principal {BIG} too large"))
    assert book.rejected("principal") == {str(BIG)}


def test_a_number_said_in_words_is_the_number():
    # the request writer is told to say values in plain words: "seven days" states 7
    assert in_digits("Add seven days, then two thousand five hundred grams") == \
        "Add 7 days, then 2500 grams"
    assert value_in_text(7, "Add seven days to April 15")
    assert value_in_text(25, "the box with twenty-five items")
    assert not value_in_text(1, "the one with a hat")        # a pronoun, not a number
    assert not value_in_text(8, "Add seven days")
    assert said_as_percent(0.15, "with a fifteen percent tip")
    call = Invocation("add_days", {"date": "2023-04-15", "days": 7})
    assert missing_numbers("Add seven days to 2023-04-15", call) == []
    assert missing_numbers("Add a week to 2023-04-15", call) == ["7"]


def test_plain_number_keeps_every_digit_without_an_exponent():
    from play2prompt.numeric import plain_number
    for value, text in ((-122.4194, "-122.4194"), (2.0, "2"), (7, "7"), (1e-05, "0.00001"),
                        (1e16, "10000000000000000"), (123456789.123, "123456789.123")):
        assert plain_number(value) == text and float(text) == value
