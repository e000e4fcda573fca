"""A remote backend's SDK clients, one per event loop.

An async SDK client's connections belong to the event loop that opened them, and a run may use
the same model from several loops (the sync entry points start one each), so each loop gets a
client of its own. A copy of the model sent to another process (a Ray worker) carries none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class LoopClients:
    """Mixin for an :class:`~play2prompt.lm._base.LM` (listed before it) that asks an SDK
    client: ``self._loop_client(make)`` is this loop's client, made by ``make()`` once."""

    _clients: dict[int, Any]

    def _loop_client(self, make: Callable[[], Any]) -> Any:
        loop_id = id(asyncio.get_running_loop())
        if loop_id not in self._clients:
            self._clients[loop_id] = make()
        return self._clients[loop_id]

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = super().__getstate__()  # type: ignore[misc]
        state["_clients"] = {}
        return state
