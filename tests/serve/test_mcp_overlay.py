"""``p2p mcp RUN --tools tools.json`` as an overlay in front of an existing MCP server, the way
the README says: ``p2p tools from-mcp`` writes the server's tools file, a run optimized one of
its tools, and ``p2p mcp`` (a real process over stdio, driven by the official client) lists
that tool with the run's docs, every other tool as the server lists it, and passes each call
to the server. The same run's ``toolhive-override`` export says the same to a gateway."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from play2prompt.agent.prompt import Demo
from play2prompt.cli import main
from play2prompt.emit import export_run
from play2prompt.results import RunResult, ToolResult, load_run_result
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, ToolDoc
from tests.extras import need
from tests.serve.stdio_server import p2p_mcp_params

mcp = need("mcp", "mcp")
need("mcp_types", "mcp")

WRITE_SERVER = Path(__file__).parents[1] / "tools" / "mcp_write_server.py"
OPTIMIZED = ToolDoc("The latest notes, newest first: call it to read what the user wrote "
                    "down recently.", {"max_count": "how many notes to return (default 2)"})


def _run_over(tools_file: Path, runs: Path) -> Path:
    """A finished run that optimized ``recent_notes`` only (its doc changed, one demo)."""
    tool = next(t for t in load_tools(tools_file) if t.name == "recent_notes")
    demo = Demo("What did I note lately? Three please.",
                (Invocation("recent_notes", {"max_count": 3}),))
    result = ToolResult("recent_notes", tool, OPTIMIZED, (demo,), doc_changed=True,
                        doc_reason="rewrite")
    run_dir = runs / "overlay"
    RunResult("overlay", run_dir, {"recent_notes": result}).write()
    store = RunStore(run_dir / DB_NAME)
    store.set_meta("run_id", "overlay")
    store.set_meta("base_dir", str(tools_file.parent))
    store.set_meta("status", "done")
    store.close()
    return run_dir


def test_p2p_mcp_overlays_an_mcp_server(tmp_path, capsys):
    log = tmp_path / "writes.jsonl"
    tools_file = tmp_path / "project" / "tools.json"
    assert main(["tools", "from-mcp", "-o", str(tools_file), "--env", f"WRITE_LOG={log}",
                 "--", sys.executable, str(WRITE_SERVER)]) == 0
    capsys.readouterr()
    run_dir = _run_over(tools_file, tmp_path / "runs")
    params = p2p_mcp_params(run_dir, tools_file, tmp_path)

    async def drive():
        async with mcp.Client(params, read_timeout_seconds=60) as client:
            listed = (await client.list_tools()).tools
            notes = await client.call_tool("recent_notes", {"max_count": 3})
            erased = await client.call_tool("erase_note", {"index": 2})
            return listed, notes, erased

    listed, notes, erased = asyncio.run(asyncio.wait_for(drive(), 120))
    by_name = {t.name: t for t in listed}
    assert set(by_name) == {"recent_notes", "erase_note"}
    recent = by_name["recent_notes"]
    assert recent.description.startswith(OPTIMIZED.description + "\n\n")  # the run's doc
    assert "Three please" in recent.description                  # and its demo (the default)
    assert recent.input_schema["properties"]["max_count"]["description"] == \
        OPTIMIZED.params["max_count"]
    assert recent.title == "Recent notes"                               # the server's own
    assert by_name["erase_note"].description == "Erase the note at a position."   # as listed
    assert not notes.is_error and notes.structured_content == {
        "result": ["buy milk", "call Ada", "fix the roof"]}                # from the server
    assert not erased.is_error and erased.structured_content == {"result": "erased note 2"}
    assert [json.loads(line) for line in log.read_text().splitlines()] == [{"index": 2}]

    table = json.loads(export_run(load_run_result(run_dir), "toolhive-override"))
    assert table == {"toolsOverride": {"recent_notes": {"description": (
        f"{OPTIMIZED.description}\n\nParameters:\n- max_count: {OPTIMIZED.params['max_count']}"
    )}}}
