"""What of an emulated call is written for the embedded model (play2prompt.lm.prefill): the
opening learned from its calls, the first key only where the grammar forces it, the grammar of
the rest (checked against the real runtime: what it lets through is what the schema's own
grammar lets through), and the name asked first among several tools."""

import asyncio
import json
from dataclasses import replace

import jsonschema
import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM, compact_grammar
from play2prompt.lm.models import BUILTIN_MODELS
from play2prompt.lm.prefill import (
    HEADER_AGREEMENT,
    Agreement,
    Opening,
    chosen,
    first_required,
    name_grammar,
    object_plan,
    opening_of,
    plan,
    rest_grammar,
)
from play2prompt.lm.toolcalls import call_arguments_schema
from tests.lm.fake_runtime import PRETTY, Server, ok

ADD_DAYS = {"name": "add_days", "parameters": {"type": "object", "properties": {
    "date": {"type": "string", "description": "a date"}, "days": {"type": "integer"},
    "business_days": {"type": "boolean"}}, "required": ["date", "days"]}}
SEARCH = {"name": "search", "parameters": {"type": "object", "properties": {
    "query": {"type": "string"}, "category": {"type": "string", "enum": ["books", "toys"]},
    "limit": {"type": "integer"}, "sort": {"type": "string"}},
    "required": ["query", "sort"], "additionalProperties": False}}


@pytest.mark.parametrize("text, opening", [
    ('{\n  "name": "f",\n  "arguments": {\n    "date": "x"\n  }\n}', Opening(' {\n    "', '":')),
    ('{"name": "f", "arguments": {"a\\"b": 1}}', Opening(' {"', '":')),
    ('{"name":"f","arguments":{"a":1}}', Opening('{"', '":')),
    ('{"name": "f", "arguments": {}}', None),            # no key: nothing to learn
    ('{"arguments": {"a": 1}, "name": "f"}', None),      # not a call's header
    ("The answer is 4.", None),
])
def test_the_opening_of_a_calls_arguments(text, opening):
    assert opening_of(text) == opening


def test_an_agreement_needs_every_one_of_the_first_calls_alike():
    agree: Agreement[str] = Agreement()
    for _ in range(HEADER_AGREEMENT - 1):
        agree.add("a")
    assert agree.value is None
    agree.add("a")
    agree.add("b")                     # after the agreement: not counted
    assert agree.value == "a"
    other: Agreement[str] = Agreement()
    other.add("a")
    other.add(None)
    for _ in range(HEADER_AGREEMENT):
        other.add("a")
    assert other.value is None and other.seen is None


@pytest.mark.parametrize("params, key", [
    (ADD_DAYS["parameters"], "date"),
    ({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"]}, None),
    ({"type": "object", "properties": {}, "required": []}, None),
    ({"type": "object", "properties": {"a": {}}, "required": ["a", "zz"]}, None),
    ({"type": "object", "properties": {"a": {}}, "required": ["a"], "minProperties": 1}, None),
    ({"anyOf": [{"type": "object"}]}, None),
])
def test_the_first_key_is_written_only_where_the_grammar_forces_it(params, key):
    assert first_required(params) == key


def test_the_plan_of_a_call_writes_its_header_opening_and_first_key():
    opening = Opening(' {\n    "', '":')
    prefix, grammar = plan(ADD_DAYS, PRETTY, opening)
    assert prefix == '{\n  "name": "add_days",\n  "arguments": {\n    "date":'
    assert grammar == rest_grammar(call_arguments_schema(ADD_DAYS))
    assert plan(ADD_DAYS, PRETTY, None) is None


def test_the_grammar_of_the_rest_keeps_the_order_and_the_optional_keys():
    start, *rules = rest_grammar(call_arguments_schema(SEARCH)).splitlines()[1:]
    assert start.startswith("start: /[ \\t\\n\\r]*/ v0 ")
    # the optional category and limit skippable, the required sort not, no other key
    assert start.count(")?") == 2 and '"\\"sort\\""' in start and "extra" not in start
    assert start.index("category") < start.index("limit") < start.index("sort")
    assert json.loads(rules[1].partition("%json ")[2]) == {"type": "string",
                                                           "enum": ["books", "toys"]}
    # additional properties (the schema's default), named as no declared one
    grammar = rest_grammar(call_arguments_schema(ADD_DAYS))
    assert 'EXTRA_KEY: /"' in grammar
    assert grammar.endswith('& ~("\\"date\\"" | "\\"days\\"" | "\\"business_days\\"")\n'
                            'extra_value: %json {}')


def test_the_name_grammar_and_the_tool_it_names():
    tools = [{"type": "function", "function": ADD_DAYS}, {"type": "function", "function": SEARCH}]
    assert name_grammar(tools) == '%llguidance {}\nstart: "add_days\\"" | "search\\""'
    assert chosen('search"', tools) is tools[1]
    assert chosen("search", tools) is None and chosen('add"', tools) is None


QUERY = {"type": "object", "title": "a request", "properties": {
    "query": {"type": "string", "minLength": 8, "maxLength": 80},
    "why": {"type": "string", "maxLength": 40}},
    "required": ["query"], "additionalProperties": False}
LAYOUT = {"whitespace_flexible": False, "key_separator": ": ", "item_separator": ", "}


def test_a_one_line_answer_gets_its_first_key_and_the_grammar_of_the_rest():
    prefix, grammar = object_plan(QUERY, LAYOUT)
    assert prefix == '{"query":'
    start, first, second = grammar.splitlines()[1:]
    assert start == 'start: " " v0 (", " "\\"why\\"" ": " v1)? "}"'
    assert json.loads(first.partition("%json ")[2]) == {"type": "string", "minLength": 8,
                                                        "maxLength": 80, "x-guidance": LAYOUT}
    assert object_plan({**QUERY, "required": ["why"]}, LAYOUT) is None     # not forced
    assert object_plan({"type": "array", "items": {}}, LAYOUT) is None


def structured(schema=QUERY):
    # the lengths bound the answer within max_tokens: the grammar closes each string in time
    return ChatRequest(({"role": "user", "content": "Write a request."},), temperature=0.8,
                       seed=3, max_tokens=200, json_schema=schema)


@pytest.mark.parametrize("echoed", [True, False])
def test_the_embedded_model_is_sent_the_first_key_of_a_structured_answer(echoed):
    lm = EmbeddedLM("smollm2-135m", compact_json=False)        # strict structured: default
    rest = ' "Book a table for two."}'
    lm._server = Server([ok('{"query":' + rest if echoed else rest)])
    out = asyncio.run(lm._generate(structured()))
    (body,) = lm._server.bodies
    assert body["messages"][-1] == {"role": "assistant", "content": '{"query":'}
    assert body["grammar"] == object_plan(QUERY, LAYOUT)[1]
    assert json.loads(out.choices[0].text) == {"query": "Book a table for two."}


def test_a_structured_answer_is_asked_as_before_when_nothing_is_forced_or_it_is_off():
    schemas = [{**QUERY, "required": []}, QUERY]
    for schema, lm in zip(schemas, [EmbeddedLM("smollm2-135m"),
                                    EmbeddedLM("smollm2-135m", key_prefill=False)]):
        lm._server = Server([ok('{"query": "Book a table for two."}')])
        asyncio.run(lm._generate(structured(schema)))
        (body,) = lm._server.bodies
        assert body["messages"][-1]["role"] == "user"
        assert body["grammar"] == compact_grammar(schema)


def test_a_rejected_grammar_of_the_rest_is_asked_again_as_before():
    lm = EmbeddedLM("smollm2-135m")
    lm._server = Server([{"error": {"message": "failed to parse grammar"}},
                         ok('{"query": "Book a table for two."}')])
    out = asyncio.run(lm._generate(structured()))
    first, again = lm._server.bodies
    assert first["messages"][-1]["role"] == "assistant"
    assert again["messages"][-1]["role"] == "user" and again["grammar"] == compact_grammar(QUERY)
    assert json.loads(out.choices[0].text)["query"] == "Book a table for two."


SMOL = BUILTIN_MODELS["smollm2-135m"]
QUESTIONS = ("Add 3 days to 2024-05-01.", "Find toys under 10 sorted by price.",
             "Which date is 10 business days after March 3rd 2025?", "Search books about cats.")


@pytest.mark.embedded
def test_the_real_runtime_takes_the_grammars_and_keeps_to_the_schema(smol_file):
    # SmolLM2-135M agrees on no header of its own (it indents two ways), so one is given to
    # it: the runtime must take every grammar (a rejected one is asked again without the
    # written start), and a call that parses keeps to its tool's schema (a declared key never
    # comes back as an additional one of another type)
    tools = tuple({"type": "function", "function": f} for f in (ADD_DAYS, SEARCH))
    lm = EmbeddedLM(SMOL.name, parallel=1, call_prefill=True, later_keys=False)
    lm._headers.seen = [PRETTY] * HEADER_AGREEMENT
    lm._openings.seen = [Opening(' {\n    "', '":')] * HEADER_AGREEMENT
    sent = []
    complete = lm._complete

    async def recorded(server, body):
        sent.append(json.loads(json.dumps(body)))
        return await complete(server, body)

    lm._complete = recorded
    parsed = 0
    try:
        for i, question in enumerate(QUESTIONS * 2):
            shown = tools if i % 2 else (tools[i // 2 % 2],)
            request = ChatRequest(({"role": "user", "content": question},), temperature=0.0,
                                  max_tokens=80, tools=shown)
            del sent[:]
            out = asyncio.run(lm._generate(request)).choices[0]
            assert len(sent) == len(shown)                 # the name first among several
            assert all("grammar" in body for body in sent)
            written = sent[-1]["messages"][-1]["content"]
            assert out.text.startswith(written) and written.endswith('":')
            for call in out.tool_calls:
                fn = next(t["function"] for t in shown if t["function"]["name"] == call.name)
                jsonschema.validate(call.arguments, fn["parameters"])
                parsed += 1
    finally:
        lm.close()
    assert parsed >= len(QUESTIONS)


@pytest.mark.embedded
def test_the_real_runtime_continues_a_structured_answer_from_its_first_key(smol_file):
    lm = EmbeddedLM(SMOL.name, parallel=1)
    try:
        for seed in range(4):
            out = asyncio.run(lm._generate(replace(structured(), seed=seed)))
            answer = json.loads(out.choices[0].text)
            jsonschema.validate(answer, QUERY)
            assert out.choices[0].text.startswith('{"query": "') and "\n" not in answer["query"]
    finally:
        lm.close()
