"""simonw/llm plugin: a run's optimized tools as llm tools, so ``llm --tool NAME`` runs them.

Registered through the entry point ``[project.entry-points.llm] play2prompt`` (llm loads every
installed plugin). Its ``register_tools`` hook registers the tools of the run that
``P2P_LLM_RUN`` names (a run id, looked up in ``P2P_RUNS_DIR``, default ``runs``, or a run
folder; ``P2P_LLM_MODULE``: the implementations, a module name or ``.py`` file, when the
tools' executors do not name them), each an ``llm.Tool`` with the run's optimized
description (its verified demos appended: llm has no field for examples), the parameter
schema with the optimized parameter docs, and for implementation a function named and
documented like the tool, with the keyword-only signature its schema describes, that executes
the real tool (:func:`~play2prompt.integrations.run_tools.run_tools`: a Python function
called in this process, other executors through the runtime). Without ``P2P_LLM_RUN`` it
registers nothing; a run it cannot load is one line on standard error and no tools (llm loads
its plugins for every command, so a bad setting must not break the others).
"""

from __future__ import annotations

import inspect
import keyword
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llm

from play2prompt.emit.python import annotation
from play2prompt.errors import UserError
from play2prompt.integrations.run_tools import RunTool, run_tools

RUN_ENV, RUNS_DIR_ENV, MODULE_ENV = "P2P_LLM_RUN", "P2P_RUNS_DIR", "P2P_LLM_MODULE"


@dataclass(frozen=True)
class PluginSettings:
    """Which run's tools the plugin registers, and where their implementations are."""

    run: str
    runs_dir: Path = Path("runs")
    module: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> PluginSettings | None:
        """The settings the environment gives; None when it names no run."""
        env = os.environ if env is None else env
        if not env.get(RUN_ENV):
            return None
        return cls(env[RUN_ENV], Path(env.get(RUNS_DIR_ENV) or "runs"),
                   env.get(MODULE_ENV) or None)


def function_name(name: str) -> str:
    """A tool name as a Python identifier (``get-forecast`` -> ``get_forecast``)."""
    ident = re.sub(r"\W", "_", name) or "_"
    ident = "_" + ident if ident[0].isdigit() else ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def schema_signature(parameters: Mapping[str, Any]) -> inspect.Signature | None:
    """The keyword-only signature a parameters schema describes (what ``llm tools list``
    shows), or None when a parameter's name is no Python identifier."""
    props = parameters.get("properties") or {}
    required, params = set(parameters.get("required") or ()), []
    for name, schema in props.items():
        if not name.isidentifier() or keyword.iskeyword(name):
            return None
        hint = annotation(schema)
        if name in required:
            default = inspect.Parameter.empty
        else:
            default = None
            hint = hint if hint == "Any" or "None" in hint.split(" | ") else f"{hint} | None"
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=hint))
    return inspect.Signature(params, return_annotation="Any")


def tool_function(tool: RunTool) -> Callable[..., Any]:
    """The tool as a function of keyword arguments that executes it, named, documented and
    signed like it (a failure raises :class:`~play2prompt.integrations.run_tools.
    ToolCallFailed`, which llm hands the model as the call's error)."""
    def call(**arguments: Any) -> Any:
        return tool.call(arguments)

    call.__name__ = call.__qualname__ = function_name(tool.name)
    call.__doc__ = tool.description
    signature = schema_signature(tool.parameters)
    if signature is not None:
        call.__signature__ = signature  # type: ignore[attr-defined]
    return call


def llm_tools(tools: list[RunTool]) -> list[Any]:
    """One ``llm.Tool`` per tool: the optimized schema and description, the real tool."""
    return [llm.Tool(name=t.name, description=t.description, input_schema=t.parameters,
                     implementation=tool_function(t)) for t in tools]


def tools_from_env(settings: PluginSettings | None = None) -> list[RunTool]:
    """The tools of the run the environment names (none when it names none, or names one
    that cannot be loaded: then one line on standard error)."""
    settings = settings or PluginSettings.from_env()
    if settings is None:
        return []
    try:
        return run_tools(settings.run, settings.module, runs_dir=settings.runs_dir)
    except UserError as exc:
        print(f"play2prompt llm plugin ({RUN_ENV}={settings.run}): {exc}", file=sys.stderr)
        return []


@llm.hookimpl
def register_tools(register: Callable[..., None]) -> None:
    for tool in llm_tools(tools_from_env()):
        register(tool)
