"""The ``stabletoolbench`` executor: an API answered as StableToolBench's server answers it.

In the order its own server uses:

1. the response cache (``<cache>/<category>/<tool>_for_<category>/<api>.json``, a dict keyed by
   Python's ``str()`` of the argument dict; the key is reproduced exactly, and a call whose
   arguments only differ in order also matches);
2. a running ``/virtual`` server (``POST`` JSON ``category, tool_name, api_name, tool_input,
   strip, toolbench_key``; reply ``{"error", "response"}``), when one is configured (spec
   ``server``, else ``$P2P_STB_SERVER``); an unreachable server or an unreadable reply falls
   through;
3. the LLM simulator (:mod:`play2prompt.tools.executors.simulated`) with the run's LM
   (``ExecContext.lm``), given the API doc, its ``template_response`` and up to 5 cached calls.

A reply whose ``error`` is not empty is an error observation; otherwise the observation's output
is the ``response``. ``last_source`` and ``sources`` tell where answers came from.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import requests

from play2prompt.adapters.stabletoolbench.names import api_name, cache_file, cache_key
from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import Executor, ToolCallError
from play2prompt.tools.executors.simulated import SimulatedCall, run_sync, simulate_recorded

ENV_SERVER = "P2P_STB_SERVER"
ENV_KEY = "TOOLBENCH_KEY"
REQUIRED_KEYS = ("standard_tool", "api_name")


def _literal(key: str) -> Any:
    try:
        return ast.literal_eval(key)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


class ResponseCache:
    """One API's cache file, read once."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._data: dict[str, Any] | None = None
        self._parsed: list[tuple[Any, str]] | None = None

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {}
            if self.path is not None and self.path.is_file():
                try:
                    loaded = json.loads(self.path.read_text(encoding="utf-8"))
                except (OSError, json.JSONDecodeError):
                    loaded = {}
                self._data = dict(loaded) if isinstance(loaded, Mapping) else {}
        return self._data

    def lookup(self, arguments: Mapping[str, Any]) -> Any:
        """The cached ``{"error", "response"}`` of a call, or None."""
        key = cache_key(arguments)
        if key in self.data:
            return self.data[key]
        if self._parsed is None:
            self._parsed = [(_literal(k), k) for k in self.data]
        wanted = dict(arguments)
        for value, k in self._parsed:
            if isinstance(value, dict) and value == wanted:
                return self.data[k]
        return None

    def examples(self) -> list[tuple[str, Any]]:
        return list(self.data.items())


def virtual_payload(spec: Mapping[str, Any], arguments: Mapping[str, Any],
                    strip: str = "truncate", key: str = "") -> dict[str, Any]:
    """The body StableToolBench's client posts to ``/virtual``."""
    return {"category": spec.get("category", ""), "tool_name": spec["standard_tool"],
            "api_name": api_name(spec["api_name"]),
            "tool_input": json.dumps(dict(arguments), ensure_ascii=False),
            "strip": strip, "toolbench_key": key}


def api_doc_text(spec: Mapping[str, Any]) -> str:
    """The original API documentation, as the simulator reads it."""
    doc = dict(spec.get("doc") or {})
    doc.pop("template_response", None)
    lines = [f"Tool: {spec.get('tool_name')} (category {spec.get('category') or '-'})"]
    if spec.get("tool_description"):
        lines.append(f"Tool description: {spec['tool_description']}")
    lines.append(f"API: {doc.get('api_name') or spec.get('api_name')} "
                 f"({doc.get('method') or 'GET'})")
    lines.append(f"API description: {doc.get('api_description') or '(none)'}")
    for group in ("required_parameters", "optional_parameters"):
        params = doc.get(group) or []
        if params:
            lines.append(f"{group.replace('_', ' ').capitalize()}: "
                         f"{json.dumps(params, ensure_ascii=False)[:1500]}")
    return "\n".join(lines)


class StableToolBenchExecutor(Executor):
    needs_lm = True   # answered by an LLM simulator when neither cache nor server answers

    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        conf = spec.get("stabletoolbench")
        missing = [k for k in REQUIRED_KEYS if not isinstance(conf, Mapping) or not conf.get(k)]
        if missing:
            raise ToolsFileError(f"tool {tool.name!r}: the stabletoolbench executor needs "
                                 f"{', '.join(missing)}")
        self.conf = dict(conf)
        cache_dir = self.conf.get("cache_dir")
        path = (cache_file(Path(cache_dir), self.conf.get("category", ""),
                           self.conf["standard_tool"], self.conf["api_name"])
                if cache_dir else None)
        self.cache = ResponseCache(path)
        server = self.conf.get("server") or os.environ.get(ENV_SERVER) or None
        self.server: str | None = server
        self.strip = str(self.conf.get("strip", "truncate"))
        self.key = str(self.conf.get("toolbench_key") or os.environ.get(ENV_KEY, ""))
        self.sources: Counter[str] = Counter()
        self.last_source = ""
        self.server_errors: list[str] = []
        self._session: requests.Session | None = None

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        return run_sync(self._acall(arguments, timeout))

    async def _acall(self, arguments: dict[str, Any], timeout: float) -> Any:
        reply = self.cache.lookup(arguments)
        self._source("cache")
        if reply is None and self.server:
            self._source("server")
            reply = await asyncio.to_thread(self._ask_server, arguments, timeout)
        if reply is None:
            self._source("simulator")
            call = SimulatedCall(self.tool.name, api_doc_text(self.conf), arguments,
                                 (self.conf.get("doc") or {}).get("template_response"),
                                 self.cache.examples())
            reply = {"error": "", "response": await simulate_recorded(self.ctx, call)}
        self.sources[self.last_source] += 1
        return _unwrap(reply)

    def _source(self, name: str) -> None:
        self.last_source = name

    def _ask_server(self, arguments: Mapping[str, Any], timeout: float) -> Any:
        """The server's reply, or None when it cannot be had (the simulator takes over)."""
        if self._session is None:
            self._session = requests.Session()
        payload = virtual_payload(self.conf, arguments, self.strip, self.key)
        try:
            resp = self._session.post(self.server or "", json=payload, timeout=timeout,
                                      headers={"toolbench_key": self.key})
            reply = resp.json() if resp.status_code == 200 else None
        except (requests.RequestException, ValueError) as exc:
            self.server_errors.append(f"{type(exc).__name__}: {str(exc)[:200]}")
            return None
        if not isinstance(reply, Mapping) or "response" not in reply:
            self.server_errors.append(f"HTTP {resp.status_code}: unreadable reply")
            return None
        return reply

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


def _unwrap(reply: Any) -> Any:
    if not isinstance(reply, Mapping):
        return reply
    error = reply.get("error")
    if error:
        response = reply.get("response")
        detail = f" (response: {str(response)[:300]})" if response not in (None, "") else ""
        raise ToolCallError(f"{error}{detail}", "api")
    return reply.get("response")
