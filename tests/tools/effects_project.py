"""A project whose tools really change things, for the consent tests: a Python tool appending
to a file, an HTTP POST to a local stub server, an MCP tool annotated destructive (and a
read-only tool of each kind). :meth:`Project.side_effects` counts what happened: lines
appended, POSTs received, calls the MCP server logged."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

WRITE_SERVER = Path(__file__).parent / "mcp_write_server.py"
WRITERS = ("append_note", "post_note", "erase_note")

TOOLS_PY = '''
from pathlib import Path

NOTES = Path(__file__).parent / "notes.txt"


def append_note(text: str) -> str:
    """Append a line to the notes file."""
    with NOTES.open("a", encoding="utf-8") as f:
        f.write(text + "\\n")
    return "noted"


def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()
'''


@dataclass
class Stub:
    """What the stub server received: one (method, path) per request."""

    requests: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                with stub.lock:
                    stub.requests.append((self.command, self.path))
                body = json.dumps({"ok": True, "method": self.command}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_DELETE = _answer  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def writes(self) -> int:
        with self.lock:
            return sum(1 for method, _ in self.requests if method != "GET")


def function(name: str, executor: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    params = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return {"type": "function", "function": {"name": name, "description": f"The {name} tool.",
                                             "parameters": params},
            "executor": dict(executor), **extra}


def mcp_function(name: str, log: Path, annotations: Mapping[str, Any],
                 side_effects: bool) -> dict[str, Any]:
    """An MCP tool of the write server as ``p2p tools from-mcp`` records it."""
    params = ({"type": "object", "properties": {"index": {"type": "integer"}},
               "required": ["index"]} if name == "erase_note" else
              {"type": "object", "properties": {"max_count": {"type": "integer"}}})
    server = {"command": sys.executable, "args": [str(WRITE_SERVER)],
              "env": {"WRITE_LOG": str(log)}}
    return {"type": "function", "function": {"name": name, "description": f"The {name} tool.",
                                             "parameters": params},
            "executor": {"mcp": server},
            "meta": {"mcp": {"tool": name, "annotations": dict(annotations)}},
            "side_effects": side_effects}


ERASE_DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True}


@dataclass
class Project:
    root: Path
    stub: Stub
    base: str

    @property
    def notes(self) -> Path:
        return self.root / "notes.txt"

    @property
    def mcp_log(self) -> Path:
        return self.root / "mcp_writes.jsonl"

    def side_effects(self) -> int:
        """Lines appended, POST/DELETE requests received, calls the MCP server logged."""
        appended = len(self.notes.read_text().splitlines()) - 1
        erased = len(self.mcp_log.read_text().splitlines()) if self.mcp_log.exists() else 0
        return appended + self.stub.writes() + erased

    def entries(self, erase_annotations: Mapping[str, Any] = ERASE_DESTRUCTIVE,
                description: str = "") -> list[dict[str, Any]]:
        """The tools file's entries (``description``: a change to every writer's doc and
        schema, i.e. a drifted version)."""
        tools = [
            function("append_note", {"python": "tools.py:append_note"}, side_effects=True),
            function("shout", {"python": "tools.py:shout"}),
            function("post_note", {"http": {"url": self.base + "/notes", "method": "POST"}}),
            mcp_function("erase_note", self.mcp_log, erase_annotations,
                         side_effects=erase_annotations.get("readOnlyHint") is not True),
            mcp_function("recent_notes", self.mcp_log, {"readOnlyHint": True}, False),
        ]
        if description:
            for entry in tools:
                if entry["function"]["name"] in WRITERS:
                    fn = entry["function"]
                    fn["description"] += " " + description
                    fn["parameters"]["properties"]["note_tag"] = {"type": "string"}
        return tools

    def write(self, name: str = "tools.json", **options: Any) -> Path:
        path = self.root / name
        path.write_text(json.dumps({"tools": self.entries(**options)}, indent=2))
        return path


@contextmanager
def effects_project(root: Path) -> Iterator[Project]:
    """The project in ``root``, its stub server running."""
    (root / "tools.py").write_text(TOOLS_PY)
    (root / "notes.txt").write_text("original\n")
    stub = Stub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), stub.handler())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Project(root, stub, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()
