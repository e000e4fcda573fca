"""Reading native tool calls back from what a model wrote: never raises, a reply with no
readable call is a text answer."""

import pytest

from play2prompt.lm._base import ToolCall
from play2prompt.lm.toolcalls import parse_native

NAMES = ["get_weather", "final_answer"]


@pytest.mark.parametrize("message, calls", [
    # the runtime parsed the model's <tool_call> block
    ({"content": "", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
     [ToolCall("get_weather", {"city": "Paris"})]),
    # the template's format, left in the text
    ({"content": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'
                 '</tool_call>'}, [ToolCall("get_weather", {"city": "Oslo"})]),
    ({"content": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "A"}}\n</tool_call>'
                 '\n<tool_call>\n{"name": "final_answer", "arguments": {"answer": 1}}'},
     [ToolCall("get_weather", {"city": "A"}), ToolCall("final_answer", {"answer": 1})]),
    # what Qwen2.5-Coder writes instead: a fenced JSON block
    ({"content": '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "city": "Paris"\n'
                 '  }\n}\n```'}, [ToolCall("get_weather", {"city": "Paris"})]),
    # prose around, a list, OpenAI's shape, "parameters", arguments as a JSON string
    ({"content": 'Sure. [{"name": "get_weather", "arguments": {"city": "B"}}] Done.'},
     [ToolCall("get_weather", {"city": "B"})]),
    ({"content": '{"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"C\\"}"}}'},
     [ToolCall("get_weather", {"city": "C"})]),
    ({"content": '{"name": "get_weather", "parameters": {"city": "D"}}'},
     [ToolCall("get_weather", {"city": "D"})]),
    ({"content": '{"tool_calls": [{"name": "final_answer", "arguments": {"answer": "x"}}]}'},
     [ToolCall("final_answer", {"answer": "x"})]),
    # a known tool named without arguments
    ({"content": '{"name": "final_answer"}'}, [ToolCall("final_answer", {})]),
    # arguments that are not JSON stay a string (the agent reports them as unparsed)
    ({"content": '{"name": "get_weather", "arguments": "city=Paris"}'},
     [ToolCall("get_weather", "city=Paris")]),
])
def test_calls_are_read_from_the_runtime_or_the_text(message, calls):
    choice = parse_native(message, NAMES)
    assert list(choice.tool_calls) == calls and choice.finish_reason == "tool_calls"


@pytest.mark.parametrize("content", [
    "It is sunny in Paris.",
    "",
    '{"name": "Alice", "age": 3}',                         # JSON, but not a call
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": ',  # cut off
    '```json\n{"name": "get_weather", "arguments": {"city": "Paris"\n```',  # malformed
    "[1, 2, 3]",
])
def test_no_readable_call_is_a_text_answer(content):
    choice = parse_native({"content": content, "tool_calls": [{"function": {"x": 1}}]}, NAMES)
    assert choice.tool_calls == () and choice.text == content
    assert choice.finish_reason == "stop"
