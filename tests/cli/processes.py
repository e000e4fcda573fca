"""``p2p`` as a subprocess, for the tests that signal it: start it as a terminal would (SIGINT
handled), wait for a line on its stderr, list its process tree from /proc, and wait for that
tree to be gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ROOT

P2P = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"
HANG = 60     # seconds: only to fail a hang, never a duration the tests assert


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def start_p2p(args: list[str], cwd: Path, stdin: int | None = subprocess.DEVNULL,
              unbuffered: bool = False) -> subprocess.Popen[str]:
    """``p2p ARGS`` with pipes for stdout and stderr (and stdin when ``stdin`` is PIPE), SIGINT
    handled even where the shell that started the tests ignores it; Python's stdout buffered
    as in a real pipe unless ``unbuffered``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return subprocess.Popen([sys.executable, "-c", P2P, *args], cwd=cwd, env=env, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_default)


def read_stderr_until(proc: subprocess.Popen[str], done: Callable[[str], bool]) -> str:
    """Lines of ``proc``'s stderr up to the first one ``done`` accepts (all of it if the
    process ends first)."""
    assert proc.stderr is not None
    seen = []
    while True:
        line = proc.stderr.readline()
        if not line:
            return "".join(seen)
        seen.append(line)
        if done(line):
            return "".join(seen)


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()   # [state, ppid, ...]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, theirs, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None:
                parents.setdefault(int(stat[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def left_alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still alive once every one had up to :data:`HANG` seconds to end
    (a worker's guardian ends it within a second of its run); the survivors are killed."""
    deadline = time.monotonic() + HANG
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def interrupt(proc: subprocess.Popen[str]) -> tuple[int, str, list[int]]:
    """One SIGINT: ``(exit code, the rest of stderr, the processes that outlived p2p)``."""
    tree = descendants(proc.pid)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        left_alive(tree)
        raise AssertionError(f"one SIGINT did not end p2p: {err[-2000:]}") from None
    return proc.returncode, err, left_alive(tree)
