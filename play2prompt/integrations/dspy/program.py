"""Optimize the tools of a DSPy program in place: :func:`optimize_program`.

Where the results go, read from how ``dspy.ReAct`` (DSPy 3.4) works:

- Each tool's text lives on its ``dspy.Tool``: ``desc``, and per argument ``args[name]
  ["description"]`` (and ``arg_desc``). ReAct does not read those at call time: its
  constructor renders every tool as ``str(tool)`` into the instructions of its step predictor
  ``react.react`` (a ``dspy.Predict`` over ``question, trajectory -> next_thought,
  next_tool_name, next_tool_args``). So besides updating the tools, each tool's old line in
  those instructions is replaced by the new ``str(tool)``.
- The verified demos become ``dspy.Example``s of that step predictor's signature, the demos
  ``react.react.demos`` that its adapter sends as few-shot turns on every step: the request in
  the agent's (only) input field, an empty trajectory (the first step), and as outputs the
  tool and its arguments with a short thought. ``react.react.demos`` is replaced (DSPy's own
  optimizers write the same attribute; run them after this, not before).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.agent.prompt import Demo
from play2prompt.config import OptimizeConfig, preset
from play2prompt.errors import UserError, require
from play2prompt.integrations.dspy.lm import DspyLM
from play2prompt.integrations.dspy.specs import (
    collect_tools,
    tool_callable,
    tool_spec,
)
from play2prompt.lm._base import LM
from play2prompt.optimize import optimize
from play2prompt.results import RunResult
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import ToolDoc


@dataclass(frozen=True)
class ProgramOptimization:
    """What :func:`optimize_program` did: the run, the updated tools, the demos attached."""

    run: RunResult
    tools: tuple[Any, ...]                              # the dspy.Tool objects, updated
    demos: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)   # ReAct name -> demos
    instructions_updated: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def optimize_program(program: Any, *, generator: Any = None, task_model: Any = None,
                     demos_per_tool: int | None = 1, input_field: str | None = None,
                     config: OptimizeConfig | None = None,
                     **optimize_options: Any) -> ProgramOptimization:
    """Run Play2Prompt on the tools of ``program`` and write the results back into it.

    ``program``: a DSPy module holding ``dspy.ReAct`` agents, or a list of ``dspy.Tool`` /
    callables (plain callables come back as new ``dspy.Tool`` objects in the result).
    ``generator`` / ``task_model``: a ``dspy.LM`` (any ``dspy.BaseLM``, used through its own
    provider settings), a play2prompt LM or spec; the generator defaults to the LM configured
    with ``dspy.configure(lm=...)``, else the embedded model. The tools run in this process,
    each call in a thread under ``config.tool_timeout`` (an exception or a hang is an error
    observation, never a crash). ``demos_per_tool``: verified demos attached per tool (None:
    all the run kept; the README's measurements found one best for a small task model).
    ``input_field``: the ReAct input the request goes into (default: its only input).
    Other keywords go to :func:`play2prompt.optimize.optimize` (``runs_dir``, ``run_id``,
    ``label``, ``reporter``, ``resume``, ...)."""
    dspy = require("dspy", "dspy", "play2prompt.integrations.dspy")
    found = collect_tools(program)
    before = {t.name: str(t) for t in found.tools}
    specs = [tool_spec(t) for t in found.tools]
    config = config or preset("quick")
    ctx = ExecContext(base_dir=Path.cwd(), default_timeout=config.tool_timeout,
                      callables={t.name: tool_callable(t) for t in found.tools})
    gen = as_model(generator if generator is not None else (dspy.settings.lm or "embedded"))
    task = as_model(task_model) if task_model is not None else None
    optimize_options.setdefault("label", "dspy")
    run = optimize(specs, generator=gen, task_model=task, config=config, exec_ctx=ctx,
                   **optimize_options)
    for tool in found.tools:
        if tool.name in run.tools:
            apply_doc(tool, run.tools[tool.name].doc)
    demos = {t: _take(run.tools[t].demos, demos_per_tool) for t in run.tools}
    attached: dict[str, tuple[Any, ...]] = {}
    updated: dict[str, tuple[str, ...]] = {}
    for name, react in found.reacts:
        updated[name] = update_instructions(react, before)
        attached[name] = attach_demos(react, demos, input_field)
    return ProgramOptimization(run, found.tools, attached, updated)


def as_model(model: Any) -> str | LM:
    """A play2prompt model for ``model``: specs and play2prompt LMs as they are, a DSPy LM
    (anything with DSPy's ``acall``) wrapped in :class:`DspyLM`."""
    if isinstance(model, (str, LM)):
        return model
    if callable(getattr(model, "acall", None)) and hasattr(model, "model"):
        return DspyLM(model)
    raise UserError(f"not a model: {model!r} (a dspy.LM, a play2prompt LM or a spec)")


def apply_doc(tool: Any, doc: ToolDoc) -> None:
    """Write ``doc`` into a ``dspy.Tool``: its description and its arguments' descriptions."""
    args = {name: dict(schema) for name, schema in (tool.args or {}).items()}
    for name, text in doc.params.items():
        if name in args and text:
            args[name]["description"] = text
        elif name in args:
            args[name].pop("description", None)
    tool.desc = doc.description
    tool.args = args
    tool.arg_desc = {name: text for name, text in doc.params.items() if name in args and text}


def update_instructions(react: Any, before: Mapping[str, str]) -> tuple[str, ...]:
    """Replace each tool's line in the step predictor's instructions; the names updated."""
    signature = react.react.signature
    text = signature.instructions
    done = []
    for name, tool in react.tools.items():
        old = before.get(name)
        if old is not None and old in text:
            text = text.replace(old, str(tool))
            done.append(name)
    react.react.signature = signature.with_instructions(text)
    return tuple(done)


def attach_demos(react: Any, demos: Mapping[str, Sequence[Demo]],
                 input_field: str | None = None) -> tuple[Any, ...]:
    """The demos of ``react``'s tools as examples of its step predictor, set as its demos."""
    import dspy

    inputs = [n for n in react.react.signature.input_fields if n != "trajectory"]
    field_name = input_field or (inputs[0] if len(inputs) == 1 else None)
    if field_name not in inputs:
        raise UserError(f"the ReAct takes inputs {inputs}: say which one holds the request "
                        f"(input_field=)")
    examples = []
    for name in react.tools:
        for demo in demos.get(name, ()):
            call = next((c for c in demo.calls if c.name == name), None)
            if call is None:
                continue
            examples.append(dspy.Example(**{
                field_name: demo.query, "trajectory": react._format_trajectory({}),
                "next_thought": f"The request gives the values {name} needs; call it.",
                "next_tool_name": name, "next_tool_args": dict(call.arguments),
            }).with_inputs(field_name, "trajectory"))
    react.react.demos = examples
    return tuple(examples)


def _take(demos: Sequence[Demo], k: int | None) -> tuple[Demo, ...]:
    return tuple(demos if k is None else demos[:k])


__all__ = ["ProgramOptimization", "apply_doc", "as_model", "attach_demos", "optimize_program",
           "update_instructions"]
