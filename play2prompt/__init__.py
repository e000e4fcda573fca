"""play2prompt: zero-shot tool documentation and demonstration optimization (Play2Prompt).

The common entry points are importable from here; they load lazily, so ``import play2prompt``
has no cost and no side effects.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "optimize": "play2prompt.optimize:optimize",
    "OptimizeConfig": "play2prompt.config:OptimizeConfig",
    "preset": "play2prompt.config:preset",
    "load_tools": "play2prompt.tools.loading:load_tools",
    "Tool": "play2prompt.tools.model:Tool",
    "ToolDoc": "play2prompt.tools.model:ToolDoc",
    "Invocation": "play2prompt.tools.model:Invocation",
    "make_lm": "play2prompt.lm.registry:make_lm",
    "load_run_result": "play2prompt.results:load_run_result",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'play2prompt' has no attribute {name!r}")
    module, _, attr = _LAZY[name].partition(":")
    return getattr(importlib.import_module(module), attr)
