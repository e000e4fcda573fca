import asyncio
import json

import pytest

from play2prompt.agent import AgentConfig, render_observation, run_agent
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.tools.model import Invocation, Observation, Tool

ADD = Tool("add", "Add two integers.", {"type": "object", "properties": {
    "a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
SECRET = Tool("secret", "Reveal the secret word.", {"type": "object", "properties": {}})


class Env:
    def __init__(self, tools, extra=()):
        self._tools = list(tools)
        self.extra = list(extra)
        self.calls = []

    def tools(self):
        return self._tools

    async def execute(self, inv: Invocation) -> Observation:
        self.calls.append(inv)
        if inv.name == "add":
            return Observation.success({"sum": inv.arguments["a"] + inv.arguments["b"]})
        if inv.name == "secret":
            self._tools += self.extra  # an environment may reveal tools between turns
            return Observation.success("swordfish")
        return Observation.failure("unknown_tool", f"no function named {inv.name!r}")


def test_native_tool_calls_use_tool_messages_and_end_with_final_answer():
    lm = FakeLM(replies=[tool_call("add", {"a": 2, "b": 3}),
                         tool_call("final_answer", {"answer": 5})])
    env = Env([ADD])
    traj = asyncio.run(run_agent(lm, env, "What is 2 + 3?", system="Use the tools."))
    assert traj.stop == "answer" and traj.answer == 5 and traj.turns == 2
    assert env.calls == [Invocation("add", {"a": 2, "b": 3})]
    first, second = lm.requests
    assert [t["function"]["name"] for t in first.tools] == ["add", "final_answer", "give_up"]
    msgs = second.messages
    assert msgs[2]["role"] == "assistant" and msgs[2]["tool_calls"][0]["id"] == "call_0_0"
    assert json.loads(msgs[2]["tool_calls"][0]["function"]["arguments"]) == {"a": 2, "b": 3}
    assert msgs[3] == {"role": "tool", "tool_call_id": "call_0_0", "content": '{"sum": 5}'}
    assert [(c.name, o.output) for c, o in traj.tool_calls()] == [("add", {"sum": 5})]


def test_backend_without_native_tools_gets_plain_messages():
    # An emulating backend answers with text JSON (or parsed tool calls): both are read.
    lm = FakeLM(replies=['{"name": "add", "arguments": {"a": 1, "b": 1}}',
                         Choice('{"name": "final_answer", "arguments": {"answer": "2"}}',
                                (ToolCall("final_answer", {"answer": "2"}),), "tool_calls")],
                supports_tools=False)
    traj = asyncio.run(run_agent(lm, Env([ADD]), "1 + 1?", system="sys"))
    assert traj.stop == "answer" and traj.answer == "2"
    msgs = lm.requests[1].messages
    assert all(m["role"] in ("system", "user", "assistant") for m in msgs)
    assert all("tool_calls" not in m for m in msgs)
    assert msgs[2] == {"role": "assistant",
                       "content": '{"name": "add", "arguments": {"a": 1, "b": 1}}'}
    assert msgs[3] == {"role": "user", "content": 'Result of add: {"sum": 2}'}
    assert lm.requests[0].tools is not None  # the backend emulates the tools by schema


def test_prompting_mode_lists_functions_and_parses_python_calls():
    lm = FakeLM(replies=["add(a=4, b=5)", "final_answer(answer=9)"])
    traj = asyncio.run(run_agent(lm, Env([ADD]), "4 + 5?", system="sys",
                                 config=AgentConfig(mode="prompting")))
    assert traj.stop == "answer" and traj.answer == 9
    first = lm.requests[0]
    assert first.tools is None and '"name": "add"' in first.messages[0]["content"]


def test_give_up_turn_limit_text_answer_and_tools_revealed_between_turns():
    gave = asyncio.run(run_agent(FakeLM(replies=[tool_call("give_up", {"reason": "no way"})]),
                                 Env([ADD]), "?", system="s"))
    assert gave.gave_up and not gave.answered and gave.answer == "no way"
    loop = asyncio.run(run_agent(FakeLM(default=tool_call("add", {"a": 1, "b": 2})),
                                 Env([ADD]), "?", system="s", config=AgentConfig(max_turns=3)))
    assert loop.stop == "turn_limit" and loop.turns == 3 and loop.answer is None
    text = asyncio.run(run_agent(FakeLM(replies=["It is 7."]), Env([ADD]), "?", system="s"))
    assert text.stop == "text" and text.answer == "It is 7." and text.answered
    lm = FakeLM(replies=[tool_call("secret"), tool_call("add", {"a": 0, "b": 0}),
                         tool_call("final_answer", {"answer": 0})])
    env = Env([SECRET], extra=[ADD])
    asyncio.run(run_agent(lm, env, "?", system="s"))
    offered = [[t["function"]["name"] for t in r.tools] for r in lm.requests]
    assert "add" not in offered[0] and "add" in offered[1]


def test_errors_are_rendered_for_the_model_and_bad_config_is_refused():
    assert render_observation(Observation.failure("unavailable", "f is down.")) == \
        "Error: f is down."
    assert render_observation(Observation.success("plain text")) == "plain text"
    with pytest.raises(ValueError):
        AgentConfig(mode="telepathy")


def test_a_repeated_identical_call_is_flagged_once_it_repeats():
    lm = FakeLM(replies=[tool_call("add", {"a": 1, "b": 2}),
                         tool_call("add", {"b": 2, "a": 1}),
                         tool_call("add", {"a": 2, "b": 2}),
                         tool_call("final_answer", {"answer": 3})])
    env = Env([ADD])
    traj = asyncio.run(run_agent(lm, env, "1 + 2?", system="sys"))
    assert traj.stop == "answer" and len(env.calls) == 3   # the repeat still runs
    tool_msgs = [m["content"] for m in lm.requests[3].messages if m["role"] == "tool"]
    assert tool_msgs[0] == '{"sum": 3}'
    assert tool_msgs[1].startswith('{"sum": 3}') and "already made this exact call" in tool_msgs[1]
    assert tool_msgs[2] == '{"sum": 4}'
