"""The ReAct step format of the agent loop (:mod:`play2prompt.agent._base`): Thought / Action /
Action Input / Observation steps ending with ``Finish`` (StableToolBench's agent).

Two step formats. ``text`` (capable models): the model writes the three labelled lines and the
parser reads them robustly (markdown decoration, code fences, ``name(...)`` actions, Python
dicts, a hallucinated ``Observation:`` is cut off); anything unreadable becomes an error
observation the model sees on its next step. ``json`` (the small embedded model, which cannot
keep a free format): every step is decoded against a JSON schema, one alternative per function
(``action`` fixed to its name, ``action_input`` its parameter schema) plus ``Finish``.

Observations are what StableToolBench's agent sees: ``{"error": ..., "response": ...}`` as JSON,
truncated. The run stops at ``Finish`` or after ``max_steps`` steps; the
:class:`~play2prompt.agent._base.Trajectory` records every step (:func:`react_record` writes it
in ReAct's words).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.agent._base import (
    ANSWER,
    LM_ERROR,
    TURN_LIMIT,
    Move,
    Step,
    Trajectory,
    run_episode,
    truncate,
)
from play2prompt.agent._base import GIVE_UP as GAVE_UP
from play2prompt.agent._base import REPEAT_NOTE as BASE_NOTE
from play2prompt.agent.prompt import (
    FINISH,
    GIVE_ANSWER,
    GIVE_UP_AND_RESTART,
    Demo,
    render_demos,
)
from play2prompt.jsonutil import derive_seed, extract_json
from play2prompt.lm._base import LM, ChatRequest, TaggedLM
from play2prompt.lm.structured import chat_json
from play2prompt.lm.toolcalls import grammar_safe
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.model import Invocation, Observation, Tool

REPEAT_NOTE = BASE_NOTE.format(options=f"call a different function, or {FINISH}")
TRUNCATED = "...(truncated)"

GIVE_UP = GIVE_UP_AND_RESTART
FORMATS = ("text", "json")
TEXT_FORMAT = ("Thought: <what you do next and why>\n"
               "Action: <one function name exactly as listed, or Finish>\n"
               "Action Input: <the arguments as one JSON object>")
JSON_FORMAT = ('one JSON object {"thought": "<what you do next and why>", "action": '
               '"<function name or Finish>", "action_input": {<the arguments>}}')
THOUGHT_CHARS, ANSWER_CHARS, ARGUMENT_CHARS = 100, 300, 120
JSON_STEP_TOKENS = 700  # enough for the longest step the grammar allows
_LABEL = re.compile(r"(?im)^[ \t>*_#-]*(thought|action[ _]input|action|observation)[ \t*_]*:")


@dataclass(frozen=True)
class ParsedStep:
    thought: str
    action: str
    arguments: Mapping[str, Any] | None
    error: str | None = None

    @property
    def is_finish(self) -> bool:
        return self.error is None and self.action == FINISH


# -- parsing ---------------------------------------------------------------------------------
def resolve_action(name: str, tool_names: Sequence[str]) -> str | None:
    """The function (or Finish) an action names, leniently; None when it names none."""
    clean = name.strip().strip("`'\"*").strip().rstrip(".:").strip()
    if clean.endswith("()"):
        clean = clean[:-2]
    if clean.lower() == FINISH.lower():
        return FINISH
    if clean in tool_names:
        return clean
    lowered = {t.lower(): t for t in tool_names}
    if clean.lower() in lowered:
        return lowered[clean.lower()]
    ends = [t for t in tool_names if clean and t.endswith(clean)]
    return ends[0] if len(ends) == 1 else None


def parse_input(text: str) -> Mapping[str, Any] | None:
    """An Action Input as a dict (JSON, a fenced block, or a Python dict literal)."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    if not text:
        return {}
    for parse in (json.loads, extract_json, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, Mapping):
            return dict(value)
    return None


def _sections(text: str) -> list[tuple[str, str]]:
    marks = list(_LABEL.finditer(text))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[m.end():end].strip().lstrip("*").strip()  # '**Action:** x' -> 'x'
        out.append((m.group(1).lower().replace("_", " "), body))
    return out


def parse_react(text: str, tool_names: Sequence[str]) -> ParsedStep:
    """Read one text-format step; a malformed one comes back with ``error`` set."""
    sections = _sections(text or "")
    thought, action, action_input = "", None, None
    for label, body in sections:
        if label == "observation" and action is not None:
            break
        if label == "thought" and not thought:
            thought = body
        elif label == "action" and action is None:
            action = body
        elif label == "action input" and action is not None and action_input is None:
            action_input = body
    if action is None:
        return ParsedStep(thought or (text or "").strip()[:300], "", None,
                          "no 'Action:' line found")
    first, _, rest = action.partition("\n")
    if "(" in first and action_input is None:
        first, _, inside = first.partition("(")
        action_input = inside.rsplit(")", 1)[0]
    name = resolve_action(first, tool_names)
    if name is None:
        return ParsedStep(thought, first.strip(), None, f"no function named {first.strip()!r}")
    raw_input = action_input if action_input is not None else rest
    args = parse_input(raw_input or "")
    if name == FINISH:
        return ParsedStep(thought, FINISH, finish_arguments(args, raw_input or ""))
    if args is None:
        return ParsedStep(thought, name, None,
                          f"Action Input is not a JSON object: {(raw_input or '')[:120]!r}")
    return ParsedStep(thought, name, args)


def finish_arguments(args: Mapping[str, Any] | None, raw: str = "") -> dict[str, Any]:
    """Finish's arguments, normalised; plain text is taken as the final answer."""
    if args is None:
        return {"return_type": GIVE_ANSWER, "final_answer": raw.strip()}
    kind = str(args.get("return_type") or "").strip()
    answer = str(args.get("final_answer") or "").strip()
    if kind not in (GIVE_ANSWER, GIVE_UP):
        kind = GIVE_ANSWER if answer else GIVE_UP
    return {"return_type": kind, "final_answer": answer}


def parse_json_step(value: Any, tool_names: Sequence[str]) -> ParsedStep:
    if not isinstance(value, Mapping):
        return ParsedStep("", "", None, "the step is not a JSON object")
    thought = str(value.get("thought") or "")
    name = resolve_action(str(value.get("action") or ""), tool_names)
    if name is None:
        return ParsedStep(thought, str(value.get("action") or ""), None,
                          f"no function named {value.get('action')!r}")
    raw = value.get("action_input")
    args = raw if isinstance(raw, Mapping) else parse_input(str(raw or ""))
    if name == FINISH:
        return ParsedStep(thought, FINISH, finish_arguments(args, str(raw or "")))
    if args is None:
        return ParsedStep(thought, name, None, "action_input is not a JSON object")
    return ParsedStep(thought, name, dict(args))


def step_schema(tools: Sequence[Tool]) -> dict[str, Any]:
    """One alternative per function plus Finish (the embedded model's step grammar)."""
    finish_input = {"type": "object", "properties": {
        "return_type": {"type": "string", "enum": [GIVE_ANSWER, GIVE_UP]},
        "final_answer": {"type": "string", "maxLength": ANSWER_CHARS}},
        "required": ["return_type", "final_answer"], "additionalProperties": False}
    options = []
    for name, params in [(t.name, _params(t)) for t in tools] + [(FINISH, finish_input)]:
        options.append({"type": "object", "properties": {
            "thought": {"type": "string", "maxLength": THOUGHT_CHARS}, "action": {"const": name},
            "action_input": params}, "required": ["thought", "action", "action_input"],
            "additionalProperties": False})
    return {"anyOf": options}


def _params(tool: Tool) -> dict[str, Any]:
    """The tool's parameters as step grammar: strings get a length cap so that a degenerate
    generation ends within the token budget instead of being cut off unreadable."""
    schema = grammar_safe(dict(tool.parameters))
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    for prop in schema["properties"].values():
        if isinstance(prop, dict) and prop.get("type", "string") == "string" and "enum" not in prop:
            prop.setdefault("maxLength", ARGUMENT_CHARS)
    return schema


# -- prompt ----------------------------------------------------------------------------------
def render_tools(tools: Sequence[Tool]) -> str:
    groups: dict[str, list[Tool]] = {}
    for tool in tools:
        groups.setdefault(str(tool.meta.get("standard_tool") or ""), []).append(tool)
    lines = []
    for group, members in groups.items():
        desc = str(members[0].meta.get("tool_description") or "")
        if group:
            lines.append(f'API "{group}"' + (f": {desc[:300]}" if desc else ""))
        lines.extend(t.render_doc() for t in members)
        lines.append("")
    return "\n".join(lines).strip()


def observation_text(error: str, response: Any, limit: int) -> str:
    text = json.dumps({"error": error, "response": response}, ensure_ascii=False, default=str)
    return truncate(text, limit, TRUNCATED)


# -- the format -----------------------------------------------------------------------------
class ReactFormat:
    """ReAct steps (``text`` or ``json``) over a fixed set of tools; see the module docstring."""

    style = "react"
    repeat_note = REPEAT_NOTE
    pseudo_actions = False

    def __init__(self, prompts: MetaPrompts, fmt: str, *, demos: Sequence[Demo] = (),
                 max_steps: int = 8, temperature: float = 0.0, obs_limit: int = 1024,
                 max_tokens: int = 512, seed: int = 0, query_id: str = "") -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
        self.prompts, self.fmt, self.demos = prompts, fmt, tuple(demos)
        self.max_steps, self.temperature = max_steps, temperature
        self.obs_limit, self.max_tokens = obs_limit, max_tokens
        self.seed, self.query_id = seed, query_id
        self.names: list[str] = []
        self.schema: dict[str, Any] | None = None

    def messages(self, tools: Sequence[Tool], query: str) -> list[dict[str, str]]:
        return self.prompts.render("task_react", tools=render_tools(tools),
                                   demos=render_demos(self.demos, f"react-{self.fmt}"),
                                   query=query,
                                   format=JSON_FORMAT if self.fmt == "json" else TEXT_FORMAT)

    def begin(self, query: str, tools: Sequence[Tool]) -> list[dict[str, Any]]:
        self.names = [t.name for t in tools]
        self.schema = step_schema(tools) if self.fmt == "json" else None
        return list(self.messages(tools, query))

    async def ask(self, lm: LM | TaggedLM, messages: list[dict[str, Any]],
                  tools: Sequence[Tool], turn: int) -> Move:
        seed = derive_seed(self.seed, self.query_id, turn)
        if self.schema is not None:
            (value,), response = await chat_json(
                lm, messages, self.schema, role="task", seed=seed, temperature=self.temperature,
                max_tokens=max(self.max_tokens, JSON_STEP_TOKENS), validate=False)
            raw, parsed = response.text, parse_json_step(value, self.names)
        else:
            request = ChatRequest(tuple(messages), self.temperature, self.max_tokens,
                                  stop=("\nObservation:",), seed=seed, role="task")
            response = await lm.chat(request)
            raw, parsed = response.text, parse_react(response.text, self.names)
        messages.append({"role": "assistant", "content": raw})
        if parsed.is_finish:
            args = parsed.arguments or {}
            stop = GAVE_UP if args.get("return_type") == GIVE_UP else ANSWER
            return Move(raw, parsed.thought, FINISH, parsed.arguments, stop=stop,
                        answer=str(args.get("final_answer") or ""), finish=parsed.arguments)
        if parsed.error is not None:
            return Move(raw, parsed.thought, parsed.action, parsed.arguments, error=parsed.error)
        arguments = dict(parsed.arguments or {})
        return Move(raw, parsed.thought, parsed.action, arguments,
                    calls=(Invocation(parsed.action, arguments),))

    def show(self, observation: Observation) -> str:
        error = "" if observation.ok else f"{observation.error_type}: {observation.error}"
        return observation_text(error, observation.output if observation.ok else "",
                                self.obs_limit)

    def show_error(self, move: Move, tools: Sequence[Tool]) -> str:
        shape = JSON_FORMAT if self.fmt == "json" else TEXT_FORMAT
        hint = (f"{move.error}. Write the next step as {shape}; "
                f"functions: {', '.join(self.names)}, or Finish.")
        return observation_text(hint, "", self.obs_limit)

    def extend(self, messages: list[dict[str, Any]], turn: int, move: Move,
               calls: Sequence[Invocation], shown: Sequence[str]) -> None:
        messages.append({"role": "user", "content": f"Observation: {shown[0]}"})

    def end(self, query: str, steps: Sequence[Step], stop: str,
            messages: Sequence[Mapping[str, Any]], *, answer: Any = None,
            error: str | None = None, finish: Mapping[str, Any] | None = None,
            tools: Sequence[Tool] = ()) -> Trajectory:
        detail = {LM_ERROR: error or "",
                  TURN_LIMIT: f"no Finish within {self.max_steps} steps"}.get(stop, "")
        return Trajectory(query, tuple(steps), stop, answer, error, style=self.style,
                          query_id=self.query_id, tools=tuple(self.names), finish=finish,
                          detail=detail)


class _Tools:
    """A fixed set of tools run by a tool runtime (the ReAct agent's environment)."""

    def __init__(self, runtime: Any, tools: Sequence[Tool]) -> None:
        self.runtime, self._tools = runtime, list(tools)

    def tools(self) -> Sequence[Tool]:
        return self._tools

    async def execute(self, invocation: Invocation) -> Observation:
        return await self.runtime.run(invocation)


class ReactAgent:
    """ReAct on a tool runtime: :meth:`run` is one episode of the agent loop."""

    def __init__(self, lm: Any, runtime: Any, prompts: MetaPrompts | None = None, *,
                 fmt: str = "text", max_steps: int = 8, temperature: float = 0.0,
                 obs_limit: int = 1024, max_tokens: int = 512) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
        self.lm, self.runtime = lm, runtime
        self.prompts = prompts or MetaPrompts()
        self.fmt, self.max_steps = fmt, max_steps
        self.temperature, self.obs_limit, self.max_tokens = temperature, obs_limit, max_tokens

    def format(self, demos: Sequence[Demo] = (), seed: int = 0,
               query_id: str = "") -> ReactFormat:
        return ReactFormat(self.prompts, self.fmt, demos=demos, max_steps=self.max_steps,
                           temperature=self.temperature, obs_limit=self.obs_limit,
                           max_tokens=self.max_tokens, seed=seed, query_id=query_id)

    def messages(self, tools: Sequence[Tool], query: str,
                 demos: Sequence[Demo] = ()) -> list[dict[str, str]]:
        return self.format(demos).messages(tools, query)

    async def run(self, query_id: str, query: str, tools: Sequence[Tool],
                  demos: Sequence[Demo] = (), seed: int = 0) -> Trajectory:
        return await run_episode(self.lm, _Tools(self.runtime, tools), query,
                                 self.format(demos, seed, query_id), self.max_steps)


# -- records -----------------------------------------------------------------------------
def react_step(thought: str, action: str, action_input: Any, observation: str,
               error: str | None = None, raw: str = "", ok: bool = False) -> Step:
    """A ReAct step from its parts (a function ran unless ``error`` or ``Finish``)."""
    ran = error is None and action != FINISH
    calls = (Invocation(action, dict(action_input or {})),) if ran else ()
    observations = (Observation(ok, error=None if ok else "failed"),) if ran else ()
    return Step(0, raw, thought, action, action_input, calls, observations,
                (observation,) if observation else (), error)


def react_trajectory(query_id: str, query: str, steps: Sequence[Step],
                     finish: Mapping[str, Any] | None, stop_reason: str, detail: str = "",
                     tools: Sequence[str] = ()) -> Trajectory:
    """A ReAct trajectory from ReAct's words (``finish`` | ``max_steps`` | ``lm_error``)."""
    if finish is not None:
        stop = GAVE_UP if finish.get("return_type") == GIVE_UP else ANSWER
        answer = str(finish.get("final_answer") or "")
    else:
        stop, answer = (TURN_LIMIT if stop_reason == "max_steps" else LM_ERROR), None
    return Trajectory(query, tuple(steps), stop, answer, style="react", query_id=query_id,
                      tools=tuple(tools), finish=finish, detail=detail)
