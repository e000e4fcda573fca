"""What a tool running inside this process prints goes to standard error, never to standard
output.

Standard output may be a protocol (``p2p mcp`` over stdio: JSON-RPC) or a document (``--json``),
and a tool that runs in a thread of this process (``"isolation": "thread"``, the ``callable``
executor) shares it. Inside :func:`tool_prints_to_stderr` the calling thread is a tool's, and
``sys.stdout`` is a :class:`ThreadRoutedStdout`: what a tool's thread writes goes to
``sys.stderr``, what every other thread writes goes to the stream it wraps, unchanged. A tool
in its own process writes into a pipe that is not the protocol (:mod:`._worker`). Below Python
(``os.write(1, ...)``, a C library, a child process inheriting fd 1) nothing is seen here;
``p2p mcp`` moves fd 1 itself (:mod:`play2prompt.serve.stdio`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_TOOL_THREAD = threading.local()


def in_tool_thread() -> bool:
    return bool(getattr(_TOOL_THREAD, "active", False))


class ThreadRoutedStdout:
    """``sys.stdout`` that sends a tool thread's writes to ``sys.stderr`` and everyone else's
    to ``wrapped`` (whose other attributes it shows as its own)."""

    def __init__(self, wrapped: TextIO) -> None:
        self.wrapped = wrapped

    def _target(self) -> TextIO:
        return sys.stderr if in_tool_thread() and sys.stderr is not None else self.wrapped

    def write(self, text: str) -> int:
        return self._target().write(text)

    def writelines(self, lines: Iterable[str]) -> None:
        self._target().writelines(lines)

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


@contextmanager
def tool_prints_to_stderr() -> Iterator[None]:
    """Within the block, what this thread prints goes to standard error."""
    if sys.stdout is not None and not isinstance(sys.stdout, ThreadRoutedStdout):
        sys.stdout = ThreadRoutedStdout(sys.stdout)  # type: ignore[assignment]
    before = in_tool_thread()
    _TOOL_THREAD.active = True
    try:
        yield
    finally:
        _TOOL_THREAD.active = before
