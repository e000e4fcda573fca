"""Prefix reuse: every meta-prompt and task prompt puts the shared part (instructions and the
documentation) first, in the system message, and what varies from call to call last, so
servers with prefix caching (vLLM, llama.cpp) reuse the shared part."""

import re

import pytest

from play2prompt.agent.prompt import Demo, TaskPrompter
from play2prompt.baselines import TEMPLATES as BASELINE_TEMPLATES
from play2prompt.lm.toolcalls import emulate
from play2prompt.metaprompts import NAMES, MetaPrompts
from play2prompt.tools.model import Invocation

# What may appear in a system message: the same for every call about one tool (and doc).
SHARED = {"doc", "functions", "demos", "tools", "tool", "format"}  # format: fixed per agent
TEMPLATES = sorted(NAMES.values()) + ["task_function_calling", "task_prompting", "task_react",
                                       *BASELINE_TEMPLATES]


def _placeholders(text):
    return set(re.findall(r"\$(\w+)", text))


@pytest.mark.parametrize("name", TEMPLATES)
def test_varying_values_are_never_in_the_system_message(name):
    system, user = MetaPrompts()._load(name)
    assert _placeholders(system) <= SHARED, name
    values = {v: f"<{v}-1>" for v in _placeholders(system) | _placeholders(user)}
    other = {v: (f"<{v}-2>" if v not in SHARED else text) for v, text in values.items()}
    one, two = MetaPrompts().render(name, **values), MetaPrompts().render(name, **other)
    if len(one) == 2:   # the system message is the shared prefix of every call
        assert one[0] == two[0] and one[0]["role"] == "system"
    if set(values) - SHARED:
        assert one[-1] != two[-1]


def test_task_prompt_prefix_is_stable_across_queries(example_tools):
    prompter = TaskPrompter(mode="function-calling")
    demo = Demo("I need 5 km in miles", (Invocation("convert_units", {"value": 5}),))
    a = emulate(prompter.request(example_tools[:2], "first query", [demo]))
    b = emulate(prompter.request(example_tools[:2], "another query", [demo]))
    assert a.messages[0] == b.messages[0]        # instructions + demos + tool specs
    assert "convert_units" in a.messages[0]["content"]
    assert a.messages[-1]["content"] == "first query"
    p = TaskPrompter(mode="prompting")
    assert p.request(example_tools, "q1").messages[0] == p.request(example_tools,
                                                                     "q2").messages[0]


def test_each_template_is_told_apart_by_its_opening():
    """``runs show`` counts a logged call under the template whose fixed opening its first
    message starts with: every built-in template is found as itself, however filled, and a
    call opened by no template is "other"."""
    from play2prompt.metaprompts import opened_by

    openings = MetaPrompts().openings()
    assert {"m1_invocation", "m3_query", "m3_fact", "describe", "describe_formula",
            "task_function_calling", "spider_seed_doc", "judge_answer"} <= set(openings)
    for name in openings:
        system, user = MetaPrompts()._load(name)
        values = {v: f"<{v} value>" for v in _placeholders(system) | _placeholders(user)}
        first = MetaPrompts().render(name, **values)[0]["content"]
        assert opened_by(first, openings) == name
        assert opened_by(first[:600], openings) == name     # as the store keeps it
    assert opened_by("Tell me a joke.", openings) == "other"
    assert opened_by("", openings) == "other"
