"""The tool-set context (``config.siblings``): the other tools of the run the task model sees
beside the tool being optimized when it is asked (R_e, a doc's score, the held-out choices).

A user's agent sees all its tools at once; a doc scored with the tool alone never has to say
what tells the tool from the others. With ``siblings`` K > 0 the task model sees the tool beside
K other tools of the run, with their original docs, and a call to one of them is wrong (and is
never executed). 0 is the paper: the tool alone.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from play2prompt.jsonutil import derive_seed
from play2prompt.tools.model import Invocation, Tool


def siblings_of(tool: Tool, tools: Iterable[Tool], k: int, seed: int) -> tuple[Tool, ...]:
    """``k`` of ``tools`` other than ``tool`` (all of them when there are fewer), as given (the
    run's tools as loaded: their original docs, never a candidate doc of another tool).

    The choice depends only on ``seed``, ``tool.name`` and the set of names, never on the order
    of ``tools`` or on the order in which tools finish: the others are sorted by name and drawn
    with a generator seeded by a stable hash of (seed, tool name). Returned in name order."""
    if k <= 0:
        return ()
    others = sorted({t.name: t for t in tools if t.name != tool.name}.values(),
                    key=lambda t: t.name)
    if len(others) <= k:
        return tuple(others)
    picked = random.Random(derive_seed(seed, "siblings", tool.name)).sample(range(len(others)),
                                                                            k)
    return tuple(others[i] for i in sorted(picked))


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


__all__ = ["sibling_call", "siblings_of", "tool_set"]
