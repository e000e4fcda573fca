"""Schema-constrained outputs for DSPy programs on a small model (the embedded one).

A 135M model cannot keep DSPy's output formats by itself, and DSPy's JSON adapter asks a
``dspy.ReAct`` step for any JSON object only (its ``next_tool_args`` is an open mapping). As
play2prompt does for its own agent (``LM.constrained_steps``), :func:`constrain_outputs` gives
every predictor of a program an explicit JSON schema, sent as the predictor's
``response_format`` and decoded against by models that support it (play2prompt's
:func:`~play2prompt.integrations.dspy.dspy_lm` engine passes it to the embedded model):

- a ``dspy.ReAct`` step: one of its tools by name, with that tool's own argument schema, after
  a bounded thought;
- any other predictor: its output fields, typed as declared, free text bounded in length.
"""

from __future__ import annotations

from typing import Any

from play2prompt.lm.toolcalls import grammar_safe

STEP_FIELDS = ("next_thought", "next_tool_name", "next_tool_args")


def constrain_outputs(program: Any, max_text: int = 300) -> list[str]:
    """Set a JSON-schema ``response_format`` on every predictor of ``program``; the names."""
    import dspy

    steps = {id(m.react): m for _, m in program.named_sub_modules(type_=dspy.ReAct)}
    named = []
    for name, predictor in program.named_predictors():
        react = steps.get(id(predictor))
        schema = react_step_schema(react, max_text) if react is not None else \
            outputs_schema(predictor.signature, max_text)
        predictor.config["response_format"] = {
            "type": "json_schema", "json_schema": {"name": "outputs", "schema": schema}}
        named.append(name)
    return named


def react_step_schema(react: Any, max_text: int = 300) -> dict[str, Any]:
    """A ReAct step: a thought, then one tool and arguments valid for that tool."""
    options = []
    for name, tool in react.tools.items():
        args = {k: dict(v) for k, v in (tool.args or {}).items()}
        params = {"type": "object", "properties": args,
                  "required": [k for k, v in args.items() if "default" not in v]}
        options.append({
            "type": "object",
            "properties": {"next_thought": {"type": "string", "maxLength": max_text},
                           "next_tool_name": {"const": name},
                           "next_tool_args": grammar_safe(params)},
            "required": list(STEP_FIELDS), "additionalProperties": False})
    return options[0] if len(options) == 1 else {"anyOf": options}


def outputs_schema(signature: Any, max_text: int = 300) -> dict[str, Any]:
    """The output fields of ``signature`` as one JSON object."""
    from pydantic import TypeAdapter

    props: dict[str, Any] = {}
    for name, info in signature.output_fields.items():
        if info.annotation is str:
            props[name] = {"type": "string", "maxLength": max_text}
        else:
            props[name] = grammar_safe(TypeAdapter(info.annotation).json_schema())
    return {"type": "object", "properties": props, "required": list(props),
            "additionalProperties": False}
