"""OpenAI Agents SDK (extra ``agents``): a run's tools as ``agents.FunctionTool`` objects.

    from agents import Agent, Runner
    from play2prompt.integrations.openai_agents import tools_from_run

    agent = Agent(name="shop", tools=tools_from_run("my-run"))
    print(Runner.run_sync(agent, "5 km in miles?").final_output)

The Responses export (``p2p export --format openai-responses``) is the same tool list as JSON
for the Responses API; the Agents SDK takes tool objects, not dicts, which is what this makes.
Each ``FunctionTool`` has the run's description (its verified demos appended: the SDK has no
field for examples), the run's parameter schema with the optimized parameter descriptions as
``params_json_schema`` (``strict_json_schema=False``: strict mode would make every optional
parameter required), and an ``on_invoke_tool`` that executes the tool
(:mod:`play2prompt.integrations.run_tools`) and answers its output as text (JSON for anything
but a string). A call that fails answers ``<error type>: <reason>``, so the model reads why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from play2prompt.errors import require
from play2prompt.integrations.run_tools import RunRef, RunTool, ToolCallFailed, run_tools


def tools_from_run(run: RunRef, module: Any = None, *, demos: bool | int = True,
                   runs_dir: Path | None = None, base_dir: str | Path | None = None
                   ) -> list[Any]:
    """One ``agents.FunctionTool`` per tool of ``run`` around its real implementation.

    ``run``: a run id, a run folder or a run's data; ``module``, ``demos``, ``base_dir``: as
    :func:`play2prompt.integrations.run_tools.run_tools` takes them."""
    require("agents", "agents", "play2prompt.integrations.openai_agents")
    found = run_tools(run, module, demos=demos, runs_dir=runs_dir, base_dir=base_dir)
    return [function_tool(t) for t in found]


def output_text(value: Any) -> str:
    """A tool's output as the text the model reads."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)


def function_tool(tool: RunTool) -> Any:
    """The ``agents.FunctionTool`` of one bound tool."""
    from agents import FunctionTool

    async def on_invoke_tool(ctx: Any, input_json: str) -> str:
        try:
            arguments = json.loads(input_json) if input_json.strip() else {}
        except ValueError as exc:
            return f"schema: the arguments are not JSON ({exc})"
        try:
            return output_text(await tool.acall(arguments))
        except ToolCallFailed as exc:
            return str(exc)

    return FunctionTool(name=tool.name, description=tool.description,
                        params_json_schema=tool.parameters, on_invoke_tool=on_invoke_tool,
                        strict_json_schema=False)


__all__ = ["function_tool", "output_text", "tools_from_run"]
