"""Observations: transient failures told apart, sizes bounded, large outputs stored once."""

import asyncio
import json

import pytest

from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation, Observation, Tool
from play2prompt.tools.observations import cap, is_transient
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import module_context

BIG_TOOLS = '''
CALLS = []
def big(n: int) -> str:
    return str(n) + ("x" * 5_000_000)
def flaky(n: int):
    import os
    marker = os.path.join(os.path.dirname(__file__), "up")
    if not os.path.exists(marker):
        raise ConnectionRefusedError("connection refused by 127.0.0.1:8799")
    return n
'''


@pytest.mark.parametrize("obs, transient", [
    (Observation.failure("timeout", "no answer within 1 s (killed)"), True),
    (Observation.failure("crash", "tool process died (killed by signal SIGKILL)"), True),
    (Observation.failure("unavailable", "cannot reach http://127.0.0.1:8799/x"), True),
    (Observation.failure("http_5xx", "HTTP 503 from http://h/x: busy"), True),
    (Observation.failure("exception", "ConnectionError: Max retries exceeded with url: /x "
                                      "(Caused by NewConnectionError(...))"), True),
    (Observation.failure("http", "HTTP 404 from http://h/items/7: not here"), False),
    (Observation.failure("exception", "ValueError: unknown unit 'parsec' (known: m, km)"), False),
    (Observation.failure("schema", "'x' is a required property"), False),
    (Observation.success({"error": "connection refused"}), False),
])
def test_is_transient(obs, transient):
    assert is_transient(obs) is transient


def test_cap_marks_the_full_size():
    obs = cap(Observation.success({"rows": ["y" * 50] * 100}), 500)
    assert isinstance(obs.output, str) and len(obs.output) == 500
    assert obs.output.startswith('{"rows": ["yyy') and obs.output.endswith("chars]")
    full = len(json.dumps({"rows": ["y" * 50] * 100}))
    assert f"truncated: {full} chars" in obs.output
    err = cap(Observation.failure("exception", "E" * 1000), 200)
    assert len(err.error) == 200 and "truncated: 1000 chars" in err.error
    small = Observation.success({"a": 1})
    assert cap(small, 500) is small and cap(small, None) is small


@pytest.fixture
def big_ctx(tmp_path):
    with module_context(tmp_path, "big_tools.py", BIG_TOOLS, default_timeout=20.0,
                        observation_limit=10_000) as ctx:
        yield ctx


def _tool(name):
    return Tool(name, "", {"type": "object", "properties": {"n": {"type": "integer"}}},
                {"python": f"big_tools.py:{name}"})


def test_a_5mb_output_is_capped_and_stored_once(tmp_path, big_ctx):
    store = RunStore(tmp_path / "run" / "run.db")
    runtime = ToolRuntime([_tool("big")], big_ctx, store)
    for n in range(6):
        obs = asyncio.run(runtime.run(Invocation("big", {"n": n})))
        assert obs.ok and len(obs.output) == 10_000
        assert obs.output.endswith(f"...[truncated: {5_000_001} chars]")
        # the search keeps the observation in its candidates too: it must not be copied
        store.put_candidate(f"c{n}", tool="big", stage="play", iteration=0, parent=None,
                            state="valid", reward=None,
                            payload={"attempts": [{"observation": obs.to_dict()}]})
        store.put_candidate(f"e{n}", tool="big", stage="example", iteration=0, parent=None,
                            state="kept", reward=1.0, payload={"observation": obs.to_dict()})
    rows = store._query("SELECT COUNT(*), SUM(size) FROM blobs")[0]
    assert rows[0] == 6 and rows[1] < 6 * 10_100                   # each output once
    sizes = store._query("SELECT SUM(LENGTH(observation)) FROM executions")[0][0]
    payloads = store._query("SELECT SUM(LENGTH(payload)) FROM candidates")[0][0]
    assert sizes < 6 * 400 and payloads < 12 * 400                 # references, not copies
    # reading resolves the references
    again = store.get_execution(Invocation("big", {"n": 3}).key())
    assert again.output == asyncio.run(runtime.run(Invocation("big", {"n": 3}))).output
    payload = store.candidates("big", "play")[0]["payload"]
    assert payload["attempts"][0]["observation"]["output"].startswith("0xxxx")
    store.close()
    db_bytes = sum(p.stat().st_size for p in (tmp_path / "run").glob("run.db*"))
    assert db_bytes < 1_000_000


def test_blobs_travel_with_exported_rows(tmp_path, big_ctx):
    worker = RunStore(tmp_path / "w.db")
    runtime = ToolRuntime([_tool("big")], big_ctx, worker)
    obs = asyncio.run(runtime.run(Invocation("big", {"n": 1})))
    main = RunStore(tmp_path / "main.db")
    main.import_rows(worker.export_rows("big"))
    assert main.get_execution(Invocation("big", {"n": 1}).key()).output == obs.output


def test_a_transient_failure_is_tried_again_not_served_from_the_log(tmp_path, big_ctx):
    store = RunStore(tmp_path / "run.db")
    runtime = ToolRuntime([_tool("flaky")], big_ctx, store)
    first = asyncio.run(runtime.run(Invocation("flaky", {"n": 4})))
    assert not first.ok and is_transient(first)
    (tmp_path / "up").write_text("")
    again = asyncio.run(ToolRuntime([_tool("flaky")], big_ctx, store).run(
        Invocation("flaky", {"n": 4})))
    assert again.ok and again.output == 4
    third = ToolRuntime([_tool("flaky")], big_ctx, store)     # a success is served from the log
    assert asyncio.run(third.run(Invocation("flaky", {"n": 4}))).output == 4
    assert third.executions == 0
