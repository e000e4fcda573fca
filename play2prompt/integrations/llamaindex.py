"""LlamaIndex (extra ``llamaindex``): a run's tools as ``FunctionTool`` objects.

    from play2prompt.integrations.llamaindex import tools_from_run

    tools = tools_from_run("my-run")             # the real functions, the optimized docs
    agent = FunctionAgent(tools=tools, llm=OpenAI(model="gpt-4.1-mini"))

Each tool is a ``llama_index.core.tools.FunctionTool`` whose ``ToolMetadata`` carries the run's
description (its verified demos appended: the metadata has no field for examples) and, as
``fn_schema``, a pydantic model whose JSON Schema is the run's parameter schema with the
optimized parameter descriptions (what ``get_parameters_dict``/``to_openai_tool`` send); its
``fn`` and ``async_fn`` execute the tool (:mod:`play2prompt.integrations.run_tools`). A failed
call raises :class:`~play2prompt.integrations.run_tools.ToolCallFailed`, which LlamaIndex's
tool calling turns into an error output the model reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from play2prompt.errors import require
from play2prompt.integrations.run_tools import RunRef, RunTool, run_tools


def tools_from_run(run: RunRef, module: Any = None, *, demos: bool | int = True,
                   runs_dir: Path | None = None, base_dir: str | Path | None = None
                   ) -> list[Any]:
    """One ``FunctionTool`` per tool of ``run`` around its real implementation.

    ``run``: a run id, a run folder or a run's data; ``module``, ``demos``, ``base_dir``: as
    :func:`play2prompt.integrations.run_tools.run_tools` takes them."""
    require("llama_index.core", "llamaindex", "play2prompt.integrations.llamaindex")
    found = run_tools(run, module, demos=demos, runs_dir=runs_dir, base_dir=base_dir)
    return [function_tool(t) for t in found]


def schema_model(tool: RunTool) -> type[Any]:
    """A pydantic model whose JSON Schema is exactly the tool's parameter schema (extra
    fields allowed: the schema, not the model, is what the arguments are checked against)."""
    from pydantic import BaseModel, ConfigDict

    schema = tool.parameters

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return {**schema, "title": tool.name}

    Arguments.__name__ = Arguments.__qualname__ = f"{tool.name}_arguments"
    return Arguments


def function_tool(tool: RunTool) -> Any:
    """The ``FunctionTool`` of one bound tool."""
    from llama_index.core.tools import FunctionTool, ToolMetadata

    def fn(**arguments: Any) -> Any:
        return tool.call(arguments)

    async def async_fn(**arguments: Any) -> Any:
        return await tool.acall(arguments)

    fn.__name__ = async_fn.__name__ = tool.name
    metadata = ToolMetadata(description=tool.description, name=tool.name,
                            fn_schema=schema_model(tool))
    return FunctionTool(fn=fn, async_fn=async_fn, metadata=metadata)


__all__ = ["function_tool", "schema_model", "tools_from_run"]
