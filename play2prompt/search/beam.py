"""Beam search: an initial population, then ``depth`` rounds in which each of the ``width``
kept nodes proposes ``expand`` children; the best ``width`` of parents and children survive."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence

from play2prompt.jsonutil import stable_hash
from play2prompt.search._base import (
    Node,
    OnIteration,
    SearchResult,
    SearchSpace,
    T,
    scored,
    top,
)


def child_ids(parent_id: str, iteration: int, count: int) -> list[str]:
    return [stable_hash(parent_id, iteration, j, length=12) for j in range(count)]


async def _propose_scored(space: SearchSpace[T], parent: Node[T] | None, count: int,
                          iteration: int) -> list[Node[T]]:
    ids = child_ids(parent.id if parent else "root", iteration, count)
    items = (await space.propose(parent, count, iteration, ids))[:count]
    rewards = await space.score(items, iteration) if items else []
    return [Node(ids[j], *scored(item, r), iteration, parent.id if parent else None)
            for j, (item, r) in enumerate(zip(items, rewards))]


async def _notify(callback: OnIteration | None, iteration: int, new: list[Node],
                  kept: list[Node]) -> None:
    if callback is not None:
        out = callback(iteration, new, kept)
        if inspect.isawaitable(out):
            await out


async def _end_iteration(space: SearchSpace[T], iteration: int, new: list[Node[T]]) -> None:
    """A space's own end of an iteration (optional ``end_iteration``), after ``on_iteration``."""
    hook = getattr(space, "end_iteration", None)
    if hook is not None:
        await hook(iteration, new)


def _settled(space: SearchSpace[T], history: Sequence[Node[T]]) -> bool:
    """A space's own judgement (optional ``settled``) that no further candidate can change
    what is done with the search's result: the rounds left would be spent for nothing."""
    hook = getattr(space, "settled", None)
    return bool(hook(history)) if hook is not None else False


async def beam_search(
    space: SearchSpace[T],
    *,
    width: int,
    expand: int,
    depth: int,
    initial: int | None = None,
    initial_items: Sequence[T] | None = None,
    keep_parents: bool = True,
    patience: int | None = None,
    on_iteration: OnIteration | None = None,
) -> SearchResult[T]:
    """Run the search. ``patience`` stops early after that many rounds without improvement; a
    space that says it is settled stops it too."""
    if initial_items is not None:
        ids = child_ids("root", 0, len(initial_items))
        rewards = await space.score(list(initial_items), 0)
        first = [Node(ids[j], *scored(it, r), 0, None)
                 for j, (it, r) in enumerate(zip(initial_items, rewards))]
    else:
        first = await _propose_scored(space, None, initial or width, 0)
    history = list(first)
    beam = top(first, width)
    result = SearchResult(beam, history, [beam])
    await _notify(on_iteration, 0, first, beam)
    await _end_iteration(space, 0, first)
    best, stale = (beam[0].reward if beam else float("-inf")), 0
    for iteration in range(1, depth + 1):
        if _settled(space, history):
            result.stopped_early = True
            break
        proposals = [_propose_scored(space, node, expand, iteration) for node in beam]
        if len(beam) < width:
            # A beam short of its width (an item of the round before was not valid, or none
            # was): its empty places propose from the root, so each round spends the budget
            # of a full beam, W x L (SearchSettings.budget).
            proposals.append(_propose_scored(space, None, (width - len(beam)) * expand,
                                             iteration))
        groups = await asyncio.gather(*proposals)
        children = [node for group in groups for node in group]
        history.extend(children)
        pool = (beam + children) if keep_parents else (children or beam)
        beam = top(pool, width)
        result.beams.append(beam)
        await _notify(on_iteration, iteration, children, beam)
        await _end_iteration(space, iteration, children)
        if beam and beam[0].reward > best:
            best, stale = beam[0].reward, 0
        else:
            stale += 1
        if patience is not None and stale >= patience:
            result.stopped_early = iteration < depth
            break
    result.beam = beam
    return result
