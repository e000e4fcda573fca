"""Blocking calls into an in-process runtime, in threads that an interrupt does not wait for.

``asyncio.to_thread`` runs a call in the event loop's default executor, and ``asyncio.run``
waits for that executor's threads when it ends. A Ctrl-C during the embedded model's
generations therefore waited for every generation in flight to finish (``p2p eval tools`` with
Qwen2.5-Coder-1.5B on two busy cores: 70 s from the SIGINT to the exit). llama.cpp's server has
no way to cancel a request from Python, so :func:`run_detached` runs each call in a daemon
thread of its own and awaits its result: a cancelled await leaves the thread to finish alone,
and nothing waits for it.

Such a thread may still be inside the runtime when the command is over. The interpreter's
finalization would then free the runtime under it, so the command line ends the process
without finalization when :func:`busy` says so (``play2prompt.cli.main``), after its own
cleanup has run.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

THREAD_NAME = "p2p runtime call"


async def run_detached(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a daemon thread; its result (or exception) once it returns."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():               # the await was cancelled meanwhile
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, function(*args))
        except BaseException as exc:     # noqa: BLE001 - handed to the awaiting task
            outcome = (False, exc)
        # a closed loop (RuntimeError): nobody awaits this any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name=THREAD_NAME, daemon=True).start()
    return await future


def busy() -> bool:
    """Whether a call started by :func:`run_detached` is still running."""
    return any(t.name == THREAD_NAME and t.is_alive() for t in threading.enumerate())
