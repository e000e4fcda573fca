import pytest

from play2prompt.lm._base import Choice, ToolCall
from play2prompt.scoring.match import ast_match, match_sets, outputs_match
from play2prompt.scoring.parse import ParseError, parse_calls
from play2prompt.tools.model import Invocation


@pytest.mark.parametrize("text, expected", [
    ("[f(a=1, b='x'), g(c=[1, 2])]", [("f", {"a": 1, "b": "x"}), ("g", {"c": [1, 2]})]),
    ("Sure! f(a=-2.5, flag=True)", [("f", {"a": -2.5, "flag": True})]),
    ('```json\n{"name": "f", "arguments": {"a": 1}}\n```', [("f", {"a": 1})]),
    ('[{"name": "f", "arguments": "{\\"a\\": 2}"}]', [("f", {"a": 2})]),
    ('{"calls": [{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"x": 1}}]}',
     [("f", {}), ("g", {"x": 1})]),
    ("math.sqrt(x=4)", [("math.sqrt", {"x": 4})]),
])
def test_parse_calls(text, expected):
    assert [(c.name, dict(c.arguments)) for c in parse_calls(text)] == expected


def test_parse_native_and_failures():
    choice = Choice("", (ToolCall("f", '{"a": 1}'),))
    assert parse_calls(choice) == [Invocation("f", {"a": 1})]
    for bad in ("", "I cannot help with that.", "{not json"):
        with pytest.raises(ParseError):
            parse_calls(bad)


def test_ast_match_normalises():
    schema = {"properties": {"unit": {"type": "string", "default": "km"}}}
    gold = Invocation("f", {"x": 2, "name": "Paris"})
    assert ast_match(Invocation("f", {"x": 2.0, "name": " paris "}), gold)
    assert not ast_match(Invocation("f", {"x": 3, "name": "Paris"}), gold)
    assert not ast_match(Invocation("g", {"x": 2, "name": "Paris"}), gold)
    assert ast_match(Invocation("f", {"unit": "km"}), Invocation("f", {}), schema)


def test_output_match_types():
    assert outputs_match({"a": [1, 2.0]}, {"a": [1.0, 2]}, "exact")
    assert not outputs_match(100, 101, "exact")
    assert outputs_match(118, 100, "real_time") and not outputs_match(121, 100, "real_time")
    assert outputs_match({"t": 5, "k": "x"}, {"t": 9, "k": "y"}, "structural")
    assert not outputs_match({"t": 5}, {"u": 5}, "structural")
    assert not outputs_match([1, 2], [1], "structural")
    with pytest.raises(ValueError):
        outputs_match(1, 1, "fuzzy")


def test_parallel_matching_ignores_order_but_not_count():
    eq = lambda a, b: a == b  # noqa: E731
    assert match_sets([1, 2, 3], [3, 1, 2], eq)
    assert not match_sets([1, 1, 2], [1, 2, 2], eq)
    assert not match_sets([1, 2], [1, 2, 3], eq)
