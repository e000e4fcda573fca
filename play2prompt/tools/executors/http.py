"""HTTP endpoints: ``{"http": {"url": "https://api/x/{id}", "method": "GET", "headers": {...}}}``.

Arguments named in ``{placeholders}`` of the URL fill the path; the rest go to the query string
(GET, DELETE) or a JSON body (POST, PUT, PATCH), unless ``"body": "query"|"json"|"form"`` says
otherwise. ``"params"`` places single arguments elsewhere (an OpenAPI operation needs it:
``p2p tools from-openapi`` writes it): ``{"limit": "query", "trace": "header",
"pet": "request_body"}``, or ``{"filter_status": {"in": "query", "name": "filter[status]"}}``
when the name on the wire is not the argument's; ``in`` is ``path``, ``query``, ``header``,
``body`` (a field of the body) or ``request_body`` (the argument is the whole body). ``${VAR}``
in header values is read from the environment. A JSON response is parsed; an HTTP status >= 400
or a connection failure is an error observation, never an exception (``http`` for 4xx,
``http_5xx`` for 5xx, ``unavailable``, ``timeout``).
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from play2prompt.errors import ToolsFileError
from play2prompt.limits import is_host
from play2prompt.tools.executors._base import Executor, ToolCallError

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
PLACES = ("path", "query", "header", "body", "request_body")
# the request methods of HTTP (RFC 9110, and PATCH of RFC 5789)
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT")
BODIES = ("query", "json", "form")


def check_spec(conf: Any, where: str) -> None:
    """One line unless ``conf`` (an http executor's spec) can make requests: an http or https
    URL with a host (its ``{placeholders}`` well formed), a real HTTP method, a known body,
    headers mapping names to texts, well-placed params."""
    conf = {"url": conf} if isinstance(conf, str) else conf
    if not isinstance(conf, Mapping):
        raise ToolsFileError(f"{where}: must be a URL or an object with 'url'")
    url = conf.get("url")
    if not isinstance(url, str):
        raise ToolsFileError(f"{where}: needs 'url', an http(s) URL")
    try:
        parts = urlsplit(url)
        host = parts.hostname
        list(string.Formatter().parse(url))
    except ValueError as exc:
        raise ToolsFileError(f"{where}: 'url' {url!r}: {exc}") from None
    if parts.scheme not in ("http", "https") or not host or \
            not ("{" in host or is_host(host)):
        raise ToolsFileError(f"{where}: 'url' {url!r} is not an http or https URL with a host")
    method = conf.get("method", "GET")
    if not isinstance(method, str) or method.upper() not in METHODS:
        raise ToolsFileError(f"{where}: 'method' {method!r} is no HTTP method (one of "
                             f"{', '.join(METHODS)})")
    if conf.get("body", "query") not in BODIES:
        raise ToolsFileError(f"{where}: 'body' must be one of {', '.join(BODIES)}, got "
                             f"{conf.get('body')!r}")
    headers = conf.get("headers", {})
    if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise ToolsFileError(f"{where}: 'headers' must map header names to texts")
    parse_params(conf.get("params"), where)


def parse_params(conf: Any, where: str) -> dict[str, tuple[str, str]]:
    """``"params"`` of an http spec as ``{argument: (place, wire name)}``; one line for a
    malformed entry."""
    if conf is None:
        return {}
    if not isinstance(conf, Mapping):
        raise ToolsFileError(f"{where}: 'params' must map argument names to places")
    out: dict[str, tuple[str, str]] = {}
    for arg, value in conf.items():
        if isinstance(value, Mapping):
            place, wire = value.get("in"), value.get("name", arg)
        else:
            place, wire = value, arg
        if place not in PLACES or not isinstance(wire, str):
            raise ToolsFileError(f"{where}: params {arg!r}: 'in' must be one of "
                                 f"{', '.join(PLACES)}, got {value!r}")
        out[str(arg)] = (place, wire)
    return out


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
        self.params = parse_params(conf.get("params"), f"tool {tool.name!r}: executor 'http'")
        self._session = requests.Session()

    def _placed(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments by place: path values, query, headers, body fields, a whole body."""
        path_names = {f[1] for f in string.Formatter().parse(self.url) if f[1]}
        default = "query" if self.body == "query" else "body"
        out: dict[str, Any] = {"path": {}, "query": {}, "header": {}, "body": {}}
        for arg, value in arguments.items():
            place, wire = self.params.get(arg, ("path" if arg in path_names else default, arg))
            if place == "request_body":
                out["request_body"] = value
            else:
                out[place][wire] = value
        return out

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        path_names = {f[1] for f in string.Formatter().parse(self.url) if f[1]}
        placed = self._placed(arguments)
        url = self.url.format(**{n: quote(str(placed["path"].get(n, "")), safe="")
                                 for n in path_names})
        headers = {k: _ENV.sub(lambda m: os.environ.get(m.group(1), ""), v)
                   for k, v in self.headers.items()}
        headers.update({k: str(v) for k, v in placed["header"].items()})
        kwargs: dict[str, Any] = {"headers": headers, "timeout": timeout}
        if placed["query"]:
            kwargs["params"] = placed["query"]
        if "request_body" in placed:
            kwargs["data" if self.body == "form" else "json"] = placed["request_body"]
        elif placed["body"] or self.body != "query":
            kwargs["data" if self.body == "form" else "json"] = placed["body"]
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
