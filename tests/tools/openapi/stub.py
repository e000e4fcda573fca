"""The pet shop of petshop.yaml, served on loopback for the OpenAPI tests: pets in memory,
every request logged (method, path, query, header X-Request-Id, JSON body)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Shop:
    pets: dict[int, dict[str, Any]] = field(default_factory=lambda: {
        1: {"id": 1, "name": "Rex", "status": "available", "tags": []},
        2: {"id": 2, "name": "Tom", "status": "sold", "tags": ["cat"]}})
    log: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, method: str, path: str, query: dict[str, list[str]],
               body: Any) -> tuple[int, Any]:
        parts = [p for p in path.split("/") if p][1:]          # after /v1
        if parts == ["pets"] and method == "GET":
            return self._list(query)
        if parts == ["pets"] and method == "POST":
            if not isinstance(body, dict) or not isinstance(body.get("name"), str):
                return 400, {"error": "bad request"}
            pet = {"id": max(self.pets) + 1, "name": body["name"], "status": "available",
                   "tags": [body["tag"]] if body.get("tag") else []}
            self.pets[pet["id"]] = pet
            return 201, pet
        if parts == ["pets", "search"] and method == "POST":
            text = str((body or {}).get("text", "")).lower()
            return 200, [p for p in self.pets.values() if text in p["name"].lower()]
        if len(parts) >= 2 and parts[0] == "pets" and parts[1].isdigit():
            return self._pet(method, int(parts[1]), parts[2:], body)
        if parts == ["categories", "tree"] and method == "GET":
            return 200, {"name": "all", "children": [{"name": "dogs"}, {"name": "cats"}]}
        return 404, {"error": "not found"}

    def _list(self, query: dict[str, list[str]]) -> tuple[int, Any]:
        status = query.get("status", [None])[0]
        if status not in (None, "available", "sold"):
            return 400, {"error": "invalid value"}
        limit = int(query.get("limit", ["100"])[0])
        pets = [p for p in self.pets.values() if status in (None, p["status"])]
        return 200, pets[:limit]

    def _pet(self, method: str, pet_id: int, rest: list[str], body: Any) -> tuple[int, Any]:
        if pet_id not in self.pets:
            return 404, {"error": "not found"}
        if not rest and method == "GET":
            return 200, self.pets[pet_id]
        if not rest and method == "DELETE":
            return 200, self.pets.pop(pet_id)
        if rest == ["tags"] and method == "PUT" and isinstance(body, list):
            self.pets[pet_id]["tags"] = [str(t) for t in body]
            return 200, self.pets[pet_id]
        return 400, {"error": "bad request"}


def _handler(shop: Shop) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            url = urlsplit(self.path)
            size = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(size) if size else b""
            body = json.loads(raw) if raw else None
            query = parse_qs(url.query)
            with shop.lock:
                shop.log.append({"method": self.command, "path": url.path, "query": query,
                                 "request_id": self.headers.get("X-Request-Id"), "body": body})
                status, answer = shop.answer(self.command, url.path, query, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serve() -> Iterator[tuple[str, Shop]]:
    """The shop on a free loopback port: ``(base URL ending in /v1, the shop)``."""
    shop = Shop()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(shop))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", shop
    finally:
        server.shutdown()
        server.server_close()
