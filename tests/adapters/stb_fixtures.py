"""Shared pieces of the StableToolBench tests: the slice, a cache fixture, a /virtual server and
a scripted fake LM that plays task model, simulator and judge."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

from play2prompt.adapters.stabletoolbench.data import default_root, load_queries, resolve_source
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.fake import FakeLM, prompt_text

# Keys exactly as StableToolBench's server writes them: Python str() of the argument dict.
# Written by hand (not produced by str()) so the test checks the reproduction.
CACHE_ENTRIES = {
    "{'name': 'messi'}": {"error": "", "response": {"Players": [{"name": "Lionel Messi"}]}},
    "{'name': \"O'Neil\", 'page': 2, 'exact': True, 'score': 2.5, 'club': None}":
        {"error": "", "response": "one player"},
    "{'name': 'nobody'}": {"error": "Message error...", "response": "{'message': 'quota'}"},
}


FIXTURE_SLICE = Path(__file__).parent / "fixtures" / "stabletoolbench"


def slice_root() -> Path:
    """The shared slice next to the checkout, else its copy among the test fixtures."""
    root = default_root()
    return root if root is not None and root.is_dir() else FIXTURE_SLICE


def slice_source():
    return resolve_source(slice_root())



def slice_queries(subset: str = "G1_instruction"):
    return load_queries(slice_source(), subset)


def write_cache(cache_dir: Path) -> Path:
    """The cache file of TheClique's 'Transfermarkt search' (category Data)."""
    path = cache_dir / "Data" / "theclique_for_Data" / "transfermarkt_search.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(CACHE_ENTRIES, indent=1))
    return path


class VirtualServer:
    """A tiny /virtual server on 127.0.0.1 (port 0) that records what it was sent."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({**body, "path": self.path})
                reply = json.dumps({"error": "", "response": {"from": "server",
                                                              "input": body["tool_input"]}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(reply.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/virtual"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


def scripted_lm(task: Callable[[ChatRequest], str], verdict: str = "Solved",
                simulated: Any = None) -> FakeLM:
    """A FakeLM answering by role: ``task(request)`` for the agent, a fixed simulated response,
    and the judge's ``verdict``."""

    def reply(request: ChatRequest, _index: int) -> Any:
        if request.role == "simulator":
            return {"response": simulated if simulated is not None else {"ok": True}}
        if request.role == "judge":
            return {"reason": "scripted", "answer_status": verdict}
        return task(request)

    return FakeLM(default=reply)


def react_text(action: str, args: dict[str, Any], thought: str = "step") -> str:
    return f"Thought: {thought}\nAction: {action}\nAction Input: {json.dumps(args)}"


def user_query(request: ChatRequest) -> str:
    return next(str(m["content"]) for m in request.messages if m["role"] == "user")


__all__ = ["CACHE_ENTRIES", "VirtualServer", "prompt_text", "react_text", "scripted_lm",
           "slice_queries", "slice_source", "user_query", "write_cache"]
