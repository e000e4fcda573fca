"""Benchmark adapters (BFCL, StableToolBench, Spider) and MCP import.

Each benchmark package exposes a ``BENCHMARK`` object satisfying
:class:`play2prompt.benchmarks.Benchmark`; the registry (built-ins by name, third-party ones by
entry point) is :mod:`play2prompt.benchmarks`, re-exported here for the adapters' use.
"""

from play2prompt.benchmarks import (
    Benchmark,
    BenchmarkBase,
    Line,
    LoadedTools,
    Table,
    available_benchmarks,
    load_benchmark,
)

__all__ = ["Benchmark", "BenchmarkBase", "Line", "LoadedTools", "Table",
           "available_benchmarks", "load_benchmark"]
