"""The tool-set context (``config.siblings``): the other tools of the run the task model sees
beside the tool being optimized when it is asked (R_e, a doc's score, the held-out choices).

A user's agent sees all its tools at once; a doc scored with the tool alone never has to say
what tells the tool from the others. With ``siblings`` K > 0 the task model sees the tool beside
K other tools of the run, with their original docs, and a call to one of them is wrong (and is
never executed). 0 is the paper: the tool alone.

Which K (``config.sibling_pick``): ``random`` draws them; ``similar`` takes the K most alike in
shape (:func:`shape_similarity`: the words of the names and parameter names and the
parameter types they share), the tools an agent most easily confuses with it, as in a benchmark
question that offers several related functions. With random siblings a task model often tells
the tool apart by its parameter names alone, so no example is difficult for D0 and no doc that
says what the tool does can win.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from play2prompt.jsonutil import derive_seed
from play2prompt.tools.model import Invocation, Tool

PICKS = ("random", "similar")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def siblings_of(tool: Tool, tools: Iterable[Tool], k: int, seed: int,
                pick: str = "random") -> tuple[Tool, ...]:
    """``k`` of ``tools`` other than ``tool`` (all of them when there are fewer), as given (the
    run's tools as loaded: their original docs, never a candidate doc of another tool):
    drawn at random, or (``pick="similar"``) the ``k`` most alike in shape, ties drawn.

    The choice depends only on ``seed``, ``tool.name`` and the set of tools, never on the order
    of ``tools`` or on the order in which tools finish: the others are sorted by name and
    drawn (or, for ``similar``, shuffled, then sorted by similarity, stably, so the shuffle
    breaks ties) by a generator seeded by a stable hash of (seed, tool name). Returned in name
    order."""
    if k <= 0:
        return ()
    others = sorted({t.name: t for t in tools if t.name != tool.name}.values(),
                    key=lambda t: t.name)
    if len(others) <= k:
        return tuple(others)
    draw = random.Random(derive_seed(seed, "siblings", tool.name))
    if pick == "random":
        return tuple(others[i] for i in sorted(draw.sample(range(len(others)), k)))
    if pick != "similar":
        raise ValueError(f"unknown sibling pick {pick!r} (one of {', '.join(PICKS)})")
    order = list(range(len(others)))
    draw.shuffle(order)
    mine = shape_words(tool)
    order.sort(key=lambda i: -shape_similarity(mine, shape_words(others[i])))
    return tuple(others[i] for i in sorted(order[:k]))


def shape_words(tool: Tool) -> frozenset[str]:
    """What a reader sees of a tool's shape, in any language: the words of its name and of
    its parameters' names (lower case, split at ``_`` and case changes) and each parameter's
    type. Descriptions are left out (prose shares common words by chance); an opaque name
    (``function_3``) gives the word every opaque tool has."""
    found = {w.lower() for text in (tool.name, *tool.properties) for w in _WORD.findall(text)}
    found |= {f"type:{spec.get('type')}" for spec in tool.properties.values()
              if isinstance(spec, dict) and spec.get("type")}
    return frozenset(found)


def shape_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two tools' :func:`shape_words` (0 when both are empty)."""
    return len(a & b) / len(a | b) if a | b else 0.0


def tool_set(tool: Tool, siblings: Sequence[Tool]) -> list[Tool]:
    """The tools the task model is shown: the siblings, then the tool being optimized, always
    last. A fixed place keeps the prompt's start (the siblings' specs, the same for every
    candidate doc of the tool) shared, which the backends' prefix caches reuse; with no
    siblings it is ``[tool]``, the paper's prompt."""
    return [*siblings, tool]


def sibling_call(calls: Sequence[Invocation], tool: Tool,
                 siblings: Sequence[Tool]) -> str | None:
    """Why ``calls`` are wrong without running them when one of them is not a call to ``tool``
    while siblings were shown ("called function_3 instead of function_1"), else None. Such a
    call is never executed: another tool may have side effects, and it is wrong whatever it
    returns."""
    if not siblings:
        return None
    for call in calls:
        if call.name != tool.name:
            return f"called {call.name} instead of {tool.name}"
    return None


__all__ = ["PICKS", "shape_similarity", "shape_words", "sibling_call", "siblings_of",
           "tool_set"]
