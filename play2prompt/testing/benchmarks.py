"""The contract every benchmark adapter keeps, as a reusable test suite.

Subclass :class:`BenchmarkContract` and give it fixtures ``benchmark`` (the registered
object) and ``data_dir`` (a folder with the benchmark's data for tests, or None when it
brings its own).
"""

from __future__ import annotations

import inspect
from pathlib import Path

from play2prompt.benchmarks import Benchmark, LoadedTools, available_benchmarks, load_benchmark
from play2prompt.config import apply_overrides, preset
from play2prompt.evaluation.items import EvalSuite
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.executors._base import Executor, executor_class, executor_kind
from play2prompt.tools.model import Tool


class BenchmarkContract:
    """What every benchmark guarantees to the registry, the CLI and the core."""

    def test_it_is_registered_under_its_name(self, benchmark: Benchmark) -> None:
        assert isinstance(benchmark, Benchmark)
        assert benchmark.name in available_benchmarks()
        assert load_benchmark(benchmark.name) is benchmark

    def test_its_defaults_are_optimization_settings(self, benchmark: Benchmark) -> None:
        apply_overrides(preset("quick"), **dict(benchmark.config_defaults))

    def test_its_executors_and_templates_resolve(self, benchmark: Benchmark) -> None:
        for kind in benchmark.executors:
            assert issubclass(executor_class(kind), Executor)
        for name in benchmark.templates:
            messages = MetaPrompts()._load(name)
            assert all(isinstance(part, str) for part in messages)

    def test_its_commands_are_cli_commands(self, benchmark: Benchmark) -> None:
        for command in (benchmark.data_command, benchmark.eval_command):
            if command is None:
                continue
            signature = inspect.signature(command, eval_str=True)  # as typer reads it
            assert command.__doc__ and command.__doc__.strip()
            assert all(p.default is not inspect.Parameter.empty or
                       p.kind is p.VAR_KEYWORD for p in signature.parameters.values())

    def test_it_gives_tools_to_optimize(self, benchmark: Benchmark,
                                        data_dir: Path | None) -> None:
        loaded = benchmark.optimize_tools(data_dir=data_dir, subset=None, select=None,
                                          config=None)
        assert isinstance(loaded, LoadedTools) and loaded.tools
        assert all(isinstance(t, Tool) for t in loaded.tools)
        for tool in loaded.tools:
            assert issubclass(executor_class(executor_kind(tool.executor, tool.name)), Executor)

    def test_its_suite_calls_known_tools(self, benchmark: Benchmark,
                                         data_dir: Path | None) -> None:
        suite = benchmark.eval_suite(data_dir, None)
        if suite is None:
            return
        assert isinstance(suite, EvalSuite) and suite.items
        for item in suite.items[:20]:
            tools = {t.name for t in suite.item_tools(item)}
            assert {c.name for c in item.calls} <= tools, item.id
