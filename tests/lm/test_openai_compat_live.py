"""The OpenAI-compatible backend against a real OpenAI-compatible HTTP server, offline: the
embedded runtime's own llama.cpp server on loopback (what `llama-server` or vLLM would be)."""

import asyncio

import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.registry import make_lm
from play2prompt.lm.structured import chat_json
from play2prompt.store.db import RunStore

pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module")
def server_url(llama_server):
    return f"{llama_server}/v1"


def test_structured_output_usage_and_the_run_log_over_real_http(server_url, tmp_path):
    store = RunStore(tmp_path / "run.db")
    lm = make_lm(f"openai-compat:{server_url}#smollm2", log=store)
    schema = {"type": "object", "properties": {"city": {"type": "string"},
                                               "days": {"type": "integer"}},
              "required": ["city", "days"]}
    messages = [{"role": "user", "content": "I am spending 3 days in Paris. Reply in JSON."}]
    (value,), response = asyncio.run(chat_json(lm, messages, schema, role="generator",
                                               temperature=0.0, max_tokens=60))
    assert isinstance(value, dict) and isinstance(value["days"], int)
    assert isinstance(value["city"], str)
    assert response.usage.prompt_tokens > 0 and response.usage.completion_tokens > 0
    assert lm.schema_mode == "json_schema"    # the server took response_format as is
    again = make_lm(f"openai-compat:{server_url}#smollm2", log=store)
    (same,), _ = asyncio.run(chat_json(again, messages, schema, role="generator",
                                       temperature=0.0, max_tokens=60))
    assert same == value and again.stats.calls == 0    # served from the run log
    text = asyncio.run(lm.chat(ChatRequest(({"role": "user", "content": "Say hello."},),
                                           0.0, 8, role="task")))
    assert text.choices[0].text.strip()
    store.close()


def test_tools_emulate_gets_constrained_calls_from_a_server_that_ignores_tools(server_url):
    lm = make_lm(f"openai-compat:{server_url}#smollm2?tools=emulate")
    assert not lm.supports_tools and lm.model == "smollm2"
    tool = {"type": "function", "function": {
        "name": "get_weather", "description": "Weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}
    request = ChatRequest(({"role": "user", "content": "What is the weather in Oslo?"},),
                          0.0, 60, tools=(tool,), role="task")
    choice = asyncio.run(lm.chat(request)).choices[0]
    assert [c.name for c in choice.tool_calls] == ["get_weather"]
    assert isinstance(choice.tool_calls[0].arguments["city"], str)


def test_a_bad_tools_option_is_one_clear_error():
    from play2prompt.errors import LMError

    with pytest.raises(LMError, match="tools= must be native or emulate"):
        make_lm("openai-compat:http://127.0.0.1:9/v1#m?tools=maybe")
