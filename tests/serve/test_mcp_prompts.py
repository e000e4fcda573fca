"""``p2p mcp`` puts the demos where clients read them: in the descriptions by default and as
MCP prompts (``prompts/list``, ``prompts/get``); it names itself at the package's version and
lists the annotations its runtime decides on (the stricter of the recorded and the live
ones), driven by the official ``mcp`` client in process and over stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from play2prompt import __version__
from play2prompt.cli import main
from play2prompt.results import load_run_result
from play2prompt.serve.mcp_server import build_server, served_tools
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import EXAMPLES
from tests.emit.stored import copy_tools_file, make_stored_run
from tests.extras import need
from tests.serve.stdio_server import p2p_mcp_params

mcp = need("mcp", "mcp")
need("mcp_types", "mcp")

WRITE_SERVER = Path(__file__).parents[1] / "tools" / "mcp_write_server.py"


@pytest.fixture
def run(tmp_path):
    return load_run_result(make_stored_run(tmp_path))


async def _in_process(run, script, **kwargs):
    tools = [t for t in load_tools(EXAMPLES / "tools.json") if t.name in run.tools]
    served = served_tools(run, tools, **kwargs)
    runtime = ToolRuntime(served.runtime_tools(), ExecContext(base_dir=EXAMPLES), store=None)
    try:
        async with mcp.Client(build_server(served, runtime)) as client:
            return await script(client)
    finally:
        runtime.close()


def test_demos_are_in_the_descriptions_and_prompts_by_default(run):
    async def script(client):
        tools = (await client.list_tools()).tools
        prompts = (await client.list_prompts()).prompts
        got = await client.get_prompt("loan_payment-examples")
        with pytest.raises(Exception) as unknown:
            await client.get_prompt("convert_units-examples")    # no demos: no prompt
        return tools, prompts, got, unknown, client.server_info

    tools, prompts, got, unknown, info = asyncio.run(_in_process(run, script))
    loan = next(t for t in tools if t.name == "loan_payment")
    assert loan.description.startswith(run.tools["loan_payment"].doc.description)
    assert loan.description.count("Request:") == 2
    assert [p.name for p in prompts] == ["loan_payment-examples"]
    assert prompts[0].title == "Examples of loan_payment"
    [message] = got.messages
    assert message.role == "user" and message.content.text.count("Request:") == 2
    assert '"principal": 250000' in message.content.text
    assert getattr(unknown.value, "code", None) == -32602
    assert info.name == "play2prompt" and info.version == __version__ != "1"


def test_no_demos_no_prompts_and_k_limits_them(run):
    async def none(client):
        return (await client.list_prompts()).prompts

    async def one(client):
        return (await client.get_prompt("loan_payment-examples")).messages[0].content.text

    assert asyncio.run(_in_process(run, none, demo_mode="none")) == []
    text = asyncio.run(_in_process(run, one, demo_mode="resources", demos=1))
    assert text.count("Request:") == 1


def _write_tools(tmp_path, capsys) -> Path:
    """The write server's tools file, ``erase_note`` recorded read-only (the server says
    destructive)."""
    tools = tmp_path / "project" / "tools.json"
    tools.parent.mkdir()
    log = tmp_path / "writes.jsonl"
    assert main(["tools", "from-mcp", "-o", str(tools), "--env", f"WRITE_LOG={log}", "--",
                 sys.executable, str(WRITE_SERVER)]) == 0
    capsys.readouterr()
    doc = json.loads(tools.read_text())
    for entry in doc["tools"]:
        if entry["function"]["name"] == "erase_note":
            entry["meta"]["mcp"]["annotations"] = {"readOnlyHint": True}
            entry["side_effects"] = False
    tools.write_text(json.dumps(doc))
    return tools


def test_p2p_mcp_over_stdio_serves_prompts_the_version_and_live_annotations(tmp_path,
                                                                             capsys):
    run_dir = make_stored_run(tmp_path / "runs")
    project = copy_tools_file(tmp_path / "examples")

    async def drive(tools_file):
        async with mcp.Client(p2p_mcp_params(run_dir, tools_file, tmp_path),
                              read_timeout_seconds=60) as client:
            prompts = (await client.list_prompts()).prompts
            got = [await client.get_prompt(p.name) for p in prompts]
            return (await client.list_tools()).tools, prompts, got, client.server_info

    tools, prompts, got, info = asyncio.run(asyncio.wait_for(drive(project), 120))
    loan = next(t for t in tools if t.name == "loan_payment")
    assert "Request:" in loan.description                   # the default: in the description
    assert [p.name for p in prompts] == ["loan_payment-examples"]
    assert "250000" in got[0].messages[0].content.text
    assert info.version == __version__

    written = _write_tools(tmp_path, capsys)
    tools, prompts, _, _ = asyncio.run(asyncio.wait_for(drive(written), 120))
    notes = {t.name: t.annotations for t in tools}
    assert notes["erase_note"].read_only_hint is False        # the server's, not the file's
    assert notes["erase_note"].destructive_hint is True
    assert notes["recent_notes"].read_only_hint is True and prompts == []
