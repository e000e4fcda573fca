"""Issue 27: reshaped calls. A call that failed with a Python type error about a value's shape
(a scalar where the function takes a list, a dict where it takes a list) is tried again with
its values reshaped; one that runs is a repaired call, and the schema gains the type."""

import asyncio

import pytest

from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.names import PROBES
from play2prompt.evidence.probes import Prober
from play2prompt.evidence.registry import evidence_for
from play2prompt.evidence.reshape import (
    CODE_FORMS,
    MAX_RESHAPES,
    evaluated,
    reshaped,
    type_shape,
    unpack_expected,
    unpacked,
)
from play2prompt.lm.fake import FakeLM
from play2prompt.method.discovery import discovered_tool
from play2prompt.method.play import Attempt, PlayResult
from play2prompt.tools.model import Invocation, Tool


def predict_value(x, y, point):
    """BFCL's linear_regression, as it is."""
    n = len(x)
    sum_x = sum(x)
    sum_y = sum(y)
    sum_x_squared = sum(x_i**2 for x_i in x)
    sum_xy = sum(x[i] * y[i] for i in range(n))
    slope = (n * sum_xy - sum_x * sum_y) / (n * sum_x_squared - sum_x**2)
    intercept = (sum_y - slope * sum_x) / n
    return slope * point + intercept


def order_food(item, quantity, price):
    """BFCL's order_food: three lists of equal length."""
    return sum(quantity[i] * price[i] for i in range(len(item)))


def calculate_mean(numbers):
    return sum(numbers) / len(numbers)


def square_root(number):
    if number < 0:
        raise ValueError("number must be positive")
    return number ** 0.5


def wide(a, b, c, d, e, f, g, h):
    return len(a) + len(b)


def wall_clock(time, zone):
    """A wall-clock time 'HH:MM', unpacked as such (the model writes 'HH:MM:SS')."""
    hour, minute = (int(x) for x in time.split(":"))
    return {"minutes": hour * 60 + minute, "zone": zone}


def estimate_derivative(function, x):
    """BFCL's estimate_derivative, as it is: the text is evaluated, then called."""
    func = eval(function)
    h = 0.0000000001
    return (func(x + h) - func(x)) / h


def labelled(code):
    """Takes a text: a number fails with "can only concatenate str (not "int") to str"."""
    return "id-" + code


FUNCTIONS = {f.__name__: f for f in (predict_value, order_food, calculate_mean, square_root,
                                     wide, wall_clock, estimate_derivative, labelled)}
BARE = {"type": "object", "properties": {}}


def _tool(exec_ctx, name):
    exec_ctx.callables[name] = FUNCTIONS[name]
    return Tool(name, "", BARE, {"callable": name}, side_effects=False)


def _failed_play(engine, tool, arguments):
    inv = Invocation(tool.name, arguments)
    obs = asyncio.run(engine.runtime.run(inv))
    assert not obs.ok
    return PlayResult(None, None, (Attempt(inv, obs, -1, "failed"),), "k"), obs


def _reshape(make_engine, exec_ctx, name, arguments, **config):
    tool = _tool(exec_ctx, name)
    engine = make_engine([tool], FakeLM(), **config)
    play, obs = _failed_play(engine, tool, arguments)
    book = FactBook(tool)
    prober = Prober(tool, engine, book)
    asyncio.run(evidence_for(engine).probes.run(prober, [play]))
    return prober, book, obs


@pytest.mark.parametrize("name, arguments, fixed, types", [
    ("order_food", {"item": "Pizza", "price": 15.99, "quantity": 2},
     {"item": ["Pizza"], "price": [15.99], "quantity": [2]},
     {"item": "string", "price": "number", "quantity": "number"}),
    ("calculate_mean", {"numbers": {"1": 1, "2": 2}}, {"numbers": [1, 2]},
     {"numbers": "number"}),
])
def test_a_type_shape_failure_is_repaired_by_a_reshaped_call(make_engine, exec_ctx, name,
                                                              arguments, fixed, types):
    prober, book, obs = _reshape(make_engine, exec_ctx, name, arguments)
    assert type_shape(obs.error)[0], obs.error
    assert fixed in [r.invocation.arguments for r in prober.repaired]
    assert prober.engine.uses[PROBES] == 1
    taken = prober.take(set())
    assert taken is not None and "found by probing (reshaping" in taken.note()
    schema = discovered_tool(prober.tool, book).parameters["properties"]
    for param, items in types.items():
        assert schema[param] == {"type": "array", "items": {"type": items}}, schema
        assert any(f.kind == "param" and "takes a list" in f.text for f in book.of(param))


def test_a_reshape_that_gets_past_the_type_error_shows_the_type(make_engine, exec_ctx):
    """The logged predict_value call: x and y as lists of one point get past "object of type
    'int' has no len()" to the fit's own division by zero (a line needs two points): no
    repaired call, but the schema says x and y take lists of numbers, and the next try is
    decoded against it."""
    prober, book, obs = _reshape(make_engine, exec_ctx, "predict_value",
                                 {"x": 10, "y": 15, "point": {"at": 12}})
    assert "has no len()" in obs.error
    assert {"x": [10], "y": [15], "point": {"at": 12}} in [
        inv.arguments for _, inv, _ in prober.probed]
    assert prober.repaired == []
    schema = discovered_tool(prober.tool, book).parameters["properties"]
    assert schema["x"] == schema["y"] == {"type": "array", "items": {"type": "number"}}
    assert "point" not in schema


def test_a_failure_for_another_reason_is_not_reshaped(make_engine, exec_ctx):
    prober, book, obs = _reshape(make_engine, exec_ctx, "square_root", {"number": -4})
    assert "must be positive" in obs.error and type_shape(obs.error) == (False, False)
    assert not any(isinstance(inv.arguments.get("number"), list) for _, inv, _ in prober.probed)
    assert prober.repaired == [] or all(
        not isinstance(r.invocation.arguments["number"], list) for r in prober.repaired)


def test_reshaping_one_failing_call_runs_a_few_calls_at_most(make_engine, exec_ctx):
    arguments = dict(zip("abcdefgh", range(1, 9)))
    prober, _, obs = _reshape(make_engine, exec_ctx, "wide", arguments)
    assert len(reshaped(Invocation("wide", arguments), obs.error)) > MAX_RESHAPES
    lists = [inv for _, inv, _ in prober.probed
             if any(isinstance(v, list) for v in inv.arguments.values())]
    assert 0 < len(lists) <= MAX_RESHAPES
    assert len({inv.key() for inv in lists}) == len(lists)
    # the call that failed is reshaped once: probing again runs no reshaped call
    before = len(prober.probed)
    asyncio.run(prober._reshape([PlayResult(None, None, (Attempt(
        Invocation("wide", arguments), obs, -1, "failed"),), "k")]))
    assert len(prober.probed) == before


def test_text_against_number_converts_one_argument():
    calls = reshaped(Invocation("f", {"a": "5", "b": 2}),
                     'TypeError: can only concatenate str (not "int") to str')
    assert {"a": 5, "b": 2} in [c.arguments for _, c in calls]
    assert {"a": "5", "b": "2"} in [c.arguments for _, c in calls]
    assert len(calls) <= MAX_RESHAPES
    assert reshaped(Invocation("f", {"a": 1}), "ValueError: a must be positive") == []


def test_the_argument_the_error_names_is_reshaped_first():
    calls = reshaped(Invocation("f", {"a": 1, "values": 3}),
                     "TypeError: 'int' object is not iterable (values)")
    assert calls[0][0] == ("values",)


def test_with_probes_off_nothing_is_reshaped(make_engine, exec_ctx):
    prober, book, _ = _reshape(make_engine, exec_ctx, "calculate_mean",
                               {"numbers": {"1": 1, "2": 2}},
                               evidence=("fact-reader", "request-gates"))
    assert prober.engine.uses[PROBES] == 0 and prober.probed == [] and prober.repaired == []
    assert discovered_tool(prober.tool, book).parameters == BARE


def test_a_text_of_too_many_parts_is_cut_to_what_the_function_unpacks(make_engine, exec_ctx):
    """Python's own "too many values to unpack (expected 2)" for time='14:30:00': the call
    tried with time='14:30' runs, is a repaired call, and the tool's facts say how many parts
    the text takes; the other text argument, with no separator, is left alone."""
    prober, book, obs = _reshape(make_engine, exec_ctx, "wall_clock",
                                 {"time": "14:30:00", "zone": "Europe/Paris"})
    assert "too many values to unpack (expected 2)" in obs.error
    assert type_shape(obs.error) == (True, False)
    assert {"time": "14:30", "zone": "Europe/Paris"} in [
        r.invocation.arguments for r in prober.repaired]
    facts = [f.text for f in book.of("time") if f.kind == "rule"]
    assert any("2 parts separated by ':'" in t and "'14:30'" in t for t in facts), facts


def test_unpacked_cuts_each_text_at_each_separator_it_has():
    inv = Invocation("f", {"when": "2024-01-02 10:00", "n": 3, "tag": "a"})
    cut = unpacked(inv, 2)
    assert [call.arguments for _, call in cut] == [{"when": "2024-01", "n": 3, "tag": "a"}]
    assert [names for names, _ in cut] == [("when",)]
    assert len(unpacked(inv, 1)) == 3          # '-', ':' and ' ' each split it in more
    assert unpacked(inv, 5) == []
    assert unpack_expected("ValueError: too many values to unpack (expected 3)") == 3
    assert unpack_expected("ValueError: not enough values to unpack (expected 2, got 1)") == 0


def test_the_parts_a_text_takes_constrain_the_next_tries(make_engine, exec_ctx):
    """After "14:30" ran where "14:30:00" failed, the schema play's tries (and re-reading) are
    decoded against has time as two ':'-separated parts: "14:30:00" cannot be written again."""
    import re

    _, book, _ = _reshape(make_engine, exec_ctx, "wall_clock",
                          {"time": "14:30:00", "zone": "Europe/Paris"})
    schema = {"type": "object", "properties": {"time": {"type": "string"},
                                               "zone": {"type": "string"}}}
    spec = book.narrowed_schema(schema)["properties"]
    assert re.fullmatch(spec["time"]["pattern"], "14:30")
    assert not re.fullmatch(spec["time"]["pattern"], "14:30:00")
    # no quote in a part: with one, llguidance let the 1.5B run the string on into a new key
    assert not re.fullmatch(spec["time"]["pattern"], '14:30",\n  "zone": "x')
    assert "pattern" not in spec["zone"]
    assert "pattern" not in FactBook(book.tool).narrowed_schema(schema)["properties"]["time"]


def _probe_derivative(make_engine, exec_ctx, arguments):
    """BFCL (a)'s estimate_derivative: its parameters' names and types, no descriptions."""
    exec_ctx.callables["estimate_derivative"] = estimate_derivative
    tool = Tool("estimate_derivative", "", {"type": "object", "properties": {
        "function": {"type": "string"}, "x": {"type": "integer"}}},
        {"callable": "estimate_derivative"}, side_effects=False)
    engine = make_engine([tool], FakeLM())
    play, obs = _failed_play(engine, tool, arguments)
    book = FactBook(tool)
    prober = Prober(tool, engine, book)
    asyncio.run(evidence_for(engine).probes.run(prober, [play]))
    return prober, book, obs


def test_evaluated_names_the_text_the_error_shows_was_run_as_code():
    inv = Invocation("f", {"function": "3*x**2 + 1", "label": "x axis", "x": 5})
    assert evaluated(inv, "NameError: name 'x' is not defined") == ["function", "label"]
    assert evaluated(inv, "NameError: name 'y' is not defined") == []
    assert evaluated(Invocation("f", {"function": "xx"}), "name 'x' is not defined") == []
    assert evaluated(inv, "ValueError: x must be positive") == []
    # BFCL's logged errors: a text compiled that is no Python, a number called
    compiled = "SyntaxError: invalid decimal literal (<string>, line 1)"
    both = Invocation("f", {"function": "f(x) = 4x^3 + 1", "name": "cubic"})
    assert evaluated(both, compiled) == ["function"]
    assert evaluated(inv, "TypeError: 'int' object is not callable") == ["function"]
    assert evaluated(Invocation("f", {"name": "deluxe"}), "'int' object is not callable") == []


def test_a_text_the_tool_evaluates_is_tried_as_code(make_engine, exec_ctx):
    """BFCL's estimate_derivative with a bare formula: "name 'x' is not defined" says the text
    is evaluated as Python; the call is retried with a lambda, which runs (a repaired call),
    and the facts say the parameter takes code."""
    prober, book, obs = _probe_derivative(make_engine, exec_ctx,
                                          {"function": "3*y**2 + 2*y + 1", "x": 5})
    assert "is not defined" in obs.error and type_shape(obs.error) == (False, False)
    fixed = [r.invocation.arguments for r in prober.repaired]
    assert {"function": CODE_FORMS[0], "x": 5} in fixed
    said = [f for f in book.of("function") if f.values[:1] == ("code",)]
    assert said and "takes Python code" in said[0].text and CODE_FORMS[0] in said[0].text
    assert "Python code" in book.render()


def test_a_probe_that_shows_evaluation_is_reshaped_in_the_same_probing(make_engine, exec_ctx):
    """The logged run: play wrote function='sum' (a type error that names no argument), the
    probe's junk text got "name 'zzqx' is not defined"; that probe's call is tried as code
    before the probing ends, so the next iteration has a call that ran."""
    prober, _, obs = _probe_derivative(make_engine, exec_ctx, {"function": "sum", "x": 10})
    assert "not iterable" in obs.error
    assert any("is not defined" in (o.error or "") for _, _, o in prober.probed)
    assert any(r.invocation.arguments.get("function") in CODE_FORMS for r in prober.repaired)


@pytest.mark.parametrize("formula", ["3*x**2 + 2*x + 1", "f(x) = 4x^3 + 3x^2", "f'(x)"])
def test_each_way_a_formula_fails_is_tried_as_code(make_engine, exec_ctx, formula):
    """The formulas the task model wrote in BFCL's derivative questions: one evaluates to a
    number that is then called, two are no Python."""
    prober, _, obs = _reshape(make_engine, exec_ctx, "estimate_derivative",
                              {"function": formula, "x": 5})
    assert evaluated(Invocation("estimate_derivative", {"function": formula, "x": 5}),
                     obs.error) == ["function"], obs.error
    assert {"function": CODE_FORMS[0], "x": 5} in [r.invocation.arguments
                                                   for r in prober.repaired]


def test_a_text_that_is_not_evaluated_is_not_tried_as_code(make_engine, exec_ctx):
    prober, _, obs = _reshape(make_engine, exec_ctx, "square_root", {"number": "four"})
    assert not any(inv.arguments.get("number") in CODE_FORMS for _, inv, _ in prober.probed)


def test_a_number_converted_to_the_text_0_is_no_code(make_engine, exec_ctx):
    """A text-number reshape that gives "0" (one of the code forms) still shows its type."""
    prober, book, obs = _reshape(make_engine, exec_ctx, "labelled", {"code": 0})
    assert type_shape(obs.error) == (True, True), obs.error
    assert {"code": "0"} in [r.invocation.arguments for r in prober.repaired]
    assert any(f.kind == "param" and "takes a text" in f.text for f in book.of("code"))
    assert not any(f.values[:1] == ("code",) for f in book.of("code"))
