"""What of an emulated call is written for the embedded model (play2prompt.lm.prefill): the
opening learned from its calls, the first key only where the grammar forces it, the grammar of
the rest (checked against the real runtime: what it lets through is what the schema's own
grammar lets through), and the name asked first among several tools."""

import asyncio
import json

import jsonschema
import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.lm.models import BUILTIN_MODELS
from play2prompt.lm.prefill import (
    HEADER_AGREEMENT,
    Agreement,
    Opening,
    chosen,
    first_required,
    name_grammar,
    opening_of,
    plan,
    rest_grammar,
)
from play2prompt.lm.toolcalls import CallHeader

PRETTY = CallHeader('{\n  "name": "', '",\n  "arguments":')
ADD_DAYS = {"name": "add_days", "parameters": {"type": "object", "properties": {
    "date": {"type": "string", "description": "a date"}, "days": {"type": "integer"},
    "business_days": {"type": "boolean"}}, "required": ["date", "days"]}}
SEARCH = {"name": "search", "parameters": {"type": "object", "properties": {
    "query": {"type": "string"}, "category": {"type": "string", "enum": ["books", "toys"]},
    "limit": {"type": "integer"}, "sort": {"type": "string"}},
    "required": ["query", "sort"], "additionalProperties": False}}


@pytest.mark.parametrize("text, opening", [
    ('{\n  "name": "f",\n  "arguments": {\n    "date": "x"\n  }\n}', Opening(' {\n    "', '": ')),
    ('{"name": "f", "arguments": {"a\\"b": 1}}', Opening(' {"', '": ')),
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
    assert first_required({"name": "f", "parameters": params}) == key


def test_the_plan_of_a_call_writes_its_header_opening_and_first_key():
    opening = Opening(' {\n    "', '": ')
    prefix, grammar = plan(ADD_DAYS, PRETTY, opening)
    assert prefix == '{\n  "name": "add_days",\n  "arguments": {\n    "date": '
    assert grammar == rest_grammar(ADD_DAYS)
    assert plan(ADD_DAYS, PRETTY, None) is None


def test_the_grammar_of_the_rest_keeps_the_order_and_the_optional_keys():
    start, *rules = rest_grammar(SEARCH).splitlines()[1:]
    assert start.startswith("start: v0 ")
    # the optional category and limit skippable, the required sort not, no other key
    assert start.count(")?") == 2 and '"\\"sort\\""' in start and "extra" not in start
    assert start.index("category") < start.index("limit") < start.index("sort")
    assert json.loads(rules[1].partition("%json ")[2]) == {"type": "string",
                                                           "enum": ["books", "toys"]}
    # additional properties (the schema's default), named as no declared one
    assert 'EXTRA_KEY: /"' in rest_grammar(ADD_DAYS)
    assert rest_grammar(ADD_DAYS).endswith('& ~("\\"date\\"" | "\\"days\\"" | '
                                           '"\\"business_days\\"")\nextra_value: %json {}')


def test_the_name_grammar_and_the_tool_it_names():
    tools = [{"type": "function", "function": ADD_DAYS}, {"type": "function", "function": SEARCH}]
    assert name_grammar(tools) == '%llguidance {}\nstart: "add_days\\"" | "search\\""'
    assert chosen('search"', tools) is tools[1]
    assert chosen("search", tools) is None and chosen('add"', tools) is None


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
    lm = EmbeddedLM(SMOL.name, parallel=1, call_prefill=True)
    lm._headers.seen = [PRETTY] * HEADER_AGREEMENT
    lm._openings.seen = [Opening(' {\n    "', '": ')] * HEADER_AGREEMENT
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
            assert out.text.startswith(written) and written.endswith('": ')
            for call in out.tool_calls:
                fn = next(t["function"] for t in shown if t["function"]["name"] == call.name)
                jsonschema.validate(call.arguments, fn["parameters"])
                parsed += 1
    finally:
        lm.close()
    assert parsed >= len(QUESTIONS)
