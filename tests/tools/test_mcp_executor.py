"""The mcp executor against a real MCP server (tests/tools/mcp_tiny_server.py, over stdio):
good calls, tool errors, hangs past the timeout, a wedged server, servers that cannot start."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import ExecContext, make_executor
from play2prompt.tools.executors.mcp import McpConnection, result_output
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.runtime import ToolRuntime
from tests.extras import need

need("mcp", "mcp")
mcp_types = need("mcp_types", "mcp")

HERE = Path(__file__).resolve().parent
SERVER = {"command": sys.executable, "args": ["mcp_tiny_server.py"]}
SCHEMAS = {
    "add": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]},
    "city_info": {"type": "object", "properties": {"city": {"type": "string"}},
                  "required": ["city"]},
    "nap": {"type": "object", "properties": {"seconds": {"type": "number"}}},
    "freeze": {"type": "object", "properties": {"seconds": {"type": "number"}}},
    "shutdown": {"type": "object", "properties": {"code": {"type": "integer"}}},
}


def _connection(rt: ToolRuntime) -> McpConnection:
    """The runtime's one server connection (its context also caches the live annotations)."""
    (conn,) = [r for r in rt.ctx.resources.values() if isinstance(r, McpConnection)]
    return conn


def mcp_tool(name: str, server: dict | None = None, **common) -> Tool:
    schema = SCHEMAS.get(name, {"type": "object", "properties": {}})
    return Tool(name, f"{name} on the tiny server", schema, {"mcp": dict(server or SERVER),
                                                             **common})


@pytest.fixture(scope="module")
def runtime():
    """One runtime (one server process) for the module: starting a server costs ~1 s."""
    tools = [mcp_tool("add"), mcp_tool("city_info"), mcp_tool("nap", timeout=0.5),
             mcp_tool("freeze", timeout=0.5), mcp_tool("shutdown"),
             Tool("plus", "add under another name", SCHEMAS["add"],
                  {"mcp": {**SERVER, "tool": "add"}})]
    rt = ToolRuntime(tools, ExecContext(base_dir=HERE, default_timeout=20.0))
    yield rt
    rt.close()


def run(rt: ToolRuntime, name: str, **arguments):
    return asyncio.run(rt.run(Invocation(name, arguments)))


def test_good_calls_return_the_servers_real_results(runtime):
    assert run(runtime, "add", a=2, b=40).output == 42          # {"result": 42} unwrapped
    city = run(runtime, "city_info", city="Lima")
    assert city.ok and city.output == {"city": "lima", "country": "Peru", "population": 9943800}
    assert run(runtime, "plus", a=1, b=1).output == 2          # "tool": the server's name
    # one session (one server process) shared by every tool of that server
    assert len([k for k in runtime.ctx.resources if k.startswith("mcp:")]) == 1


def test_concurrent_calls_share_the_session(runtime):
    async def many():
        return await asyncio.gather(*(runtime.run(Invocation("add", {"a": i, "b": 100}))
                                      for i in range(8)))

    assert [o.output for o in asyncio.run(many())] == [100 + i for i in range(8)]


def test_tool_error_is_an_error_observation(runtime):
    obs = run(runtime, "city_info", city="Atlantis")
    assert not obs.ok and obs.error_type == "exception"
    assert "unknown city: Atlantis" in obs.error
    assert run(runtime, "city_info", city="Paris").ok               # the server is fine


def test_hang_past_the_timeout_then_the_next_call_works(runtime):
    start = time.perf_counter()
    obs = run(runtime, "nap", seconds=5)
    assert obs.error_type == "timeout" and "no answer within 0.5 s" in obs.error
    assert "mcp_tiny_server.py" in obs.error and "\n" not in obs.error
    assert time.perf_counter() - start < 4
    conn = _connection(runtime)
    live = conn._live
    assert run(runtime, "add", a=3, b=4).output == 7
    assert conn._live is live            # a slow tool on a healthy server: no restart


def test_wedged_server_is_restarted_for_the_next_call(runtime):
    obs = run(runtime, "freeze", seconds=6)                # blocks the server's event loop
    assert obs.error_type == "timeout"
    conn = _connection(runtime)
    wedged = conn._live
    assert wedged.dead                                       # it did not answer a ping
    assert run(runtime, "add", a=5, b=6).output == 11      # a fresh server
    assert conn._live is not wedged


def test_server_that_dies_is_a_crash_then_restarted(runtime):
    obs = run(runtime, "shutdown", code=3)
    assert obs.error_type == "crash" and "\n" not in obs.error
    assert "mcp_tiny_server.py` closed the connection" in obs.error
    assert "(stderr: shutting down on request)" in obs.error
    assert run(runtime, "add", a=1, b=1).output == 2


def test_executions_are_cached_in_the_run_store(tmp_path, store):
    rt = ToolRuntime([mcp_tool("add")], ExecContext(base_dir=HERE), store)
    try:
        first = asyncio.run(rt.run(Invocation("add", {"a": 1, "b": 2})))
        again = asyncio.run(rt.run(Invocation("add", {"a": 1, "b": 2})))
    finally:
        rt.close()
    assert first.output == again.output == 3
    assert (rt.executions, rt.cache_hits) == (1, 1)
    assert store.execution_stats() == {"add": {"ok": 1, "total": 1}}


def test_sync_execute_and_close_ends_the_server():
    ctx = ExecContext(base_dir=HERE)
    ex = make_executor(mcp_tool("add"), ctx)
    assert ex.execute({"a": 20, "b": 22}).output == 42
    conn = next(iter(ctx.resources.values()))
    process_task = conn._live._task
    thread = conn._thread
    ctx.close()
    assert process_task.done() and not thread.is_alive() and ctx.resources == {}
    conn.close()                                             # closing twice is harmless


def test_missing_command_is_a_one_line_crash():
    ctx = ExecContext(base_dir=HERE)
    try:
        ex = make_executor(mcp_tool("add", {"command": "no-such-mcp-server", "args": ["--x"]}),
                           ctx)
        obs = ex.execute({"a": 1, "b": 2})
        assert obs.error_type == "crash" and "\n" not in obs.error
        assert "no-such-mcp-server --x" in obs.error and "command not found" in obs.error
        for _ in range(3):                      # gives up after 3 failed starts, still no raise
            obs = asyncio.run(ex.aexecute({"a": 1, "b": 2}))
        assert obs.error_type == "crash" and "gave up after 3 failed starts" in obs.error
    finally:
        ctx.close()


def test_server_that_exits_or_never_answers(tmp_path):
    ctx = ExecContext(base_dir=tmp_path)
    exits = {"command": sys.executable,
             "args": ["-c", "import sys; print('no config file', file=sys.stderr); sys.exit(3)"]}
    silent = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"],
              "start_timeout": 1}
    try:
        obs = make_executor(mcp_tool("add", exits), ctx).execute({"a": 1, "b": 2})
        assert obs.error_type == "crash" and "exited before answering" in obs.error
        assert "(stderr: no config file)" in obs.error and "\n" not in obs.error
        start = time.perf_counter()
        obs = asyncio.run(make_executor(mcp_tool("add", silent), ctx).aexecute({"a": 1, "b": 2}))
        assert obs.error_type == "timeout" and "did not start within 1 s" in obs.error
        assert time.perf_counter() - start < 10
    finally:
        start = time.perf_counter()
        ctx.close()
        assert time.perf_counter() - start < 10       # the silent process is ended


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_streamable_http_server(tmp_path):
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, str(HERE / "mcp_tiny_server.py"), str(port)],
                            stdout=log, stderr=subprocess.STDOUT)
    ctx = ExecContext()
    try:
        url = {"url": f"http://127.0.0.1:{port}/mcp"}
        for _ in range(100):                                   # until it listens
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        assert asyncio.run(make_executor(mcp_tool("add", url), ctx).aexecute(
            {"a": 4, "b": 5})).output == 9
        obs = make_executor(mcp_tool("city_info", url), ctx).execute({"city": "Oz"})
        assert obs.error_type == "exception" and "unknown city: Oz" in obs.error
    finally:
        ctx.close()
        proc.terminate()
        proc.wait(10)
        log.close()


def test_unreachable_url_is_a_crash_observation():
    ctx = ExecContext()
    try:
        obs = make_executor(mcp_tool("add", {"url": "http://127.0.0.1:9/mcp"}), ctx).execute({})
        assert obs.error_type == "crash" and "http://127.0.0.1:9/mcp" in obs.error
    finally:
        ctx.close()


@pytest.mark.parametrize("conf, message", [
    ({}, "exactly one of 'command' or 'url'"),
    ({"command": "x", "url": "http://a"}, "exactly one of 'command' or 'url'"),
    ({"command": "x", "args": "server.py"}, "'args' must be a list"),
    ({"command": "x", "env": ["A=1"]}, "'env' must be an object"),
    ("python server.py", "must be an object"),
])
def test_bad_specs_fail_at_load_on_one_line(conf, message):
    data = {"tools": [{"type": "function", "function": {"name": "t", "parameters": {}},
                       "executor": {"mcp": conf}}]}
    tools = parse_tools(data)
    from play2prompt.tools.loading import check_tool_executors

    with pytest.raises(ToolsFileError, match="tool 't': executor 'mcp'") as err:
        check_tool_executors(tools, HERE)
    assert message in str(err.value)
    # built anyway (e.g. from a stored run), the executor reports it per call, never raises
    obs = make_executor(tools[0], ExecContext()).execute({})
    assert obs.error_type == "unavailable" and message in obs.error


def _result(content, structured=None, is_error=False):
    blocks = [mcp_types.TextContent(type="text", text=t) for t in content]
    return mcp_types.CallToolResult(content=blocks, structured_content=structured,
                                    is_error=is_error)


def test_result_output_rules():
    assert result_output(_result(["3"], {"result": 3})) == 3
    assert result_output(_result(["0", "1"], {"result": [0, 1]})) == [0, 1]
    assert result_output(_result(['{"result": 3}'], {"result": 3})) == {"result": 3}
    assert result_output(_result(["ignored"], {"a": 1})) == {"a": 1}
    assert result_output(_result(['{"a": [1, 2]}'])) == {"a": [1, 2]}
    assert result_output(_result(["plain text"])) == "plain text"
    assert result_output(_result([])) is None
    with pytest.raises(Exception, match="boom") as err:
        result_output(_result(["boom"], is_error=True))
    assert err.value.error_type == "exception"
