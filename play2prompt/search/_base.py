"""The search interface: a space proposes items and scores them; searches know nothing else."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Node(Generic[T]):
    """An evaluated item in a search: its id, reward, iteration and parent."""

    id: str
    item: T
    reward: float
    iteration: int
    parent: str | None = None


@dataclass(frozen=True)
class Scored(Generic[T]):
    """A reward with the item as its scoring left it (e.g. carrying what its evaluation found),
    for a space whose ``score`` returns more than the rewards."""

    item: T
    reward: float


def scored(item: T, score: float | Scored[T]) -> tuple[T, float]:
    """(item, reward) from what ``score`` returned for ``item``."""
    if isinstance(score, Scored):
        return score.item, float(score.reward)
    return item, float(score)


class SearchSpace(Protocol[T]):
    async def propose(self, parent: Node[T] | None, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[T]:
        """Up to ``count`` new items; ``parent`` is None for the initial population.

        ``node_ids`` are the ids the new nodes will get (one per requested item), so a space can
        derive deterministic seeds from them.
        """
        ...

    async def score(self, items: Sequence[T], iteration: int) -> Sequence[float | Scored[T]]:
        """One reward per item (higher is better), or a :class:`Scored` item."""
        ...

    # Optional: ``async def end_iteration(self, iteration, new_nodes)``, called once an
    # iteration's nodes are known and ``on_iteration`` has seen them; ``def settled(self,
    # history) -> bool``, asked before each round of expansions: True when no further
    # candidate can change what is done with the result (the beam search then stops).


@dataclass
class SearchResult(Generic[T]):
    beam: list[Node[T]]                      # the final kept nodes, best first
    history: list[Node[T]] = field(default_factory=list)    # every evaluated node
    beams: list[list[Node[T]]] = field(default_factory=list)  # kept nodes per iteration
    stopped_early: bool = False

    @property
    def best(self) -> Node[T] | None:
        return self.beam[0] if self.beam else None

    def best_reward_per_iteration(self) -> list[float | None]:
        return [b[0].reward if b else None for b in self.beams]


OnIteration = Callable[[int, list[Node[Any]], list[Node[Any]]], Any]


def top(nodes: Sequence[Node[T]], k: int) -> list[Node[T]]:
    """The ``k`` best nodes; ties keep their original order (deterministic)."""
    order = sorted(range(len(nodes)), key=lambda i: (-nodes[i].reward, i))
    return [nodes[i] for i in order[:k]]
