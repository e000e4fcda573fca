"""Monte Carlo search (the paper's ablation): sample ``budget`` items independently from the
start (no parent conditioning), keep the best ``width``."""

from __future__ import annotations

from play2prompt.search._base import OnIteration, SearchResult, SearchSpace, T, top
from play2prompt.search.beam import _end_iteration, _notify, _propose_scored


async def monte_carlo_search(
    space: SearchSpace[T],
    *,
    width: int,
    budget: int,
    on_iteration: OnIteration | None = None,
) -> SearchResult[T]:
    nodes = await _propose_scored(space, None, budget, 0)
    beam = top(nodes, width)
    await _notify(on_iteration, 0, nodes, beam)
    await _end_iteration(space, 0, nodes)
    return SearchResult(beam, list(nodes), [beam])


def beam_budget(width: int, expand: int, depth: int, initial: int | None = None) -> int:
    """Items a beam search evaluates at most: the same budget for a fair Monte Carlo run."""
    return (initial or width) + depth * width * expand
