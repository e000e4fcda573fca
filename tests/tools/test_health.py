"""A tool that cannot run stops after a few identical failures of the environment (issue 29,
item 4); a tool that ran once, or that rejects values, is never stopped."""

from __future__ import annotations

import asyncio

import pytest

from play2prompt.errors import UserError
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.health import FAIL_AFTER, ToolCannotRun, ToolHealth, fix_for
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.runtime import ToolRuntime

MODULE = '''
import os
def dies(n: int):
    os._exit(3)
def picky(n: int):
    raise ValueError("n must be below 10")
def flaky(n: int):
    if n > 0:
        os._exit(3)
    return n
'''


def _tool(name: str) -> Tool:
    return Tool(name, "", {"type": "object", "properties": {"n": {"type": "integer"}}},
                {"python": f"h_tools.py:{name}"}, side_effects=False)


@pytest.fixture
def runtime(tmp_path):
    (tmp_path / "h_tools.py").write_text(MODULE)
    rt = ToolRuntime([_tool(n) for n in ("dies", "picky", "flaky")],
                     ExecContext(base_dir=tmp_path, default_timeout=10.0))
    yield rt
    rt.close()


def _run(rt: ToolRuntime, name: str, n: int) -> Observation:
    return asyncio.run(rt.run(Invocation(name, {"n": n})))


def test_a_tool_that_always_dies_stops_with_one_line_naming_cause_and_fix(runtime):
    for n in range(FAIL_AFTER - 1):
        assert _run(runtime, "dies", n).error_type == "crash"
    with pytest.raises(ToolCannotRun) as caught:
        _run(runtime, "dies", 99)
    message = str(caught.value)
    assert isinstance(caught.value, UserError) and "\n" not in message
    assert "cannot run tool 'dies'" in message and "exit code 3" in message and "fix:" in message
    with pytest.raises(ToolCannotRun):          # and it stays stopped, without executing
        _run(runtime, "dies", 100)
    assert runtime.executions == FAIL_AFTER


def test_a_tool_that_rejects_values_or_ran_once_is_never_stopped(runtime):
    for n in range(FAIL_AFTER + 2):
        assert _run(runtime, "picky", n).error_type == "exception"
    assert _run(runtime, "flaky", 0).ok
    for n in range(1, FAIL_AFTER + 3):
        assert _run(runtime, "flaky", n).error_type == "crash"


def test_a_server_runtime_never_stops_a_tool(tmp_path):
    (tmp_path / "h_tools.py").write_text(MODULE)
    rt = ToolRuntime([_tool("dies")], ExecContext(base_dir=tmp_path), fail_after=None)
    try:
        for n in range(FAIL_AFTER + 1):
            assert _run(rt, "dies", n).error_type == "crash"
    finally:
        rt.close()


def test_only_identical_failures_in_a_row_count():
    health = ToolHealth("t")
    for text in ("no answer within 10 s", "tool process died (exit code 1)",
                 "no answer within 10 s"):
        obs = Observation.failure("timeout" if "answer" in text else "crash", text)
        health.record(obs)
        health.check(obs)                      # never three of the same in a row
    same = Observation.failure("crash", "tool process died (pid 41): boom")
    for pid in (42, 43):  # numbers (pids, times) do not make failures different
        health.record(Observation.failure("crash", f"tool process died (pid {pid}): boom"))
    with pytest.raises(ToolCannotRun):
        health.record(same)
        health.check(same)


@pytest.mark.parametrize("error, fix", [
    ("cannot start MCP server `uvx`: command not found (No such file or directory)",
     "full path"),
    ("cannot load 'x:f': ModuleNotFoundError: No module named 'x'", "install the module"),
    ("no answer within 10 s (killed)", "timeout"),
])
def test_the_fix_fits_the_cause(error, fix):
    assert fix in fix_for(Observation.failure("crash", error))


def test_a_down_endpoint_fails_the_same_way_whatever_the_values():
    # urllib3's text names the query and the connection object's address: neither makes two
    # failures of an unreachable server different, so the stop does not depend on their order
    def down(item: str, address: str) -> Observation:
        return Observation.failure("unavailable", (
            f"cannot reach http://127.0.0.1:9/x: HTTPConnectionPool(host='127.0.0.1', port=9): "
            f"Max retries exceeded with url: /x?item={item} (Caused by NewConnectionError("
            f"'<urllib3.connection.HTTPConnection object at {address}>: Failed to establish a "
            f"new connection: [Errno 111] Connection refused'))"))

    health = ToolHealth("down_item")
    for item, address in (("pen", "0x7f3ab2c0"), ("ink%20pot", "0x7fe41d90"), ("a", "0xdeadbeef")):
        health.record(down(item, address))
    assert health.streak == FAIL_AFTER
    with pytest.raises(ToolCannotRun, match="3 executions failed the same way"):
        health.check(down("a", "0x1"))
