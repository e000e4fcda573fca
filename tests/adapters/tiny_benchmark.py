"""A third-party benchmark in miniature, registered by entry point in the tests: one tool run
by an executor kind the benchmark registers, a template it registers, a suite, and both
commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from play2prompt.benchmarks import BenchmarkBase, Line, LoadedTools, Output, Table
from play2prompt.evaluation.items import EvalItem, EvalSuite
from play2prompt.evaluation.session import SuiteRequest
from play2prompt.tools.executors._base import Executor
from play2prompt.tools.model import Invocation, Tool

NAME = "tiny"
TOOL = Tool("double", "Doubles a number.",
            {"type": "object", "properties": {"x": {"type": "integer", "description": "n"}},
             "required": ["x"]},
            executor={"tiny_exec": {}})


class DoubleExecutor(Executor):
    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        return 2 * int(arguments["x"])


def suite() -> EvalSuite:
    items = [EvalItem(f"q{n}", f"What is twice {n}?", (Invocation("double", {"x": n}),),
                      ("exact",), tools=("double",)) for n in (2, 5)]
    return EvalSuite(NAME, items, {"double": TOOL}, base_dir=Path.cwd())


def data_command(size: int = typer.Option(2, help="rows")) -> Output:
    """Show the tiny data."""
    return [Table.of("tiny data", ["n", "double"], [[n, 2 * n] for n in range(size)]),
            Line("tiny: done"), Line("tiny: a note", err=True)]


def eval_command(task_model: str = typer.Option("fake"),
                 out: Path = typer.Option(..., "-o"),
                 quiet: bool = typer.Option(True, "--quiet/--no-quiet")) -> SuiteRequest:
    """Evaluate on the tiny suite."""
    return SuiteRequest(suite(), task_model=task_model, out=out, quiet=quiet)


class TinyBenchmark(BenchmarkBase):
    name = NAME
    config_defaults = {"width": 1}
    executors = {"tiny_exec": f"{__name__}:DoubleExecutor"}
    templates = {"tiny_prompt": "tests.adapters:fixtures/tiny_prompt.txt"}

    def optimize_tools(self, data_dir: Path | None = None, subset: str | None = None,
                       select: Any = None, config: Any = None) -> LoadedTools:
        return LoadedTools([TOOL], base_dir=Path.cwd())

    def eval_suite(self, data_dir: Path | None = None, subset: str | None = None) -> EvalSuite:
        return suite()

    @property
    def data_command(self) -> Any:
        return data_command

    @property
    def eval_command(self) -> Any:
        return eval_command


BENCHMARK = TinyBenchmark()
