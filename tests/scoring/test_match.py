"""BFCL's executable match semantics: exact, real-time (20 %), structural, REST, sets."""

import asyncio

import pytest

from play2prompt.scoring.checker import check_calls
from play2prompt.scoring.match import match_sets, outputs_match
from play2prompt.scoring.parse import parse_python_calls
from play2prompt.tools.model import Invocation, Observation


def test_exact_match_is_equality():
    assert outputs_match(25.0, 25, "exact")
    assert outputs_match([1, 2, {"a": "x"}], [1, 2, {"a": "x"}], "exact")
    assert not outputs_match(25.0001, 25, "exact")
    assert not outputs_match([1, 2], [2, 1], "exact")
    assert not outputs_match({"a": 1}, {"a": 1, "b": 2}, "exact")
    assert not outputs_match("Paris", "paris", "exact")


def test_real_time_match_allows_twenty_percent_on_numbers():
    assert outputs_match(119.0, 100, "real_time")
    assert outputs_match(81, 100, "real_time")
    assert not outputs_match(121, 100, "real_time")
    assert not outputs_match(79.9, 100, "real_time")
    assert outputs_match(-110, -100, "real_time")
    assert outputs_match({"amount": 54.5, "currency": "USD"},
                         {"amount": 54.0, "currency": "USD"}, "real_time")
    assert not outputs_match({"amount": 54.5, "currency": "GBP"},
                             {"amount": 54.0, "currency": "USD"}, "real_time")


def test_structural_match_compares_type_keys_and_length():
    assert outputs_match({"temp": 3.5, "unit": "C"}, {"temp": -1.0, "unit": "F"}, "structural")
    assert not outputs_match({"temp": 3.5}, {"temp": 3.5, "unit": "C"}, "structural")
    assert outputs_match([1, 2, 3], [7, 8, 9], "structural")
    assert not outputs_match([1, 2], [7, 8, 9], "structural")
    assert outputs_match(12.5, 80.1, "structural")
    assert not outputs_match("12.5", 80.1, "structural")


def test_rest_match_compares_the_json_structure_with_the_recorded_response():
    recorded = {"Zones": [{"TimezoneId": "Europe/Paris"}], "Safezone": 1.5}
    assert outputs_match({"Zones": [], "Safezone": 0.2}, recorded, "rest")
    assert not outputs_match({"Zones": []}, recorded, "rest")
    assert not outputs_match([recorded], recorded, "rest")
    rows = [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert outputs_match([{"a": 0, "b": 0}, {"a": 9, "b": 9}], rows, "rest")
    assert not outputs_match([{"a": 0}, {"a": 9, "b": 9}], rows, "rest")
    assert not outputs_match([{"a": 0, "b": 0}], rows, "rest")


def test_unknown_match_type_is_an_error():
    with pytest.raises(ValueError, match="unknown match type"):
        outputs_match(1, 1, "fuzzy")


def test_sets_match_in_any_order_one_to_one():
    eq = lambda p, g: p == g  # noqa: E731
    assert match_sets([3, 1, 2], [1, 2, 3], eq)
    assert not match_sets([1, 1, 2], [1, 2, 2], eq)
    assert not match_sets([1, 2], [1, 2, 3], eq)
    # a greedy first-fit pairing ("x" takes "any") would fail here; the pairing backtracks
    loose = lambda p, g: p == g or g == "any"  # noqa: E731
    assert match_sets(["x", "y"], ["any", "x"], loose)
    assert match_sets(["y", "x"], ["any", "x"], loose)
    assert not match_sets(["y", "z"], ["any", "x"], loose)


class _Runtime:
    """Executes invocations with plain Python functions (no tool files needed)."""

    def __init__(self, functions):
        self.functions = functions
        self.tools = {}

    async def run(self, inv):
        try:
            return Observation.success(self.functions[inv.name](**inv.arguments))
        except Exception as exc:  # noqa: BLE001
            return Observation.failure("exception", str(exc))


def _check(pred, gold, match="exact", **kw):
    runtime = _Runtime({"area": lambda b, h: b * h / 2, "grow": lambda x, r: x * (1 + r)})
    return asyncio.run(check_calls(pred, gold, runtime, match=match, require_exec=True, **kw))


def test_parallel_calls_match_by_execution_in_any_order():
    gold = [Invocation("area", {"b": 3, "h": 4}), Invocation("area", {"b": 6, "h": 8})]
    swapped = [Invocation("area", {"b": 6, "h": 8}), Invocation("area", {"b": 4, "h": 3})]
    out = _check(swapped, gold)
    assert out.correct and out.exec_ok and not out.ast_ok  # same outputs, other arguments
    assert not _check(gold[:1], gold).correct
    wrong = [Invocation("area", {"b": 6, "h": 8}), Invocation("area", {"b": 3, "h": 5})]
    assert not _check(wrong, gold).correct


def test_match_types_per_expected_call():
    gold = [Invocation("area", {"b": 2, "h": 2}), Invocation("grow", {"x": 100, "r": 0.1})]
    near = [Invocation("grow", {"x": 100, "r": 0.2}), Invocation("area", {"b": 2, "h": 2})]
    assert _check(near, gold, match=["exact", "real_time"]).correct
    assert not _check(near, gold, match="exact").correct
    with pytest.raises(ValueError):
        _check(near, gold, match=["exact"])


def test_expected_outputs_given_and_failed_calls():
    gold = [Invocation("area", {"b": 2, "h": 2})]
    assert _check(gold, gold, expected_outputs=[2.0]).correct
    assert not _check(gold, gold, expected_outputs=[3.0]).correct
    failing = _check([Invocation("area", {"b": 2})], gold)
    assert not failing.correct and failing.error.startswith("call failed")


def test_python_calls_with_constant_arithmetic():
    (call,) = parse_python_calls("calc(n=6, p=1 / 6, q=-2 ** 3, t=(1, 2), name=x)")
    assert call.arguments["p"] == pytest.approx(1 / 6)
    assert call.arguments["q"] == -8
    assert call.arguments["t"] == (1, 2)
    (big,) = parse_python_calls("f(x=10 ** 100000, y=1 / 0)")
    assert big.arguments == {"x": "10 ** 100000", "y": "1 / 0"}
