"""Issue 29, item 6: ``p2p mcp`` is a faithful proxy of the servers it fronts: each tool's
``title``, annotations and ``outputSchema`` as the original server lists them, structured
content that schema describes, an unknown tool a JSON-RPC -32602, and arguments checked no
more strictly than the original server (``max_count: "2"`` reaches the server, which coerces
it; a Python tool takes it as pydantic's lax mode would)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from play2prompt.adapters.mcp import list_server_tools, load_mcp_tools, server_conf
from play2prompt.results import load_run_result
from play2prompt.serve.mcp_server import build_server, served_tools
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.executors._mcp_session import ServerSpec
from play2prompt.tools.loading import dump_tools, load_tools
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from play2prompt.tools.validate import lax_arguments
from tests.conftest import EXAMPLES
from tests.emit.stored import make_stored_run
from tests.extras import need

mcp = need("mcp", "mcp")
need("mcp_types", "mcp")

WRITE_SERVER = Path(__file__).parents[1] / "tools" / "mcp_write_server.py"


def _serve(served, runtime, script):
    async def go():
        async with mcp.Client(build_server(served, runtime)) as client:
            return await script(client)
    try:
        return asyncio.run(go())
    finally:
        runtime.close()


def test_proxy_keeps_what_the_server_lists_and_its_coercion(tmp_path):
    log = tmp_path / "writes.jsonl"
    env = {"WRITE_LOG": str(log)}
    imported = load_mcp_tools(sys.executable, [str(WRITE_SERVER)], base_dir=tmp_path, env=env)
    (tmp_path / "tools.json").write_text(json.dumps(dump_tools(imported)))
    tools = load_tools(tmp_path / "tools.json")           # through the tools file
    run = load_run_result(make_stored_run(tmp_path / "runs"))
    served = served_tools(run, tools)
    runtime = ToolRuntime(served.runtime_tools(), ExecContext(base_dir=tmp_path), store=None,
                          fail_after=None, lenient=True)

    async def script(client):
        listed = (await client.list_tools()).tools
        notes = await client.call_tool("recent_notes", {"max_count": "3"})   # validated too
        erased = await client.call_tool("erase_note", {"index": "1"})
        bad = await client.call_tool("erase_note", {"index": "first"})
        with pytest.raises(Exception) as unknown:
            await client.call_tool("nope", {})
        return listed, notes, erased, bad, unknown

    listed, notes, erased, bad, unknown = _serve(served, runtime, script)
    spec = ServerSpec.from_conf(server_conf(sys.executable, [str(WRITE_SERVER)], env=env,
                                            base_dir=tmp_path), tmp_path)
    original = {t.name: t for t in list_server_tools(spec)}
    proxied = {t.name: t for t in listed}
    assert set(proxied) == set(original) == {"recent_notes", "erase_note"}
    for name, tool in original.items():
        assert proxied[name].title == tool.title and tool.title
        assert proxied[name].annotations == tool.annotations and tool.annotations
        assert proxied[name].output_schema == tool.output_schema and tool.output_schema
    assert proxied["erase_note"].annotations.destructive_hint is True
    assert not notes.is_error and notes.structured_content == {
        "result": ["buy milk", "call Ada", "fix the roof"]}
    assert not erased.is_error and erased.structured_content == {"result": "erased note 1"}
    assert [json.loads(line) for line in log.read_text().splitlines()] == [{"index": 1}]
    assert bad.is_error and "index" in bad.content[0].text         # the server's own word
    assert getattr(unknown.value, "code", None) == -32602


def test_proxy_coerces_python_arguments_as_a_lax_server(tmp_path):
    run = load_run_result(make_stored_run(tmp_path))
    tools = [t for t in load_tools(EXAMPLES / "tools.json") if t.name == "loan_payment"]
    served = served_tools(run, tools)

    def runtime(lenient):
        return ToolRuntime(served.runtime_tools(), ExecContext(base_dir=EXAMPLES), store=None,
                           fail_after=None, lenient=lenient)

    call = {"principal": "12000", "annual_rate": "4", "years": "5"}

    async def script(client):
        return await client.call_tool("loan_payment", call)

    loose = _serve(served, runtime(True), script)
    exact = runtime(False)
    try:
        expected = exact.run_sync(Invocation("loan_payment", {"principal": 12000,
                                                              "annual_rate": 4, "years": 5}))
        strict = exact.run_sync(Invocation("loan_payment", call))
    finally:
        exact.close()
    assert not loose.is_error and loose.structured_content == expected.output
    assert strict.error_type == "schema"                    # play keeps checking strictly


@pytest.mark.parametrize("kind, given, taken", [
    ("integer", "2", 2), ("integer", " -3 ", -3), ("integer", "2.5", "2.5"),
    ("integer", "two", "two"), ("number", "2.5", 2.5), ("number", "2", 2),
    ("number", "nan", "nan"), ("number", "1e999", "1e999"), ("boolean", "true", True),
    ("boolean", "No", False), ("boolean", "maybe", "maybe"), (["integer", "string"], "2", "2"),
    ("string", "2", "2"), ("integer", 2, 2), ("integer", "", ""),
])
def test_lax_arguments(kind, given, taken):
    schema = {"type": "object", "properties": {"x": {"type": kind}}}
    assert lax_arguments(schema, {"x": given, "other": "7"}) == {"x": taken, "other": "7"}
