"""Python callables: ``{"python": "module:function"}`` or ``{"python": "tools.py:function"}``,
or the long form ``{"python": {"function": "tools.py:function", "env": [...], "workers": N}}``.

Isolation (``"isolation"`` in the spec):

- ``process`` (default): the function runs in a child process of its own tool (a pool of
  ``workers``, default 1, started with ``python -m``: the caller's ``__main__`` is never
  imported again); a call past its timeout kills its child and becomes a ``timeout``
  observation, a crash becomes a ``crash`` observation naming the exit code or signal. One tool
  that hangs does not hold the others. The child sees a minimal environment (``PATH``, ``HOME``,
  the locale, temporary folders, Python's own variables: ``_worker.BASE_ENV``) plus what ``env``
  lists: names of variables to pass on, or a mapping of names to values (``${NAME}`` read from
  the environment).
- ``thread``: runs in a daemon thread of this process (full environment); a hung call is
  abandoned after the timeout (cheap, for trusted pure functions such as benchmark functions).
  What the tool prints, at import (its first call) or at call, goes to standard error
  (:mod:`._stdout`): standard output may be a protocol (``p2p mcp``) or a JSON document
  (``--json``).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import Executor, ToolCallError
from play2prompt.tools.executors._process import ProcessWorker, WorkerPool
from play2prompt.tools.executors._stdout import tool_prints_to_stderr
from play2prompt.tools.executors._worker import resolve_callable, tool_env
from play2prompt.tools.executors.callable import call_with_timeout

# One thread-isolated tool's module is loaded at a time: a file module is in sys.modules before
# its code has run, and a second first call would find it half made (no function yet).
_THREAD_IMPORTS = threading.Lock()
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_KEYS = {"function", "env", "workers"}


class PythonExecutor(Executor):
    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        target = spec["python"]
        conf = target if isinstance(target, Mapping) else {"function": target}
        self.ref = str(conf.get("function", ""))
        self.env = conf.get("env") or ()
        self.workers = int(conf.get("workers", 1))
        base = Path(ctx.base_dir).resolve()
        self.search_paths = [str(Path.cwd()), str(base), str(base.parent)]
        self.isolation = spec.get("isolation", "process")
        if self.isolation not in ("process", "thread"):
            raise ToolCallError(f"unknown isolation {self.isolation!r}")
        self._fn: Any = None

    def _worker(self) -> WorkerPool:
        key = f"python-workers:{self.tool.name}"
        pool = self.ctx.resources.get(key)
        if pool is None:
            pool = self.ctx.resources.setdefault(key, WorkerPool(process_env(self.env),
                                                                 self.workers))
        return pool

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        if self.isolation == "thread":
            return self._call_in_thread(arguments, timeout)
        reply = self._worker().call(self.ref, self.search_paths, arguments, timeout)
        if reply[0] == "ok":
            return reply[1]
        raise ToolCallError(reply[2], reply[1])

    def _call_in_thread(self, arguments: dict[str, Any], timeout: float) -> Any:
        if self._fn is None:
            with _THREAD_IMPORTS, tool_prints_to_stderr():  # its prints at import, too
                self._fn = self._fn or resolve_callable(self.ref, self.search_paths)
        return call_with_timeout(self._fn, arguments, timeout)


def check_spec(target: Any, where: str) -> str:
    """The function reference of a python executor spec; one line on a malformed spec."""
    if isinstance(target, str):
        return target
    if not isinstance(target, Mapping):
        raise ToolsFileError(f"{where}: must be 'module:function' or an object")
    unknown = sorted(set(target) - _KEYS)
    if unknown:
        raise ToolsFileError(f"{where}: unknown field(s) {', '.join(unknown)} "
                             f"(known: {', '.join(sorted(_KEYS))})")
    env = target.get("env", [])
    names_ok = isinstance(env, list) and all(isinstance(n, str) for n in env)
    if not (names_ok or isinstance(env, Mapping)):
        raise ToolsFileError(f"{where}: 'env' must be a list of variable names or an object")
    workers = target.get("workers", 1)
    if not isinstance(workers, int) or isinstance(workers, bool) or not 1 <= workers <= 32:
        raise ToolsFileError(f"{where}: 'workers' must be an integer from 1 to 32")
    if not isinstance(target.get("function"), str):
        raise ToolsFileError(f"{where}: field 'function' is missing")
    return target["function"]


def process_env(env: Any) -> dict[str, str]:
    """The environment of a tool's workers from its spec's ``env`` (names, or a mapping whose
    ``${NAME}`` references are read from this environment)."""
    if isinstance(env, Mapping):
        env = {k: _ENV_REF.sub(lambda m: os.environ.get(m.group(1), ""), str(v))
               for k, v in env.items()}
    return tool_env(env or ())


def check_loadable(specs: Sequence[tuple[str, Any, Any, float]], base_dir: Path) -> None:
    """Load each ``(tool name, function reference, env, timeout)`` in a worker, never in this
    process (a tools module's top-level code runs only where its tool runs): one line naming
    the tool for a module that cannot be imported, exits, hangs at import (past ``timeout``)
    or lacks the function. One worker per distinct environment."""
    base = Path(base_dir).resolve()
    paths = [str(Path.cwd()), str(base), str(base.parent)]
    workers: dict[str, ProcessWorker] = {}
    try:
        for name, ref, env, timeout in specs:
            proc_env = process_env(env)
            key = json.dumps(proc_env, sort_keys=True)
            worker = workers.setdefault(key, ProcessWorker(proc_env))
            reply = worker.check(ref, paths, timeout)
            if reply[0] != "ok":
                why = reply[2].removeprefix(f"cannot load {ref!r}: ")
                raise ToolsFileError(f"tool {name!r}: executor 'python': cannot load "
                                     f"{ref!r}: {why}")
    finally:
        for worker in workers.values():
            worker.close()
