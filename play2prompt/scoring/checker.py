"""Check a task model's calls against the expected ones, by arguments and by execution.

The predicted calls are executed with the tools' executors (through the runtime, so repeated
calls come from the log) and their outputs compared with the expected outputs (given, e.g. the
recorded output of a Step-1 example, or obtained by executing the expected calls).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from play2prompt.scoring.match import ast_match, match_sets, outputs_match
from play2prompt.tools.model import Invocation, Observation


@dataclass(frozen=True)
class Outcome:
    """How a prediction fared: by arguments (AST) and by execution."""

    correct: bool
    ast_ok: bool
    exec_ok: bool | None          # None when execution was not attempted
    error: str | None = None      # why it is wrong (parse error, wrong count, tool error...)
    predicted: tuple[Invocation, ...] = ()
    observations: tuple[Observation, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "ast_ok": self.ast_ok,
            "exec_ok": self.exec_ok,
            "error": self.error,
            "predicted": [p.to_dict() for p in self.predicted],
            "outputs": [o.output if o.ok else f"ERROR: {o.error}" for o in self.observations],
        }


def failed(error: str) -> Outcome:
    return Outcome(False, False, False, error)


async def check_calls(
    predicted: Sequence[Invocation],
    expected: Sequence[Invocation],
    runtime: Any,
    *,
    expected_outputs: Sequence[Any] | None = None,
    match: str | Sequence[str] = "exact",
    schemas: Mapping[str, Mapping[str, Any]] | None = None,
    require_exec: bool = False,
) -> Outcome:
    """Score ``predicted`` against ``expected``.

    ``correct`` is the execution match when ``require_exec`` (BFCL semantics), else the AST
    match or the execution match. ``match`` is one match type for every call or one per
    expected call (BFCL's parallel-multiple questions mix them).
    """
    predicted = list(predicted)
    kinds = [match] * len(expected) if isinstance(match, str) else list(match)
    if len(kinds) != len(expected):
        raise ValueError(f"{len(kinds)} match types for {len(expected)} expected calls")
    schemas = schemas or {n: t.parameters for n, t in getattr(runtime, "tools", {}).items()}
    ast_ok = match_sets(predicted, expected,
                        lambda p, g: ast_match(p, g, schemas.get(g.name)))
    if len(predicted) != len(expected):
        error = f"expected {len(expected)} call(s), got {len(predicted)}"
        return Outcome(False, False, False, error, tuple(predicted))
    observations = await asyncio.gather(*(runtime.run(p) for p in predicted))
    bad = [o for o in observations if not o.ok]
    if expected_outputs is None:
        gold_obs = await asyncio.gather(*(runtime.run(g) for g in expected))
        expected_outputs = [o.output if o.ok else _Unavailable(o.error) for o in gold_obs]
    exec_ok = not bad and match_sets(
        [o.output for o in observations], list(zip(expected_outputs, kinds)),
        lambda p, g: not isinstance(g[0], _Unavailable) and outputs_match(p, g[0], g[1]))
    correct = exec_ok if require_exec else (ast_ok or exec_ok)
    error = None
    if not correct:
        if bad:
            error = f"call failed: {bad[0].error}"
        else:
            error = "wrong arguments or output"
    return Outcome(correct, ast_ok, exec_ok, error, tuple(predicted), tuple(observations))


class _Unavailable:
    """An expected output that could not be produced (the gold call itself failed)."""

    def __init__(self, error: str | None) -> None:
        self.error = error
