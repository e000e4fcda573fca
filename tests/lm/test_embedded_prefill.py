"""The call's header written for the embedded model (``P2P_EMBEDDED_CALL_PREFILL``): learned
once the model's first calls at temperature 0 start alike, then sent as the start of its answer
with the grammar of the rest; what the runtime is sent, what comes back, when it is not done,
and (real default model, whose calls start in two ways) that nothing changes its calls."""

import asyncio
import json
from dataclasses import replace

import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.lm.models import BUILTIN_MODELS
from play2prompt.lm.prefill import (
    HEADER_AGREEMENT,
    Opening,
    name_grammar,
    rest_grammar,
)
from play2prompt.lm.toolcalls import CallHeader, call_arguments_schema, header_of, prefilled
from tests.lm.fake_runtime import PRETTY, Server, ok

LOCATE = {"type": "function", "function": {"name": "locate", "description": "Finds a city.",
                                           "parameters": {"type": "object", "properties": {
                                               "city": {"type": "string",
                                                        "description": "its name"}},
                                               "required": ["city"]}}}
WEATHER = {"type": "function", "function": {"name": "weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}
ASK = ChatRequest(({"role": "user", "content": "Where is Lyon?"},), temperature=0.0,
                  max_tokens=60, tools=(LOCATE,))
PRETTY_CALL = '{\n  "name": "locate",\n  "arguments": {\n    "city": "Lyon"\n  }\n}'


@pytest.mark.parametrize("text, header", [
    (PRETTY_CALL, PRETTY),
    ('{"name": "locate", "arguments": {"city": "Lyon"}}',
     CallHeader('{"name": "', '", "arguments":')),
    ('{"name":"a\\"b","arguments":{}}', CallHeader('{"name":"', '","arguments":')),
    ('{"arguments": {}, "name": "locate"}', None),
    ('{"calls": [{"name": "locate", "arguments": {}}]}', None),
    ("Lyon is in France.", None),
])
def test_the_header_of_an_answer(text, header):
    assert header_of(text) == header


def test_one_tool_gets_its_whole_header_and_the_grammar_of_its_arguments():
    prefix, grammar = prefilled([LOCATE], PRETTY)
    assert prefix == '{\n  "name": "locate",\n  "arguments":'
    head, _, schema = grammar.partition("args: %json ")
    assert head.startswith("%llguidance {}\nstart: ") and head.rstrip().endswith('"}"')
    # the grammar-safe schema: no description reaches the grammar
    assert json.loads(schema) == {"type": "object", "properties": {"city": {"type": "string"}},
                                  "required": ["city"]}


def test_several_tools_get_the_text_before_the_name_and_one_alternative_a_tool():
    prefix, grammar = prefilled([LOCATE, WEATHER], PRETTY)
    assert prefix == '{\n  "name": "'
    lines = grammar.splitlines()
    assert lines[1] == "start: c0 | c1"
    assert lines[2].startswith('c0: "locate\\"" ') and lines[4].startswith('c1: "weather\\"" ')
    assert json.loads(lines[5].partition("%json ")[2])["properties"]["days"] == {"type": "integer"}


def ask(lm, request=ASK):
    return asyncio.run(lm._generate(request)).choices[0]


def agreed(lm, text=PRETTY_CALL):
    """``lm`` after the calls that teach it a header (their bodies dropped)."""
    lm._server = Server([ok(text)] * HEADER_AGREEMENT)
    for _ in range(HEADER_AGREEMENT):
        ask(lm)
    assert all(b["messages"][-1]["role"] == "user" for b in lm._server.bodies)
    return lm


@pytest.mark.parametrize("echoed", [True, False])
def test_calls_that_start_alike_teach_the_header_and_the_next_ones_start_with_it(echoed):
    lm = agreed(EmbeddedLM("smollm2-135m", strict_structured=True, call_prefill=True))
    assert lm._headers.value == PRETTY
    assert lm._openings.value == Opening(' {\n    "', '":')
    rest = ' "Paris"\n  }\n}'
    prefix = '{\n  "name": "locate",\n  "arguments": {\n    "city":'
    lm._server = Server([ok(prefix + rest if echoed else rest)])
    call = ask(lm)
    started = lm._server.bodies[0]
    assert started["messages"][-1] == {"role": "assistant", "content": prefix}
    assert "response_format" not in started
    assert started["grammar"] == rest_grammar(call_arguments_schema(LOCATE["function"]))
    assert call.text == prefix + rest
    assert call.tool_calls[0].name == "locate"
    assert call.tool_calls[0].arguments == {"city": "Paris"}


def test_a_tool_whose_first_key_is_not_forced_gets_its_header_only():
    lm = agreed(EmbeddedLM("smollm2-135m", call_prefill=True))
    rest = ' {\n    "days": 2\n  }\n}'
    lm._server = Server([ok(rest)])
    call = ask(lm, replace(ASK, tools=(WEATHER,)))
    started = lm._server.bodies[0]
    assert started["messages"][-1]["content"] == '{\n  "name": "weather",\n  "arguments":'
    assert started["grammar"] == prefilled([WEATHER], PRETTY)[1]
    assert call.tool_calls[0].arguments == {"days": 2}


def test_among_several_tools_the_name_is_asked_first_then_the_call_goes_on_as_for_one():
    lm = agreed(EmbeddedLM("smollm2-135m", call_prefill=True))
    lm._server = Server([ok('weather"', {"prompt_tokens": 90, "completion_tokens": 3,
                                          "prompt_tokens_details": {"cached_tokens": 80}}),
                         ok(' {\n    "city": "Oslo"\n  }\n}',
                            {"prompt_tokens": 99, "completion_tokens": 9})])
    out = asyncio.run(lm._generate(replace(ASK, tools=(LOCATE, WEATHER))))
    named, started = lm._server.bodies
    assert named["messages"][-1] == {"role": "assistant", "content": '{\n  "name": "'}
    assert named["grammar"] == name_grammar([LOCATE, WEATHER])
    assert "response_format" not in named and named["messages"][:-1] == started["messages"][:-1]
    assert started["messages"][-1]["content"] == '{\n  "name": "weather",\n  "arguments":'
    assert out.choices[0].tool_calls[0].name == "weather"
    assert out.choices[0].tool_calls[0].arguments == {"city": "Oslo"}
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.cached_tokens) == \
        (189, 12, 80)


@pytest.mark.parametrize("named", [ok("nowhere"), {"error": {"message": "grammar failed"}}])
def test_a_name_step_without_a_tool_leaves_the_call_as_before(named):
    lm = agreed(EmbeddedLM("smollm2-135m", call_prefill=True))
    lm._server = Server([named, ok('locate",\n  "arguments": {\n    "city": "Oslo"\n  }\n}')])
    call = ask(lm, replace(ASK, tools=(LOCATE, WEATHER)))
    started = lm._server.bodies[1]
    assert started["messages"][-1]["content"] == '{\n  "name": "'
    assert started["grammar"] == prefilled([LOCATE, WEATHER], PRETTY)[1]
    assert call.tool_calls[0].name == "locate"


def test_calls_that_start_in_two_ways_teach_nothing():
    lm = EmbeddedLM("smollm2-135m", call_prefill=True)
    four = '{\n    "name": "locate",\n    "arguments": {\n        "city": "Oslo"\n    }\n}'
    lm._server = Server([ok(PRETTY_CALL), ok(four)] + [ok(PRETTY_CALL)] * HEADER_AGREEMENT * 2)
    for _ in range(HEADER_AGREEMENT * 2 + 2):
        ask(lm)
    assert lm._headers.value is None
    assert all(b["messages"][-1]["role"] == "user" for b in lm._server.bodies)


@pytest.mark.parametrize("change", [
    {"call_prefill": False},          # switched off
    {"compact_json": True},           # one-line JSON: its own grammar
])
def test_nothing_is_written_for_the_model_when_switched_off(change):
    lm = agreed(EmbeddedLM("smollm2-135m", **change))
    lm._server = Server([ok(PRETTY_CALL)])
    ask(lm)
    assert lm._server.bodies[0]["messages"][-1]["role"] == "user"


def test_parallel_calls_and_sampled_answers_are_left_alone():
    lm = EmbeddedLM("smollm2-135m", call_prefill=True)
    sampled = replace(ASK, temperature=0.8, seed=1)
    calls = ok('{"calls": [{"name": "locate", "arguments": {"city": "Lyon"}}]}')
    lm._server = Server([ok(PRETTY_CALL)] * 3 + [calls])
    for _ in range(3):
        ask(lm, sampled)                               # learns nothing: sampled
    ask(lm, replace(ASK, parallel_tool_calls=True))    # nor from a list of calls
    assert lm._headers.seen == []
    agreed(lm)
    lm._server = Server([ok('{"calls": [{"name": "locate", "arguments": {"city": "Lyon"}}]}')])
    ask(lm, replace(ASK, parallel_tool_calls=True))    # a list of calls: asked as before
    assert lm._server.bodies[0]["messages"][-1]["role"] == "user"


def test_a_rejected_grammar_is_asked_again_as_before():
    lm = agreed(EmbeddedLM("smollm2-135m", call_prefill=True))
    lm._server = Server([{"error": {"message": "failed to parse grammar"}}, ok(PRETTY_CALL)])
    call = ask(lm)
    first, retry = lm._server.bodies
    assert first["messages"][-1]["role"] == "assistant"
    assert "grammar" not in retry and retry["messages"][-1]["role"] == "user"
    assert call.tool_calls[0].arguments == {"city": "Lyon"}


SMOL = BUILTIN_MODELS["smollm2-135m"]
QUESTIONS = ("Where is Lyon?", "Find the city of Kyoto for me.", "What's the weather in Oslo "
             "for the next 3 days?")


@pytest.mark.embedded
def test_the_real_model_starts_its_calls_in_two_ways_and_gets_no_header(smol_file):
    # SmolLM2-135M indents a call by two spaces or four as the request goes: a header written
    # for it would change its calls, so none is
    answers = {}
    for on in (False, True):
        lm = EmbeddedLM(SMOL.name, parallel=1, call_prefill=on)
        try:
            answers[on] = [ask(lm, replace(ASK, messages=({"role": "user", "content": q},),
                                           tools=(LOCATE, WEATHER) if i % 2 else (LOCATE,)))
                           for i, q in enumerate(QUESTIONS * 3)]
            assert lm._headers.value is None and lm._headers.seen is None
        finally:
            lm.close()
    assert [c.text for c in answers[True]] == [c.text for c in answers[False]]


def test_the_arguments_start_is_left_to_the_model_when_switched_off():
    lm = agreed(EmbeddedLM("smollm2-135m", call_prefill=True, key_prefill=False))
    lm._server = Server([ok(PRETTY_CALL), ok(PRETTY_CALL)])
    ask(lm)
    ask(lm, replace(ASK, tools=(LOCATE, WEATHER)))
    one, several = lm._server.bodies                  # no name asked first
    assert one["messages"][-1]["content"] == '{\n  "name": "locate",\n  "arguments":'
    assert several["messages"][-1]["content"] == '{\n  "name": "'
