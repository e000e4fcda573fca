"""DSPy integration (extra ``dspy``): optimize the tools of a DSPy program in place.

    import dspy
    from play2prompt.integrations.dspy import optimize_program

    agent = dspy.ReAct("question -> answer", tools=[convert_units, loan_payment])
    result = optimize_program(agent, generator=dspy.LM("openai/gpt-4o-mini"))
    # agent's tools now carry the optimized descriptions, its step predictor the verified demos

- :func:`optimize_program`: the tools of a ``dspy.ReAct`` (or a list of tools / callables) ->
  Play2Prompt with the callables as executors -> docs and demos written back;
- :class:`P2POptimizer`: the same as a DSPy optimizer, ``P2POptimizer(generator=lm)
  .compile(agent)`` returning the optimized copy (a ``dspy.teleprompt.Teleprompter``);
- :class:`DspyLM`: a ``dspy.LM`` as a play2prompt model (spec ``dspy:<model>``, or the object);
- :func:`dspy_lm`: a play2prompt model (the embedded one by default) as a ``dspy.LM``;
- :func:`constrain_outputs`: a JSON schema per predictor, so a small model keeps the format.

DSPy is imported only when these are used.
"""

from __future__ import annotations

from typing import Any

from play2prompt.integrations.dspy.engine import Play2PromptEngine, dspy_lm
from play2prompt.integrations.dspy.lm import DspyLM
from play2prompt.integrations.dspy.program import ProgramOptimization, optimize_program
from play2prompt.integrations.dspy.specs import collect_tools, parse_docstring, tool_spec
from play2prompt.integrations.dspy.steps import constrain_outputs

__all__ = ["DspyLM", "P2POptimizer", "Play2PromptEngine", "ProgramOptimization",
           "collect_tools", "constrain_outputs", "dspy_lm", "optimize_program",
           "parse_docstring", "tool_spec"]


def __getattr__(name: str) -> Any:
    if name == "P2POptimizer":   # its module imports DSPy (its base class)
        from play2prompt.integrations.dspy.optimizer import P2POptimizer

        return P2POptimizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
