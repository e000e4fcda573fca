"""REST tools from an OpenAPI 3 spec (YAML or JSON): one tool per operation, run by the http
executor (``p2p tools from-openapi``).

A tool's name is the operation's ``operationId`` made to match ``^[a-zA-Z0-9_-]{1,64}$``
(``METHOD_path`` without one); its description is the operation's ``description``, else its
``summary``. Its parameters are the path, query and header parameters (cookies are left out)
and the fields of a JSON (or form) request body, flattened when the body is an object whose
field names clash with no parameter, else one ``body`` argument holding the whole body. Local
``$ref`` s are inlined; a recursive schema is kept once under the tool's ``$defs``. ``GET``,
``HEAD`` and ``OPTIONS`` read; the other methods may write unless the operation says
``x-side-effects: false`` (``true`` marks a reading method as writing).

Each tool's ``meta.openapi`` tells where its documentation lives in the spec (JSON pointers to
the objects holding the operation's and each parameter's ``description``, and the request
body's media type object), so ``p2p apply`` can write optimized docs and demos back.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError, UserError
from play2prompt.tools.model import Tool
from play2prompt.tools.types import normalize_schema

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ARG_BAD = re.compile(r"[^a-zA-Z0-9_.-]")
_OPENAPI_ONLY = ("nullable", "xml", "externalDocs", "discriminator", "example")


def read_spec(path: Path) -> Any:
    """The spec's document: JSON for ``.json``, YAML otherwise (JSON is YAML too)."""
    from play2prompt.tools.loading import read_json_file

    if path.suffix.lower() == ".json":
        return read_json_file(path)
    if not path.is_file():
        raise ToolsFileError(f"{path}: no such file")
    from ruamel.yaml import YAML, YAMLError

    try:
        return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8-sig"))
    except (YAMLError, UnicodeDecodeError) as exc:
        raise ToolsFileError(f"{path}: not a YAML or JSON document "
                             f"({' '.join(str(exc).split())[:200]})") from exc


def load_openapi(path: Path | str, base_url: str | None = None) -> list[Tool]:
    """The operations of the OpenAPI 3 spec at ``path`` as tools (http executor). The URL is
    ``base_url`` or the spec's first server (its variables at their defaults)."""
    path = Path(path)
    return openapi_tools(read_spec(path), str(path), base_url)


def openapi_tools(spec: Any, source: str, base_url: str | None = None) -> list[Tool]:
    """The operations of an OpenAPI 3 document as tools."""
    if not isinstance(spec, Mapping) or not str(spec.get("openapi", "")).startswith("3."):
        found = spec.get("swagger") or spec.get("openapi") if isinstance(spec, Mapping) else None
        raise ToolsFileError(f"{source}: not an OpenAPI 3 document (openapi: 3.x expected"
                             + (f", found {found!r})" if found else ")"))
    paths = spec.get("paths")
    if not isinstance(paths, Mapping) or not paths:
        raise ToolsFileError(f"{source}: no 'paths' (no operations to make tools of)")
    base = (base_url if base_url is not None else server_url(spec)).rstrip("/")
    refs = _Refs(spec, source)
    tools: list[Tool] = []
    names: set[str] = set()
    for route, item_ptr in [(r, _ptr("paths", r)) for r in paths]:
        item_ptr, item = refs.follow(item_ptr, paths[route])
        if not isinstance(item, Mapping):
            continue
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, Mapping):
                ptr = f"{item_ptr}/{method}"
                name = _unique(tool_name(op.get("operationId"), method, str(route)), names)
                tools.append(_Operation(refs, str(route), method, ptr, op, item, item_ptr)
                             .tool(name, base))
    return tools


def server_url(spec: Mapping[str, Any]) -> str:
    """The first server's URL, its ``{variables}`` at their defaults ("" without servers)."""
    servers = spec.get("servers") or []
    server = servers[0] if isinstance(servers, list) and servers else {}
    if not isinstance(server, Mapping):
        return ""
    url = str(server.get("url", ""))
    for var, conf in (server.get("variables") or {}).items():
        if isinstance(conf, Mapping) and "default" in conf:
            url = url.replace("{" + str(var) + "}", str(conf["default"]))
    return url


def tool_name(operation_id: Any, method: str, route: str) -> str:
    """``operationId`` (else ``method_route``) made to match ``^[a-zA-Z0-9_-]{1,64}$``."""
    raw = str(operation_id) if operation_id else f"{method}_{route}"
    name = re.sub(r"_+", "_", re.sub(r"[^a-zA-Z0-9_-]", "_", raw)).strip("_")[:64]
    return name or method


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        suffix = f"_{n}"
        out, n = name[:64 - len(suffix)] + suffix, n + 1
    taken.add(out)
    return out


def _ptr(*parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _arg_name(name: str) -> str:
    return _ARG_BAD.sub("_", name)[:64] or "_"


class _Refs:
    """Local ``$ref`` resolution: where a reference leads, and schemas inlined."""

    def __init__(self, spec: Mapping[str, Any], source: str) -> None:
        self.spec, self.source = spec, source

    def lookup(self, ref: Any) -> tuple[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise ToolsFileError(f"{self.source}: $ref {ref!r}: only references inside the "
                                 "spec (#/...) are supported")
        node: Any = self.spec
        for part in [p for p in ref[1:].split("/") if p]:
            key = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            elif isinstance(node, Mapping) and key in node:
                node = node[key]
            else:
                raise ToolsFileError(f"{self.source}: $ref {ref!r} points nowhere")
        return ref[1:], node

    def follow(self, ptr: str, node: Any) -> tuple[str, Any]:
        """Follow ``$ref`` s from ``node`` (at ``ptr``) to the object they name."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and "$ref" in node:
            ptr, node = self.lookup(node["$ref"])
            if ptr in seen:
                raise ToolsFileError(f"{self.source}: $ref cycle at {ptr!r}")
            seen.add(ptr)
        return ptr, node

    def schema(self, node: Any, defs: dict[str, Any], stack: tuple[str, ...] = ()) -> Any:
        """``node`` with every ``$ref`` inlined and OpenAPI-only keywords made JSON Schema;
        a reference back into ``stack`` becomes ``#/$defs/NAME`` (filled in ``defs``)."""
        if isinstance(node, list):
            return [self.schema(x, defs, stack) for x in node]
        if not isinstance(node, Mapping):
            return node
        if "$ref" in node:
            ptr, target = self.lookup(node["$ref"])
            name = _arg_name(ptr.rsplit("/", 1)[-1])
            if ptr in stack:
                defs.setdefault(name, None)
                return {"$ref": f"#/$defs/{name}"}
            inlined = self.schema(target, defs, (*stack, ptr))
            if name in defs and defs[name] is None:
                defs[name] = inlined
                inlined = {"$ref": f"#/$defs/{name}"}
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            return {**inlined, **self.schema(siblings, defs, stack)} if siblings else inlined
        out = {k: self.schema(v, defs, stack) for k, v in node.items()
               if k not in _OPENAPI_ONLY and not str(k).startswith("x-")}
        if node.get("nullable") is True and isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        if "example" in node and "examples" not in node:
            out["examples"] = [copy.deepcopy(node["example"])]
        return out


@dataclass
class _Operation:
    refs: _Refs
    route: str
    method: str
    ptr: str
    op: Mapping[str, Any]
    item: Mapping[str, Any]
    item_ptr: str
    props: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    places: dict[str, Any] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)
    defs: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    form: bool = False
    path_wires: set[str] = field(default_factory=set)
    body_ptr: str | None = None

    def tool(self, name: str, base: str) -> Tool:
        for param_ptr, param in self._parameters():
            self._parameter(param_ptr, param)
        for wire in re.findall(r"\{([^{}]+)\}", self.route):   # undeclared path parameters
            if wire not in self.path_wires:
                self._parameter(None, {"name": wire, "in": "path", "schema": {"type": "string"}})
        self._body()
        parameters: dict[str, Any] = {"type": "object", "properties": self.props,
                                      "required": self.required}
        if self.defs:
            parameters["$defs"] = {k: v for k, v in self.defs.items() if v is not None}
        http: dict[str, Any] = {"url": base + self.route, "method": self.method.upper()}
        if self.places:
            http["params"] = self.places
        if self.form:
            http["body"] = "form"
        elif self.method in ("options", "trace"):
            http["body"] = "query"
        meta: dict[str, Any] = {"operation": self.ptr, "params": self.docs}
        if self.body_ptr is not None:
            meta["body"] = self.body_ptr
        if self.skipped:
            meta["skipped"] = self.skipped
        side = self.op.get("x-side-effects")
        return Tool(name=name, description=_doc(self.op), parameters=normalize_schema(parameters),
                    executor={"http": http}, meta={"openapi": meta},
                    side_effects=side if isinstance(side, bool) else None)

    def _parameters(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The path item's and the operation's parameters (the operation's win), resolved."""
        found: dict[tuple[str, str], tuple[str, Mapping[str, Any]]] = {}
        for owner, owner_ptr in ((self.item, self.item_ptr), (self.op, self.ptr)):
            for i, raw in enumerate(owner.get("parameters") or []):
                ptr, param = self.refs.follow(f"{owner_ptr}/parameters/{i}", raw)
                if isinstance(param, Mapping) and "name" in param:
                    found[(str(param["name"]), str(param.get("in")))] = (ptr, param)
        return list(found.values())

    def _parameter(self, ptr: str | None, param: Mapping[str, Any]) -> None:
        wire, place = str(param["name"]), str(param.get("in"))
        if place not in ("path", "query", "header"):
            self.skipped.append(f"{place} parameter {wire!r}")
            return
        if place == "path":
            self.path_wires.add(wire)
        schema = param.get("schema")
        if schema is None and isinstance(param.get("content"), Mapping):
            schema = next(iter(param["content"].values()), {}).get("schema")
        prop = self.refs.schema(schema or {}, self.defs)
        if param.get("description"):
            prop["description"] = str(param["description"])
        if "example" in param and "examples" not in prop:
            prop["examples"] = [copy.deepcopy(param["example"])]
        arg = self._add(wire, prop, place == "path" or param.get("required") is True, ptr)
        if place != "path" or arg != wire:
            self.places[arg] = place if arg == wire else {"in": place, "name": wire}

    def _add(self, wire: str, prop: Any, required: bool, doc_ptr: str | None) -> str:
        arg = _unique(_arg_name(wire), set(self.props))
        self.props[arg] = prop
        if doc_ptr is not None:
            self.docs[arg] = doc_ptr
        if required:
            self.required.append(arg)
        return arg

    def _body(self) -> None:
        if "requestBody" not in self.op:
            return
        body_ptr, body = self.refs.follow(f"{self.ptr}/requestBody", self.op["requestBody"])
        content = body.get("content") if isinstance(body, Mapping) else None
        kind = _media(content)
        if kind is None:
            self.skipped.append("request body (no JSON or form content)")
            return
        media, form = kind
        self.body_ptr = _ptr(*_split(body_ptr), "content", media)
        raw = content[media].get("schema") or {}
        schema_ptr, target = self.refs.follow(_ptr(*_split(body_ptr), "content", media,
                                                   "schema"), raw)
        schema = self.refs.schema(raw, self.defs)
        fields = schema.get("properties") if isinstance(schema, Mapping) else None
        required = body.get("required") is True
        self.form = form
        if isinstance(fields, Mapping) and fields and not set(fields) & set(self.props) and \
                all(_arg_name(f) == f for f in fields):
            wanted = set(schema.get("required") or []) if required else set()
            for fname, prop in fields.items():
                if isinstance(prop, Mapping) and prop.get("readOnly"):
                    continue
                self._add(fname, dict(prop), fname in wanted, f"{schema_ptr}/properties/"
                          + _ptr(fname)[1:])
                self.places[fname] = "body"
            return
        prop = dict(schema) if isinstance(schema, Mapping) else {}
        if body.get("description"):
            prop["description"] = str(body["description"])
        arg = self._add("body", prop, required, body_ptr)
        self.places[arg] = "request_body"


def _split(ptr: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]


def _media(content: Any) -> tuple[str, bool] | None:
    """The request body's media type to use and whether it is a form."""
    if not isinstance(content, Mapping):
        return None
    for media in content:
        base = str(media).split(";")[0].strip().lower()
        if base == "application/json" or base.endswith("+json"):
            return str(media), False
    for media in content:
        if str(media).split(";")[0].strip().lower() == "application/x-www-form-urlencoded":
            return str(media), True
    return None


def _doc(op: Mapping[str, Any]) -> str:
    text = op.get("description") or op.get("summary") or ""
    return str(text).strip()


def select_tools(tools: list[Tool], names: Sequence[str], source: str) -> list[Tool]:
    """Only the tools named (all when none is); one line for a name that is no tool."""
    if not names:
        return tools
    known = {t.name for t in tools}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ToolsFileError(f"{source}: no operation named {', '.join(unknown)} (tools: "
                             f"{', '.join(sorted(known))})")
    return [t for t in tools if t.name in set(names)]


def require_urls(tools: Sequence[Tool], source: str) -> None:
    """One line when the tools' URL is not absolute (a relative or missing server)."""
    for tool in tools:
        url = str((tool.executor or {}).get("http", {}).get("url", ""))
        if not re.match(r"^https?://", url):
            raise UserError(f"{source}: the API's URL is not absolute ({url!r} for "
                            f"{tool.name}): pass --base-url URL")
