"""play2prompt: zero-shot tool documentation and demonstration optimization (Play2Prompt).

The common entry points are importable from here; they load lazily, so ``import play2prompt``
has no cost and no side effects. ``optimize`` and ``run_evaluation`` are synchronous;
``optimize_async`` and ``evaluate_async`` are the same, awaitable in a running event loop.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "optimize": "play2prompt.optimize:optimize",
    "optimize_async": "play2prompt.optimize:optimize_async",
    "run_evaluation": "play2prompt.evaluation.session:run_evaluation",
    "evaluate_async": "play2prompt.evaluation.session:evaluate_async",
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


class _Package(types.ModuleType):
    """The package, whose entry point ``optimize`` keeps its name although a submodule has
    the same name: importing ``play2prompt.optimize`` would otherwise replace the function
    here by the module (``from play2prompt.optimize import ...`` is unaffected)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and _LAZY.get(name, "").startswith(
                f"{__name__}.{name}:"):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
