"""The contract every optimization method keeps, as a reusable test suite.

Subclass :class:`OptimizerContract` and give it fixtures ``method`` (the name a method is
registered under: built in, or by entry point ``play2prompt.optimizers``), ``generator`` (a
zero-argument factory of a fresh LM that answers the method's prompts), ``tools`` (a few
tools to optimize) and ``base_dir`` (where their executors resolve paths).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from play2prompt.config import preset
from play2prompt.lm._base import LM
from play2prompt.optimize import optimize
from play2prompt.optimizers import available_optimizers, load_optimizer
from play2prompt.results import RunResult, load_run_result
from play2prompt.tools.model import Tool, ToolDoc

Factory = Callable[[], LM]


def _run(method: str, generator: Factory, tools: Sequence[Tool], base_dir: Path,
         runs: Path) -> RunResult:
    return optimize(list(tools), generator=generator(), method=method,
                    config=preset("quick", seed=5), runs_dir=runs, run_id="contract",
                    base_dir=base_dir)


class OptimizerContract:
    """What every optimization method guarantees to the registry and to the run around it
    (store, ``result.json``, resume), so export, serve, report and eval work on its runs."""

    def test_it_is_registered_and_has_the_two_callables(self, method: str) -> None:
        assert method in available_optimizers()
        optimizer = load_optimizer(method)
        assert callable(optimizer.optimize_tool) and callable(optimizer.tool_budget)
        assert isinstance(getattr(optimizer, "uses_llm_grading", True), bool)

    def test_its_budget_is_a_positive_count(self, method: str) -> None:
        budget = load_optimizer(method).tool_budget(preset("quick"))
        assert isinstance(budget, int) and budget >= 1

    def test_it_gives_every_tool_a_result(self, method: str, generator: Factory,
                                          tools: Sequence[Tool], base_dir: Path,
                                          tmp_path: Path) -> None:
        run = _run(method, generator, tools, base_dir, tmp_path)
        assert run.config["method"] == method
        assert set(run.tools) == {t.name for t in tools}
        for name, result in run.tools.items():
            assert result.name == name and result.original.name == name
            assert isinstance(result.doc, ToolDoc) and result.doc_reason.strip()
            assert result.doc_changed == (result.doc != result.original.doc), name
            assert all(c.name == name for d in result.demos for c in d.calls)
        stored = load_run_result("contract", tmp_path)
        assert {n: r.to_dict() for n, r in stored.tools.items()} == \
            {n: r.to_dict() for n, r in run.tools.items()}

    def test_a_finished_run_resumes_without_a_call(self, method: str, generator: Factory,
                                                    tools: Sequence[Tool], base_dir: Path,
                                                    tmp_path: Path) -> None:
        first = _run(method, generator, tools, base_dir, tmp_path)
        again = generator()
        resumed = optimize(generator=again, resume="contract", runs_dir=tmp_path)
        assert again.stats.calls == 0
        assert {n: r.to_dict() for n, r in resumed.tools.items()} == \
            {n: r.to_dict() for n, r in first.tools.items()}
