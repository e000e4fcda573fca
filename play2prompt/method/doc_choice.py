"""Step 2's honest choice: what ships with a tool, decided on examples that built nothing.

The best doc candidate replaces D0 only when it scores strictly higher than D0 on all the
verified examples (training and held-out together) and not lower on the held-out ones, both
asked afresh (a seed of their own, never a replay of Step 1's test); otherwise the run keeps the
original and says why. The number of demos (0, 1 or k) is chosen the same way on the held-out
examples with the chosen doc.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from play2prompt.agent.prompt import Demo
from play2prompt.evidence.facts import FactBook
from play2prompt.jsonutil import derive_seed
from play2prompt.method.accuracy import DocEval, task_accuracy
from play2prompt.method.doc_search import (
    KIND_RANK,
    DocCandidate,
    DocSearch,
    DocSearchOutcome,
    search_docs,
    skip_reason,
)
from play2prompt.method.example import Example
from play2prompt.tools.model import Tool, ToolDoc

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

HOLDOUT_SEED = "held-out"


async def held_out(tool: Tool, engine: Engine, doc: ToolDoc, hold: Sequence[Example],
                   demos: Sequence[Demo] = (), siblings: Sequence[Tool] = ()) -> DocEval:
    """The task model's accuracy on the held-out examples with ``doc`` (and ``demos``), beside
    ``siblings``, the requests asked anew (a seed of their own, not a replay of Step 1's
    test)."""
    seed = derive_seed(engine.config.seed, HOLDOUT_SEED)
    return await task_accuracy(engine, tool.with_doc(doc), hold, demos, seed, siblings)


async def search_doc(tool: Tool, engine: Engine, train: Sequence[Example],
                     hold: Sequence[Example], book: FactBook,
                     siblings: Sequence[Tool] = ()) -> DocSearchOutcome:
    """Step 2 for ``tool`` in one call: the search on ``train``
    (:func:`~play2prompt.method.doc_search.search_docs`), then :func:`choose_doc` on
    ``hold``; D0 without a search where none could change it."""
    reason = skip_reason(train, hold, engine.config)
    if reason is not None:
        return DocSearchOutcome(tool.doc, False, reason, {})
    search = await search_docs(tool, engine, train, book, siblings)
    return await choose_doc(tool, engine, search, hold, siblings)


async def choose_doc(tool: Tool, engine: Engine, search: DocSearch, hold: Sequence[Example],
                     siblings: Sequence[Tool] = ()) -> DocSearchOutcome:
    """The doc that ships (see :func:`_choose`), with the search's history; the task model
    sees ``siblings`` beside the tool, as in the search."""
    outcome = await _choose(tool, engine, search, hold, siblings)
    return replace(outcome, history=search.history,
                   best_per_iteration=search.best_per_iteration,
                   stopped_early=search.stopped_early)


async def _choose(tool: Tool, engine: Engine, search: DocSearch, hold: Sequence[Example],
                  siblings: Sequence[Tool] = ()) -> DocSearchOutcome:
    """The best candidate other than D0 by training score (on a tie the facts doc first: it
    states only what execution established), kept only if it scores strictly higher than D0 on
    all the verified examples (training and held-out together) and not lower on the held-out
    ones. With one or two held-out examples the original often gets them all right already; a
    tie there says nothing, while the training examples it failed do."""
    d0 = tool.doc
    d0_key = DocCandidate(d0).key
    accuracy = {n.item.key: n.item.accuracy for n in search.history}   # training batch
    others = [n for n in search.history if n.item.key != d0_key]
    d0_train = accuracy[d0_key]
    scores: dict[str, float | None] = {"d0_train": d0_train, "best_train": None,
                                       "d0_holdout": None, "best_holdout": None}
    if not others:
        return DocSearchOutcome(d0, False, "kept the original: no other candidate", scores)
    best = sorted(others, key=lambda n: (-accuracy[n.item.key],
                                         KIND_RANK.get(n.item.kind, 2), -n.reward))[0]
    best_train = accuracy[best.item.key]
    scores["best_train"] = best_train
    if best_train < d0_train:
        most = "at most " if best.item.unasked else ""
        return DocSearchOutcome(d0, False, f"kept the original: the best candidate scored "
                                f"{most}{best_train:.2f} on the training examples, below the "
                                f"original's {d0_train:.2f}", scores)
    d0_hold, best_hold = await asyncio.gather(
        held_out(tool, engine, d0, hold, siblings=siblings),
        held_out(tool, engine, best.item.doc, hold, siblings=siblings))
    scores.update(d0_holdout=d0_hold.accuracy, best_holdout=best_hold.accuracy)
    n_train, n_hold = len(search.batch), len(hold)
    d0_all = (d0_train * n_train + d0_hold.accuracy * n_hold) / (n_train + n_hold)
    best_all = (best_train * n_train + best_hold.accuracy * n_hold) / (n_train + n_hold)
    scores.update(d0_all=round(d0_all, 4), best_all=round(best_all, 4))
    kind = "facts from tool play" if best.item.kind == "facts" else "rewrite"
    if best_hold.accuracy < d0_hold.accuracy:
        reason = (f"kept the original: the best {kind} scored {best_hold.accuracy:.2f} on "
                  f"{n_hold} held-out example(s), below the original's {d0_hold.accuracy:.2f}")
        return DocSearchOutcome(d0, False, reason, scores)
    if best_all <= d0_all:
        reason = (f"kept the original: the best {kind} scored {best_all:.2f} on the "
                  f"{n_train + n_hold} verified examples, not above the original's "
                  f"{d0_all:.2f}")
        return DocSearchOutcome(d0, False, reason, scores)
    reason = (f"{kind}: accuracy on {n_train + n_hold} verified examples {d0_all:.2f} -> "
              f"{best_all:.2f} (training {d0_train:.2f} -> {best_train:.2f}, held-out "
              f"{d0_hold.accuracy:.2f} -> {best_hold.accuracy:.2f})")
    return DocSearchOutcome(best.item.doc, True, reason, scores)


# held-out examples more demos must get right, beyond fewer demos, to ship: in a 1.5B run on
# the example tools, 3 demos that beat none by one of 3 held-out examples took add_days from
# 60.0 % to 26.7 % of its 15 queries (the task model copied business_days=true from them)
DEMO_MARGIN = 2


async def choose_demo_count(tool: Tool, engine: Engine, doc: ToolDoc, demos: Sequence[Example],
                            hold: Sequence[Example], top: int,
                            siblings: Sequence[Tool] = ()) -> tuple[int, dict[str, float]]:
    """How many of ``demos`` to ship with ``doc``: the task model's held-out accuracy with 0,
    1 and ``top`` demos; more demos only when they get at least :data:`DEMO_MARGIN` more
    held-out examples right than fewer (a small task model that copies demo values gets
    none; one example is noise). Demos are not tried where the doc alone leaves fewer than
    that many held-out examples to gain: no count could ship."""
    counts = sorted({0, min(1, len(demos)), min(top, len(demos))})
    if not hold or counts == [0]:
        return 0, {}
    alone = await held_out(tool, engine, doc, hold, (), siblings)
    if round((1 - alone.accuracy) * len(hold)) < DEMO_MARGIN:
        return 0, {"0": alone.accuracy}
    evals = [alone, *await asyncio.gather(*(held_out(tool, engine, doc, hold,
                                                     [d.demo() for d in demos[:k]], siblings)
                                            for k in counts[1:]))]
    scores = {str(k): ev.accuracy for k, ev in zip(counts, evals)}
    best = 0
    for k, ev in zip(counts, evals):
        gained = round((ev.accuracy - scores[str(best)]) * len(hold))
        if gained >= DEMO_MARGIN:
            best = k
    return best, scores

