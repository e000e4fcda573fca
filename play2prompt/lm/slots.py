"""Which of the embedded runtime's slots a request goes to: the one that holds its prefix.

llama.cpp keeps one KV cache per slot. Left to itself, the runtime sends a request to an idle
slot, so two requests that share a long new prefix (the two samples of one prompt, a batch of
the task model's tests of one doc) sent together both compute it, one in each slot, and a
request whose prefix sits in a busy slot computes it again in the idle one. Run q68's log:
56,527 prompt tokens processed where one cache holding every earlier prompt would have needed
36,000; most of the difference is a prefix the request just before had (docs/results.md,
"Speed").

:class:`SlotScheduler` keeps what each slot holds (the text of its last prompt and reply, as
far as the client knows it) and gives a request the free slot holding most of its prefix;
when a busy slot holds at least :data:`WAIT_CHARS` characters more of it than any free one,
the request waits for that slot while the free ones serve other requests; one request at a
time waits for a slot, the next computes the prefix in a free one. The runtime is told
the slot (``id_slot``); its host-memory prompt cache works as before on top. Which slot a
request gets changes only which requests share a batch, as two slots always did.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from play2prompt.errors import LMError

WAIT_CHARS = 250   # about 60 tokens: over a second of prompt processing on 2 cores


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n          # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass
class _Slot:
    held: str = ""          # the prompt and reply its cache holds (the one running, if busy)
    busy: bool = False
    waiting: int = 0        # requests waiting for this slot in particular
    used: int = 0           # when it was last given out (a counter), for the least recent


@dataclass
class SlotScheduler:
    """Slots given out by the prefix they hold (see the module). ``wait_chars``: how much
    more of a request's prefix a busy slot must hold than every free one for the request to
    wait for it (None: :func:`default_wait_chars`; 0: never waits)."""

    slots: int
    wait_chars: int | None = None
    _state: list[_Slot] = field(init=False, repr=False)
    _clock: itertools.count = field(init=False, repr=False)
    _changed: asyncio.Condition | None = field(default=None, init=False, repr=False)
    _loop: object = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._state = [_Slot() for _ in range(max(1, self.slots))]
        self._clock = itertools.count(1)
        if self.wait_chars is None:
            self.wait_chars = default_wait_chars()

    def pick(self, text: str) -> tuple[int | None, int | None]:
        """``(slot, None)``: the free slot ``text`` should go to now; ``(None, slot)``: wait for
        that busy slot, which holds at least ``wait_chars`` more of its prefix than every free
        one and has no request waiting for it yet (one waits, the next takes a free slot and
        computes the prefix there, so a batch sharing a prefix never queues on one slot);
        ``(None, None)``: every slot is busy."""
        shared = [common_prefix(text, s.held) for s in self._state]
        free = [i for i, s in enumerate(self._state) if not s.busy]
        if not free:
            return None, None
        best_free = max(free, key=lambda i: (shared[i], -self._state[i].used))
        open_ = [i for i, s in enumerate(self._state) if not s.busy or not s.waiting]
        best = max(open_, key=lambda i: shared[i])
        more = shared[best] - shared[best_free]
        if self._state[best].busy and self.wait_chars and more >= self.wait_chars:
            return None, best
        return best_free, None

    def take(self, slot: int, text: str) -> None:
        state = self._state[slot]
        state.busy, state.held, state.used = True, text, next(self._clock)

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._changed is None or self._loop is not loop:
            self._changed, self._loop = asyncio.Condition(), loop
        return self._changed

    async def acquire(self, text: str) -> int:
        """A slot for a request whose prompt is ``text`` (waits as :meth:`pick` says)."""
        changed = self._condition()
        async with changed:
            while True:
                slot, wait_for = self.pick(text)
                if slot is not None:
                    self.take(slot, text)
                    return slot
                if wait_for is not None:
                    self._state[wait_for].waiting += 1
                try:
                    await changed.wait()
                finally:
                    if wait_for is not None:
                        self._state[wait_for].waiting -= 1

    async def release(self, slot: int, held: str | None = None) -> None:
        """``slot`` is free again; ``held``: what its cache now holds (its prompt and reply;
        None: unknown, as after a failed request)."""
        changed = self._condition()
        async with changed:
            state = self._state[slot]
            state.busy = False
            state.held = "" if held is None else held
            changed.notify_all()

    async def run(self, body: dict[str, Any],
                  send: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """``send`` the runtime's request ``body`` on the slot chosen for it (``id_slot``);
        the runtime's reply."""
        text = prompt_text(body)
        slot = await self.acquire(text)
        reply: dict[str, Any] = {}
        try:
            reply = await send({**body, "id_slot": slot})
        finally:
            choices = reply.get("choices") or [{}]
            written = (choices[0].get("message") or {}).get("content")
            await self.release(slot, None if written is None else text + written)
        return reply


def prompt_text(body: Mapping[str, Any]) -> str:
    """A request's prompt as a string whose prefixes follow the prompt's tokens (what
    :class:`SlotScheduler` compares): its messages in order, the tools of a native call after
    the first."""
    parts = [f"<{m.get('role')}>{m.get('content') or ''}" for m in body.get("messages", ())]
    if body.get("tools"):
        parts.insert(1, json.dumps(body["tools"], sort_keys=True))
    return "".join(parts)


def default_wait_chars() -> int:
    """:data:`WAIT_CHARS`, or ``P2P_EMBEDDED_SLOT_WAIT`` (characters)."""
    env = os.environ.get("P2P_EMBEDDED_SLOT_WAIT", "").strip()
    if not env:
        return WAIT_CHARS
    if not env.isdigit():
        raise LMError(f"P2P_EMBEDDED_SLOT_WAIT must be a number of characters, got {env!r}")
    return int(env)
