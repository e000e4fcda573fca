"""Reading JSON out of what a model wrote: whole text, fenced block, first object."""
import pytest

from play2prompt.jsonutil import extract_json


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('Here:\n```json\n{"a": 1}\n```', {"a": 1}),
    ('```\n[1, 2]\n```', [1, 2]),
    ('```{"a": 1}```', {"a": 1}),               # a fence with no newline in it
    ('```json```then {"b": 2}', {"b": 2}),       # an empty labelled fence, JSON after it
    ('say ```json``` and ```json``` {"c": 3}', {"c": 3}),
    ('noise {"d": [1, {"e": 2}]} trailing', {"d": [1, {"e": 2}]}),
])
def test_extract_json_finds_the_value(text, expected):
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "```json```", "no json here", "```json\n{bad```"])
def test_extract_json_says_what_it_could_not_read(text):
    with pytest.raises(ValueError):
        extract_json(text)
