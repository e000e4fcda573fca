"""One process per run: an OS file lock (``runs/<id>/run.lock``) held for the run's life.

The lock is an exclusive ``flock`` on the file, which records the owner's pid. The operating
system drops it when the owner exits, however it exits, so a run whose owner died is never
locked: :func:`lock_owner` tells a live run (its owner's pid) from one left behind (None).
On systems without ``fcntl`` there is no lock (every call succeeds).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from types import TracebackType

from play2prompt.errors import UserError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "run.lock"


class RunBusyError(UserError):
    """The run is held by another live process."""


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


def make_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents), or fail on one line when a file is in the way."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()),
                       folder)
        raise UserError(f"{blocker}: a file, not a folder (cannot create {folder}; name a "
                        "folder, e.g. with --runs-dir)") from exc


class RunLock:
    """The exclusive lock of one run folder; release it with :meth:`release` (or ``with``)."""

    def __init__(self, run_dir: Path, fd: int) -> None:
        self.run_dir = run_dir
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, run_dir: str | Path, wait: float = 1.0) -> RunLock:
        """Take the lock of ``run_dir`` (created if needed), or fail on one line naming the
        pid that holds it. ``wait``: seconds to retry (a probe may hold it for an instant)."""
        run_dir = Path(run_dir)
        make_folder(run_dir)
        fd = os.open(run_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is None:  # pragma: no cover
            return cls(run_dir, fd)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    pid = _read_pid(fd)
                    os.close(fd)
                    who = f"process {pid}" if pid else "another process"
                    raise RunBusyError(f"run {run_dir.name!r} is in use by {who} (one process "
                                       "per run: wait for it or stop it)") from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        return cls(run_dir, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing drops the flock
        self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def lock_owner(run_dir: str | Path) -> int | None:
    """The pid of the live process holding the run (0 if it is held but the pid is unknown),
    or None when nobody holds it."""
    path = Path(run_dir) / LOCK_NAME
    if fcntl is None or not path.is_file():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_pid(fd) or 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
