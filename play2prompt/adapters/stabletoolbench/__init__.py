"""StableToolBench (Apache-2.0; the stable successor of ToolBench): solvable queries over
RapidAPI endpoints, answered from its response cache, a running ``/virtual`` server or an LLM
simulator; ReAct inference; the solvable pass rate with an LLM judge.

- ``p2p optimize --benchmark stabletoolbench --subset G1_instruction [--data-dir STB]``
  optimizes the APIs the subset's queries use (width 3, as the paper does for StableToolBench);
- ``p2p eval stabletoolbench --subset G1_instruction [--prompts RUN]`` runs ReAct with the
  original docs (and the optimized ones) and prints the pass rate per subset and on average;
- ``p2p data stabletoolbench`` shows what data was found.

Without ``--stb-dir`` / ``--data-dir`` the shared slice is used (``$P2P_STB_DIR`` or
``shared/data/stabletoolbench`` beside the repository).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from play2prompt.benchmarks import BenchmarkBase


class StableToolBench(BenchmarkBase):
    """The benchmark's entry points (stateless; modules are imported when used)."""

    name = "stabletoolbench"
    # The paper's beam width for StableToolBench; explicit --width wins.
    # Each query offers its own few tools, never all of the run's at once: no tool-set check.
    config_defaults: dict[str, Any] = {"width": 3, "set_check": 0}
    # Its APIs are answered from the response cache, a /virtual server or a simulator.
    executors = {"stabletoolbench":
                 "play2prompt.adapters.stabletoolbench.executor:StableToolBenchExecutor"}
    templates = {name: f"{__name__}:templates/{name}.txt"
                 for name in ("judge_answer", "judge_trajectory")}

    def optimize_tools(self, data_dir: Path | None = None, subset: str | None = None,
                       select: Sequence[str] | None = None, config: Any = None) -> Any:
        from play2prompt.adapters.stabletoolbench.loading import optimize_tools

        return optimize_tools(data_dir, subset, select, config)

    @property
    def eval_command(self) -> Callable[..., None]:
        from play2prompt.adapters.stabletoolbench.cli import eval_command

        return eval_command

    @property
    def data_command(self) -> Callable[..., None]:
        from play2prompt.adapters.stabletoolbench.cli import data_command

        return data_command


BENCHMARK = StableToolBench()
