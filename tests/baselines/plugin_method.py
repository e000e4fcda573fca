"""A third-party optimization method for the registry test: keeps D0, records that it ran."""

from __future__ import annotations

from play2prompt.results import ToolResult


def tool_budget(config):  # noqa: ANN001, ANN201
    return 1


async def optimize_tool(tool, engine):  # noqa: ANN001, ANN201
    result = ToolResult(tool.name, tool, tool.doc, (), False, "plugin: kept D0",
                        stats={"method": "plugin"})
    engine.store.put_result(tool.name, result.to_dict())
    return result
