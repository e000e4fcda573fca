"""The embedded backend's two function-calling modes, against a stand-in for the runtime's
server (what it is sent, how its reply is read); the real model is in test_embedded_qwen."""

import asyncio
import json

import pytest

from play2prompt.lm._base import ChatRequest, ToolCall
from play2prompt.lm.registry import make_lm

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


class Server:
    """Answers every request with ``content`` (or raises ``error``); keeps the bodies."""

    def __init__(self, content="", tool_calls=None, error=None):
        self.bodies = []
        self.content, self.tool_calls, self.error = content, tool_calls, error

    def handle_chat_completions(self, body):
        self.bodies.append(json.loads(json.dumps(body)))
        if self.error:
            raise RuntimeError(self.error)
        message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        return {"choices": [{"message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


def ask(spec, server, **request):
    lm = make_lm(spec)
    lm._server = server
    req = ChatRequest(({"role": "user", "content": "Weather in Paris?"},), tools=(WEATHER,),
                      **request)
    return lm, asyncio.run(lm.chat(req)).choices[0]


def test_native_sends_tools_to_the_template_and_reads_the_calls_back():
    server = Server('```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```')
    lm, choice = ask("embedded:qwen2.5-coder-0.5b?tools=native", server)
    body = server.bodies[0]
    assert body["tools"] == [WEATHER] and "response_format" not in body
    assert body["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    assert choice.tool_calls == (ToolCall("get_weather", {"city": "Paris"}),)
    assert lm.supports_tools


def test_native_runtime_calls_win_over_the_text():
    server = Server("", tool_calls=[{"function": {"name": "get_weather",
                                                  "arguments": '{"city": "Rome"}'}}])
    _, choice = ask("embedded:qwen2.5-coder-0.5b?tools=native", server)
    assert choice.tool_calls == (ToolCall("get_weather", {"city": "Rome"}),)


@pytest.mark.parametrize("server", [
    Server("I do not know."),                                   # no call: a text answer
    Server('{"name": "get_weather", "arguments": {"city": '),   # cut off JSON
    Server(error="Failed to parse tool call"),                  # the runtime's parser gave up
])
def test_a_native_reply_without_a_readable_call_is_a_failed_sample_not_a_crash(server):
    _, choice = ask("embedded:qwen2.5-coder-0.5b?tools=native", server)
    assert choice.tool_calls == ()


def test_emulate_asks_for_constrained_json_without_tools():
    server = Server('{"name": "get_weather", "arguments": {"city": "Oslo"}}')
    lm, choice = ask("embedded:qwen2.5-coder-0.5b?tools=emulate", server)
    body = server.bodies[0]
    assert "tools" not in body and body["response_format"]["type"] == "json_schema"
    assert "get_weather" in body["messages"][0]["content"]
    assert choice.tool_calls == (ToolCall("get_weather", {"city": "Oslo"}),)
    assert not lm.supports_tools
