"""The task model's accuracy: ask it each request with a doc (and demos), then check its calls
by execution against the call that answers the request.

One helper for the three places the method asks the task model: R_e in Step 1 (a request the
task model fails with D0 and no demos is a hard one), a doc's score in Step 2 (its accuracy on
the training examples) and the held-out choices (the doc, the number of demos).

``siblings`` (``config.siblings``, :mod:`play2prompt.method.siblings`): other tools of the run
shown beside the tool, with their original docs; a call to one of them is wrong and is never
executed. None given (the default, the paper): the tool alone, the prompt as it always was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from play2prompt.agent.prompt import Demo
from play2prompt.method.siblings import sibling_call, tool_set
from play2prompt.scoring.checker import check_calls
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine


class Case(Protocol):
    """A request and the call (with its output) that answers it: an example."""

    @property
    def query(self) -> str: ...

    @property
    def invocation(self) -> Invocation: ...

    @property
    def observation(self) -> Observation: ...


@dataclass(frozen=True)
class Request:
    """A :class:`Case` that is not (yet) an example."""

    query: str
    invocation: Invocation
    observation: Observation


@dataclass(frozen=True)
class TaskTry:
    """The task model's answer to one request, checked."""

    correct: bool
    calls: str          # the calls it made, as Python
    raw: str            # its answer when it could not be read as calls
    error: str          # why it is wrong ("" when correct)
    parsed: bool        # its answer was read as calls
    called: tuple[str, ...] = ()   # the tools it called, in order

    def summary(self) -> str:
        """What it did, as R_e's reflection is told."""
        if not self.parsed:
            return self.error
        return self.calls + ("" if self.correct else f" ({self.error})")

    def failure(self, case: Case) -> dict[str, Any]:
        """A mistake as the doc generator's critique is shown it."""
        return {"query": case.query, "expected": case.invocation.to_python(),
                "got": self.calls if self.parsed else self.raw, "error": self.error}


@dataclass
class DocEval:
    """The task model's accuracy on some examples with one doc, and its mistakes. ``unasked``:
    examples left unasked once the doc could no longer win (:func:`task_accuracy_until`);
    they count as right, so ``accuracy`` is then an upper bound."""

    accuracy: float
    failures: list[dict[str, Any]] = field(default_factory=list)
    unasked: int = 0


async def task_try(engine: Engine, tool: Tool, case: Case, demos: Sequence[Demo] = (),
                   seed: int | None = None, siblings: Sequence[Tool] = ()) -> TaskTry:
    """Ask the task model ``case.query`` with ``tool`` (its doc), beside ``siblings``, and
    ``demos``; check its calls by execution against ``case.invocation`` and its output (a call
    to a sibling is wrong, unexecuted). ``seed``: the run's by default."""
    return await shown_try(engine, tool_set(tool, siblings), tool, case, demos, seed)


async def shown_try(engine: Engine, shown: Sequence[Tool], tool: Tool, case: Case,
                    demos: Sequence[Demo] = (), seed: int | None = None) -> TaskTry:
    """:func:`task_try` with the tools ``shown`` in that order, ``tool`` among them (the
    tool-set check shows the whole run in its own order); a call to another of them is wrong
    and never executed."""
    eng = engine
    attempt = await eng.prompter.attempt(eng.task_model, list(shown), case.query, demos,
                                         seed=eng.config.seed if seed is None else seed,
                                         temperature=eng.config.task_temperature)
    if attempt.error:
        return TaskTry(False, "", attempt.raw[:300], attempt.error, False)
    calls = ", ".join(c.to_python() for c in attempt.calls)
    called = tuple(c.name for c in attempt.calls)
    others = [t for t in shown if t.name != tool.name]
    wrong_tool = sibling_call(attempt.calls, tool, others)
    if wrong_tool is not None:
        return TaskTry(False, calls, "", wrong_tool, True, called)
    outcome = await check_calls(list(attempt.calls), [case.invocation], eng.runtime,
                                expected_outputs=[case.observation.output])
    return TaskTry(outcome.correct, calls, "", "" if outcome.correct else str(outcome.error),
                   True, called)


async def task_accuracy(engine: Engine, tool: Tool, cases: Sequence[Case],
                        demos: Sequence[Demo] = (), seed: int | None = None,
                        siblings: Sequence[Tool] = ()) -> DocEval:
    """The task model's accuracy on ``cases`` with ``tool`` (its doc), beside ``siblings``,
    and ``demos``: every case asked, all at once."""
    return await task_accuracy_until(engine, tool, cases, len(cases), seed, siblings, demos)


async def task_accuracy_until(engine: Engine, tool: Tool, cases: Sequence[Case], out: int,
                              seed: int | None = None, siblings: Sequence[Tool] = (),
                              demos: Sequence[Demo] = ()) -> DocEval:
    """:func:`task_accuracy` that stops once ``out`` cases are wrong (the doc can then no
    longer win): ``cases`` asked in their order, in batches of ``out`` less the wrong answers
    so far, so that a batch all wrong ends it (``out`` at least ``len(cases)``: all at once).
    The batches do not depend on timing: a run asks the same requests whatever its
    concurrency. The cases left unasked count as right (``DocEval.unasked``)."""
    failures: list[dict[str, Any]] = []
    asked = 0
    while asked < len(cases) and len(failures) < out:
        batch = cases[asked:asked + out - len(failures)]
        tries = await asyncio.gather(*(task_try(engine, tool, c, demos, seed, siblings)
                                       for c in batch))
        failures += [t.failure(c) for c, t in zip(batch, tries) if not t.correct]
        asked += len(batch)
    accuracy = 1.0 - len(failures) / len(cases) if cases else 0.0
    return DocEval(accuracy, failures, len(cases) - asked)


__all__ = ["Case", "DocEval", "Request", "TaskTry", "shown_try", "task_accuracy",
           "task_accuracy_until", "task_try"]
