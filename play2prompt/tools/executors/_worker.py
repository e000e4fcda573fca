"""A child process that runs Python tool functions, so a hang or a crash cannot take the run down.

The parent sends ``(ref, search_paths, arguments)``; the child resolves ``ref`` (``module:attr``
or ``path/to/file.py:attr``), calls it and answers ``("ok", output)`` or
``("error", error_type, message)``. A call that outlives its timeout kills the child; the next
call starts a fresh one.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import multiprocessing as mp
import sys
import threading
from pathlib import Path
from typing import Any

from play2prompt.jsonutil import to_jsonable


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


def _serve(conn: Any) -> None:
    cache: dict[str, Any] = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        ref, search_paths, arguments = message
        try:
            fn = cache.get(ref) or resolve_callable(ref, search_paths)
            cache[ref] = fn
            with contextlib.redirect_stdout(io.StringIO()):
                result = fn(**arguments)
            conn.send(("ok", to_jsonable(result)))
        except Exception as exc:  # noqa: BLE001 - report every failure to the parent
            conn.send(("error", "exception", f"{type(exc).__name__}: {exc}"))


class ProcessWorker:
    """One child process; calls are serialised with a lock."""

    def __init__(self) -> None:
        self._ctx = mp.get_context("spawn")
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Any = None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_serve, args=(child,), daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent

    def call(self, ref: str, search_paths: list[str], arguments: dict, timeout: float) -> tuple:
        with self._lock:
            if self._proc is None or not self._proc.is_alive():
                self._start()
            try:
                self._conn.send((ref, search_paths, arguments))
                if not self._conn.poll(timeout):
                    self._kill()
                    return ("error", "timeout", f"no answer within {timeout:g} s (killed)")
                return self._conn.recv()
            except (EOFError, OSError, BrokenPipeError):
                code = self._proc.exitcode if self._proc else None
                self._kill()
                return ("error", "crash", f"tool process died (exit code {code})")

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

    def close(self) -> None:
        with self._lock:
            self._kill()
