"""Benchmarks by name: the :class:`Benchmark` protocol and its registry.

A benchmark brings, all optional but the tools: the tools ``p2p optimize --benchmark NAME``
optimizes (:meth:`Benchmark.optimize_tools`), recommended optimization settings
(``config_defaults``), an evaluation suite of single-turn items (:meth:`Benchmark.eval_suite`,
what ``p2p sweep --benchmark NAME`` measures), the commands ``p2p data NAME`` and
``p2p eval NAME``, the executor kinds its tools use (``executors``: kind -> ``"module:Class"``)
and the meta-prompt templates it renders (``templates``: name -> ``"package:file"``). Those two
are added to the executor and template registries when the benchmark is loaded; to be found
without loading it (a saved tools file run later), a package declares them as entry points
(``play2prompt.executors``, ``play2prompt.templates``), as pyproject.toml does for the
built-in benchmarks. The lower registries never ask this one.

Commands parse their options and return what is to be shown (:class:`Line`, :class:`Table`),
or an evaluation request the CLI runs; they never print tables themselves.

Built-in benchmarks are listed here by name and imported only when used; third-party ones
register an object (or a module with a ``BENCHMARK`` attribute) under the entry-point group
``play2prompt.benchmarks``. The core imports no benchmark module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from play2prompt.errors import UserError
from play2prompt.metaprompts import register_template
from play2prompt.plugins import load_target, registered
from play2prompt.tools.executors._base import ExecContext, register_executor
from play2prompt.tools.model import Tool

if TYPE_CHECKING:
    from play2prompt.config import OptimizeConfig
    from play2prompt.evaluation.items import EvalSuite

ENTRY_POINT_GROUP = "play2prompt.benchmarks"

BUILTIN_BENCHMARKS: dict[str, str] = {
    "bfcl": "play2prompt.adapters.bfcl",
    "stabletoolbench": "play2prompt.adapters.stabletoolbench",
    "spider": "play2prompt.adapters.spider",
}

Command = Callable[..., Any]


@dataclass
class LoadedTools:
    """What a benchmark gives ``p2p optimize``: the tools, where their executors resolve
    paths, and optionally an execution context of its own."""

    tools: list[Tool]
    base_dir: Path | None = None
    exec_ctx: ExecContext | None = None


@dataclass(frozen=True)
class Line:
    """A line of a command's output (``err``: to standard error)."""

    text: str
    err: bool = False


@dataclass(frozen=True)
class Table:
    """A table of a command's output; the CLI renders it."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...] = field(default=())

    @classmethod
    def of(cls, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
        return cls(title, tuple(columns), tuple(tuple(r) for r in rows))


Output = Sequence[Line | Table]


@runtime_checkable
class Benchmark(Protocol):
    """What a benchmark adapter provides (see the module docstring)."""

    name: str
    config_defaults: Mapping[str, Any]
    executors: Mapping[str, str]
    templates: Mapping[str, str]

    def optimize_tools(self, data_dir: Path | None = None, subset: str | None = None,
                       select: Sequence[str] | None = None,
                       config: OptimizeConfig | None = None) -> LoadedTools: ...

    def eval_suite(self, data_dir: Path | None = None,
                   subset: str | None = None) -> EvalSuite | None: ...

    @property
    def data_command(self) -> Command | None: ...

    @property
    def eval_command(self) -> Command | None: ...


class BenchmarkBase:
    """Defaults for a :class:`Benchmark`: no settings, executors, templates, suite or
    commands. Subclass it and override what the benchmark has."""

    name: str = ""
    config_defaults: Mapping[str, Any] = {}
    executors: Mapping[str, str] = {}
    templates: Mapping[str, str] = {}

    def optimize_tools(self, data_dir: Path | None = None, subset: str | None = None,
                       select: Sequence[str] | None = None,
                       config: OptimizeConfig | None = None) -> LoadedTools:
        raise UserError(f"benchmark {self.name!r} has no tools to optimize")

    def eval_suite(self, data_dir: Path | None = None,
                   subset: str | None = None) -> EvalSuite | None:
        return None

    @property
    def data_command(self) -> Command | None:
        return None

    @property
    def eval_command(self) -> Command | None:
        return None


def available_benchmarks() -> dict[str, str]:
    """Name -> ``module[:attribute]``: the built-in benchmarks, then the entry points."""
    return registered(BUILTIN_BENCHMARKS, ENTRY_POINT_GROUP)


def load_benchmark(name: str) -> Benchmark:
    """The benchmark named ``name``; its executor kinds and templates are registered."""
    registry = available_benchmarks()
    if name not in registry:
        raise UserError(f"unknown benchmark {name!r} (one of {', '.join(sorted(registry))})")
    bench: Benchmark = load_target(registry[name], "BENCHMARK")
    for kind, target in getattr(bench, "executors", {}).items():
        register_executor(kind, target)
    for template, target in getattr(bench, "templates", {}).items():
        register_template(template, target)
    return bench
