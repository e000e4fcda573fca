"""The ``option-effects`` component: what an optional argument's default and another value
compute, named by the operations catalogue on the tool's own outputs (no LLM call)."""

from __future__ import annotations

import asyncio
import textwrap

from play2prompt.evidence.option_effects import option_effect
from play2prompt.method.example import Example
from play2prompt.tools.model import Invocation, Tool

TOOLS = '''
import statistics

def spread(a: list, ddof: int = 0) -> float:
    return statistics.pstdev(a) if ddof == 0 else statistics.stdev(a)

def order(x: list, reverse: bool = False) -> list:
    return sorted(x, reverse=reverse)

def scaled(a: list, k: int = 1) -> float:
    return k * sum(a) / 7
'''

ARRAY = {"type": "array", "items": {"type": "number"}}


def _tool(name, props):
    return Tool(name, "", {"type": "object", "properties": props, "required": [next(iter(props))]},
                {"python": f"tools.py:{name}"})


def _effect(engine_over, tmp_path, tool, param, default, others, lists, problems=()):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    engine = engine_over([tool], tmp_path)
    first = next(iter(tool.properties))
    examples = []
    for values in lists:
        inv = Invocation(tool.name, {first: values})
        obs = asyncio.run(engine.runtime.run(inv))
        examples.append(Example(tool.name, "a request", inv, obs, "", 1.0, 0.0, 0.0,
                                problems=tuple(problems)))
    return asyncio.run(option_effect(engine, tool, param, default, others, examples))


def test_the_default_and_another_value_named_by_their_operations(engine_over, tmp_path):
    spread = _tool("spread", {"a": ARRAY, "ddof": {"type": "integer"}})
    said = _effect(engine_over, tmp_path, spread, "ddof", 0, [1, 2],
                   [[1, 2, 3, 4], [2.5, 3.1, 2.8], [10, 20, 35]])
    assert said == (" ddof=0 (left out) gives the population standard deviation of the numbers "
                    "in `a`; ddof=1 gives the sample standard deviation of the numbers in `a`.")
    order = _tool("order", {"x": ARRAY, "reverse": {"type": "boolean"}})
    said = _effect(engine_over, tmp_path, order, "reverse", False, [True], [[3, 1, 2], [5, 4]])
    assert "ascending" in said and "reverse=true gives `x` sorted in descending order" in said


def test_calls_whose_requests_failed_a_gate_still_show_what_the_tool_computes(engine_over,
                                                                          tmp_path):
    # run s72r: std's second example's request left out numbers of its list (not verified)
    spread = _tool("spread", {"a": ARRAY, "ddof": {"type": "integer"}})
    said = _effect(engine_over, tmp_path, spread, "ddof", 0, [1], [[1, 2, 3, 4], [10, 20, 35]],
                   problems=["it does not state 20 as written"])
    assert "ddof=1 gives the sample standard deviation" in said


def test_no_sentence_where_no_operation_names_a_value(engine_over, tmp_path):
    scaled = _tool("scaled", {"a": ARRAY, "k": {"type": "integer"}})
    assert _effect(engine_over, tmp_path, scaled, "k", 1, [2], [[1, 2], [3, 4]]) == ""
    spread = _tool("spread", {"a": ARRAY, "ddof": {"type": "integer"}})
    assert _effect(engine_over, tmp_path, spread, "ddof", 0, [1], [[1, 2, 3]]) == ""


def test_a_value_said_by_its_operation():
    from play2prompt.evidence.everyday import everyday_forms
    from play2prompt.evidence.option_words import operation_phrase

    rule = ("Optional; defaults to 0 (a call without it gave the same result as ddof=0). "
            "ddof=0 (left out) gives the population standard deviation of the numbers in `a`; "
            "ddof=1 gives the sample standard deviation of the numbers in `a`.")
    assert operation_phrase(1, rule, "ddof") == (
        "the sample standard deviation of the numbers in a", r"\b(?:sample)\b")
    (form,) = everyday_forms(1, rule, "", "ddof")
    assert form.kind == "operation" and form.as_given_ok
    assert form.said_in("What's the sample SD of 1, 4, 6?")
    assert not form.said_in("What's the standard deviation of 1, 4, 6?")
    assert everyday_forms(0, rule, "", "ddof")[0].said_in("the population SD of 1, 2")
    assert operation_phrase(2, rule, "ddof") is None and operation_phrase(1, "", "ddof") is None


def test_a_default_said_by_its_operation_is_tested_by_the_other_value():
    from play2prompt.evidence.option_words import other_operation

    rule = ("Optional; defaults to 0 (a call without it gave the same result as ddof=0). "
            "ddof=0 (left out) gives the population standard deviation of the numbers in `a`; "
            "ddof=1 gives the sample standard deviation of the numbers in `a`.")
    assert other_operation(0, rule, "ddof") == 1
    assert other_operation(1, rule, "ddof") is None          # not the default: said as it is
    assert other_operation(0, "Optional; defaults to 0.", "ddof") is None
