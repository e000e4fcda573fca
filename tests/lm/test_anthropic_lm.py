"""``anthropic:MODEL`` against a stub of Anthropic's ``/v1/messages`` on loopback, through the
real ``anthropic`` SDK: tool_use blocks, structured output by a forced tool, usage, retries on
529/429, and one-line errors."""

import asyncio
import json
import socket

import jsonschema
import pytest

from play2prompt.errors import LMError
from play2prompt.lm import ChatRequest, make_lm
from play2prompt.lm.anthropic_lm import AnthropicLM, to_messages
from tests.extras import need
from tests.lm.stub_servers import (
    StubServer,
    answer_messages,
    anthropic_error,
    anthropic_message,
)

need("anthropic", "anthropic")

TOOL = {"type": "function", "function": {
    "name": "convert_units", "description": "Convert a value between units.",
    "parameters": {"type": "object", "properties": {
        "value": {"type": "number"}, "unit": {"type": "string", "enum": ["km", "mi"]}},
        "required": ["value", "unit"]}}}
FINAL = {"type": "function", "function": {
    "name": "final_answer", "parameters": {"type": "object", "properties": {
        "answer": {"type": "string"}}, "required": ["answer"]}}}


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-stub")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def _lm(server, store=None, **options):
    options.setdefault("retry_base_delay", 0.001)
    return make_lm(f"anthropic:stub-model?base_url={server.url}", store, **options)


def _chat(lm, **fields):
    fields.setdefault("messages", ({"role": "user", "content": "hi"},))
    return asyncio.run(lm.chat(ChatRequest(**fields)))


def test_tools_and_an_agent_conversation_in_the_messages_api_form(key):
    history = (
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "How far is 5 km in miles?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_0_0", "type": "function",
             "function": {"name": "convert_units", "arguments": '{"value": 5, "unit": "km"}'}}]},
        {"role": "tool", "tool_call_id": "call_0_0", "content": "3.1"},
    )
    with StubServer(answer_messages) as server:
        lm = _lm(server)
        reply = _chat(lm, messages=history, tools=(TOOL, FINAL), max_tokens=300)
    sent = server.requests[0]
    auth = server.headers[0]     # SDKs before 2.x send x-api-key, later ones a bearer token
    assert "sk-ant-stub" in (auth.get("x-api-key"), auth.get("authorization", "")[7:])
    assert server.paths == ["/v1/messages"]
    assert sent["system"] == "You are an agent." and sent["max_tokens"] == 300
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assert sent["messages"][1]["content"] == [{"type": "tool_use", "id": "call_0_0",
                                               "name": "convert_units",
                                               "input": {"value": 5, "unit": "km"}}]
    assert sent["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "call_0_0",
                                               "content": "3.1"}]
    assert sent["tools"][0] == {"name": "convert_units",
                                "description": "Convert a value between units.",
                                "input_schema": TOOL["function"]["parameters"]}
    assert sent["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    (call,) = reply.choices[0].tool_calls     # the stub answers a tool result with final_answer
    assert call.name == "final_answer" and isinstance(call.arguments["answer"], str)
    assert reply.choices[0].finish_reason == "tool_calls"
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens == 7
    assert lm.stats.calls == 1 and lm.stats.completion_tokens == 7


def test_text_usage_with_cache_and_the_apis_ranges(key):
    usage = {"input_tokens": 4, "output_tokens": 3, "cache_read_input_tokens": 20,
             "cache_creation_input_tokens": 6}
    text = anthropic_message([{"type": "text", "text": "Hello"}], usage=usage)
    with StubServer(answer_messages, [(200, {}, text)]) as server:
        reply = _chat(_lm(server), temperature=1.7, stop=("\n\n", " ", "END"), seed=3,
                      parallel_tool_calls=True)
    sent = server.requests[0]
    assert sent["temperature"] == 1.0 and sent["stop_sequences"] == ["END"]
    assert "tools" not in sent and "seed" not in sent and "system" not in sent
    assert reply.text == "Hello" and reply.choices[0].finish_reason == "stop"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens,
            reply.usage.cached_tokens) == (30, 3, 20)


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"score": {"type": "integer", "minimum": 1,
                                                "maximum": 5}, "why": {"type": "string"}},
     "required": ["score", "why"], "additionalProperties": False},
    {"type": "array", "items": {"type": "string"}, "minItems": 2},
])
def test_structured_output_is_a_forced_tool(key, schema):
    with StubServer(answer_messages) as server:
        reply = _chat(_lm(server), json_schema=schema)
    sent = server.requests[0]
    assert sent["tool_choice"] == {"type": "tool", "name": "answer"}
    (tool,) = sent["tools"]
    assert tool["input_schema"]["type"] == "object"
    value = json.loads(reply.text)
    jsonschema.validate(value, schema)
    assert reply.choices[0].tool_calls == ()


def test_overloaded_and_rate_limited_are_retried_then_answered(key, store):
    script = [anthropic_error(529, "overloaded_error"),
              anthropic_error(429, "rate_limit_error", {"retry-after": "0"}),
              anthropic_error(500, "api_error")]
    with StubServer(answer_messages, script) as server:
        lm = _lm(server, store, max_retries=3)
        reply = _chat(lm)
    assert reply.text == "A stub answer." and len(server.requests) == 4
    assert lm.stats.failures == 3 and lm.stats.calls == 1
    total = store.call_stats()["total"]
    assert total["samples"] == 1 and total["failed"] == 0


def test_retries_run_out_into_one_recorded_line(key, store):
    with StubServer(answer_messages, [anthropic_error(529, "overloaded_error")] * 3) as server, \
            pytest.raises(LMError, match=r"HTTP 529.*after 3 attempts") as err:
        _chat(_lm(server, store, max_retries=2))
    assert "\n" not in str(err.value) and store.call_stats()["total"]["failed"] == 1


@pytest.mark.parametrize("status, kind, words", [
    (401, "authentication_error", r"anthropic:stub-model: authentication failed .*"
                                  r"ANTHROPIC_API_KEY"),
    (404, "not_found_error", r"anthropic:stub-model: not found \(model name or URL\)"),
    (400, "invalid_request_error", r"request rejected"),
])
def test_a_bad_key_unknown_model_or_bad_request_is_one_line_at_once(key, status, kind, words):
    with StubServer(answer_messages, [anthropic_error(status, kind)]) as server, \
            pytest.raises(LMError, match=words) as err:
        _chat(_lm(server))
    assert len(server.requests) == 1 and "\n" not in str(err.value)


def test_a_down_endpoint_is_one_line_after_the_retries(key):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]        # closed once the block ends: nothing listens there
    lm = make_lm(f"anthropic:stub-model?base_url=http://127.0.0.1:{port}", max_retries=1,
                 retry_base_delay=0.001)
    with pytest.raises(LMError, match=rf"cannot reach http://127.0.0.1:{port}.*after 2 "
                                      rf"attempts") as err:
        _chat(lm)
    assert "\n" not in str(err.value)


def test_key_and_base_url_from_the_environment(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LMError, match=r"^ANTHROPIC_API_KEY is not set"):
        make_lm("anthropic:claude-sonnet-4-5")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with StubServer(answer_messages) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        lm = make_lm("anthropic:stub-model", max_retries=0)
        assert isinstance(lm, AnthropicLM) and lm.model_id == "anthropic:stub-model"
        assert _chat(lm).text == "A stub answer."
    assert lm.supports_tools and not lm.supports_n and lm.can_judge


@pytest.mark.parametrize("spec, words", [
    ("anthropic:", "needs a model name"),
    ("anthropic:m?bse_url=http://x", "bad options"),
    ("anthropic:m?base_url=ftp://x", "must start with http"),
])
def test_bad_specs_are_one_line(key, spec, words):
    with pytest.raises(LMError, match=words):
        make_lm(spec)


def test_messages_merge_turns_and_trim_a_prefill():
    system, turns = to_messages([
        {"role": "system", "content": "a"}, {"role": "system", "content": "b"},
        {"role": "user", "content": "one"}, {"role": "user", "content": "two"},
        {"role": "assistant", "content": "{\"x\": "}])
    assert system == "a\n\nb"
    assert turns == [{"role": "user", "content": [{"type": "text", "text": "one"},
                                                  {"type": "text", "text": "two"}]},
                     {"role": "assistant", "content": [{"type": "text", "text": '{"x":'}]}]
    assert to_messages([{"role": "system", "content": "Only this."}]) == (
        "", [{"role": "user", "content": [{"type": "text", "text": "Only this."}]}])


def test_a_model_that_refuses_a_temperature_is_asked_without_one(key):
    refusal = anthropic_error(400, "invalid_request_error")
    refusal[2]["error"]["message"] = "temperature is deprecated for this model"
    with StubServer(answer_messages, [refusal]) as server:
        lm = _lm(server)
        assert _chat(lm, temperature=0.0).text == "A stub answer."
        assert _chat(lm, temperature=0.5).text == "A stub answer."
    first, second, third = server.requests
    assert first["temperature"] == 0.0
    assert "temperature" not in second and "temperature" not in third
    assert lm.stats.failures == 0
