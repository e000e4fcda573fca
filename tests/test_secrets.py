"""Issue 15's first reproduction: a tool whose errors carry a secret (an HTTP 401 echoing the
bearer token, a Python tool printing an environment secret) and an endpoint that is down. The
secret is in no published file (result.json, tools.optimized.json, the six exports, the
report), in no answer of ``p2p serve`` or ``p2p mcp``; the transient failure is no doc."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from play2prompt.cli import main
from play2prompt.results import load_run_result
from play2prompt.store.db import RunStore

TOKEN = "tok_9f8e7d6c5b4a3210zz"      # too short and plain for a pattern: only the run knows it
ENV = "P2P_TEST_SECRET_TOKEN"

TOOLS_PY = f'''
import os
def lookup(city: str) -> dict:
    raise PermissionError("city lookup denied for key " + os.environ.get("{ENV}", "(unset)"))
'''


class _Denied(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        if self.path.startswith("/busy"):
            self.send_response(503)
            body = b'{"error": "overloaded, try later"}'
        else:
            self.send_response(401)
            auth = self.headers.get("Authorization", "")
            body = json.dumps({"error": f"denied for {auth}"}).encode()
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _tool(name, description, param, executor):
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "required": [param],
                       "properties": {param: {"type": "string", "description": "a value"}}}},
        "executor": executor}


@pytest.fixture
def project(tmp_path, monkeypatch):
    server = HTTPServer(("127.0.0.1", 0), _Denied)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    monkeypatch.setenv(ENV, TOKEN)
    (tmp_path / "secret_tools.py").write_text(TOOLS_PY)
    auth = {"Authorization": "Bearer ${" + ENV + "}"}
    tools = {"tools": [
        _tool("lookup", "Look up a city.", "city",
              {"python": {"function": "secret_tools.py:lookup", "env": [ENV]}}),
        _tool("fetch_item", "Fetch an item.", "item",
              {"http": {"url": base + "/items", "headers": auth}}),
        _tool("busy_item", "Fetch a busy item.", "item",
              {"http": {"url": base + "/busy", "headers": auth}}),
        _tool("down_item", "Fetch from nowhere.", "item",
              {"http": {"url": "http://127.0.0.1:9/x", "headers": auth}}),
    ]}
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    yield tmp_path
    server.shutdown()


def _cli(*args):
    assert main([str(a) for a in args]) == 0


def _no_secret(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert TOKEN not in text, f"secret in {path}"
    return text


@pytest.fixture
def finished(project, monkeypatch):
    # the down endpoint must finish as a tool whose every call failed, so that the published
    # files show what its failures leave; the health check would stop it after three (its own
    # tests are in tests/tools/test_health.py)
    from play2prompt.tools.health import ToolHealth
    monkeypatch.setattr(ToolHealth, "check", lambda self, obs, fail_after=3: None)
    runs = project / "runs"
    _cli("optimize", project / "tools.json", "--generator", "fake", "--preset", "quick",
         "--runs-dir", runs, "--run-id", "leak", "-q")
    return project, runs, runs / "leak"


def test_no_secret_in_any_published_file(finished):
    project, runs, run_dir = finished
    docs = _no_secret(run_dir / "result.json")
    _no_secret(run_dir / "tools.optimized.json")
    result = json.loads(docs)["tools"]
    # the tool's own error did become a fact of the tool (the test would see a leak), scrubbed
    facts = json.dumps(result["lookup"]["stats"]["facts"])
    assert "lookup denied for key [redacted]" in facts
    # transient failures never become documentation
    for name in ("busy_item", "down_item"):
        doc = json.dumps(result[name]["doc"])
        assert "503" not in doc and "cannot reach" not in doc and "overloaded" not in doc
    # the raw run store (the resume log) still has it: that is what the scrubber is for
    store = RunStore(run_dir / "run.db", read_only=True)
    assert any(TOKEN in json.dumps(obs.to_dict()) for _, obs in store.executions("lookup"))
    store.close()

    _cli("export", run_dir, "--format", "all", "-o", project / "exports")
    exports = sorted((project / "exports").iterdir())
    # fifteen formats; the sidecars of openai, openai-responses, anthropic and the three
    # gateway override formats
    assert len(exports) == 21
    for path in exports:
        _no_secret(path)
    for fmt in ("openai", "markdown"):
        _cli("export", "leak", "--runs-dir", runs, "--format", fmt, "-o", project / f"one.{fmt}")
        _no_secret(project / f"one.{fmt}")
    _no_secret(project / "one.meta.json")

    _cli("report", run_dir)
    report = run_dir / "report"
    _no_secret(report / "report.html")
    assert "[redacted]" in _no_secret(report / "report.md")


def test_no_secret_in_serve_answers(finished):
    from fastapi.testclient import TestClient

    from play2prompt.serve.http import create_app

    _, _, run_dir = finished
    client = TestClient(create_app([load_run_result(run_dir)]))
    paths = ["/v1/runs", "/v1/runs/leak", "/v1/tools/lookup", "/v1/tools/fetch_item",
             "/v1/tools?format=openai&sidecar=true",
             *(f"/v1/tools?format={f}" for f in ("openai", "openai-responses", "anthropic",
                                                  "mcp", "dspy", "python", "llm", "markdown"))]
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200 and TOKEN not in answer.text, path


def test_no_secret_in_mcp_answers(finished):
    mcp = pytest.importorskip("mcp")
    pytest.importorskip("mcp_types")
    from play2prompt.serve.mcp_server import build_server, served_tools
    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.loading import load_tools
    from play2prompt.tools.runtime import ToolRuntime

    project, _, run_dir = finished
    served = served_tools(load_run_result(run_dir), load_tools(project / "tools.json"))
    runtime = ToolRuntime(served.runtime_tools(), ExecContext(base_dir=project), store=None)

    async def drive():
        async with mcp.Client(build_server(served, runtime)) as client:
            listed = (await client.list_tools()).tools
            calls = [await client.call_tool(n, {p: "Paris"}) for n, p in
                     (("lookup", "city"), ("fetch_item", "item"))]
            return listed, calls

    try:
        listed, calls = asyncio.run(drive())
    finally:
        runtime.close()
    assert all(TOKEN not in (t.description or "") for t in listed)
    for answer in calls:
        assert answer.is_error and "[redacted]" in answer.content[0].text
        assert TOKEN not in answer.content[0].text


def test_the_library_returns_the_published_result(project):
    from play2prompt.config import preset
    from play2prompt.emit import export_run
    from play2prompt.optimize import optimize
    from play2prompt.tools.loading import load_tools

    result = optimize(load_tools(project / "tools.json", select=["lookup"]), generator="fake",
                      config=preset("quick"), base_dir=project, runs_dir=project / "runs")
    assert TOKEN not in json.dumps(result.to_dict())
    assert TOKEN not in export_run(result, "python")


def test_no_secret_in_an_evaluation_folder(finished):
    project, runs, _ = finished
    queries = project / "q.jsonl"
    queries.write_text(json.dumps({"id": "q1", "query": "Look up Oslo", "calls": [
        {"name": "lookup", "arguments": {"city": "Oslo"}}]}) + "\n" + json.dumps(
        {"id": "q2", "query": "Fetch the pen", "calls": [
            {"name": "fetch_item", "arguments": {"item": "pen"}}]}) + "\n")
    out = project / "evalout"
    main(["eval", "tools", str(project / "tools.json"), "--queries", str(queries),
          "--prompts", "leak", "--runs-dir", str(runs), "--task-model", "fake", "-q",
          "--out", str(out)])
    written = [p for p in out.rglob("*") if p.is_file() and not p.name.startswith("run.db")]
    assert written
    texts = [_no_secret(path) for path in written]
    assert any("[redacted]" in t for t in texts)   # the secret was there, and was scrubbed
