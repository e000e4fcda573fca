"""ReAct inference: Thought / Action / Action Input / Observation steps ending with ``Finish``.

Two step formats. ``text`` (capable models): the model writes the three labelled lines and the
parser reads them robustly (markdown decoration, code fences, ``name(...)`` actions, Python
dicts, a hallucinated ``Observation:`` is cut off); anything unreadable becomes an error
observation the model sees on its next step. ``json`` (the small embedded model, which cannot
keep a free format): every step is decoded against a JSON schema, one alternative per function
(``action`` fixed to its name, ``action_input`` its parameter schema) plus ``Finish``.

Observations are what StableToolBench's agent sees: ``{"error": ..., "response": ...}`` as JSON,
truncated. The run stops at ``Finish`` or after ``max_steps`` steps; the :class:`Trajectory`
records every step.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from play2prompt.errors import LMError
from play2prompt.jsonutil import derive_seed, extract_json
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.structured import chat_json
from play2prompt.lm.toolcalls import grammar_safe
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.task_prompt import Demo
from play2prompt.tools.model import Invocation, Tool

REPEAT_NOTE = ("\nNote: you already made this exact call and got this result. Do not repeat it: "
               "call a different function, or Finish.")

FINISH = "Finish"
GIVE_ANSWER = "give_answer"
GIVE_UP = "give_up_and_restart"
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


@dataclass(frozen=True)
class Step:
    thought: str
    action: str
    action_input: Any
    observation: str
    error: str | None = None   # why the step could not run (format, unknown function)
    raw: str = ""
    ok: bool = False           # a function ran and returned without error

    def to_dict(self) -> dict[str, Any]:
        return {"thought": self.thought, "action": self.action,
                "action_input": self.action_input, "observation": self.observation,
                "error": self.error, "ok": self.ok, "raw": self.raw}


@dataclass(frozen=True)
class Trajectory:
    query_id: str
    query: str
    steps: tuple[Step, ...]
    finish: Mapping[str, Any] | None      # the Finish arguments, None if never finished
    stop_reason: str                      # finish | max_steps | lm_error
    detail: str = ""
    tools: tuple[str, ...] = field(default=())

    @property
    def gave_up(self) -> bool:
        return self.finish is not None and self.finish.get("return_type") == GIVE_UP

    @property
    def final_answer(self) -> str:
        if self.finish is None or self.gave_up:
            return ""
        return str(self.finish.get("final_answer") or "").strip()

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "query": self.query,
                "steps": [s.to_dict() for s in self.steps],
                "finish": dict(self.finish) if self.finish is not None else None,
                "final_answer": self.final_answer, "stop_reason": self.stop_reason,
                "detail": self.detail, "tools": list(self.tools)}


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


def render_demos(demos: Sequence[Demo], fmt: str) -> str:
    """Each demo (query, verified call, answer) as a short solved trajectory."""
    if not demos:
        return ""
    lines = ["", "Examples of solved requests:"]
    for demo in demos:
        lines.append(f"Request: {demo.query}")
        for call in demo.calls:
            lines.append(_render_step(f"I call {call.name} with the values from the request.",
                                      call.name, dict(call.arguments), fmt))
            lines.append("Observation: (the function's result)")
        if demo.answer:
            lines.append(_render_step("The result answers the request.", FINISH,
                                      {"return_type": GIVE_ANSWER,
                                       "final_answer": demo.answer[:300]}, fmt))
        lines.append("")
    return "\n".join(lines).rstrip()


def _render_step(thought: str, action: str, args: Mapping[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"thought": thought, "action": action, "action_input": dict(args)},
                          ensure_ascii=False)
    return (f"Thought: {thought}\nAction: {action}\n"
            f"Action Input: {json.dumps(dict(args), ensure_ascii=False)}")


def observation_text(error: str, response: Any, limit: int) -> str:
    text = json.dumps({"error": error, "response": response}, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "...(truncated)"


# -- the agent -------------------------------------------------------------------------------
class ReactAgent:
    def __init__(self, lm: Any, runtime: Any, prompts: MetaPrompts | None = None, *,
                 fmt: str = "text", max_steps: int = 8, temperature: float = 0.0,
                 obs_limit: int = 1024, max_tokens: int = 512) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
        self.lm, self.runtime = lm, runtime
        self.prompts = prompts or MetaPrompts()
        self.fmt, self.max_steps = fmt, max_steps
        self.temperature, self.obs_limit, self.max_tokens = temperature, obs_limit, max_tokens

    def messages(self, tools: Sequence[Tool], query: str,
                 demos: Sequence[Demo] = ()) -> list[dict[str, str]]:
        return self.prompts.render("task_react", tools=render_tools(tools),
                                   demos=render_demos(demos, self.fmt), query=query,
                                   format=JSON_FORMAT if self.fmt == "json" else TEXT_FORMAT)

    async def run(self, query_id: str, query: str, tools: Sequence[Tool],
                  demos: Sequence[Demo] = (), seed: int = 0) -> Trajectory:
        names = [t.name for t in tools]
        messages = self.messages(tools, query, demos)
        schema = step_schema(tools) if self.fmt == "json" else None
        steps: list[Step] = []
        seen: set[str] = set()
        for i in range(self.max_steps):
            step_seed = derive_seed(seed, query_id, i)
            try:
                raw, parsed = await self._ask(messages, names, schema, step_seed)
            except LMError as exc:
                return Trajectory(query_id, query, tuple(steps), None, "lm_error", str(exc),
                                  tuple(names))
            messages.append({"role": "assistant", "content": raw})
            if parsed.is_finish:
                steps.append(Step(parsed.thought, FINISH, parsed.arguments, "", None, raw))
                return Trajectory(query_id, query, tuple(steps), parsed.arguments, "finish",
                                  tools=tuple(names))
            step = await self._act(parsed, raw, names)
            steps.append(step)
            messages.append({"role": "user",
                             "content": f"Observation: {step.observation}{_repeat(step, seen)}"})
        return Trajectory(query_id, query, tuple(steps), None, "max_steps",
                          f"no Finish within {self.max_steps} steps", tuple(names))

    async def _ask(self, messages: list[dict[str, str]], names: Sequence[str],
                   schema: Mapping[str, Any] | None, seed: int) -> tuple[str, ParsedStep]:
        if schema is not None:
            (value,), response = await chat_json(
                self.lm, messages, schema, role="task", seed=seed, temperature=self.temperature,
                max_tokens=max(self.max_tokens, JSON_STEP_TOKENS), validate=False)
            return response.text, parse_json_step(value, names)
        request = ChatRequest(tuple(messages), self.temperature, self.max_tokens,
                              stop=("\nObservation:",), seed=seed, role="task")
        response = await self.lm.chat(request)
        return response.text, parse_react(response.text, names)

    async def _act(self, parsed: ParsedStep, raw: str, names: Sequence[str]) -> Step:
        if parsed.error is not None:
            shape = JSON_FORMAT if self.fmt == "json" else TEXT_FORMAT
            hint = (f"{parsed.error}. Write the next step as {shape}; "
                    f"functions: {', '.join(names)}, or Finish.")
            return Step(parsed.thought, parsed.action, parsed.arguments,
                        observation_text(hint, "", self.obs_limit), parsed.error, raw)
        obs = await self.runtime.run(Invocation(parsed.action, dict(parsed.arguments or {})))
        error = "" if obs.ok else f"{obs.error_type}: {obs.error}"
        text = observation_text(error, obs.output if obs.ok else "", self.obs_limit)
        return Step(parsed.thought, parsed.action, dict(parsed.arguments or {}), text, None, raw,
                    obs.ok)


def _repeat(step: Step, seen: set[str]) -> str:
    """A note when the step repeats an earlier call exactly (small models loop on one call)."""
    if step.error is not None:
        return ""
    key = Invocation(step.action, step.action_input).key()
    if key in seen:
        return REPEAT_NOTE
    seen.add(key)
    return ""
