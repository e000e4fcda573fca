"""One process per run: an OS file lock (``runs/<id>/run.lock``) held for the run's life.

The lock is the operating system's exclusive lock on the file (``flock`` on POSIX,
``LockFileEx`` on Windows, both through :func:`filelock.lock_descriptor`), and the file records
the owner's pid. The operating system drops the lock when the owner exits, however it exits, so
a run whose owner died is never locked: :func:`lock_owner` tells a live run (its owner's pid)
from one left behind (None).

The pid is written after a first newline: Windows locks the file's first byte against every
other reader, and the bytes after it stay readable.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from types import TracebackType

from filelock import lock_descriptor, unlock_descriptor

from play2prompt.errors import UserError

LOCK_NAME = "run.lock"
PID_AT = 1          # the pid's offset: past the byte Windows locks
_BINARY = getattr(os, "O_BINARY", 0)


class RunBusyError(UserError):
    """The run is held by another live process."""


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, PID_AT, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


def _write_pid(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f"\n{os.getpid()}\n".encode("ascii"))


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
        fd = os.open(run_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | _BINARY, 0o644)
        deadline = time.monotonic() + wait
        while not lock_descriptor(fd, blocking=False):
            if time.monotonic() >= deadline:
                pid = _read_pid(fd)
                os.close(fd)
                who = f"process {pid}" if pid else "another process"
                raise RunBusyError(f"run {run_dir.name!r} is in use by {who} (one process "
                                   "per run: wait for it or stop it)") from None
            time.sleep(0.05)
        _write_pid(fd)
        return cls(run_dir, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        with contextlib.suppress(OSError):
            unlock_descriptor(self._fd)
        os.close(self._fd)  # closing drops the lock in any case
        self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def lock_owner(run_dir: str | Path, wait: float = 0.2) -> int | None:
    """The pid of the live process holding the run (0 if it is held but the pid is unknown),
    or None when nobody holds it.

    The probe takes the lock for an instant (the lock is exclusive only): a file held with no
    pid in it may be another probe's, so it is tried again for up to ``wait`` seconds."""
    path = Path(run_dir) / LOCK_NAME
    if not path.is_file():
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _BINARY)
    except OSError:
        return None
    try:
        deadline = time.monotonic() + wait
        while not lock_descriptor(fd, blocking=False):
            pid = _read_pid(fd)
            if pid or time.monotonic() >= deadline:
                return pid or 0
            time.sleep(0.01)
        unlock_descriptor(fd)
        return None
    finally:
        os.close(fd)
