"""Spider-derived tools and backup-plan evaluation ("Hell or High Water", Wang et al., JHU).

- ``p2p data spider --spider-dir D -o OUT``: every gold SQL query of a Spider split becomes
  executable, read-only, deterministic functions (the direct query, and each subquery with
  the outer part that consumes its result), with seed docs, in ``OUT/tools.json`` (executor
  ``sqlite``), and problems with gold answers and solution sets in ``OUT/problems.jsonl``.
- ``p2p eval spider --data OUT``: an agent answers the questions with those tools, without and
  with faults (the first solution function it calls becomes unavailable), in a closed world
  (solutions + distractors) or an open one (``search_tools`` + ``get_info``); optionally with
  optimized docs and demonstrations (``--prompts RUN``).
- ``p2p optimize OUT/tools.json`` (or ``--benchmark spider --data-dir OUT``) optimizes them.

The Spider data is the user's download; nothing of it ships with play2prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from play2prompt.benchmarks import BenchmarkBase, LoadedTools
from play2prompt.errors import UserError


class _SpiderBenchmark(BenchmarkBase):
    name = "spider"
    templates = {name: f"{__name__}:templates/{name}.txt"
                 for name in ("agent_spider", "spider_seed_doc")}

    @property
    def data_command(self) -> Any:
        from play2prompt.adapters.spider.cli import data_command

        return data_command

    @property
    def eval_command(self) -> Any:
        from play2prompt.adapters.spider.cli import eval_command

        return eval_command

    def optimize_tools(self, data_dir: Path | None, subset: str | None, select: Any,
                       config: Any) -> LoadedTools:
        """The tools of a folder written by ``p2p data spider``."""
        from play2prompt.adapters.spider.problems import TOOLS_FILE
        from play2prompt.tools.loading import load_tools

        if data_dir is None:
            raise UserError("--benchmark spider needs --data-dir: a folder written by "
                            "p2p data spider")
        path = Path(data_dir) / TOOLS_FILE
        if not path.is_file():
            raise UserError(f"{data_dir} has no {TOOLS_FILE} (make it with: p2p data spider "
                            f"--spider-dir DIR -o {data_dir})")
        tools = load_tools(path, select=select)
        return LoadedTools(tools, base_dir=Path(data_dir).resolve())


BENCHMARK = _SpiderBenchmark()
