"""Everyday forms made by code from a fact (Step 1b): another unit of the same dimension, a
percentage, a date or a time as people write them; and whether a request says the form."""

import pytest

from play2prompt.evidence.everyday import everyday_form, everyday_forms, tool_unit

BMI_RULE = ("Height is in centimetres. Weight and height must be positive. '1.7' is rejected "
            "(height looks like metres).")


@pytest.mark.parametrize("value, rule, text", [
    (180, BMI_RULE, "1.8 metres"),                    # the unit said after "in", not "like"
    (1.75, "height in metres", "175 centimetres"),
    (1500, "weight in grams", "1.5 kilograms"),
    (90, "duration in minutes", "1.5 hours"),
    (5, "annual_rate is a percentage between 0 and 100.", "5 %"),
    (0.045, "rate as a fraction between 0 and 1", "4.5 %"),
    ("2023-04-15", "Format: YYYY-MM-DD.", "April 15, 2023"),
    ("18:30", "Format: HH:MM.", "6:30 pm"),
    ("00:00", "Format: HH:MM.", "12 am"),
    ("km", "unit name. One of: cm, ft, km, m.", "kilometres"),   # a listed unit code
    (0.15, "Tip must be between 0 and 1.", "15 %"),     # bounded by 0 and 1: a fraction
    (0.3, "p in [0, 1]", "30 %"),
])
def test_a_fact_gives_the_form_people_say(value, rule, text):
    form = everyday_form(value, rule)
    assert form is not None and form.text == text
    assert form.said_in(f"Could you do it for {text} please?")


@pytest.mark.parametrize("value, rule", [
    (300000, "Principal and years must be positive."),   # a range: no other form
    (70, "weight in kg"),                                 # already the everyday unit
    (7, "height in centimetres and metres"),              # two units: which one is unclear
    (1234.5678, "length in millimetres"),                 # not a clean conversion
    (True, "a percentage"),
    ("USD", "One of: EUR, USD."),                         # codes: the generator's to say
    ("yd", "One of: ft, yd."),                            # a unit the data does not name
    ("in", "height in metres"),                           # a word of the rule, not listed
    ("2023-02-30", "Format: YYYY-MM-DD."),                # no such day
    (40, "Score must be between 0 and 100."),             # 0-100 may be a count: no unit
    (3, "zone must be 1-5"),
    (0.15, "between 0 and 1.5"),
])
def test_no_form_where_the_fact_gives_none(value, rule):
    assert everyday_form(value, rule) is None


def test_a_request_must_say_the_form_not_something_near_it():
    height = everyday_form(180, BMI_RULE)
    assert height.said_in("I am 1.8 m tall") and height.said_in("I'm 1.80 metres tall")
    assert not height.said_in("I'm 180 cm tall") and not height.said_in("I'm 1.8 tall")
    rate = everyday_form(5, "a percentage")
    assert rate.said_in("at 5% a year") and rate.said_in("at 5 percent")
    assert rate.as_given_ok and not rate.said_in("at 0.05")
    day = everyday_form("2023-04-15", "")
    assert day.said_in("7 days after April 15, 2023") and not day.said_in("after 2023-04-15")
    evening = everyday_form("18:30", "")
    assert evening.said_in("at 6:30 p.m.") and not evening.said_in("at 18:30")
    assert tool_unit(BMI_RULE) == "cm" and tool_unit("is a percentage") == "percent"
    unit = everyday_form("km", "One of: km, m.")
    assert unit.said_in("5 kilometres in miles") and unit.said_in("5 km in miles")  # the gate
    # then refuses "km" as written (fact_tests.says_as_given); the form only checks the name


def test_a_temperature_scale_code_among_accepted_values_is_said_by_its_name():
    scale = everyday_form("F", "One of: C, F, K.")
    assert scale is not None and scale.text == "degrees Fahrenheit"
    assert scale.said_in("What is 100 degrees Fahrenheit in Celsius?")
    assert not scale.said_in("What is 100 F in C?")
    assert everyday_form("F", "One of: A, B.") is None        # not among the values listed
    assert tool_unit("Temperature is in kelvin.") == "K"


def test_a_negative_number_is_said_by_its_size_and_a_word_of_the_other_way():
    from play2prompt.evidence.everyday import sign_form

    back = sign_form(-14)
    assert back.said_in("two weeks? no: 14 days before Christmas")
    assert back.said_in("5 degrees below zero") is False              # not its size
    assert not back.said_in("14 days after Christmas") and not back.said_in("-14 days")
    assert sign_form(14) is None and sign_form(True) is None


def test_bounds_of_0_and_1_say_fraction_only_where_no_unit_is_named():
    assert tool_unit("tip must be between 0 and 1") == "fraction"
    assert tool_unit("from 0.0 to 1.0") == "fraction"
    assert tool_unit("rate as a percentage between 0 and 1") == "percent"   # named wins
    assert tool_unit("between 0 and 10") is None and tool_unit("10-15 items") is None


def test_a_share_is_said_as_a_ratio_too_rounded_to_a_whole_count():
    """A percentage is said as "86 %" and as "43 out of 50"; a fraction the tool takes as
    "15 %" and "3 out of 20"; a share play wrote unround says the round one nearest to it and
    carries that value (the test's call then takes it); each form is checked in the request."""
    assert [f.text for f in everyday_forms(86, "score is a percentage")] == [
        "86 %", "43 out of 50"]
    assert [f.text for f in everyday_forms(0.15, "Tip must be between 0 and 1.")] == [
        "15 %", "3 out of 20"]
    assert everyday_forms(86, "score is a percentage")[1].value is None
    rounded = everyday_forms(85.5, "score is a percentage")[1]
    assert (rounded.text, rounded.value) == ("17 out of 20", 85)
    assert everyday_forms(0.33, "p in [0, 1]")[1].value == 0.325         # 13 out of 40
    assert everyday_forms(90, "score is a percentage")[1].text == "9 out of 10"
    assert everyday_forms(5, "rate is a percentage")[1].text == "1 out of 20"
    ratio = everyday_forms(86, "score is a percentage")[1]
    assert ratio.said_in("I scored 43 out of 50") and ratio.said_in("43/50 on the test")
    assert not ratio.said_in("I scored 43 and 50 people")
    assert everyday_forms(175, "Height is in centimetres")[0].text == "1.75 metres"
    assert everyday_forms(100, "score is a percentage")[1:] == []   # 100 % is no share


def test_a_count_a_year_is_said_as_how_often_where_the_name_says_it_counts_one():
    quarterly = everyday_forms(4, "One of: 1, 2, 4, 12.", "compounding", "compounding")
    assert [f.text for f in quarterly] == ["quarterly"]
    form = quarterly[0]
    assert form.said_in("5,000 at 3 %, compounded quarterly, for 5 years")
    assert form.said_in("interest added every three months")
    assert not form.said_in("5,000 at 3 %, compounded monthly")
    assert "times a year" in form.standard and "4 for quarterly" in form.standard
    assert everyday_forms(12, "", "payments per year", "payments_per_year")[0].text == "monthly"
    assert everyday_forms(4, "", "years", "years") == []            # not a count a year
    assert everyday_forms(5, "", "compounding", "compounding") == []  # no word for 5 a year
