"""The expression check of a description (``evidence/formula.py``): a model's expression is
evaluated in a sandboxed child on the calls' arguments and compared with the tool's outputs;
hostile or runaway expressions come back as misses, never as effects."""

from __future__ import annotations

import pytest

from play2prompt.evidence.formula import check, checkable, evaluate, names_any, same

GCD = [("f(a=15, b=9)", {"a": 15, "b": 9}, 3), ("f(a=42, b=13)", {"a": 42, "b": 13}, 1),
       ("f(a=12, b=8)", {"a": 12, "b": 8}, 4)]


def test_the_right_operation_holds_and_a_wrong_one_is_told_where_it_missed():
    assert check("math.gcd(a, b)", GCD).holds
    wrong = check("a + b", GCD)
    assert not wrong.holds and wrong.matched == 0 and wrong.checked == 3
    assert wrong.misses[0] == ("f(a=15, b=9): your expression gives 24; the tool returned 3")


def test_comprehensions_statistics_and_strings_evaluate():
    mat = {"a": [[1, 2], [3, 4]], "b": [[5, 6], [7, 8]]}
    expr = ("[[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]"
            " for i in range(len(a))]")
    assert evaluate(expr, [mat]) == [{"value": [[19, 22], [43, 50]]}]
    assert evaluate("statistics.pstdev(x)", [{"x": [2, 4, 6, 8, 10]}])[0]["value"] == \
        pytest.approx(2.8284271247461903)
    assert evaluate("bin(int(a, 2) + int(b, 2))[2:]", [{"a": "111", "b": "1"}]) == \
        [{"value": "1000"}]


@pytest.mark.parametrize("expression", [
    "open('/etc/passwd').read()", "__import__('os').system('true')", "().__class__",
    "x.__globals__", "exec('1')"])
def test_hostile_expressions_are_misses(expression):
    (got,) = evaluate(expression, [{"x": 1}])
    assert set(got) == {"error"}


def test_a_runaway_expression_is_stopped_and_every_call_gets_the_reason():
    got = evaluate("math.factorial(10**9)", [{"a": 1}, {"a": 2}])
    assert len(got) == 2 and all("error" in g for g in got)


def test_outputs_compare_with_tolerance_rounding_and_structure():
    assert same(0.30870000000000003, 0.3087)
    assert same(22.4712, 22.47)                 # a tool that rounds to cents
    assert not same(22.5, 22.47)
    assert same(6, 6.0) and not same(True, 1)
    assert same([1.0, {"r": 2}], [1, {"r": 2.0000000001}]) and not same([1], [1, 2])
    assert same("1011 ", "1011") and not same("1011", 1011)
    assert same(10**400, 10**400) and not same(10**400, 2 * 10**400)   # past float range


def test_a_constant_or_a_stored_blob_cannot_prove_anything():
    assert not names_any("1", {"a": {}, "b": {}}) and names_any("a % b", {"a": {}, "b": {}})
    assert not checkable({"$blob": "489c"}) and checkable({"blob": 1}) and checkable([1])


def test_an_operation_that_misses_one_odd_call_of_five_still_holds():
    from play2prompt.evidence.formula import Check, expression_of

    assert Check("math.gcd(a, b)", 6, 5).holds and Check("x", 5, 4).holds
    assert not Check("x", 4, 3).holds and not Check("x", 6, 4).holds
    assert expression_of("import statistics; statistics.stdev(x)") == "statistics.stdev(x)"
    assert expression_of("return a / b") == expression_of("lambda a, b: a / b") == "a / b"
