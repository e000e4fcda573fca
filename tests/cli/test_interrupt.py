"""One Ctrl-C ends every command (issue 71, part 4): ``p2p mcp`` over stdio and over HTTP,
``p2p serve``, ``optimize``, ``eval`` and ``sweep``, each started as a real process and sent
one SIGINT: exit code 130, no traceback, no process of its left behind (tool workers, MCP
servers), and a last line that says how to continue in the command's own form."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from play2prompt.cli._interrupt import Interrupted, interrupt_line, resume_hint
from tests.cli.processes import HANG, interrupt, read_stderr_until, start_p2p
from tests.conftest import EXAMPLES
from tests.emit.stored import copy_tools_file, make_stored_run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

TINY_SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp_tiny_server.py"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def _clean(code: int, err: str) -> str:
    """The last line of stderr, once the exit code is 130 and nothing was a traceback."""
    assert code == 130, err[-2000:]
    assert "Traceback" not in err and "Exception ignored" not in err, err[-2000:]
    return err.strip().splitlines()[-1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(proc: subprocess.Popen[str], port: int) -> None:
    deadline = time.monotonic() + HANG
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.2)


def _served_tools(project: Path) -> Path:
    """examples/tools.json (python tools, each in its own worker process) and ``add`` of a
    real MCP server (a child process of its own)."""
    pytest.importorskip("mcp")
    tools_file = copy_tools_file(project)
    doc = json.loads(tools_file.read_text())
    doc["tools"].append({"type": "function", "function": {
        "name": "add", "description": "Adds.", "parameters": {
            "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]}},
        "executor": {"mcp": {"command": sys.executable, "args": [str(TINY_SERVER)]}}})
    tools_file.write_text(json.dumps(doc))
    return tools_file


def _ask(proc: subprocess.Popen[str], message: dict) -> dict:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def test_one_sigint_ends_p2p_mcp_over_stdio(tmp_path):
    tools_file = _served_tools(tmp_path / "project")
    run_dir = make_stored_run(tmp_path / "runs")
    proc = start_p2p(["mcp", str(run_dir), "--tools", str(tools_file)], tmp_path,
                     stdin=subprocess.PIPE)
    assert _ask(proc, INITIALIZE)["id"] == 1
    proc.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    for i, (name, args) in enumerate([("convert_units", {"value": 1, "from_unit": "km",
                                                         "to_unit": "mi"}),
                                       ("add", {"a": 2, "b": 3})], start=2):
        reply = _ask(proc, {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                            "params": {"name": name, "arguments": args}})
        assert reply["id"] == i and not reply["result"]["isError"], reply
    code, err, left = interrupt(proc)        # the client still holds stdin open
    assert _clean(code, err) == "interrupted"
    assert left == []


def test_one_sigint_ends_p2p_mcp_over_http(tmp_path):
    tools_file = _served_tools(tmp_path / "project")
    run_dir = make_stored_run(tmp_path / "runs")
    port = _free_port()
    proc = start_p2p(["mcp", str(run_dir), "--tools", str(tools_file), "--http", "--port",
                      str(port)], tmp_path)
    _listening(proc, port)
    code, err, left = interrupt(proc)
    assert _clean(code, err) == "interrupted"
    assert left == []


def test_one_sigint_ends_p2p_serve(tmp_path):
    run_dir = make_stored_run(tmp_path / "runs")
    port = _free_port()
    proc = start_p2p(["serve", str(run_dir), "--port", str(port)], tmp_path)
    _listening(proc, port)
    code, err, left = interrupt(proc)
    assert _clean(code, err) == "interrupted" and left == []


def test_one_sigint_ends_optimize_and_names_the_run_to_resume(tmp_path):
    tools_file = copy_tools_file(tmp_path / "project")
    runs = tmp_path / "runs"
    proc = start_p2p(["optimize", str(tools_file), "--generator", "fake:0.2", "--preset",
                      "quick", "--runs-dir", str(runs), "--json-progress"], tmp_path)
    read_stderr_until(proc, lambda line: '"advance"' in line)
    code, err, left = interrupt(proc)
    (run_dir,) = runs.iterdir()
    assert (run_dir / "run.db").is_file()
    assert _clean(code, err) == (f"interrupted: the run is saved; continue it with "
                                 f"p2p optimize --resume {run_dir.name} --runs-dir {runs}")
    assert left == []


def test_one_sigint_ends_eval_and_says_the_same_command_continues(tmp_path):
    tools_file = copy_tools_file(tmp_path / "project")
    proc = start_p2p(["eval", str(tools_file), "--queries", str(EXAMPLES / "queries.jsonl"),
                      "--task-model", "fake:0.2", "--runs-dir", str(tmp_path / "runs"),
                      "--json-progress"], tmp_path)
    read_stderr_until(proc, lambda line: '"advance"' in line)
    code, err, left = interrupt(proc)
    assert _clean(code, err) == ("interrupted: the queries done are saved; the same command "
                                 "again continues the evaluation")
    assert left == []


def test_one_sigint_ends_sweep_and_names_its_resume(tmp_path):
    tools_file = copy_tools_file(tmp_path / "project")
    proc = start_p2p(["sweep", str(tools_file), "--queries", str(EXAMPLES / "queries.jsonl"),
                      "--generator", "fake:0.2", "--task-model", "fake:0.2", "--variants",
                      "full", "--limit", "3", "--name", "s1", "--runs-dir",
                      str(tmp_path / "runs"), "--json"], tmp_path)
    read_stderr_until(proc, lambda line: line.startswith("trial 0:"))
    code, err, left = interrupt(proc)
    assert _clean(code, err) == ("interrupted: the sweep 's1' is saved; continue it with the "
                                 "same command and --resume")
    assert left == []


def test_the_interrupt_line_carries_the_hint_of_the_block_it_left():
    with pytest.raises(Interrupted) as caught, resume_hint(lambda: "continue with X"):
        raise KeyboardInterrupt
    assert interrupt_line(caught.value) == "interrupted: continue with X"
    with pytest.raises(Interrupted) as empty, resume_hint(lambda: ""):
        raise KeyboardInterrupt
    assert interrupt_line(empty.value) == "interrupted"
    try:   # click's Abort, an import's RuntimeError: the interrupt is found in the chain
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("in __set_name__") from exc
    except RuntimeError as wrapped:
        assert interrupt_line(wrapped) == "interrupted"
