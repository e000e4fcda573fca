"""Play2Prompt as a DSPy optimizer (teleprompter): ``P2POptimizer(...).compile(program)``.

    optimizer = P2POptimizer(generator=dspy.LM("openai/gpt-4o-mini"))
    compiled = optimizer.compile(agent)      # a copy of agent: its tools' docs and demos optimized

A subclass of ``dspy.teleprompt.Teleprompter`` (so DSPy's compile callbacks see it), delegating
to :func:`~play2prompt.integrations.dspy.program.optimize_program`. Play2Prompt is zero-shot:
it makes its own examples by playing with the tools, so ``trainset``, ``valset`` and
``teacher`` are accepted for DSPy's interface and not used. This module imports DSPy (the
package imports it only when :class:`P2POptimizer` is asked for).
"""

from __future__ import annotations

from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.integrations.dspy.program import ProgramOptimization, optimize_program

try:
    from dspy.teleprompt import Teleprompter as _Teleprompter
except ImportError:  # DSPy missing: the class still builds; compile names the extra
    _Teleprompter = object  # type: ignore[assignment,misc]


class P2POptimizer(_Teleprompter):  # type: ignore[misc,valid-type]
    """A DSPy optimizer running Play2Prompt on the tools of a program's ``dspy.ReAct`` agents.

    The arguments are :func:`optimize_program`'s: ``generator`` / ``task_model`` (a
    ``dspy.LM``, a play2prompt LM or spec; the generator defaults to DSPy's configured LM),
    ``demos_per_tool``, ``input_field``, ``config`` (default: the ``quick`` preset) and any
    keyword of :func:`play2prompt.optimize.optimize` (``runs_dir``, ``label``, ...).
    :attr:`last_result` holds the last compile's :class:`ProgramOptimization` (its run, the
    tools updated, the demos attached)."""

    def __init__(self, *, generator: Any = None, task_model: Any = None,
                 demos_per_tool: int | None = 1, input_field: str | None = None,
                 config: OptimizeConfig | None = None, **optimize_options: Any) -> None:
        self.generator = generator
        self.task_model = task_model
        self.demos_per_tool = demos_per_tool
        self.input_field = input_field
        self.config = config
        self.optimize_options = dict(optimize_options)
        self.last_result: ProgramOptimization | None = None

    def compile(self, student: Any, *, trainset: Any = None, teacher: Any = None,
                valset: Any = None, inplace: bool = False, **options: Any) -> Any:
        """The optimized program: a deep copy of ``student`` (``inplace=True``: ``student``
        itself) with its tools' descriptions, ReAct's tool lines and the verified demos
        written in. ``options`` add to or override the constructor's keywords for this
        compile (``run_id=``, ``resume=``, ...). ``trainset``, ``valset``, ``teacher``: not
        used (Play2Prompt makes its examples by tool play)."""
        del trainset, teacher, valset
        program = student if inplace else student.deepcopy()
        self.last_result = optimize_program(
            program, generator=self.generator, task_model=self.task_model,
            demos_per_tool=self.demos_per_tool, input_field=self.input_field,
            config=self.config, **{**self.optimize_options, **options})
        program._compiled = True
        return program


__all__ = ["P2POptimizer"]
