"""A call's later keys and its closing written for the embedded model, not decoded.

After the first key (:mod:`play2prompt.lm.prefill`), what the grammar forces in a call's
arguments is the text between values: once a value ends and the model writes a comma, the
next key, where it is required, comes next (``\\n    "from_unit":``); once the last value ends
without one, the closing (``\\n  }\\n}``). llama.cpp decodes each of those tokens in a step of its
own. Here the call is asked with a stop where a value ends (:data:`~prefill.STOP`, the newline
of the model's own layout, which no scalar value contains), the forced text is written, and
the call goes on in a new request from the next value, whose prompt the runtime computes in
one batch. Up to each stop the model decodes under the same grammar as before; the closing
needs no request at all.

The layout (:class:`~prefill.Layout`) is learned from the model's first calls, as the header is.
Where the model's text takes a turn the steps do not follow, the call is asked as before, in
one request, and the tokens of the parts it drops are counted with it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.lm._base import Usage
from play2prompt.lm.prefill import STOP, Layout, next_step, stops_after

Complete = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class KeyPlan:
    """A call whose first key is written: its arguments' schema, the model's layout (None
    until learned: nothing more is written), and the text after a key up to its value
    (``":``)."""

    params: Mapping[str, Any]
    layout: Layout | None
    colon: str


def reply_usage(reply: dict[str, Any]) -> Usage:
    """The token counts of a runtime reply (OpenAI-shaped)."""
    usage = reply.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)),
                 int(cached or 0))


def _as_usage(total: Usage) -> dict[str, Any]:
    """Token counts shaped as the runtime's (what :func:`reply_usage` reads)."""
    return {"prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": total.cached_tokens}}


async def ask(complete: Complete, body: dict[str, Any], plan: KeyPlan) -> dict[str, Any]:
    """The reply to ``body`` (a call whose start is its last, assistant message, and whose
    grammar is the rest from the first value) with every forced later key and the closing
    written: a reply shaped as the runtime's, its content the whole answer and its usage summed
    over the requests. A failed first request is returned as it is; where the model's text
    takes a turn the steps do not follow (a later request failed, a newline elsewhere), the
    reply to ``body`` asked as before, with the dropped parts' tokens added."""
    found, spent = await _parts(complete, body, plan) if plan.layout else (None, Usage())
    if found is not None:
        return found
    reply = await complete(body)
    if "error" not in reply:
        reply = {**reply, "usage": _as_usage(spent + reply_usage(reply))}
    return reply


async def _parts(complete: Complete, body: dict[str, Any], plan: KeyPlan
                 ) -> tuple[dict[str, Any] | None, Usage]:
    """:func:`ask`'s parts, one request each, and the tokens they spent; None for a turn
    they do not follow."""
    layout = plan.layout
    assert layout is not None
    text = body["messages"][-1]["content"]
    budget, seed = body.get("max_tokens"), body.get("seed")
    asked, k, step, total = dict(body), 0, 0, Usage()
    while True:
        stop = stops_after(plan.params, k, layout)
        asked["messages"] = [*body["messages"][:-1], {"role": "assistant", "content": text}]
        if stop:
            asked["stop"] = [STOP]
        else:
            asked.pop("stop", None)
        reply = await complete(asked)
        if "error" in reply:
            return (reply if step == 0 else None), total
        total += reply_usage(reply)
        choice = reply["choices"][0]
        content = choice["message"].get("content") or ""
        text += content[len(text):] if content.startswith(text) else content
        finish = choice.get("finish_reason")
        if not stop or finish == "length" or text.rstrip().endswith("}"):
            break
        nxt = next_step(plan.params, k, text, layout, plan.colon)
        if nxt is None:
            return None, total
        text += nxt.written
        if nxt.grammar is None:
            break
        used = total.completion_tokens
        if budget is not None and used >= budget:
            finish = "length"
            break
        step, k = step + 1, nxt.k
        asked["grammar"] = nxt.grammar
        if budget is not None:
            asked["max_tokens"] = budget - used
        if isinstance(seed, int) and seed >= 0:
            asked["seed"] = seed + step
    return {"choices": [{"message": {"role": "assistant", "content": text},
                         "finish_reason": finish}], "usage": _as_usage(total)}, total


__all__ = ["KeyPlan", "ask", "reply_usage"]
