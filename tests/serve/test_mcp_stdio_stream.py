"""``p2p mcp`` over stdio keeps the protocol stream to itself (issue 71, part 5): a tool that
runs in the server's own process (``"isolation": "thread"``) and prints at import and at each
call, through ``print``, ``sys.stdout`` and file descriptor 1 (nothing flushed), leaves every
line of the server's stdout a JSON-RPC message; its prints land on stderr. Python's stdout is
buffered as in a real pipe (a buffered print used to reach the wire when the server ended)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.processes import HANG, start_p2p
from tests.emit.stored import copy_tools_file, make_stored_run
from tests.extras import need

need("mcp", "mcp")

PRINTS = '''
import os, sys
print("PRINTED-AT-IMPORT")

def shout(text: str) -> str:
    """Says it louder (and tells everyone)."""
    print("PRINTED-AT-CALL", text)
    sys.stdout.write("WRITTEN-AT-CALL\\n")
    os.write(1, b"FD1-AT-CALL\\n")
    return text.upper()
'''
MARKS = ("PRINTED-AT-IMPORT", "PRINTED-AT-CALL", "WRITTEN-AT-CALL", "FD1-AT-CALL")


def _tools_file(tmp_path):
    tools_file = copy_tools_file(tmp_path / "project")
    (tmp_path / "project" / "shouting.py").write_text(PRINTS)
    doc = json.loads(tools_file.read_text())
    for entry in doc["tools"]:
        entry["executor"]["isolation"] = "thread"    # the example tools in-process too
    doc["tools"].append({"type": "function", "function": {
        "name": "shout", "description": "Shouts.", "parameters": {
            "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        "executor": {"python": "shouting.py:shout", "isolation": "thread"}})
    tools_file.write_text(json.dumps(doc))
    return tools_file


def _session(tmp_path, unbuffered):
    """Initialize, three calls of ``shout``, one of ``convert_units``, a ping; once all are
    answered, stdin closes. Every line of stdout, stderr and the exit code."""
    run_dir = make_stored_run(tmp_path / "runs")
    proc = start_p2p(["mcp", str(run_dir), "--tools", str(_tools_file(tmp_path))], tmp_path,
                     stdin=subprocess.PIPE, unbuffered=unbuffered)
    calls = [("shout", {"text": f"hi {i}"}) for i in range(3)]
    calls.append(("convert_units", {"value": 2, "from_unit": "km", "to_unit": "mi"}))
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             *({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                "params": {"name": name, "arguments": args}}
               for i, (name, args) in enumerate(calls)),
             {"jsonrpc": "2.0", "id": 99, "method": "ping"}]
    proc.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
    proc.stdin.flush()
    out, waiting = [], {1, 10, 11, 12, 13, 99}
    while waiting:                          # stdin stays open until every answer is in
        line = proc.stdout.readline()
        if not line:
            break
        out.append(line)
        waiting.discard(json.loads(line).get("id"))
    proc.stdin.close()
    rest, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=HANG)
    return out + rest.splitlines(keepends=True), err, proc.returncode


@pytest.mark.skipif(sys.platform == "win32", reason="writes to file descriptor 1")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_tool_in_the_servers_process_never_prints_on_the_protocol_stream(tmp_path,
                                                                          unbuffered):
    out, err, code = _session(tmp_path, unbuffered)
    assert code == 0, err[-2000:]
    messages = [json.loads(line) for line in out if line.strip()]   # each line is JSON-RPC
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    answers = {m["id"]: m for m in messages}
    assert [answers[10 + i]["result"]["content"][0]["text"] for i in range(3)] == \
        ["HI 0", "HI 1", "HI 2"]
    assert not answers[13].get("result", {}).get("isError", True), answers[13]
    assert answers[99]["result"] == {}
    assert err.count("PRINTED-AT-IMPORT") == 1        # the prints went to stderr instead
    for mark in MARKS[1:]:
        assert err.count(mark) == 3, (mark, err[-2000:])
