"""Issue 29: an MCP tool annotated as a writer is never called by ``p2p optimize`` without
consent (the server logs every call it gets: none), and the run says it was not played; with
``--allow-side-effects NAME`` it is called."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from play2prompt.cli import main
from tests.extras import need

need("mcp", "mcp")
need("mcp_types", "mcp")

WRITE_SERVER = Path(__file__).parent / "mcp_write_server.py"


def test_annotated_write_tool_is_never_called_without_consent(tmp_path, capsys):
    log = tmp_path / "writes.jsonl"
    tools = tmp_path / "tools.json"
    assert main(["tools", "from-mcp", "-o", str(tools), "--env", f"WRITE_LOG={log}", "--",
                 sys.executable, str(WRITE_SERVER)]) == 0
    err = capsys.readouterr().err
    assert "not read-only: erase_note" in err and "not read-only: recent_notes" not in err
    entries = {e["function"]["name"]: e for e in json.loads(tools.read_text())["tools"]}
    assert entries["erase_note"]["side_effects"] is True
    assert entries["erase_note"]["meta"]["mcp"]["annotations"] == {
        "readOnlyHint": False, "destructiveHint": True}
    runs = tmp_path / "runs"
    args = ["--generator", "fake", "--preset", "quick", "--runs-dir", str(runs), "-q"]

    assert main(["optimize", str(tools), "--run-id", "no", *args]) == 0
    err = capsys.readouterr().err
    assert not log.exists()                                    # the server logged no call
    assert err.count("may change things") == 1 and "--allow-side-effects erase_note" in err
    result = json.loads((runs / "no" / "result.json").read_text())
    assert "not played" in json.dumps(result["tools"]["erase_note"])
    assert "not played" not in json.dumps(result["tools"]["recent_notes"])

    assert main(["optimize", str(tools), "--run-id", "yes", "--allow-side-effects",
                 "erase_note", *args]) == 0
    assert "may change things" not in capsys.readouterr().err
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls and all(isinstance(c["index"], int) for c in calls)     # played with
