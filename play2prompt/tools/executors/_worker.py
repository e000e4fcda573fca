"""Child processes that run Python tool functions, so a hang or a crash cannot take the run down.

A worker is ``python -m play2prompt.tools.executors._worker``: a fresh interpreter that never
imports the caller's ``__main__`` (a script that calls :func:`play2prompt.optimize` without an
``if __name__ == "__main__":`` guard runs once). It gets a minimal environment
(:data:`BASE_ENV` plus what the tool's executor lists), the caller's ``sys.path`` on its first
line, then one JSON line per call ``{"ref", "paths", "args"}``; it resolves ``ref``
(``module:attr`` or ``path/to/file.py:attr``), calls it and answers ``{"ok": output}`` or
``{"error": [error_type, message]}``. Tool output on stdout is discarded (the answers travel on
a private copy of the original stdout).

The parent keeps a small pool per tool (:class:`WorkerPool`): a call past its timeout kills its
worker, a worker that dies is reported with its exit code or signal and the last line it wrote
on stderr; the next call starts a fresh one; other tools' workers are not affected.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

WORKER_MODULE = "play2prompt.tools.executors._worker"

# What a tool's process sees of the environment unless its executor lists more: where programs
# and libraries are, the user, the locale, temporary folders, certificates, Python's own setup.
BASE_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL",
            "LC_CTYPE", "TZ", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "LD_LIBRARY_PATH",
            "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "VIRTUAL_ENV", "SSL_CERT_FILE",
            "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE")


def resolve_callable(ref: str, search_paths: list[str]) -> Any:
    """Find the callable named by ``module:attr`` or ``file.py:attr``."""
    module_ref, sep, attr = ref.partition(":")
    if not sep or not module_ref or not attr:
        raise ValueError(f"python executor must look like 'module:function', got {ref!r}")
    module = _load_module(module_ref, search_paths)
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise AttributeError(f"{module_ref!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{ref!r} is not callable")
    return target


def _load_module(module_ref: str, search_paths: list[str]) -> Any:
    if module_ref.endswith(".py") or "/" in module_ref:
        for base in search_paths:
            path = (Path(base) / module_ref).resolve()
            if path.is_file():
                name = f"_p2p_tools_{abs(hash(str(path)))}"
                if name in sys.modules:
                    return sys.modules[name]
                spec = importlib.util.spec_from_file_location(name, path)
                assert spec and spec.loader
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
                return module
        raise ModuleNotFoundError(f"no such file: {module_ref}")
    for base in reversed(search_paths):
        if base not in sys.path:
            sys.path.insert(0, base)
    return importlib.import_module(module_ref)


def tool_env(allowed: Sequence[str] | Mapping[str, str] = (),
             environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a tool's process: :data:`BASE_ENV` and ``allowed`` (names copied from
    ``environ``, or a mapping of names to values), and what lets it import play2prompt."""
    environ = os.environ if environ is None else environ
    env = {k: environ[k] for k in BASE_ENV if k in environ}
    if isinstance(allowed, Mapping):
        env.update({str(k): str(v) for k, v in allowed.items()})
    else:
        env.update({k: environ[k] for k in allowed if k in environ})
    package_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


# -- the child ------------------------------------------------------------------------------
def main() -> None:
    """The worker's loop (run as ``python -m``)."""
    from play2prompt.jsonutil import json_default, to_jsonable

    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)                      # what tools print is not the protocol
    sys.stdout = open(os.devnull, "w")       # noqa: SIM115 - for the process's life
    first = sys.stdin.readline()
    if not first:
        return
    sys.path[:0] = [p for p in json.loads(first).get("sys_path", []) if p not in sys.path]
    cache: dict[str, Any] = {}
    for line in sys.stdin:
        message = json.loads(line)
        ref = message["ref"]
        try:
            fn = cache.get(ref) or resolve_callable(ref, message["paths"])
            cache[ref] = fn
            reply: dict[str, Any] = {"ok": to_jsonable(fn(**message["args"]))}
        except Exception as exc:  # noqa: BLE001 - every failure goes back to the parent
            reply = {"error": ["exception", f"{type(exc).__name__}: {exc}"]}
        answers.write(json.dumps(reply, ensure_ascii=False, default=json_default) + "\n")
        answers.flush()


# -- the parent -----------------------------------------------------------------------------
class ProcessWorker:
    """One child process; one call at a time."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = dict(env) if env is not None else tool_env()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - the child's life
        proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=self._stderr, env=self.env,
                                close_fds=True)
        self._proc, self._buffer = proc, b""
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
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        try:
            self._send({"ref": ref, "paths": search_paths, "args": arguments})
            line = self._read_line(timeout)
        except (EOFError, OSError):
            return ("error", "crash", self._death())
        if line is None:
            self._kill()
            return ("error", "timeout", f"no answer within {timeout:g} s (killed)")
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
        except OSError:
            return ""
        return lines[-1].strip()[:200] if lines else ""

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None

    def close(self) -> None:
        self._kill()


class WorkerPool:
    """Up to ``size`` workers of one tool: concurrent calls use different workers, a hanging
    call holds only its own."""

    def __init__(self, env: Mapping[str, str] | None = None, size: int = 1) -> None:
        self.env = dict(env) if env is not None else tool_env()
        self.size = max(1, int(size))
        self._idle: list[ProcessWorker] = []
        self._count = 0
        self._cond = threading.Condition()

    def _take(self) -> ProcessWorker:
        with self._cond:
            while not self._idle and self._count >= self.size:
                self._cond.wait()
            if self._idle:
                return self._idle.pop()
            self._count += 1
            return ProcessWorker(self.env)

    def _give(self, worker: ProcessWorker) -> None:
        with self._cond:
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
            for worker in self._idle:
                worker.close()
            self._idle.clear()
            self._count = 0


if __name__ == "__main__":
    main()
