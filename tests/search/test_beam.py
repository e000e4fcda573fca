"""The generic searches: beam keeps W, expands L each, stops at depth T; Monte Carlo."""

import asyncio

from play2prompt.search import beam_budget, beam_search, monte_carlo_search


class Numbers:
    """Items are numbers; a child is its parent plus a small step; reward = value."""

    def __init__(self):
        self.calls = []

    async def propose(self, parent, count, iteration, node_ids):
        self.calls.append((parent.item if parent else None, count, iteration))
        base = parent.item if parent else 0
        return [base + (j + 1) * (1 if parent else 10) for j in range(count)]

    async def score(self, items, iteration):
        return [float(x) for x in items]


def test_beam_keeps_w_expands_l_stops_at_t():
    space = Numbers()
    res = asyncio.run(beam_search(space, width=3, expand=2, depth=4))
    assert [len(b) for b in res.beams] == [3] * 5
    initial = [c for c in space.calls if c[0] is None]
    assert initial == [(None, 3, 0)]
    for it in range(1, 5):
        calls = [c for c in space.calls if c[2] == it]
        assert len(calls) == 3 and all(c[1] == 2 for c in calls)
    assert max(c[2] for c in space.calls) == 4
    assert len(res.history) == beam_budget(3, 2, 4)
    # kept nodes are the best of parents + children
    assert res.beam[0].reward == max(n.reward for n in res.history)
    assert res.best_reward_per_iteration() == sorted(res.best_reward_per_iteration())


def test_beam_ids_are_deterministic_and_parents_recorded():
    a = asyncio.run(beam_search(Numbers(), width=2, expand=2, depth=2))
    b = asyncio.run(beam_search(Numbers(), width=2, expand=2, depth=2))
    assert [n.id for n in a.history] == [n.id for n in b.history]
    ids = {n.id for n in a.history}
    assert all(n.parent in ids for n in a.history if n.iteration > 0)


def test_patience_stops_early():
    class Flat(Numbers):
        async def score(self, items, iteration):
            return [1.0 for _ in items]

    res = asyncio.run(beam_search(Flat(), width=2, expand=2, depth=5, patience=1))
    assert res.stopped_early and len(res.beams) == 2


def test_a_settled_space_stops_the_search():
    class Settles(Numbers):
        def settled(self, history):       # settled once an item reaches 20
            return any(n.item >= 20 for n in history)

    space = Settles()
    res = asyncio.run(beam_search(space, width=2, expand=2, depth=5))
    assert res.stopped_early and len(res.beams) == 1 and max(c[2] for c in space.calls) == 0
    res = asyncio.run(beam_search(Settles(), width=1, expand=1, depth=5))   # 10, 11, ... never
    assert not res.stopped_early and len(res.beams) == 6


def test_monte_carlo_samples_budget_from_root():
    space = Numbers()
    res = asyncio.run(monte_carlo_search(space, width=2, budget=7))
    assert space.calls == [(None, 7, 0)] and len(res.history) == 7 and len(res.beam) == 2


def test_empty_beam_restarts_from_the_root():
    class FailsFirst(Numbers):
        async def propose(self, parent, count, iteration, node_ids):
            self.calls.append((parent, count, iteration))
            return [] if iteration == 0 else [iteration * 10 + j for j in range(count)]

    space = FailsFirst()
    res = asyncio.run(beam_search(space, width=2, expand=3, depth=2))
    # the restart is a root proposal with the round's budget: a full beam's children
    assert space.calls[:2] == [(None, 2, 0), (None, 6, 1)]
    assert [c[2] for c in space.calls[2:]] == [2, 2] and len(res.beam) == 2


def test_a_short_beam_fills_its_empty_places_from_the_root():
    class OneValid(Numbers):
        async def propose(self, parent, count, iteration, node_ids):
            self.calls.append((parent.item if parent else None, count, iteration))
            return [100 + iteration * 10 + j for j in range(1 if iteration == 0 else count)]

    space = OneValid()
    asyncio.run(beam_search(space, width=2, expand=3, depth=1))
    # one of two places filled: its item's 3 children and 3 more from the root
    assert sorted(space.calls[1:], key=str) == sorted([(100, 3, 1), (None, 3, 1)], key=str)
