"""The standard streams of ``p2p mcp`` over stdio: the protocol's alone.

While the server runs (:func:`claimed_stdio`), the JSON-RPC messages travel on private copies
of file descriptors 0 and 1; fd 0 then reads the null device, and fd 1 and ``sys.stdout`` write
to standard error. Whatever else in the process prints (a thread-isolated Python tool at import
or at call, a library, a child process that inherits fd 1, output buffered before the server
started) lands on standard error, never in the protocol stream, whichever version of the MCP
SDK serves it.

The lines are read by a daemon thread (:class:`StdinLines`): one Ctrl-C ends the server, and
the process does not wait at exit for a read that only the client could end (the SDK's own
reader is a worker thread that Python waits for, so an interrupted server hung until a second
Ctrl-C).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class StdinLines:
    """The protocol's input lines from file descriptor ``fd``, as the async iterator the SDK's
    ``stdio_server(stdin=...)`` reads with ``async for``. A daemon thread reads them (it closes
    ``fd`` at end of input); the iteration ends there."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._queue: asyncio.Queue[str | None] | None = None

    def release(self) -> None:
        """Close the descriptor if no reader ever took it."""
        if self._queue is None:
            self._queue = asyncio.Queue()
            os.close(self._fd)

    def __aiter__(self) -> StdinLines:
        if self._queue is None:
            self._queue = asyncio.Queue()
            threading.Thread(target=self._pump, daemon=True, name="p2p mcp stdin",
                             args=(asyncio.get_running_loop(), self._queue)).start()
        return self

    async def __anext__(self) -> str:
        assert self._queue is not None, "iterate with async for"
        line = await self._queue.get()
        if line is None:
            raise StopAsyncIteration
        return line

    def _pump(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
        try:
            with open(self._fd, encoding="utf-8", errors="replace") as stream:
                for line in stream:
                    if not _deliver(loop, queue, line):
                        return
        except (OSError, ValueError):   # the descriptor went away: the end of input
            pass
        _deliver(loop, queue, None)


def _deliver(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None],
             item: str | None) -> bool:
    """Hand ``item`` to the loop's queue; False once the loop is closed (the server ended)."""
    try:
        loop.call_soon_threadsafe(queue.put_nowait, item)
    except RuntimeError:
        return False
    return True


@contextmanager
def claimed_stdio() -> Iterator[tuple[StdinLines, TextIO]]:
    """The protocol's input lines and its output stream (text, flushed by the caller); fd 0,
    fd 1 and ``sys.stdout`` are given back as they were on leaving."""
    wire_in, wire_out = os.dup(0), os.dup(1)   # neither inherited by children
    stdin_again = os.dup(0)     # wire_in belongs to its reader, which closes it at the end
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    saved, sys.stdout = sys.stdout, sys.stderr
    if saved is not None:
        saved.flush()                          # what was buffered before: to stderr
    wire = open(wire_out, "w", encoding="utf-8", newline="\n", closefd=False)  # noqa: SIM115
    lines = StdinLines(wire_in)
    try:
        yield lines, wire
    finally:
        lines.release()
        with contextlib.suppress(OSError, ValueError):
            wire.close()                       # flushed; the descriptor is closed below
        sys.stdout.flush()
        sys.stdout = saved
        if saved is not None:
            with contextlib.suppress(OSError, ValueError):
                saved.flush()                  # written meanwhile through an old reference
        os.dup2(wire_out, 1)
        os.close(wire_out)
        os.dup2(stdin_again, 0)
        os.close(stdin_again)
