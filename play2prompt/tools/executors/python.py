"""Python callables: ``{"python": "module:function"}`` or ``{"python": "tools.py:function"}``.

Isolation (``"isolation"`` in the spec):

- ``process`` (default): the function runs in a child process shared by the tools of one run;
  a call past its timeout kills the child and becomes a ``timeout`` observation, a crash becomes
  a ``crash`` observation.
- ``thread``: runs in a daemon thread; a hung call is abandoned after the timeout (cheap, for
  trusted pure functions such as benchmark functions).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from play2prompt.tools.executors._base import Executor, ToolCallError
from play2prompt.tools.executors._worker import ProcessWorker, resolve_callable


class PythonExecutor(Executor):
    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        target = spec["python"]
        self.ref = target if isinstance(target, str) else target.get("function", "")
        base = Path(ctx.base_dir).resolve()
        self.search_paths = [str(Path.cwd()), str(base), str(base.parent)]
        self.isolation = spec.get("isolation", "process")
        if self.isolation not in ("process", "thread"):
            raise ToolCallError(f"unknown isolation {self.isolation!r}")
        self._fn: Any = None

    def _worker(self) -> ProcessWorker:
        return self.ctx.resources.setdefault("python-worker", ProcessWorker())

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        if self.isolation == "thread":
            return self._call_in_thread(arguments, timeout)
        reply = self._worker().call(self.ref, self.search_paths, arguments, timeout)
        if reply[0] == "ok":
            return reply[1]
        raise ToolCallError(reply[2], reply[1])

    def _call_in_thread(self, arguments: dict[str, Any], timeout: float) -> Any:
        if self._fn is None:
            self._fn = resolve_callable(self.ref, self.search_paths)
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["out"] = self._fn(**arguments)
            except BaseException as exc:  # noqa: BLE001 - reported as an observation
                box["exc"] = exc

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            raise ToolCallError(f"no answer within {timeout:g} s (abandoned)", "timeout")
        if "exc" in box:
            exc = box["exc"]
            raise ToolCallError(f"{type(exc).__name__}: {exc}", "exception")
        return box.get("out")


def check_importable(ref: str, base_dir: Path) -> None:
    """Resolve a python executor reference now (in this process) to give a clear load error."""
    base = Path(base_dir).resolve()
    resolve_callable(ref, [str(Path.cwd()), str(base), str(base.parent)])
