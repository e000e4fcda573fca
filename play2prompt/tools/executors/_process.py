"""The run's side of the Python tool workers (:mod:`._worker` is the child's).

The parent keeps a small pool per tool (:class:`WorkerPool`): a call past its timeout kills its
worker, a worker that dies is reported with its exit code or signal and the last line it wrote
on stderr; the next call starts a fresh one; other tools' workers are not affected.

Each worker runs in a process group of its own (a new session: a Ctrl-C at the terminal reaches
the run, not the tools) and is ended with its whole group, so what a tool started goes with it.
The run holds the write end of a pipe whose read end the worker's guardian watches: however the
run ends (kill -9 included), its workers and their children follow within a second.
:func:`interrupt_workers` ends every live worker at once and makes later calls fail fast (what
``p2p`` does on Ctrl-C, so the run stops in seconds rather than after each tool's timeout).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from typing import IO, Any

from play2prompt.tools.executors._worker import WORKER_MODULE, tool_env

_LIVE: weakref.WeakSet[ProcessWorker] = weakref.WeakSet()
_INTERRUPTED = threading.Event()
INTERRUPTED = "interrupted: the run is stopping"


def interrupt_workers() -> None:
    """End every live worker (and its children) now; calls made afterwards fail at once."""
    _INTERRUPTED.set()
    for worker in list(_LIVE):
        worker.close()


def live_worker_pids() -> list[int]:
    """The process ids of the workers alive in this process (tests)."""
    return [w.pid for w in list(_LIVE) if w.pid is not None]


class ProcessWorker:
    """One child process; one call at a time."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = dict(env) if env is not None else tool_env()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._lifeline: int | None = None   # the write end of the guardian's pipe
        self._buffer = b""

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - the child's life
        argv = [sys.executable, "-m", WORKER_MODULE]
        posix = os.name == "posix"
        read_end = None
        if posix:
            read_end, self._lifeline = os.pipe()  # neither end inherited by anyone else
            argv += ["--death-fd", str(read_end)]
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=self._stderr, env=self.env, close_fds=True,
                                    pass_fds=(read_end,) if read_end is not None else (),
                                    start_new_session=posix)
        finally:
            if read_end is not None:
                os.close(read_end)
        self._proc, self._buffer = proc, b""
        _LIVE.add(self)
        self._send({"sys_path": [p for p in sys.path if p]})
        return proc

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write((json.dumps(message, default=str) + "\n").encode("utf-8"))
        self._proc.stdin.flush()

    def _read_line(self, timeout: float) -> bytes | None:
        """The next line from the child, or None when ``timeout`` passed; EOFError if it died."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def call(self, ref: str, search_paths: list[str], arguments: dict, timeout: float) -> tuple:
        """``("ok", output)`` or ``("error", error_type, message)``."""
        return self._ask({"ref": ref, "paths": search_paths, "args": arguments}, timeout,
                         f"no answer within {timeout:g} s (killed)")

    def check(self, ref: str, search_paths: list[str], timeout: float) -> tuple:
        """Load ``ref`` in the worker without calling it: ``("ok", True)`` or an error."""
        return self._ask({"ref": ref, "paths": search_paths, "check": True}, timeout,
                         f"loading {ref!r} took more than {timeout:g} s (killed; an endless "
                         "loop at import?)")

    def _ask(self, message: Mapping[str, Any], timeout: float, late: str) -> tuple:
        if _INTERRUPTED.is_set():
            return ("error", "crash", INTERRUPTED)
        try:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            self._send(message)
            line = self._read_line(timeout)
        except (EOFError, OSError, ValueError):
            return ("error", "crash", INTERRUPTED if _INTERRUPTED.is_set() else self._death())
        if line is None:
            self._kill()
            return ("error", "timeout", late)
        reply = json.loads(line)
        if "ok" in reply:
            return ("ok", reply["ok"])
        return ("error", *reply["error"])

    def _death(self) -> str:
        """Why the child died: its exit code or signal, and the last line of its stderr."""
        proc = self._proc
        code = None
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = proc.wait(5)
        last = self._last_stderr_line()
        self._kill()
        if code is None:
            how = "no exit code"
        elif code < 0:
            try:
                how = f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        return f"tool process died ({how})" + (f": {last}" if last else "")

    def _last_stderr_line(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(max(0, self._stderr.seek(0, 2) - 2000))
            lines = [ln for ln in self._stderr.read().decode("utf-8", "replace").splitlines()
                     if ln.strip()]
        except (OSError, ValueError):
            return ""
        return lines[-1].strip()[:200] if lines else ""

    def _kill(self) -> None:
        """End the child with its process group (what the tool started goes too)."""
        proc, self._proc = self._proc, None
        _LIVE.discard(self)
        if proc is not None:
            with contextlib.suppress(OSError):
                if os.name == "posix":
                    os.killpg(proc.pid, signal.SIGKILL)
                else:
                    proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        lifeline, self._lifeline = self._lifeline, None
        if lifeline is not None:
            with contextlib.suppress(OSError):
                os.close(lifeline)
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None

    def close(self) -> None:
        self._kill()


class WorkerPool:
    """Up to ``size`` workers of one tool: concurrent calls use different workers, a hanging
    call holds only its own. Closing the pool ends every worker, busy ones included."""

    def __init__(self, env: Mapping[str, str] | None = None, size: int = 1) -> None:
        self.env = dict(env) if env is not None else tool_env()
        self.size = max(1, int(size))
        self._idle: list[ProcessWorker] = []
        self._all: list[ProcessWorker] = []
        self._cond = threading.Condition()

    def _take(self) -> ProcessWorker:
        with self._cond:
            while not self._idle and len(self._all) >= self.size:
                self._cond.wait()
            if self._idle:
                return self._idle.pop()
            worker = ProcessWorker(self.env)
            self._all.append(worker)
            return worker

    def _give(self, worker: ProcessWorker) -> None:
        with self._cond:
            if worker in self._all:
                self._idle.append(worker)
            self._cond.notify()

    def call(self, ref: str, search_paths: list[str], arguments: dict, timeout: float) -> tuple:
        worker = self._take()
        try:
            return worker.call(ref, search_paths, arguments, timeout)
        finally:
            self._give(worker)

    def close(self) -> None:
        with self._cond:
            workers, self._all, self._idle = self._all, [], []
            self._cond.notify_all()
        for worker in workers:
            worker.close()
