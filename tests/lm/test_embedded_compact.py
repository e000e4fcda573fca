"""One-line constrained JSON of the embedded runtime (``P2P_EMBEDDED_COMPACT_JSON`` for every
request, ``P2P_EMBEDDED_STRICT_STRUCTURED`` for structured output only): what the runtime is
sent, that it is part of the model's fingerprint, and (real default model) that the reply is
one line of valid JSON with no key its schema does not declare."""

import asyncio
import json
from dataclasses import replace

import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM, compact_grammar
from play2prompt.lm.models import BUILTIN_MODELS
from play2prompt.method.requests import QUERY_SCHEMA
from tests.lm.fake_runtime import Server, ok

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "country": {"type": "string"}},
          "required": ["city", "country"]}
REQUEST = ChatRequest(({"role": "user", "content": "Give the city Lyon and its country France "
                        "as JSON."},), temperature=0.0, max_tokens=40, json_schema=SCHEMA)


def test_the_schema_goes_as_an_llguidance_grammar_without_free_whitespace():
    grammar = compact_grammar(SCHEMA)
    head, _, schema = grammar.partition("start: %json ")
    assert head == "%llguidance {}\n"
    sent = json.loads(schema)
    assert sent["x-guidance"]["whitespace_flexible"] is False
    assert {k: v for k, v in sent.items() if k != "x-guidance"} == SCHEMA


@pytest.mark.parametrize("compact", [True, False])
def test_what_the_runtime_is_sent(compact):
    lm = EmbeddedLM("smollm2-135m", compact_json=compact, strict_structured=False)
    lm._server = Server([ok('{"city": "Lyon", "country": "France"}')])
    reply = asyncio.run(lm._generate(REQUEST))
    body = lm._server.bodies[0]
    assert ("grammar" in body) is compact
    assert ("response_format" in body) is not compact
    assert json.loads(reply.choices[0].text) == {"city": "Lyon", "country": "France"}


TOOL = {"type": "function", "function": {"name": "locate", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def test_structured_output_goes_as_a_grammar_and_a_tool_call_as_before():
    # strict structured: the default; nothing written for the model
    lm = EmbeddedLM("smollm2-135m", compact_json=False, key_prefill=False)
    assert lm.strict_structured
    lm._server = Server([ok('{"city": "Lyon", "country": "France"}'),
                         ok('{"name": "locate", "arguments": {"city": "Lyon"}}')])
    asyncio.run(lm._generate(REQUEST))
    called = asyncio.run(lm._generate(replace(REQUEST, json_schema=None, tools=(TOOL,))))
    structured, tool_call = lm._server.bodies
    assert structured["grammar"] == compact_grammar(SCHEMA) and "response_format" not in structured
    assert "grammar" not in tool_call and tool_call["response_format"]["type"] == "json_schema"
    assert called.choices[0].tool_calls[0].name == "locate"


def test_a_rejected_grammar_falls_back_to_any_json_object():
    lm = EmbeddedLM("smollm2-135m", compact_json=True, key_prefill=False)
    lm._server = Server([{"error": {"message": "failed to parse grammar"}}, ok("{}")])
    asyncio.run(lm._generate(REQUEST))
    retry = lm._server.bodies[1]
    assert "grammar" not in retry and retry["response_format"] == {"type": "json_object"}


def test_the_setting_is_part_of_the_fingerprint(monkeypatch):
    monkeypatch.setenv("P2P_EMBEDDED_COMPACT_JSON", "1")
    compact = EmbeddedLM("smollm2-135m")
    plain = EmbeddedLM("smollm2-135m", compact_json=False)
    assert compact.compact_json and not plain.compact_json
    assert compact.fingerprint != plain.fingerprint
    assert compact.model_id == plain.model_id
    monkeypatch.setenv("P2P_EMBEDDED_STRICT_STRUCTURED", "0")
    loose = EmbeddedLM("smollm2-135m", compact_json=False)
    assert not loose.strict_structured and loose.fingerprint != plain.fingerprint


SMOL = BUILTIN_MODELS["smollm2-135m"]


@pytest.mark.embedded
def test_the_real_model_writes_one_line_of_valid_json(smol_file):
    lm = EmbeddedLM(SMOL.name, parallel=1, compact_json=True)
    try:
        text = asyncio.run(lm._generate(REQUEST)).choices[0].text
    finally:
        lm.close()
    assert "\n" not in text
    assert set(json.loads(text)) == {"city", "country"}


@pytest.mark.embedded
def test_the_real_model_writes_no_undeclared_key(smol_file):
    # asked for three keys with a schema of one (the request writer's, whose pattern the
    # runtime's response_format path mishandles: it then enforces neither the pattern, nor the
    # length, nor the closed object), the runtime lets the other two through; the structured
    # grammar does not
    ask = ChatRequest((
        {"role": "system", "content": "Answer with a JSON object with the keys query, parameters "
                                      "and expected."},
        {"role": "user", "content": "Write a request asking to convert 5 feet to metres. Give the "
                                    "keys query, parameters (the call's values) and expected (the "
                                    "answer)."}), temperature=0.7, seed=0, max_tokens=120,
        json_schema=QUERY_SCHEMA)
    lm = EmbeddedLM(SMOL.name, parallel=1, compact_json=False)
    try:
        text = asyncio.run(lm._generate(ask)).choices[0].text
    finally:
        lm.close()
    assert set(json.loads(text)) == {"query"}
