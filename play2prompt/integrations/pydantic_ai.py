"""pydantic-ai (extra ``pydantic-ai``): a run's tools as ``pydantic_ai.Tool`` objects.

    from play2prompt.integrations.pydantic_ai import tools_from_run

    agent = Agent("openai:gpt-4.1-mini", tools=tools_from_run("my-run"))

Each tool is made with ``Tool.from_schema``: the run's description (its verified demos
appended, where pydantic-ai's documentation puts few-shot examples), the run's parameter
schema with the optimized parameter descriptions, and an async function that executes the
tool (:mod:`play2prompt.integrations.run_tools`). A call whose arguments do not fit the schema,
or that fails, raises ``ModelRetry`` with the reason: the model is asked to try again, as
pydantic-ai does for its own tools' validation errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from play2prompt.errors import require
from play2prompt.integrations.run_tools import RunRef, RunTool, ToolCallFailed, run_tools


def tools_from_run(run: RunRef, module: Any = None, *, demos: bool | int = True,
                   runs_dir: Path | None = None, base_dir: str | Path | None = None
                   ) -> list[Any]:
    """One ``pydantic_ai.Tool`` per tool of ``run`` around its real implementation.

    ``run``: a run id, a run folder or a run's data; ``module``, ``demos``, ``base_dir``: as
    :func:`play2prompt.integrations.run_tools.run_tools` takes them."""
    require("pydantic_ai", "pydantic-ai", "play2prompt.integrations.pydantic_ai")
    found = run_tools(run, module, demos=demos, runs_dir=runs_dir, base_dir=base_dir)
    return [pydantic_tool(t) for t in found]


def pydantic_tool(tool: RunTool) -> Any:
    """The ``pydantic_ai.Tool`` of one bound tool."""
    from pydantic_ai import ModelRetry, Tool

    async def function(**arguments: Any) -> Any:
        try:
            return await tool.acall(arguments)
        except ToolCallFailed as exc:
            raise ModelRetry(str(exc)) from exc

    function.__name__ = tool.name
    return Tool.from_schema(function, name=tool.name, description=tool.description,
                            json_schema=tool.parameters)


__all__ = ["pydantic_tool", "tools_from_run"]
