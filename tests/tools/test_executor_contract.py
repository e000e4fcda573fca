"""Every registered executor keeps the executor contract (play2prompt.testing.executors):
python, callable (in process), http on loopback, sqlite, mcp (a real stdio server), simulated,
and the executors
benchmarks register (StableToolBench's). An executor without a case here fails
``test_every_registered_executor_has_a_case``."""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from play2prompt.lm.fake import FakeLM
from play2prompt.testing.executors import ExecutorCase, ExecutorContract
from play2prompt.tools.executors._base import ExecContext, available_executors
from play2prompt.tools.model import Tool

X = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}


def _tool(name, executor, schema=X):
    return Tool(name, f"{name} (contract)", schema, executor)


def python_case(tmp_path):
    (tmp_path / "mods.py").write_text("def double(x):\n    return 2 * x\n"
                                      "def fail(x):\n    raise ValueError('no')\n")
    ctx = ExecContext(base_dir=tmp_path, default_timeout=10)
    return ExecutorCase(_tool("double", {"python": "mods.py:double"}), ctx, {"x": 3}, {"x": 3},
                        lambda out: out == 6, _tool("fail", {"python": "mods.py:fail"}))


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the http.server API
        url = urlparse(self.path)
        if url.path != "/double":
            self.send_response(404)
            self.end_headers()
            return
        x = int(parse_qs(url.query)["x"][0])
        body = json.dumps({"value": 2 * x}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_url():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def http_case(tmp_path, http_url):
    return ExecutorCase(_tool("double", {"http": {"url": f"{http_url}/double"}}),
                        ExecContext(base_dir=tmp_path), {"x": 4}, {"x": 4},
                        lambda out: out == {"value": 8},
                        _tool("gone", {"http": {"url": f"{http_url}/gone"}}))


def sqlite_case(tmp_path):
    conn = sqlite3.connect(tmp_path / "n.sqlite")
    conn.executescript("CREATE TABLE n (x INTEGER, d INTEGER);"
                       "INSERT INTO n VALUES (1, 2), (2, 4), (3, 6);")
    conn.commit()
    conn.close()
    spec = {"database": "n.sqlite", "sql": "SELECT d FROM n WHERE x = :x",
            "params": {"x": "integer"}}
    broken = dict(spec, sql="SELEC d FROM n WHERE x = :x")
    return ExecutorCase(_tool("double", {"sqlite": spec}), ExecContext(base_dir=tmp_path),
                        {"x": 2}, {"x": 2}, lambda out: json.dumps(out).count("4") == 1,
                        _tool("broken", {"sqlite": broken}))


@pytest.fixture(scope="module")
def mcp_ctx():
    """One context, so one server process, for the module (starting one costs ~1 s)."""
    pytest.importorskip("mcp")
    ctx = ExecContext(base_dir=Path(__file__).parent, default_timeout=20)
    yield ctx
    ctx.close()


def mcp_case(tmp_path, ctx):
    server = {"command": sys.executable, "args": ["mcp_tiny_server.py"]}
    ab = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
          "required": ["a", "b"]}
    city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    return ExecutorCase(_tool("add", {"mcp": server}, ab), ctx, {"a": 2, "b": 3},
                        {"city": "Atlantis"}, lambda out: "5" in json.dumps(out),
                        _tool("city_info", {"mcp": server}, city))


def simulated_case(tmp_path):
    schema = {"type": "object", "properties": {"player": {"type": "string"}},
              "required": ["player"]}
    lm = FakeLM(rules=[("Nobody-XYZ", "not json at all")], default={"response": {"rank": 7}})
    tool = _tool("player_rank", {"simulated": {"template_response": {"rank": "int"}}}, schema)
    return ExecutorCase(tool, ExecContext(base_dir=tmp_path, lm=lm), {"player": "Sinner"},
                        {"player": "Nobody-XYZ"}, lambda out: out == {"rank": 7})


def stabletoolbench_case(tmp_path):
    from play2prompt.adapters.stabletoolbench.data import Source, api_tool
    from tests.adapters.stb_fixtures import slice_queries, write_cache

    query = next(q for q in slice_queries() if q.query_id == "588")
    api = next(a for a in query.apis if a["api_name"] == "Transfermarkt search")
    write_cache(tmp_path / "cache")
    tool = api_tool(api, Source(tmp_path, None, tmp_path / "cache"), None, None)
    return ExecutorCase(tool, ExecContext(base_dir=tmp_path), {"name": "messi"},
                        {"name": "nobody"}, lambda out: "Lionel Messi" in json.dumps(out))


def _double(x):
    return 2 * x


def _fail(x):
    raise ValueError("no")


def callable_case(tmp_path):
    ctx = ExecContext(base_dir=tmp_path, default_timeout=10,
                      callables={"double": _double, "fail": _fail})
    return ExecutorCase(_tool("double", {"callable": "double"}), ctx, {"x": 3}, {"x": 3},
                        lambda out: out == 6, _tool("fail", {"callable": "fail"}))


CASES = {"python": python_case, "callable": callable_case, "http": http_case,
         "sqlite": sqlite_case, "mcp": mcp_case, "simulated": simulated_case,
         "stabletoolbench": stabletoolbench_case}


@pytest.fixture(autouse=True)
def _stb_slice(monkeypatch):
    from play2prompt.adapters.stabletoolbench.data import ENV_DIR
    from tests.adapters.stb_fixtures import slice_root

    monkeypatch.setenv(ENV_DIR, str(slice_root()))


@pytest.fixture(params=sorted(CASES))
def case(request, tmp_path):
    make = CASES[request.param]
    shared = {"http": "http_url", "mcp": "mcp_ctx"}.get(request.param)
    if shared:
        built = make(tmp_path, request.getfixturevalue(shared))
    else:
        built = make(tmp_path)
    yield built
    if request.param != "mcp":  # the module's server stays up for the next test
        built.ctx.close()


class TestEveryExecutor(ExecutorContract):
    pass


def test_every_registered_executor_has_a_case():
    assert set(available_executors()) <= set(CASES)
