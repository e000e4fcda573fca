"""A call's later keys and closing written for the embedded model (play2prompt.lm.later_keys,
``P2P_EMBEDDED_LATER_KEYS``): the layout learned from its calls, where a call stops, what is
written there, what the runtime is sent for each part, and every turn that is asked as before;
on the real default model, every grammar taken and every call that parses valid."""

import asyncio
import json

import jsonschema
import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.lm.later_keys import KeyPlan, ask
from play2prompt.lm.models import BUILTIN_MODELS
from play2prompt.lm.prefill import (
    HEADER_AGREEMENT,
    STOP,
    Layout,
    Step,
    layout_of,
    next_step,
    plan,
    rest_grammar,
    stops_after,
)
from play2prompt.lm.toolcalls import call_arguments_schema
from tests.lm.fake_runtime import PRETTY, PRETTY_LAYOUT, PRETTY_OPENING, Server, ok

HEADER, OPENING, LAYOUT = PRETTY, PRETTY_OPENING, PRETTY_LAYOUT
UNITS = {"name": "convert_units", "parameters": {"type": "object", "properties": {
    "value": {"type": "number"}, "from_unit": {"type": "string"},
    "to_unit": {"type": "string", "enum": ["km", "mi"]}},
    "required": ["value", "from_unit", "to_unit"]}}
DAYS = {"name": "add_days", "parameters": {"type": "object", "properties": {
    "date": {"type": "string"}, "days": {"type": "integer"},
    "business_days": {"type": "boolean"}}, "required": ["date", "days"]}}
TAGS = {"name": "tag", "parameters": {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": "string"}}, "note": {"type": "string"}},
    "required": ["tags", "note"], "additionalProperties": False}}
UNITS_CALL = ('{\n  "name": "convert_units",\n  "arguments": {\n    "value": 23,\n'
              '    "from_unit": "kg",\n    "to_unit": "mi"\n  }\n}')


@pytest.mark.parametrize("text, layout", [
    (UNITS_CALL, LAYOUT),
    ('{"name": "f", "arguments": {"a": [1, 2], "b": {"c": "}"}}}', Layout(', "', "}}")),
    ('{"name": "f", "arguments": {"a": 1}}', None),                    # one key: no separator
    ('{"name": "f", "arguments": {"a": 1,\n "b": 2, "c": 3}}', None),  # two separators
    ('{"name": "f", "arguments": {"a": 1, "b": 2}} and more', None),
    ('{"name": "f", "arguments": {"a": 1, "b": 2', None),
    ("The answer is 4.", None),
])
def test_the_layout_of_a_calls_arguments(text, layout):
    assert layout_of(text) == layout


def test_a_call_stops_where_a_scalar_value_ends_and_what_follows_is_forced():
    units, days, tags = (call_arguments_schema(f) for f in (UNITS, DAYS, TAGS))
    assert [stops_after(units, k, LAYOUT) for k in range(3)] == [True, True, True]
    # the days' next key is optional: the model chooses; the date's is required
    assert [stops_after(days, k, LAYOUT) for k in range(3)] == [True, False, True]
    assert not stops_after(tags, 0, LAYOUT)          # an array's layout has newlines in it
    assert stops_after(tags, 1, LAYOUT)
    assert not stops_after(units, 0, Layout(', "', "}}"))   # one line: no newline to stop at


def test_what_is_written_where_a_value_ended():
    units = call_arguments_schema(UNITS)
    step = next_step(units, 0, '...{\n    "value": 23,', LAYOUT, '":')
    assert step == Step('\n    "from_unit":', rest_grammar(units, start=1), 1)
    closed = next_step(units, 2, '..."to_unit": "mi"', LAYOUT, '":')
    assert closed == Step("\n  }\n}", None, 3)
    # a comma after the last value: an additional property, left to the model
    extra = next_step(units, 2, '..."to_unit": "mi",', LAYOUT, '":')
    assert extra == Step("", rest_grammar(units, extras_only=True), 3)
    tags = call_arguments_schema(TAGS)               # none allowed: not followed
    assert next_step(tags, 1, '"note": "x",', LAYOUT, '":') is None
    # no comma before a required key (a newline first), or the call already closed
    assert next_step(units, 0, '"value": 23', LAYOUT, '":') is None
    assert next_step(units, 2, '"to_unit": "mi"}', LAYOUT, '":') is None


def test_the_grammar_from_a_later_key_and_after_the_last():
    units = call_arguments_schema(UNITS)
    start, *rules = rest_grammar(units, start=1).splitlines()[1:]
    assert start.startswith("start: /[ \\t\\n\\r]*/ v1 ") and "v0" not in start
    assert '"\\"to_unit\\""' in start and "from_unit" not in start
    assert rules[0].startswith("v1: %json ") and rules[1].startswith("v2: %json ")
    extras = rest_grammar(units, extras_only=True).splitlines()[1]
    assert extras.startswith("start: /[ \\t\\n\\r]*/ EXTRA_KEY ") and " v" not in extras


def reply(text, finish="stop", prompt=10, cached=4, completion=3):
    return {"choices": [{"message": {"content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def asked(fn, max_tokens=60, seed=7):
    prefix, grammar = plan(fn, HEADER, OPENING)
    body = {"messages": [{"role": "user", "content": "q"},
                         {"role": "assistant", "content": prefix}],
            "grammar": grammar, "max_tokens": max_tokens, "seed": seed, "temperature": 0.0}
    return body, KeyPlan(call_arguments_schema(fn), LAYOUT, OPENING.colon)


def run(body, keys, replies):
    sent = []

    async def complete(b):
        sent.append(json.loads(json.dumps(b)))
        return replies.pop(0)

    return asyncio.run(ask(complete, body, keys)), sent


def test_every_later_key_and_the_closing_are_written():
    body, keys = asked(UNITS)
    out, sent = run(body, keys, [reply(" 23,"), reply(' "kg",', completion=4), reply(' "mi"')])
    assert out["choices"][0]["message"]["content"] == UNITS_CALL
    assert [b["messages"][-1]["content"][-12:] for b in sent] == [
        '    "value":', '"from_unit":', '  "to_unit":']
    assert all(b["stop"] == [STOP] for b in sent)
    assert [b["grammar"] for b in sent] == [rest_grammar(keys.params, start=k) for k in range(3)]
    assert [b["max_tokens"] for b in sent] == [60, 57, 53]
    assert [b["seed"] for b in sent] == [7, 8, 9]
    assert out["usage"] == {"prompt_tokens": 30, "completion_tokens": 10,
                            "prompt_tokens_details": {"cached_tokens": 12}}
    assert body["messages"][-1]["content"].endswith('"value":')    # the body is left as it was


def test_an_additional_property_after_the_last_is_left_to_the_model():
    body, keys = asked(UNITS)
    last = ' "mi",\n    "note": "x"\n  }\n}'
    out, sent = run(body, keys, [reply(" 23,"), reply(' "kg",'), reply(' "mi",'),
                                 reply(last.split(",", 1)[1])])
    assert "stop" not in sent[3] and sent[3]["grammar"] == rest_grammar(keys.params,
                                                                         extras_only=True)
    args = json.loads(out["choices"][0]["message"]["content"])["arguments"]
    assert args == {"value": 23, "from_unit": "kg", "to_unit": "mi", "note": "x"}


def test_an_optional_next_key_is_left_to_the_model_without_a_stop():
    body, keys = asked(DAYS)
    out, sent = run(body, keys, [reply(' "2024-05-01",'), reply(" 3,\n    \"business_days\": "
                                                                 "true\n  }\n}")])
    assert "stop" in sent[0] and "stop" not in sent[1]
    args = json.loads(out["choices"][0]["message"]["content"])["arguments"]
    assert args == {"date": "2024-05-01", "days": 3, "business_days": True}


WHOLE = UNITS_CALL.split('"value":', 1)[1]


@pytest.mark.parametrize("replies, expected", [
    ([{"error": {"message": "failed to parse grammar"}}], "error"),   # the first: as it is
    ([reply(" 23,"), {"error": {"message": "boom"}}, reply(WHOLE)], "before"),  # a later one
    ([reply(" 23"), reply(WHOLE)], "before"),                         # no comma, key required
    ([reply(" 23,", finish="length")], "length"),
])
def test_a_turn_the_steps_do_not_follow(replies, expected):
    body, keys = asked(UNITS)
    out, sent = run(body, keys, replies)
    if expected == "error":
        assert "error" in out and len(sent) == 1
    elif expected == "before":       # asked again whole, the dropped part's tokens counted
        assert sent[-1] == json.loads(json.dumps(body)) and "stop" not in sent[-1]
        assert out["choices"][0]["message"]["content"] == WHOLE
        assert out["usage"]["completion_tokens"] == 6
    else:
        assert out["choices"][0]["finish_reason"] == "length"


def test_the_budget_of_generated_tokens_is_kept_across_the_parts():
    body, keys = asked(UNITS, max_tokens=5)
    out, sent = run(body, keys, [reply(" 23,", completion=5)])
    assert len(sent) == 1 and out["choices"][0]["finish_reason"] == "length"


def learned(lm):
    lm._headers.seen = [HEADER] * HEADER_AGREEMENT
    lm._openings.seen = [OPENING] * HEADER_AGREEMENT
    return lm


CALL = ChatRequest(({"role": "user", "content": "23 kg in miles?"},), temperature=0.0,
                   max_tokens=60, tools=({"type": "function", "function": UNITS},))


def test_the_embedded_model_learns_the_layout_from_its_own_calls_then_writes_keys():
    lm = learned(EmbeddedLM("smollm2-135m", compact_json=False))
    rest = UNITS_CALL.split('"value":', 1)[1]
    lm._server = Server([ok(rest)] * HEADER_AGREEMENT)
    for _ in range(HEADER_AGREEMENT):
        asyncio.run(lm._generate(CALL))
    assert lm._layouts.value == LAYOUT and len(lm._server.bodies) == HEADER_AGREEMENT
    lm._server = Server([ok(" 23,"), ok(' "kg",'), ok(' "mi"')])
    out = asyncio.run(lm._generate(CALL)).choices[0]
    assert out.text == UNITS_CALL and len(lm._server.bodies) == 3
    assert out.tool_calls[0].arguments == {"value": 23, "from_unit": "kg", "to_unit": "mi"}


def test_a_call_is_asked_whole_where_it_is_off_or_the_steps_are_not_followed():
    off = learned(EmbeddedLM("smollm2-135m", compact_json=False, later_keys=False))
    off._layouts.seen = [LAYOUT] * HEADER_AGREEMENT
    off._server = Server([ok(UNITS_CALL.split('"value":', 1)[1])])
    assert asyncio.run(off._generate(CALL)).choices[0].text == UNITS_CALL
    assert len(off._server.bodies) == 1 and "stop" not in off._server.bodies[0]
    on = learned(EmbeddedLM("smollm2-135m", compact_json=False))
    on._layouts.seen = [LAYOUT] * HEADER_AGREEMENT
    on._server = Server([ok(" 23"), ok(UNITS_CALL.split('"value":', 1)[1])])
    assert asyncio.run(on._generate(CALL)).choices[0].text == UNITS_CALL
    first, again = on._server.bodies
    assert first["stop"] == [STOP] and "stop" not in again
    assert again["messages"] == first["messages"]


SMOL = BUILTIN_MODELS["smollm2-135m"]
QUESTIONS = ("Convert 23 kg to miles.", "Add 3 days to 2024-05-01.",
             "Which date is 10 business days after March 3rd 2025?", "Tag this note: buy milk.")


@pytest.mark.embedded
def test_the_real_runtime_stops_where_a_value_ends_and_takes_every_grammar(smol_file):
    # SmolLM2-135M agrees on no header of its own, so one is given to it, and a layout: the
    # runtime must take every part's grammar and cut at the stop, and a call that parses
    # keeps to its tool's schema
    lm = learned(EmbeddedLM(SMOL.name, parallel=1))
    lm._layouts.seen = [LAYOUT] * HEADER_AGREEMENT
    sent, complete = [], lm._complete

    async def recorded(server, body):
        sent.append(json.loads(json.dumps(body)))
        return await complete(server, body)

    lm._complete = recorded
    parsed = split = 0
    try:
        for question, fn in zip(QUESTIONS * 2, (UNITS, DAYS, DAYS, TAGS) * 2):
            request = ChatRequest(({"role": "user", "content": question},), temperature=0.0,
                                  max_tokens=80, tools=({"type": "function", "function": fn},))
            del sent[:]
            out = asyncio.run(lm._generate(request)).choices[0]
            split += len(sent) > 1
            assert all("grammar" in b for b in sent)
            for call in out.tool_calls:
                jsonschema.validate(call.arguments, fn["parameters"])
                parsed += 1
    finally:
        lm.close()
    assert parsed >= len(QUESTIONS) and split >= 2
