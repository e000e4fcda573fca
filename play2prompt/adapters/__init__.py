"""Benchmark adapters, registered by name and imported lazily.

A benchmark module exposes a ``BENCHMARK`` object with (any of):

- ``optimize_tools(data_dir, subset, select, config) -> LoadedTools``: what
  ``p2p optimize --benchmark NAME`` optimizes;
- ``eval_command``: a typer command function, mounted as ``p2p eval NAME``;
- ``data_command``: a typer command function, mounted as ``p2p data NAME``.

Third-party benchmarks register under the entry-point group ``play2prompt.benchmarks``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError

BENCHMARKS: dict[str, str] = {
    "bfcl": "play2prompt.adapters.bfcl",
    "stabletoolbench": "play2prompt.adapters.stabletoolbench",
    "spider": "play2prompt.adapters.spider",
}
ENTRY_POINT_GROUP = "play2prompt.benchmarks"


@dataclass
class LoadedTools:
    tools: list[Any]
    base_dir: Path | None = None
    exec_ctx: Any = None


def available_benchmarks() -> dict[str, str]:
    found = dict(BENCHMARKS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def load_benchmark(name: str) -> Any:
    registry = available_benchmarks()
    if name not in registry:
        raise UserError(f"unknown benchmark {name!r} (one of {', '.join(sorted(registry))})")
    module_name, _, attr = registry[name].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr or "BENCHMARK")
