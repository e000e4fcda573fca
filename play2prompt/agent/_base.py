"""The one agent loop: a task model acts on an environment, step by step, until it answers,
gives up or runs out of turns.

What a reply looks like and how the conversation grows is a :class:`StepFormat`'s business:
:class:`~play2prompt.agent.calls.CallFormat` (function calling, native or emulated by JSON
decoding, and the ``prompting`` mode's Python-call text) and
:class:`~play2prompt.agent.react.ReactFormat` (ReAct's Thought / Action / Action Input, as
text or as JSON-schema-constrained steps). Everything else lives here, once: asking, ending on
an LM failure, running the calls in order until a pseudo-action ends the episode, the note on a
call the agent already made (small models loop on one call), truncation of what the model is
shown, and the record of the episode, :class:`Trajectory`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from play2prompt.errors import LMError
from play2prompt.lm._base import LM, TaggedLM
from play2prompt.tools.model import Invocation, Observation, Tool

ANSWER, TEXT, EMPTY, GIVE_UP, TURN_LIMIT, LM_ERROR = (
    "answer", "text", "empty", "give_up", "turn_limit", "lm_error")
STOPS = (ANSWER, TEXT, EMPTY, GIVE_UP, TURN_LIMIT, LM_ERROR)
UNPARSED = "__unparsed__"   # the key of arguments that were not a JSON object
# After the result of a call the agent already made; {options}: the format's ways on.
REPEAT_NOTE = ("\nNote: you already made this exact call and got this result. Do not repeat it: "
               "{options}.")


class Environment(Protocol):
    """What the agent acts on: the tools it may call now, and their execution."""

    def tools(self) -> Sequence[Tool]: ...

    async def execute(self, invocation: Invocation) -> Observation: ...


@dataclass(frozen=True)
class Step:
    """One turn: the reply, what it asked for, and what came back."""

    turn: int = 0
    text: str = ""                                 # the reply as the model wrote it
    thought: str = ""
    action: str = ""                               # what it named, even when it could not run
    arguments: Any = None                          # the action's arguments as read
    calls: tuple[Invocation, ...] = ()             # the calls executed
    observations: tuple[Observation, ...] = ()
    shown: tuple[str, ...] = ()                    # the observations as the model saw them
    error: str | None = None                       # why nothing ran (format, unknown function)

    @property
    def ok(self) -> bool:
        """A call ran and returned without error."""
        return any(o.ok for o in self.observations)

    @property
    def action_input(self) -> Any:
        return self.arguments

    @property
    def observation(self) -> str:
        """What the model was shown (the first result; ReAct shows one per step)."""
        return self.shown[0] if self.shown else ""


@dataclass(frozen=True)
class Trajectory:
    """An episode: its steps and how it stopped (one of :data:`STOPS`)."""

    query: str
    steps: tuple[Step, ...]
    stop: str
    answer: Any = None
    error: str | None = None                       # the LM's failure (``lm_error``)
    messages: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)
    style: str = "calls"                           # the step format's vocabulary (records)
    query_id: str = ""
    tools: tuple[str, ...] = ()
    finish: Mapping[str, Any] | None = None        # a ReAct Finish's arguments
    detail: str = ""                               # why it stopped, in words

    @property
    def answered(self) -> bool:
        return self.stop in (ANSWER, TEXT)

    @property
    def gave_up(self) -> bool:
        return self.stop == GIVE_UP

    @property
    def turns(self) -> int:
        return len(self.steps)

    @property
    def final_answer(self) -> str:
        return "" if not self.answered or self.answer is None else str(self.answer).strip()

    @property
    def stop_reason(self) -> str:
        """ReAct's words for the stop: ``finish``, ``max_steps`` or ``lm_error``."""
        if self.finish is not None:
            return "finish"
        return {TURN_LIMIT: "max_steps"}.get(self.stop, self.stop)

    def tool_calls(self) -> list[tuple[Invocation, Observation]]:
        """The real calls (pseudo-actions excluded) with their observations, in order."""
        return [(c, o) for s in self.steps for c, o in zip(s.calls, s.observations)]

    def to_dict(self) -> dict[str, Any]:
        if self.style == "react":
            return react_record(self)
        return {"query": self.query, "stop": self.stop, "answer": self.answer,
                "error": self.error, "turns": self.turns,
                "steps": [{"turn": s.turn, "text": s.text,
                           "calls": [c.to_dict() for c in s.calls],
                           "observations": [o.to_dict() for o in s.observations]}
                          for s in self.steps],
                "messages": list(self.messages)}


def react_record(traj: Trajectory) -> dict[str, Any]:
    """The trajectory in ReAct's words (what StableToolBench's outputs and judge read)."""
    steps = [{"thought": s.thought, "action": s.action, "action_input": s.action_input,
              "observation": s.observation, "error": s.error, "ok": s.ok, "raw": s.text}
             for s in traj.steps]
    return {"query_id": traj.query_id, "query": traj.query, "steps": steps,
            "finish": dict(traj.finish) if traj.finish is not None else None,
            "final_answer": traj.final_answer, "stop_reason": traj.stop_reason,
            "detail": traj.detail, "tools": list(traj.tools)}


@dataclass(frozen=True)
class Move:
    """A reply, read by a step format: an ending (``stop``), calls to run, or an error."""

    text: str
    thought: str = ""
    action: str = ""
    arguments: Any = None
    calls: tuple[Invocation, ...] = ()
    stop: str | None = None          # ANSWER / TEXT / EMPTY / GIVE_UP: the episode ends here
    answer: Any = None
    error: str | None = None         # unreadable: nothing runs, the format says what was wrong
    finish: Mapping[str, Any] | None = None   # a ReAct Finish's arguments


class StepFormat(Protocol):
    """How replies look and how the conversation grows (see the module docstring)."""

    style: str
    repeat_note: str
    pseudo_actions: bool             # calls may include final_answer / give_up

    def begin(self, query: str, tools: Sequence[Tool]) -> list[dict[str, Any]]: ...

    async def ask(self, lm: LM | TaggedLM, messages: list[dict[str, Any]],
                  tools: Sequence[Tool], turn: int) -> Move: ...

    def show(self, observation: Observation) -> str: ...

    def show_error(self, move: Move, tools: Sequence[Tool]) -> str: ...

    def extend(self, messages: list[dict[str, Any]], turn: int, move: Move,
               calls: Sequence[Invocation], shown: Sequence[str]) -> None: ...

    def end(self, query: str, steps: Sequence[Step], stop: str,
            messages: Sequence[Mapping[str, Any]], *, answer: Any = None,
            error: str | None = None, finish: Mapping[str, Any] | None = None,
            tools: Sequence[Tool] = ()) -> Trajectory: ...


def truncate(text: str, limit: int, marker: str) -> str:
    """``text`` cut at ``limit`` characters, ``marker`` saying so."""
    return text if len(text) <= limit else text[:limit] + marker


FINAL_ANSWER_NAME, GIVE_UP_NAME = "final_answer", "give_up"


async def act(env: Environment, calls: Sequence[Invocation], pseudo_actions: bool
              ) -> tuple[tuple[str, Any] | None, list[Invocation], list[Observation]]:
    """Run the calls in order until a pseudo-action (``final_answer``, ``give_up``) ends the
    episode; arguments that were not a JSON object get a parse error, not a call."""
    real: list[Invocation] = []
    observations: list[Observation] = []
    for call in calls:
        if pseudo_actions and call.name == FINAL_ANSWER_NAME:
            args = dict(call.arguments)
            value = args.get("answer", next(iter(args.values()), None) if args else None)
            return (ANSWER, value), real, observations
        if pseudo_actions and call.name == GIVE_UP_NAME:
            return (GIVE_UP, call.arguments.get("reason")), real, observations
        if UNPARSED in call.arguments:
            obs = Observation.failure("parse", "the arguments are not a JSON object")
        else:
            obs = await env.execute(call)
        real.append(call)
        observations.append(obs)
    return None, real, observations


def note_repeats(calls: Sequence[Invocation], shown: Sequence[str], seen: set[str],
                 note: str) -> list[str]:
    """``note`` after the result of a call the agent already made, exactly."""
    out = []
    for call, text in zip(calls, shown):
        out.append(text + note if call.key() in seen else text)
        seen.add(call.key())
    return out


async def run_episode(lm: LM | TaggedLM, env: Environment, query: str, fmt: StepFormat,
                      max_turns: int) -> Trajectory:
    """One episode of ``lm`` on ``query`` against ``env``, in step format ``fmt``."""
    messages = fmt.begin(query, env.tools())
    steps: list[Step] = []
    seen: set[str] = set()
    for turn in range(max_turns):
        tools = env.tools()
        try:
            move = await fmt.ask(lm, messages, tools, turn)
        except LMError as exc:
            return fmt.end(query, steps, LM_ERROR, messages, error=str(exc), tools=tools)
        if move.stop is not None:
            steps.append(Step(turn, move.text, move.thought, move.action, move.arguments))
            return fmt.end(query, steps, move.stop, messages, answer=move.answer,
                           finish=move.finish, tools=tools)
        if move.error is not None:
            shown = [fmt.show_error(move, tools)]
            steps.append(Step(turn, move.text, move.thought, move.action, move.arguments,
                              shown=tuple(shown), error=move.error))
            fmt.extend(messages, turn, move, (), shown)
            continue
        done, real, observations = await act(env, move.calls, fmt.pseudo_actions)
        shown = [fmt.show(o) for o in observations]
        steps.append(Step(turn, move.text, move.thought, move.action, move.arguments,
                          tuple(real), tuple(observations), tuple(shown)))
        if done is not None:
            stop, value = done
            return fmt.end(query, steps, stop, messages, answer=value, tools=tools)
        fmt.extend(messages, turn, move, real, note_repeats(real, shown, seen, fmt.repeat_note))
    return fmt.end(query, steps, TURN_LIMIT, messages, tools=env.tools())
