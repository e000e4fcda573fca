"""The function-calling step format of the agent loop (:mod:`play2prompt.agent._base`).

It works with every backend:

- native function calling (``lm.supports_tools``): tools go out as ``tools=``; the model's calls
  come back as assistant ``tool_calls`` and each result is sent as a ``tool`` message (OpenAI
  style, with call ids);
- backends without it (e.g. the embedded model): the same ``tools=`` request is emulated by
  the backend with JSON-schema decoding, and the history is plain text: the call as JSON in an
  assistant message, its result in a user message;
- ``prompting`` mode: no ``tools=``; the functions are listed in the system prompt and calls are
  read from the text (Python call syntax or JSON, :func:`~play2prompt.scoring.parse.parse_calls`).

Two pseudo-tools end an episode: ``final_answer(answer)`` and ``give_up(reason)``. A reply with no
call is taken as a text answer. The tools offered may change between turns (an environment can
reveal tools found by a search); the environment executes every real call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.agent._base import (
    EMPTY,
    FINAL_ANSWER_NAME,
    GIVE_UP_NAME,
    TEXT,
    UNPARSED,
    Environment,
    Move,
    Step,
    Trajectory,
    run_episode,
    truncate,
)
from play2prompt.agent._base import REPEAT_NOTE as BASE_NOTE
from play2prompt.agent.prompt import MODES
from play2prompt.lm._base import LM, ChatRequest, Choice, TaggedLM
from play2prompt.scoring.parse import ParseError, parse_calls
from play2prompt.tools.model import Invocation, Observation, Tool

FINAL_ANSWER = FINAL_ANSWER_NAME
GIVE_UP = GIVE_UP_NAME

FINAL_ANSWER_TOOL = Tool(
    FINAL_ANSWER,
    "Give the final answer to the user's question and stop. Use it as soon as the results "
    "you got answer the question.",
    {"type": "object", "properties": {"answer": {
        # typed so that constrained decoding cannot echo this schema back as an object
        "type": ["string", "number", "boolean", "array"],
        "description": "The answer: a single value, a list of values, or a list of records."}},
     "required": ["answer"]},
)
GIVE_UP_TOOL = Tool(
    GIVE_UP,
    "Stop without an answer, when the question cannot be answered with the available "
    "functions.",
    {"type": "object", "properties": {"reason": {"type": "string",
                                                 "description": "Why you stop."}},
     "required": ["reason"]},
)

PROMPTING_SUFFIX = """
Functions (JSON):
{functions}

Reply with exactly one call per turn, in Python syntax, e.g. function_name(arg1=value1).
When you know the answer, reply final_answer(answer=...). If the question cannot be answered
with these functions, reply give_up(reason="...")."""

REPEAT_NOTE = BASE_NOTE.format(options="answer with final_answer, try a different call, or "
                                        "give_up")
TRUNCATED = " ...(truncated)"

__all__ = ["AgentConfig", "CallFormat", "Environment", "FINAL_ANSWER_TOOL", "GIVE_UP_TOOL",
           "Step", "Trajectory", "render_observation", "run_agent", "system_prompt"]


@dataclass(frozen=True)
class AgentConfig:
    max_turns: int = 8
    mode: str = "function-calling"
    temperature: float = 0.0
    max_tokens: int = 400
    seed: int = 0
    observation_chars: int = 1500
    parallel_tool_calls: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.max_turns < 1:
            raise ValueError("max_turns must be at least 1")


def render_observation(obs: Observation, limit: int = 1500) -> str:
    if not obs.ok:
        return f"Error: {obs.error}"[:limit]
    out = obs.output
    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)
    return truncate(text, limit, TRUNCATED)


def _invocations(choice: Choice, parse_text: bool) -> list[Invocation] | None:
    """The calls of a reply; None when it holds none (a text answer)."""
    if choice.tool_calls:
        out = []
        for c in choice.tool_calls:
            args = c.arguments
            if isinstance(args, str):
                try:
                    args = json.loads(args or "{}")
                except json.JSONDecodeError:
                    args = {UNPARSED: args}
            out.append(Invocation(c.name, dict(args) if isinstance(args, Mapping) else
                                  {UNPARSED: args}))
        return out
    if parse_text and choice.text.strip():
        try:
            return parse_calls(choice.text)
        except ParseError:
            return None
    return None


def system_prompt(base: str, tools: Sequence[Tool], mode: str) -> str:
    if mode != "prompting":
        return base
    functions = json.dumps([t.to_openai()["function"] for t in tools], ensure_ascii=False)
    return base.rstrip() + "\n" + PROMPTING_SUFFIX.format(functions=functions)


class CallFormat:
    """Replies are function calls: native ``tool_calls`` (OpenAI style history, with call
    ids), calls emulated by JSON decoding (plain-text history), or, in ``prompting`` mode,
    Python-call text read from the reply. ``final_answer`` and ``give_up`` end an episode; a
    reply with no call is a text answer."""

    style = "calls"
    repeat_note = REPEAT_NOTE
    pseudo_actions = True

    def __init__(self, lm: LM | TaggedLM, system: str, config: AgentConfig,
                 tag: str = "") -> None:
        self.system, self.cfg, self.tag = system, config, tag
        self.native = config.mode == "function-calling" and bool(
            getattr(lm, "supports_tools", False))
        self.prompting = config.mode == "prompting"

    def begin(self, query: str, tools: Sequence[Tool]) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": query}]

    async def ask(self, lm: LM | TaggedLM, messages: list[dict[str, Any]],
                  tools: Sequence[Tool], turn: int) -> Move:
        offered = [*tools, FINAL_ANSWER_TOOL, GIVE_UP_TOOL]
        messages[0]["content"] = system_prompt(self.system, offered, self.cfg.mode)
        cfg = self.cfg
        request = ChatRequest(
            tuple(dict(m) for m in messages), cfg.temperature, cfg.max_tokens,
            seed=cfg.seed, role="task", tag=self.tag,
            tools=None if self.prompting else tuple(t.to_openai() for t in offered),
            parallel_tool_calls=cfg.parallel_tool_calls)
        response = await lm.chat(request)
        choice = response.choices[0] if response.choices else Choice("")
        calls = _invocations(choice, parse_text=not self.native)
        if not calls:
            text = choice.text.strip()
            return Move(choice.text, stop=TEXT if text else EMPTY, answer=text or None)
        return Move(choice.text, calls=tuple(calls))

    def show(self, observation: Observation) -> str:
        return render_observation(observation, self.cfg.observation_chars)

    def show_error(self, move: Move, tools: Sequence[Tool]) -> str:
        return f"Error: {move.error}"

    def extend(self, messages: list[dict[str, Any]], turn: int, move: Move,
               calls: Sequence[Invocation], shown: Sequence[str]) -> None:
        if self.native:
            ids = [f"call_{turn}_{i}" for i in range(len(calls))]
            messages.append({"role": "assistant", "content": move.text or None,
                             "tool_calls": [
                                 {"id": cid, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(
                                      dict(c.arguments), ensure_ascii=False, default=str)}}
                                 for cid, c in zip(ids, calls)]})
            for cid, text in zip(ids, shown):
                messages.append({"role": "tool", "tool_call_id": cid, "content": text})
            return
        text = move.text.strip() or "\n".join(c.to_json() for c in calls)
        messages.append({"role": "assistant", "content": text})
        lines = [f"Result of {c.name}: {t}" for c, t in zip(calls, shown)]
        messages.append({"role": "user", "content": "\n".join(lines)})

    def end(self, query: str, steps: Sequence[Step], stop: str,
            messages: Sequence[Mapping[str, Any]], *, answer: Any = None,
            error: str | None = None, finish: Mapping[str, Any] | None = None,
            tools: Sequence[Tool] = ()) -> Trajectory:
        return Trajectory(query, tuple(steps), stop, answer, error, tuple(messages))


async def run_agent(lm: LM | TaggedLM, env: Environment, query: str, *, system: str,
                    config: AgentConfig | None = None, tag: str = "") -> Trajectory:
    """Run one episode of ``lm`` on ``query`` against ``env`` (function-calling or prompting
    mode)."""
    cfg = config or AgentConfig()
    return await run_episode(lm, env, query, CallFormat(lm, system, cfg, tag), cfg.max_turns)
