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


def test_a_json_scan_sees_brackets_outside_strings_and_a_string_left_open():
    from play2prompt.jsonutil import scan_json

    done = scan_json('{"a": "[x\\"]", "b": [1]}')
    assert [c for _, c in done.brackets] == ["{", "[", "]", "}"]
    assert done.open_string == -1 and not done.escaped
    cut = scan_json('{"a": [1, "te\\')
    assert [c for _, c in cut.brackets] == ["{", "["] and cut.open_string == 10 and cut.escaped
