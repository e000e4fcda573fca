"""A reusable multi-turn agent loop: the task model calls tools until it answers or gives up.

The loop works with every backend:

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
from dataclasses import dataclass, field
from typing import Any, Protocol

from play2prompt.errors import LMError
from play2prompt.lm._base import ChatRequest, Choice
from play2prompt.scoring.parse import ParseError, parse_calls
from play2prompt.tools.model import Invocation, Observation, Tool

FINAL_ANSWER = "final_answer"
GIVE_UP = "give_up"
MODES = ("function-calling", "prompting")

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

REPEAT_NOTE = ("\nNote: you already made this exact call and got this result. Do not repeat it: "
               "answer with final_answer, try a different call, or give_up.")


class Environment(Protocol):
    """What the agent acts on: the tools it may call now, and their execution."""

    def tools(self) -> Sequence[Tool]: ...

    async def execute(self, invocation: Invocation) -> Observation: ...


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


@dataclass(frozen=True)
class AgentStep:
    turn: int
    text: str
    calls: tuple[Invocation, ...] = ()
    observations: tuple[Observation, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "text": self.text,
                "calls": [c.to_dict() for c in self.calls],
                "observations": [o.to_dict() for o in self.observations]}


@dataclass(frozen=True)
class Trajectory:
    query: str
    steps: tuple[AgentStep, ...]
    stop: str                      # answer | text | empty | give_up | turn_limit | lm_error
    answer: Any = None
    error: str | None = None
    messages: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)

    @property
    def answered(self) -> bool:
        return self.stop in ("answer", "text")

    @property
    def gave_up(self) -> bool:
        return self.stop == "give_up"

    @property
    def turns(self) -> int:
        return len(self.steps)

    def tool_calls(self) -> list[tuple[Invocation, Observation]]:
        """The real calls (pseudo-tools excluded) with their observations, in order."""
        return [(c, o) for s in self.steps for c, o in zip(s.calls, s.observations)]

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "stop": self.stop, "answer": self.answer,
                "error": self.error, "turns": self.turns,
                "steps": [s.to_dict() for s in self.steps], "messages": list(self.messages)}


def render_observation(obs: Observation, limit: int = 1500) -> str:
    if not obs.ok:
        return f"Error: {obs.error}"[:limit]
    out = obs.output
    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + " ...(truncated)"


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
                    args = {"__unparsed__": args}
            out.append(Invocation(c.name, dict(args) if isinstance(args, Mapping) else
                                  {"__unparsed__": args}))
        return out
    if parse_text and choice.text.strip():
        try:
            return parse_calls(choice.text)
        except ParseError:
            return None
    return None


class _Conversation:
    """The message history, in the form the backend understands."""

    def __init__(self, system: str, query: str, native: bool) -> None:
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                               {"role": "user", "content": query}]
        self.native = native

    def add_turn(self, turn: int, choice: Choice, calls: Sequence[Invocation],
                 results: Sequence[str]) -> None:
        if self.native:
            ids = [f"call_{turn}_{i}" for i in range(len(calls))]
            self.messages.append({"role": "assistant", "content": choice.text or None,
                                  "tool_calls": [
                                      {"id": cid, "type": "function",
                                       "function": {"name": c.name, "arguments": json.dumps(
                                           dict(c.arguments), ensure_ascii=False,
                                           default=str)}}
                                      for cid, c in zip(ids, calls)]})
            for cid, text in zip(ids, results):
                self.messages.append({"role": "tool", "tool_call_id": cid, "content": text})
            return
        shown = choice.text.strip() or "\n".join(c.to_json() for c in calls)
        self.messages.append({"role": "assistant", "content": shown})
        lines = [f"Result of {c.name}: {text}" for c, text in zip(calls, results)]
        self.messages.append({"role": "user", "content": "\n".join(lines)})


def system_prompt(base: str, tools: Sequence[Tool], mode: str) -> str:
    if mode != "prompting":
        return base
    functions = json.dumps([t.to_openai()["function"] for t in tools], ensure_ascii=False)
    return base.rstrip() + "\n" + PROMPTING_SUFFIX.format(functions=functions)


async def run_agent(lm: Any, env: Environment, query: str, *, system: str,
                    config: AgentConfig | None = None, tag: str = "") -> Trajectory:
    """Run one episode of ``lm`` on ``query`` against ``env``."""
    cfg = config or AgentConfig()
    native = cfg.mode == "function-calling" and bool(getattr(lm, "supports_tools", False))
    prompting = cfg.mode == "prompting"
    conv = _Conversation(system, query, native)
    steps: list[AgentStep] = []
    seen: set[str] = set()
    for turn in range(cfg.max_turns):
        tools = [*env.tools(), FINAL_ANSWER_TOOL, GIVE_UP_TOOL]
        conv.messages[0]["content"] = system_prompt(system, tools, cfg.mode)
        request = ChatRequest(
            tuple(dict(m) for m in conv.messages), cfg.temperature, cfg.max_tokens,
            seed=cfg.seed, role="task", tag=tag,
            tools=None if prompting else tuple(t.to_openai() for t in tools),
            parallel_tool_calls=cfg.parallel_tool_calls)
        try:
            response = await lm.chat(request)
        except LMError as exc:
            return Trajectory(query, tuple(steps), "lm_error", None, str(exc),
                              tuple(conv.messages))
        choice = response.choices[0] if response.choices else Choice("")
        calls = _invocations(choice, parse_text=not native)
        if not calls:
            steps.append(AgentStep(turn, choice.text))
            text = choice.text.strip()
            return Trajectory(query, tuple(steps), "text" if text else "empty", text or None,
                              None, tuple(conv.messages))
        done, real, observations = await _act(env, calls)
        results = [render_observation(o, cfg.observation_chars) for o in observations]
        results = _note_repeats(real, results, seen)
        steps.append(AgentStep(turn, choice.text, tuple(real), tuple(observations)))
        if done is not None:
            stop, value = done
            return Trajectory(query, tuple(steps), stop, value, None, tuple(conv.messages))
        conv.add_turn(turn, choice, real, results)
    return Trajectory(query, tuple(steps), "turn_limit", None, None, tuple(conv.messages))


def _note_repeats(calls: Sequence[Invocation], results: list[str], seen: set[str]
                  ) -> list[str]:
    """Mark the results of calls the agent already made (small models loop on one call)."""
    out = []
    for call, text in zip(calls, results):
        out.append(text + REPEAT_NOTE if call.key() in seen else text)
        seen.add(call.key())
    return out


async def _act(env: Environment, calls: Sequence[Invocation]
               ) -> tuple[tuple[str, Any] | None, list[Invocation], list[Observation]]:
    """Execute the calls in order until a pseudo-tool ends the episode."""
    real: list[Invocation] = []
    observations: list[Observation] = []
    for call in calls:
        if call.name == FINAL_ANSWER:
            args = dict(call.arguments)
            value = args.get("answer", next(iter(args.values()), None) if args else None)
            return ("answer", value), real, observations
        if call.name == GIVE_UP:
            return ("give_up", call.arguments.get("reason")), real, observations
        if "__unparsed__" in call.arguments:
            obs = Observation.failure("parse", "the arguments are not a JSON object")
        else:
            obs = await env.execute(call)
        real.append(call)
        observations.append(obs)
    return None, real, observations
