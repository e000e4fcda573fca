"""BFCL executable (Berkeley Function-Calling Leaderboard, v3 executable categories).

Data: the Apache-2.0 wheel ``nvidia-bfcl`` (fetched by ``p2p data bfcl``, read as a zip).
``p2p eval bfcl`` evaluates a task model on the exec simple / multiple / parallel /
parallel-multiple questions (offline by default: those whose ground truth needs no network)
and, with ``--online``, REST. ``p2p optimize --benchmark bfcl`` optimizes the functions the
offline questions use, each independently. Both take ``--opaque`` (OpaqueToolsBench's opacity
settings, ``opacity.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from play2prompt.benchmarks import BenchmarkBase, LoadedTools
from play2prompt.tools.model import Tool


class BFCLBenchmark(BenchmarkBase):
    name = "bfcl"
    # Each question offers its own one to four functions, never all of the run's at once, so
    # the tool-set check (all tools in one prompt) asks what the benchmark never asks; it is
    # off unless asked for (--set-check N). On opaque BFCL (a) with the 1.5B, --set-check 2
    # took 48 min of an 80-min run for +4 / -0 questions (p = 0.125; docs/results.md).
    config_defaults: dict[str, Any] = {"set_check": 0}

    def optimize_tools(self, data_dir: Path | None = None, subset: str | None = None,
                       select: Sequence[str] | None = None, config: Any = None,
                       opaque: str | None = None) -> LoadedTools:
        """The offline exec functions (``subset``: comma-separated categories; ``opaque``:
        each as OpaqueToolsBench hides it, a comma list of names, descriptions, param-docs,
        params)."""
        from play2prompt.adapters.bfcl.data import EXEC_CATEGORIES, open_data
        from play2prompt.adapters.bfcl.opacity import Opacity
        from play2prompt.adapters.bfcl.suite import optimization_tools, parse_categories

        opacity = Opacity.parse(opaque)
        data, root = open_data(data_dir)
        categories = parse_categories(subset) if subset else list(EXEC_CATEGORIES)
        tools = optimization_tools(data, categories, select, opacity)
        return LoadedTools(tools, base_dir=root)

    def eval_suite(self, data_dir: Path | None = None, subset: str | None = None,
                   opaque: str | None = None) -> Any:
        """The offline exec questions of ``subset`` (comma-separated categories; REST needs
        the network and is left out); ``opaque``: each question's tools as ``p2p eval bfcl
        --opaque`` shows them (the suite's ``opaque`` set to the opacity)."""
        from dataclasses import replace

        from play2prompt.adapters.bfcl.data import open_data
        from play2prompt.adapters.bfcl.opacity import Opacity
        from play2prompt.adapters.bfcl.suite import load_suite, parse_categories

        opacity = Opacity.parse(opaque)
        categories = [c for c in parse_categories(subset) if c != "rest"]
        data, root = open_data(data_dir)
        if not opacity:
            return load_suite(data, root, categories)
        return replace(load_suite(data, root, categories, opacity=opacity),
                       opaque=opacity.spec)

    def opaque_view(self, tools: Sequence[Tool]) -> Any:
        """How ``p2p sweep --benchmark bfcl --opaque`` shows and evaluates the sides on the
        opaque suite, as ``p2p eval bfcl --opaque`` does; ``tools``: the sweep's tools (from
        :meth:`optimize_tools` with ``opaque``)."""
        from play2prompt.adapters.bfcl.opaque_eval import QuestionNamesView

        return QuestionNamesView.of(tools)

    @property
    def data_command(self) -> Callable[..., Any]:
        from play2prompt.adapters.bfcl.cli import data_command

        return data_command

    @property
    def eval_command(self) -> Callable[..., Any]:
        from play2prompt.adapters.bfcl.cli import eval_command

        return eval_command


BENCHMARK = BFCLBenchmark()
