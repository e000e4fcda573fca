"""Synchronous faces of the asynchronous library: :func:`run_sync`.

The library's entry points are coroutines (``optimize_async``, ``evaluate_async``); their
synchronous forms (``optimize``, ``run_evaluation``) run them with :func:`run_sync`, which also
works where an event loop is already running in the calling thread (a Jupyter cell, an
``async def`` web handler): the coroutine then runs to completion on its own loop in a worker
thread while the caller waits (inside a running loop, prefer ``await`` on the async form: the
wait blocks that loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from synchronous code, also under a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    return _in_thread(coro)


def _in_thread(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a worker thread; an interrupt of the waiting thread (Ctrl-C in
    Jupyter) cancels the coroutine and waits for its cleanup before it is raised."""
    box: dict[str, Any] = {}
    started = threading.Event()

    async def main() -> T:
        box["loop"], box["task"] = asyncio.get_running_loop(), asyncio.current_task()
        started.set()
        return await coro

    def target() -> None:
        try:
            box["out"] = asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["exc"] = exc
        finally:
            started.set()

    thread = threading.Thread(target=target, daemon=True, name="p2p-run-sync")
    thread.start()
    try:
        thread.join()
    except BaseException:
        started.wait()
        if "task" in box:
            with contextlib.suppress(RuntimeError):   # the loop already finished and closed
                box["loop"].call_soon_threadsafe(box["task"].cancel)
        thread.join()
        raise
    if "exc" in box:
        raise box["exc"]
    return box["out"]
