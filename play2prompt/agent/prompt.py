"""The task model's prompt (docs + demos) and one call of the task model: the agent's words.

The task model is the agent whose accuracy a doc is optimized for, so its prompt lives with
the agent: the method scores docs with it (:class:`TaskPrompter`), evaluation asks it, export
renders its demos. ReAct's vocabulary (StableToolBench's agent) is here too, because demos are
rendered in a ReAct style as short solved trajectories.

Two modes: ``function-calling`` (native ``tools=``; emulated by JSON-schema decoding on
backends without it) and ``prompting`` (functions listed as JSON in the system prompt, calls
answered in Python syntax, as BFCL's prompting models). Demonstrations are rendered into the
system prompt, after the instructions, so the shared prefix stays cacheable.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.lm._base import LM, ChatRequest, ChatResponse, Choice
from play2prompt.metaprompts import MetaPrompts
from play2prompt.scoring.parse import ParseError, parse_calls
from play2prompt.tools.model import Invocation, Tool

MODES = ("function-calling", "prompting")
# ReAct's vocabulary (StableToolBench's agent): the action that ends an episode, and its kinds.
FINISH = "Finish"
GIVE_ANSWER = "give_answer"
GIVE_UP_AND_RESTART = "give_up_and_restart"
REACT_STYLES = ("react-text", "react-json")   # ReAct steps as labelled lines, or as JSON


@dataclass(frozen=True)
class Demo:
    """A verified demonstration: a user query and the call(s) that answer it."""

    query: str
    calls: tuple[Invocation, ...]
    answer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "calls": [c.to_dict() for c in self.calls],
                "answer": self.answer}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Demo:
        return cls(data["query"], tuple(Invocation.from_dict(c) for c in data["calls"]),
                   data.get("answer"))


def render_demos(demos: Sequence[Demo], style: str) -> str:
    """The demos as the task model sees them: request and call(s) in a mode's call syntax
    (``function-calling``: JSON, ``prompting``: Python), or, in a ReAct style, each as a short
    solved trajectory."""
    if not demos:
        return ""
    if style in REACT_STYLES:
        return _react_demos(demos, style)
    lines = ["", "Examples of requests and the correct calls:"]
    for demo in demos:
        if style == "prompting":
            calls = "[" + ", ".join(c.to_python() for c in demo.calls) + "]"
        else:
            calls = ", ".join(c.to_json() for c in demo.calls)
        lines.append(f"Request: {demo.query}")
        lines.append(f"Call: {calls}")
    return "\n".join(lines)


def _react_demos(demos: Sequence[Demo], style: str) -> str:
    lines = ["", "Examples of solved requests:"]
    for demo in demos:
        lines.append(f"Request: {demo.query}")
        for call in demo.calls:
            lines.append(react_step_text(f"I call {call.name} with the values from the "
                                         "request.", call.name, dict(call.arguments), style))
            lines.append("Observation: (the function's result)")
        if demo.answer:
            lines.append(react_step_text("The result answers the request.", FINISH,
                                         {"return_type": GIVE_ANSWER,
                                          "final_answer": demo.answer[:300]}, style))
        lines.append("")
    return "\n".join(lines).rstrip()


def react_step_text(thought: str, action: str, args: Mapping[str, Any], style: str) -> str:
    """One ReAct step as the model writes it."""
    if style == "react-json":
        return json.dumps({"thought": thought, "action": action, "action_input": dict(args)},
                          ensure_ascii=False)
    return (f"Thought: {thought}\nAction: {action}\n"
            f"Action Input: {json.dumps(dict(args), ensure_ascii=False)}")


@dataclass(frozen=True)
class TaskAttempt:
    """One answer of the task model: its parsed calls or why none could be read."""

    calls: tuple[Invocation, ...]
    choice: Choice
    error: str | None
    response: ChatResponse

    @property
    def raw(self) -> str:
        if self.choice.tool_calls:
            return json.dumps([c.to_dict() for c in self.choice.tool_calls], default=str)
        return self.choice.text


class TaskPrompter:
    def __init__(self, metaprompts: MetaPrompts | None = None,
                 mode: str = "function-calling") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.prompts = metaprompts or MetaPrompts()
        self.mode = mode

    def request(self, tools: Sequence[Tool], query: str, demos: Sequence[Demo] = (), *,
                seed: int = 0, temperature: float = 0.0, parallel: bool = False,
                max_tokens: int = 400) -> ChatRequest:
        demo_text = render_demos(demos, self.mode)
        if self.mode == "prompting":
            functions = json.dumps([t.to_openai()["function"] for t in tools], ensure_ascii=False)
            messages = self.prompts.render("task_prompting", functions=functions,
                                           demos=demo_text, query=query)
            return ChatRequest(tuple(messages), temperature, max_tokens, seed=seed, role="task")
        messages = self.prompts.render("task_function_calling", demos=demo_text, query=query)
        return ChatRequest(tuple(messages), temperature, max_tokens, seed=seed, role="task",
                           tools=tuple(t.to_openai() for t in tools),
                           parallel_tool_calls=parallel)

    async def attempt(self, lm: LM, tools: Sequence[Tool], query: str,
                      demos: Sequence[Demo] = (), **kwargs: Any) -> TaskAttempt:
        response = await lm.chat(self.request(tools, query, demos, **kwargs))
        choice = response.choices[0] if response.choices else Choice("")
        try:
            calls = tuple(parse_calls(choice))
            error = None
        except ParseError as exc:
            calls, error = (), f"unparseable output: {exc}"
        return TaskAttempt(calls, choice, error, response)
