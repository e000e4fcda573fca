"""Tools: the model, loading, linting, validation, executors and the runtime.

The model's types load eagerly; the rest on first use (``from play2prompt.tools import
ToolRuntime``), so importing the model stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc

_LAZY = {
    "load_tools": "play2prompt.tools.loading",
    "parse_tools": "play2prompt.tools.loading",
    "ToolRuntime": "play2prompt.tools.runtime",
    "Executor": "play2prompt.tools.executors._base",
    "ExecContext": "play2prompt.tools.executors._base",
    "ToolCallError": "play2prompt.tools.executors._base",
    "available_executors": "play2prompt.tools.executors._base",
}

__all__ = ["Invocation", "Observation", "Tool", "ToolDoc", *_LAZY]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'play2prompt.tools' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
