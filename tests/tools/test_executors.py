"""Executors: a tool that raises, hangs or crashes becomes an observation; HTTP for real."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from play2prompt.tools.executors._base import make_executor
from play2prompt.tools.model import Tool
from tests.conftest import module_context

SLOW = '''
import os, time
def slow(seconds: float = 5):
    time.sleep(seconds)
    return "done"
def boom(x: int = 1):
    raise RuntimeError("kaput")
def die():
    os._exit(3)
def echo(**kw):
    return {"got": kw}
def factorial(n: int = 3000):
    import math
    return math.factorial(n)
'''


@pytest.fixture
def ctx(tmp_path):
    with module_context(tmp_path, "slow_tools.py", SLOW, default_timeout=1.0) as c:
        yield c


def _tool(name, executor):
    return Tool(name, "", {"type": "object", "properties": {}}, executor)


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_hang_becomes_timeout_and_worker_recovers(ctx, isolation):
    slow = make_executor(_tool("slow", {"python": "slow_tools.py:slow",
                                        "isolation": isolation}), ctx)
    start = time.perf_counter()
    obs = slow.execute({"seconds": 30}, timeout=0.5)
    assert not obs.ok and obs.error_type == "timeout" and time.perf_counter() - start < 5
    assert slow.execute({"seconds": 0}).output == "done"


def test_exception_and_crash(ctx):
    boom = make_executor(_tool("boom", {"python": "slow_tools.py:boom"}), ctx)
    obs = boom.execute({})
    assert not obs.ok and obs.error_type == "exception" and "RuntimeError: kaput" in obs.error
    die = make_executor(_tool("die", {"python": "slow_tools.py:die"}), ctx)
    obs = die.execute({})
    assert not obs.ok and obs.error_type == "crash"
    assert obs.error.startswith("tool process died (exit code 3)")
    assert boom.execute({}).error_type == "exception"    # a fresh worker took over


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        if self.path.startswith("/items/42"):
            body = json.dumps({"id": 42, "query": self.path.split("?")[-1]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
        else:
            body = b"not here"
            self.send_response(404)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_http_executor(ctx):
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        tool = _tool("item", {"http": {"url": base + "/items/{item_id}", "method": "GET"}})
        ex = make_executor(tool, ctx)
        obs = ex.execute({"item_id": 42, "verbose": "yes"})
        assert obs.ok and obs.output == {"id": 42, "query": "verbose=yes"}
        missing = ex.execute({"item_id": 7})
        assert not missing.ok and missing.error_type == "http" and "404" in missing.error
    finally:
        server.shutdown()
    down = make_executor(_tool("down", {"http": "http://127.0.0.1:9/x"}), ctx)
    obs = down.execute({})
    assert not obs.ok and obs.error_type == "unavailable" and "cannot reach" in obs.error


def test_an_output_too_long_for_str_is_kept_exactly_in_hex(ctx, tmp_path):
    # math.factorial(3000) has 9131 digits: str() refuses it, so JSON could not store it
    import asyncio
    import math

    from play2prompt.store.db import RunStore
    from play2prompt.tools.model import Invocation
    from play2prompt.tools.runtime import ToolRuntime

    store = RunStore(tmp_path / "run.db")
    tool = _tool("factorial", {"python": "slow_tools.py:factorial"})
    runtime = ToolRuntime([tool], ctx, store)
    obs = asyncio.run(runtime.run(Invocation("factorial", {"n": 3000})))
    assert obs.ok and obs.output.startswith(hex(math.factorial(3000)) + " (an integer of about")
    again = ToolRuntime([tool], ctx, store)              # served from the store's log
    assert asyncio.run(again.run(Invocation("factorial", {"n": 3000}))).output == obs.output
    assert again.executions == 0
    small = asyncio.run(runtime.run(Invocation("factorial", {"n": 20})))
    assert small.output == 2432902008176640000
    store.close()


def test_callable_executor_runs_the_function_in_process(ctx):
    """``{"callable": key}``: the caller's own function; output, exception, hang, async, and a
    missing callable each become an observation."""
    import asyncio

    seen = []

    def double(x: int) -> dict:
        seen.append(x)
        return {"twice": 2 * x}

    def boom(x: int) -> None:
        raise ValueError(f"bad x {x}")

    def hang(x: int) -> None:
        time.sleep(30)

    async def later(x: int) -> int:
        await asyncio.sleep(0)
        return x + 1

    ctx.callables.update(double=double, boom=boom, hang=hang, later=later)
    run = {name: make_executor(_tool(name, {"callable": name}), ctx)
           for name in ("double", "boom", "hang", "later", "gone")}
    assert run["double"].execute({"x": 4}).output == {"twice": 8} and seen == [4]
    obs = run["boom"].execute({"x": 1})
    assert not obs.ok and obs.error_type == "exception" and obs.error == "ValueError: bad x 1"
    start = time.perf_counter()
    obs = run["hang"].execute({"x": 1}, timeout=0.3)
    assert obs.error_type == "timeout" and time.perf_counter() - start < 5
    assert run["later"].execute({"x": 1}).output == 2
    obs = run["gone"].execute({"x": 1})
    assert obs.error_type == "unavailable" and "in-process" in obs.error
    assert asyncio.run(run["double"].aexecute({"x": 5})).output == {"twice": 10}
