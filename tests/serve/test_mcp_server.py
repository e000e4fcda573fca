"""The MCP server of the real tools: in process, and as ``p2p mcp`` over stdio driven by the
official ``mcp`` client (list tools, call one, bad arguments give an error result and the
server stays up)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
import time

import pytest

from play2prompt.results import load_run_result
from play2prompt.serve.mcp_server import build_server, served_tools
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import EXAMPLES, ROOT
from tests.emit.stored import copy_tools_file, make_stored_run
from tests.extras import need
from tests.serve.stdio_server import CLI, p2p_mcp_params

mcp = need("mcp", "mcp")
need("mcp_types", "mcp")



def _example(name):
    spec = importlib.util.spec_from_file_location("p2p_example_tools", EXAMPLES / "tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.fixture
def run(tmp_path):
    return load_run_result(make_stored_run(tmp_path))


async def _in_process(run, demo_mode, script):
    tools = [t for t in load_tools(EXAMPLES / "tools.json") if t.name in run.tools]
    served = served_tools(run, tools, demo_mode=demo_mode)
    runtime = ToolRuntime(served.runtime_tools(), ExecContext(base_dir=EXAMPLES), store=None)
    try:
        async with mcp.Client(build_server(served, runtime)) as client:
            return await script(client), served
    finally:
        runtime.close()


def test_in_process_tools_resources_and_errors(run):
    async def script(client):
        listed = (await client.list_tools()).tools
        ok = await client.call_tool("loan_payment", {"principal": 12000, "annual_rate": 4,
                                                     "years": 5})
        bad = await client.call_tool("loan_payment", {"principal": "a lot"})
        with pytest.raises(Exception) as unknown:  # a JSON-RPC error, as the spec says
            await client.call_tool("nope", {})
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        demos = await client.read_resource("p2p://demos/loan_payment")
        return listed, ok, bad, unknown, uris, demos

    (listed, ok, bad, unknown, uris, demos), served = asyncio.run(
        _in_process(run, "resources", script))
    assert served.skipped == ("get-forecast",)       # no executor for it in tools.json
    by_name = {t.name: t for t in listed}
    assert set(by_name) == {"loan_payment", "convert_units"}
    assert by_name["loan_payment"].description == run.tools["loan_payment"].doc.description
    props = by_name["loan_payment"].input_schema["properties"]
    assert props["annual_rate"]["description"].startswith("yearly interest rate in percent")
    expected = _example("loan_payment")(principal=12000, annual_rate=4, years=5)
    assert not ok.is_error and json.loads(ok.content[0].text) == expected
    assert ok.structured_content == expected
    assert bad.is_error and bad.content[0].text.startswith("schema:")
    assert getattr(unknown.value, "code", None) == -32602 and "nope" in str(unknown.value)
    assert uris == ["p2p://demos/loan_payment"]
    records = json.loads(demos.contents[0].text)
    assert records[1]["calls"][0]["arguments"] == {"principal": 12000, "annual_rate": 4,
                                                   "years": 5}


def test_in_process_demos_in_description(run):
    async def script(client):
        return (await client.list_tools()).tools, (await client.list_resources()).resources

    (listed, resources), _ = asyncio.run(_in_process(run, "description", script))
    loan = next(t for t in listed if t.name == "loan_payment")
    assert loan.description.startswith(run.tools["loan_payment"].doc.description)
    assert loan.description.count("Request:") == 2 and resources == []


def test_p2p_mcp_over_stdio(tmp_path):
    run_dir = make_stored_run(tmp_path / "runs")
    tools_file = copy_tools_file(tmp_path / "project")
    params = p2p_mcp_params(run_dir, tools_file, tmp_path)

    async def drive():
        async with mcp.Client(params, read_timeout_seconds=60) as client:
            listed = (await client.list_tools()).tools
            ok = await client.call_tool("loan_payment", {"principal": 250000,
                                                         "annual_rate": 6.5, "years": 30})
            bad = await client.call_tool("loan_payment", {"principal": 1, "years": "x"})
            crash = await client.call_tool("body_mass_index", {"weight": 70, "height": 1.75})
            again = await client.call_tool("convert_units", {"value": 5, "from_unit": "km",
                                                             "to_unit": "mi"})
            return listed, ok, bad, crash, again

    listed, ok, bad, crash, again = asyncio.run(asyncio.wait_for(drive(), 120))
    by_name = {t.name: t for t in listed}
    assert len(by_name) == 7                          # every tool of the file is served
    assert by_name["loan_payment"].description.startswith("Monthly payment of a fixed-rate")
    assert by_name["add_days"].description == "Date calculator."   # not in the run: as is
    expected = _example("loan_payment")(principal=250000, annual_rate=6.5, years=30)
    assert not ok.is_error and json.loads(ok.content[0].text) == expected
    assert bad.is_error and "'annual_rate' is a required property" in bad.content[0].text
    assert crash.is_error and crash.content[0].text.startswith("exception: ValueError")
    assert not again.is_error
    assert json.loads(again.content[0].text) == _example("convert_units")(5, "km", "mi")


def test_p2p_mcp_answers_malformed_json_rpc_per_the_spec(tmp_path):
    import subprocess

    run_dir = make_stored_run(tmp_path / "runs")
    tools_file = copy_tools_file(tmp_path / "project")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}
    lines = ["this is not json", '{"jsonrpc": "2.0", "id": 7, "method": 5}', "[1, 2]",
             '{"jsonrpc": "2.0", "method": "tools/list", "id": true', json.dumps(initialize)]
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "mcp", str(run_dir), "--tools", str(tools_file)],
        input="\n".join(lines) + "\n", capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=120)
    replies = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert [r.get("error", {}).get("code") for r in replies[:4]] == [-32700, -32600, -32600,
                                                                     -32700]
    assert [r["id"] for r in replies[:4]] == [None, 7, None, None]
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert replies[4]["id"] == 1 and replies[4]["result"]["serverInfo"]["name"] == "play2prompt"


def _raw_session(tmp_path, lines, tools_file=None):
    """``p2p mcp`` fed raw lines after an initialize: its stdout replies and its stderr."""
    import subprocess

    run_dir = make_stored_run(tmp_path / "runs")
    tools_file = tools_file or copy_tools_file(tmp_path / "project")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}
    lines = [json.dumps(initialize), '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
             *lines, '{"jsonrpc": "2.0", "id": 99, "method": "ping"}']
    # stdin stays open until every request with an id is answered: a client that closes it
    # at once may lose answers still in flight (the SDK's stdio server stops at end of input)
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "mcp", str(run_dir), "--tools", str(tools_file)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=tmp_path)
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    replies, deadline = [], time.monotonic() + 120
    while time.monotonic() < deadline and not any(r.get("id") == 99 for r in replies):
        line = proc.stdout.readline()
        if not line:
            break
        if line.strip():
            replies.append(json.loads(line))
    proc.stdin.close()
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=60)
    replies += [json.loads(line) for line in out.splitlines() if line.strip()]
    return replies, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_p2p_mcp_answers_bad_ids_bad_params_and_unknown_tools_per_the_spec(tmp_path):
    replies, _ = _raw_session(tmp_path, [
        '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": "x"}',
        '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": '
        '{"name": "nope", "arguments": {}}}'])
    errors = sorted(((r["id"], r.get("error", {}).get("code")) for r in replies
                     if r.get("id") not in (1, 99)), key=lambda e: e[0] or 0)
    assert errors == [(None, -32600), (3, -32602), (4, -32602)]


def test_p2p_mcp_checks_its_tools_start_before_it_is_ready(tmp_path):
    project = tmp_path / "project"
    tools_file = copy_tools_file(project)
    doc = json.loads(tools_file.read_text())
    doc["tools"][0]["executor"] = {"mcp": {"command": "no-such-command-p2p"}}
    tools_file.write_text(json.dumps(doc))
    replies, proc = _raw_session(tmp_path, [], tools_file)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and replies == [] and "ready" not in proc.stderr
    assert err[-1].startswith("error: cannot run tool 'convert_units': cannot start MCP server")
    assert "no-such-command-p2p" in err[-1] and "fix: check the executor's command" in err[-1]


def test_a_module_printing_at_import_leaves_the_json_rpc_stream_clean(tmp_path):
    project = tmp_path / "project"
    tools_file = copy_tools_file(project)
    module = project / "tools.py"
    module.write_text(module.read_text() + '\nprint("hello from the tools module")\n')
    replies, proc = _raw_session(tmp_path, [], tools_file)
    assert "hello" not in proc.stdout and replies[-1] == {"jsonrpc": "2.0", "id": 99,
                                                          "result": {}}
