"""What ``p2p optimize --benchmark stabletoolbench`` optimizes.

By default the APIs the subset's queries use (their ``relevant APIs``). ``--tools`` narrows it:
a function name selects that API, a query id selects that query's relevant APIs, and ``all``
widens the selected queries to every API they offer (their whole ``api_list``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from play2prompt.adapters.stabletoolbench.data import (
    Query,
    ToolFiles,
    load_queries,
    query_tools,
    resolve_source,
)
from play2prompt.benchmarks import LoadedTools
from play2prompt.config import split_names
from play2prompt.errors import UserError
from play2prompt.tools.model import Tool


def select_tools(queries: Sequence[Query], tools_of: Any, index: ToolFiles,
                 select: Sequence[str] | None) -> list[Tool]:
    """The tools of ``queries`` chosen by ``select`` (see the module doc)."""
    tokens = split_names(select)
    widen = "all" in tokens
    ids = {t for t in tokens if any(t == q.query_id for q in queries)}
    names = [t for t in tokens if t != "all" and t not in ids]
    chosen = [q for q in queries if q.query_id in ids] if ids else list(queries)
    by_name: dict[str, Tool] = {}
    for q in chosen:
        offered = tools_of(q)
        keep = set(q.relevant_names(index)) if not widen else {t.name for t in offered}
        for tool in offered:
            if tool.name in keep:
                by_name.setdefault(tool.name, tool)
    if names:
        every = {t.name: t for q in queries for t in tools_of(q)}
        unknown = [n for n in names if n not in every]
        if unknown:
            raise UserError(f"unknown StableToolBench function(s) or query id(s): "
                            f"{', '.join(unknown)}")
        picked = {n: every[n] for n in names}
        by_name = picked if not ids else {**by_name, **picked}
    if not by_name:
        raise UserError("no StableToolBench API selected to optimize")
    return list(by_name.values())


def optimize_tools(data_dir: Path | None = None, subset: str | None = None,
                   select: Sequence[str] | None = None, config: Any = None) -> LoadedTools:
    source = resolve_source(data_dir)
    subsets = [subset] if subset else source.subsets()
    queries = [q for s in subsets for q in load_queries(source, s)]
    index = ToolFiles.scan(source.tools_dir)
    tools = select_tools(queries, lambda q: query_tools(q, source, index), index, select)
    # No ExecContext: optimize() builds one whose LM is the generator, which the simulator uses.
    return LoadedTools(tools, base_dir=source.root, exec_ctx=None)
