"""Tools: the model, loading, linting, validation, executors and the runtime."""

from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc

__all__ = ["Invocation", "Observation", "Tool", "ToolDoc"]
