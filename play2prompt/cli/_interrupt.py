"""Ctrl-C in ``p2p``: one interrupt ends any command with exit code 130 and one line saying how
to continue what it stopped, in the command's own form.

A command that can be continued wraps its work in :func:`resume_hint` (optimize: ``--resume
RUN_ID`` with the run's id; eval: the same command again; sweep: the same command with
``--resume``); the others (serve, mcp) print a bare ``interrupted``. :func:`on_sigint` is the
signal handler ``p2p`` installs: it ends the tools' worker processes at once (a hanging tool
would hold the command until its timeout), then interrupts the main thread as Python does, or,
where an event loop runs there, the loop itself (so ``asyncio.run`` cancels the tasks and waits
for their cleanup, as it does on its own Ctrl-C).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

INTERRUPTED = "interrupted"


class Interrupted(BaseException):
    """A Ctrl-C that knows how to continue what it stopped (``resume``, may be empty). Not a
    :class:`KeyboardInterrupt`: typer would turn that into a bare exit code 130 and drop it;
    this one reaches :func:`play2prompt.cli.main`, and nothing on the way catches it."""

    def __init__(self, resume: str = "") -> None:
        super().__init__(resume)
        self.resume = resume


@contextmanager
def resume_hint(hint: str | Callable[[], str]) -> Iterator[None]:
    """An interrupt inside the block leaves as :class:`Interrupted` carrying ``hint`` (or what
    ``hint()`` says at that moment: empty where there is nothing to continue yet)."""
    try:
        yield
    except Interrupted:
        raise
    except KeyboardInterrupt as exc:
        raise Interrupted(hint() if callable(hint) else hint) from exc


def interrupted_by(exc: BaseException | None) -> BaseException | None:
    """The interrupt behind ``exc``: itself, or one in its chain of causes (click's ``Abort``,
    an interrupt that landed in an import and came out as a ``RuntimeError``)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (KeyboardInterrupt, Interrupted)):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def interrupt_line(exc: BaseException | None = None) -> str:
    """``interrupted``, with the way to continue where the command gave one."""
    resume = getattr(interrupted_by(exc), "resume", "")
    return f"{INTERRUPTED}: {resume}" if resume else INTERRUPTED


def on_sigint(signum: int, frame: Any) -> None:
    """Ctrl-C: end the tools' workers now (in a thread: a handler must not block), then
    interrupt the main thread as Python does; where an event loop runs in it, from one of the
    loop's callbacks (:func:`_raise_interrupt`) rather than from whatever task happens to run."""
    from play2prompt.tools.executors._process import interrupt_workers

    threading.Thread(target=interrupt_workers, daemon=True, name="p2p interrupt").start()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        signal.default_int_handler(signum, frame)
    else:
        loop.call_soon_threadsafe(_raise_interrupt)


def _raise_interrupt() -> None:
    """The interrupt, raised between two steps of the loop's tasks: it leaves the loop
    (``asyncio.run`` then cancels every task and waits for their cleanup) instead of ending
    one task with it, which every task awaiting that one would raise again mid-cleanup."""
    raise KeyboardInterrupt
