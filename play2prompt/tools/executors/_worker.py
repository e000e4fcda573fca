"""Child processes that run Python tool functions, so a hang or a crash cannot take the run down.

A worker is ``python -m play2prompt.tools.executors._worker``: a fresh interpreter that never
imports the caller's ``__main__`` (a script that calls :func:`play2prompt.optimize` without an
``if __name__ == "__main__":`` guard runs once). It gets a minimal environment
(:data:`BASE_ENV` plus what the tool's executor lists), the caller's ``sys.path`` on its first
line, then one JSON line per call ``{"ref", "paths", "args"}``; it resolves ``ref``
(``module:attr`` or ``path/to/file.py:attr``), calls it and answers ``{"ok": output}`` or
``{"error": [error_type, message]}``; ``{"ref", "paths", "check": true}`` only loads it (what
loading a tools file asks: a tools module is imported only here, never in ``p2p``). A module
that cannot be loaded (an import error, ``sys.exit`` at import) is an ``unavailable`` error.
Tool output on stdout is discarded (the answers travel on a private copy of the original
stdout). A guardian process (:func:`_guard`) ends the worker's process group when the run ends,
however it ends.

The parent side (pools, timeouts, how a worker died) is :mod:`._process`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import select
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

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
def main(argv: Sequence[str] | None = None) -> None:
    """The worker's loop (run as ``python -m``; ``--death-fd N``: the read end of a pipe whose
    write end only the run holds, see :func:`_guard`)."""
    from play2prompt.jsonutil import json_default, to_jsonable

    args = list(sys.argv[1:] if argv is None else argv)
    if "--death-fd" in args:
        _guard(int(args[args.index("--death-fd") + 1]))
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
        except BaseException as exc:  # noqa: BLE001 - sys.exit at import included
            reply: dict[str, Any] = {"error": ["unavailable", _load_error(ref, exc)]}
        else:
            reply = {"ok": True} if message.get("check") else _answer(fn, message["args"],
                                                                     to_jsonable)
        answers.write(json.dumps(reply, ensure_ascii=False, default=json_default) + "\n")
        answers.flush()


def _answer(fn: Any, args: dict[str, Any], to_jsonable: Any) -> dict[str, Any]:
    try:
        return {"ok": to_jsonable(fn(**args))}
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the parent
        return {"error": ["exception", f"{type(exc).__name__}: {exc}"]}


def _load_error(ref: str, exc: BaseException) -> str:
    """One line for a tool that cannot be loaded (``sys.exit("msg")`` at import included)."""
    if isinstance(exc, SystemExit):
        return f"cannot load {ref!r}: the module exits at import (sys.exit({exc.code!r}))"
    return f"cannot load {ref!r}: {type(exc).__name__}: {exc}"


def _guard(fd: int) -> None:
    """Fork a guardian that kills this worker's process group (the worker and whatever the tool
    started) as soon as the run is gone: the run holds the only write end of the pipe ``fd``
    reads, so its end (kill -9 included) is an end of file here. The guardian also ends the
    group when the worker itself dies. Not on platforms without ``fork``."""
    if not hasattr(os, "fork") or not hasattr(os, "killpg"):
        return
    worker = os.getpid()
    if os.fork():
        os.close(fd)
        return
    try:                                     # the guardian: hold nothing of the worker's
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        os.closerange(3, fd)
        os.closerange(fd + 1, 4096)
        while os.getppid() == worker and not select.select([fd], [], [], 1.0)[0]:
            pass
        os.killpg(os.getpgrp(), signal.SIGKILL)
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
