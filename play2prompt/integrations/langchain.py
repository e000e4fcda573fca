"""LangChain (extra ``langchain``): a run's tools as ``StructuredTool`` objects.

    from play2prompt.integrations.langchain import tools_from_run

    tools = tools_from_run("my-run")             # the real functions, the optimized docs
    model = ChatOpenAI(model="gpt-4.1-mini").bind_tools(tools)

Each tool is a ``langchain_core.tools.StructuredTool`` with the run's description (its verified
demos appended: LangChain has no field a model reads examples from), the parameters' JSON
Schema with the optimized parameter descriptions as ``args_schema`` (what ``bind_tools``
sends), a synchronous ``func`` and an async ``coroutine`` that execute the tool
(:mod:`play2prompt.integrations.run_tools`). A failed call is a ``ToolException`` handled by
the tool (``handle_tool_error=True``): the model reads the error instead of the agent
crashing. ``metadata["play2prompt"]`` keeps the run id and the demos' arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from play2prompt.errors import require
from play2prompt.integrations.run_tools import RunRef, RunTool, ToolCallFailed, run_tools


def tools_from_run(run: RunRef, module: Any = None, *, demos: bool | int = True,
                   runs_dir: Path | None = None, base_dir: str | Path | None = None
                   ) -> list[Any]:
    """One ``StructuredTool`` per tool of ``run`` around its real implementation.

    ``run``: a run id, a run folder or a run's data; ``module``, ``demos``, ``base_dir``: as
    :func:`play2prompt.integrations.run_tools.run_tools` takes them."""
    require("langchain_core", "langchain", "play2prompt.integrations.langchain")
    found = run_tools(run, module, demos=demos, runs_dir=runs_dir, base_dir=base_dir)
    run_id = run if isinstance(run, str) else None
    return [structured_tool(t, run_id) for t in found]


def structured_tool(tool: RunTool, run_id: str | None = None) -> Any:
    """The ``StructuredTool`` of one bound tool."""
    from langchain_core.tools import StructuredTool, ToolException

    def func(**arguments: Any) -> Any:
        try:
            return tool.call(arguments)
        except ToolCallFailed as exc:
            raise ToolException(str(exc)) from exc

    async def coroutine(**arguments: Any) -> Any:
        try:
            return await tool.acall(arguments)
        except ToolCallFailed as exc:
            raise ToolException(str(exc)) from exc

    func.__name__ = coroutine.__name__ = tool.name
    return StructuredTool(
        name=tool.name, description=tool.description, args_schema=tool.parameters,
        func=func, coroutine=coroutine, handle_tool_error=True,
        metadata={"play2prompt": {"run": run_id, "examples": tool.examples}},
    )


__all__ = ["structured_tool", "tools_from_run"]
