"""HTTP endpoints: ``{"http": {"url": "https://api/x/{id}", "method": "GET", "headers": {...}}}``.

Arguments named in ``{placeholders}`` of the URL fill the path; the rest go to the query string
(GET, DELETE) or a JSON body (POST, PUT, PATCH), unless ``"body": "query"|"json"|"form"`` says
otherwise. ``${VAR}`` in header values is read from the environment. A JSON response is parsed;
an HTTP status >= 400 or a connection failure is an error observation, never an exception
(``http`` for 4xx, ``http_5xx`` for 5xx, ``unavailable``, ``timeout``).
"""

from __future__ import annotations

import os
import re
import string
from typing import Any
from urllib.parse import quote

import requests

from play2prompt.tools.executors._base import Executor, ToolCallError

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class HttpExecutor(Executor):
    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        conf = spec["http"]
        conf = {"url": conf} if isinstance(conf, str) else dict(conf)
        self.url: str = conf["url"]
        self.method: str = str(conf.get("method", "GET")).upper()
        self.headers: dict[str, str] = dict(conf.get("headers", {}))
        default_body = "query" if self.method in ("GET", "DELETE", "HEAD") else "json"
        self.body: str = conf.get("body", default_body)
        self._session = requests.Session()

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        path_names = {f[1] for f in string.Formatter().parse(self.url) if f[1]}
        url = self.url.format(**{n: quote(str(arguments.get(n, "")), safe="") for n in path_names})
        rest = {k: v for k, v in arguments.items() if k not in path_names}
        headers = {k: _ENV.sub(lambda m: os.environ.get(m.group(1), ""), v)
                   for k, v in self.headers.items()}
        kwargs: dict[str, Any] = {"headers": headers, "timeout": timeout}
        kwargs[{"query": "params", "json": "json", "form": "data"}[self.body]] = rest
        try:
            resp = self._session.request(self.method, url, **kwargs)
        except requests.Timeout as exc:
            raise ToolCallError(f"{self.method} {url}: no answer within {timeout:g} s",
                                "timeout") from exc
        except requests.ConnectionError as exc:
            reason = str(exc.args[0]) if exc.args else "connection failed"
            raise ToolCallError(f"cannot reach {url}: {reason[:200]}", "unavailable") from exc
        if resp.status_code >= 400:
            kind = "http_5xx" if resp.status_code >= 500 else "http"
            raise ToolCallError(f"HTTP {resp.status_code} from {url}: {resp.text[:300]}", kind)
        if "json" in resp.headers.get("content-type", ""):
            try:
                return resp.json()
            except ValueError:
                pass
        return resp.text

    def close(self) -> None:
        self._session.close()
