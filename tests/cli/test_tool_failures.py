"""A tool that cannot run, a run that is interrupted or killed, a disk that is full: one line
each, nothing left running (issue 29, items 4, 7 and 8)."""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from play2prompt.cli import main
from tests.conftest import EXAMPLES, ROOT

PARAMS = {"type": "object", "properties": {"city": {"type": "string", "description": "a city"}},
          "required": ["city"]}
HANGS = '''
import os, subprocess, sys, time
def wait_for(city: str) -> str:
    """Starts a child of its own, notes both pids, then hangs."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(os.environ["MARK"], "a") as f:
        f.write(f"{os.getpid()} {child.pid}\\n")
    time.sleep(300)
    return city
'''


P2P = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"


def _tools_file(folder: Path, executor: dict) -> Path:
    path = folder / "tools.json"
    path.write_text(json.dumps({"tools": [{"type": "function", "function": {
        "name": "wait_for", "description": "Waits for a city.", "parameters": PARAMS},
        "executor": executor, "side_effects": False}]}))
    return path


def _llm_calls(runs: Path) -> int:
    (db,) = runs.glob("*/run.db")
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0]


def _optimize(tools: Path, runs: Path, *extra: str) -> list[str]:
    return ["optimize", str(tools), "--generator", "fake", "--preset", "quick", "--runs-dir",
            str(runs), "-q", "--no-llm-grading", *extra]


def _status(runs: Path) -> str:
    (db,) = runs.glob("*/run.db")
    with sqlite3.connect(db) as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'status'")
                          .fetchone()[0])


def test_a_command_that_does_not_exist_fails_in_one_line_within_ten_llm_calls(
        tmp_path, capsys):
    """A first run (no calibration cached, LLM grading on: calibrating alone costs 14 calls):
    the tool's server is started before any LLM call, and the run stops there."""
    pytest.importorskip("mcp")
    tools = _tools_file(tmp_path, {"mcp": {"command": "no-such-command-p2p", "args": []}})
    argv = _optimize(tools, tmp_path / "runs")
    argv.remove("--no-llm-grading")
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "cannot run tool 'wait_for': cannot start MCP server" in err \
        and "command not found" in err
    assert "fix: check the executor's command" in err and "--resume" in err
    assert _llm_calls(tmp_path / "runs") < 10
    assert _status(tmp_path / "runs") == "failed"


def test_a_tool_that_rejects_every_value_is_not_stopped_before_it_runs(tmp_path, capsys):
    (tmp_path / "picky.py").write_text("def wait_for(city: str):\n"
                                       "    raise ValueError('city must be a capital')\n")
    tools = _tools_file(tmp_path, {"python": "picky.py:wait_for"})
    code = main(_optimize(tools, tmp_path / "runs", "--no-docs"))
    err = capsys.readouterr().err
    assert code == 0 and "cannot run tool" not in err, err
    assert _status(tmp_path / "runs") == "done"


def test_a_tool_that_dies_every_time_stops_its_optimization(tmp_path, capsys):
    (tmp_path / "dies.py").write_text("import os\ndef wait_for(city: str):\n    os._exit(9)\n")
    tools = _tools_file(tmp_path, {"python": "dies.py:wait_for"})
    code = main(_optimize(tools, tmp_path / "runs"))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "exit code 9" in err, err
    assert _llm_calls(tmp_path / "runs") < 10


def test_a_module_printing_at_import_writes_nothing_on_our_stdout(tmp_path, capfd):
    from play2prompt.tools.loading import load_tools

    (tmp_path / "loud.py").write_text('print("I am the tools module")\n'
                                      "def wait_for(city: str):\n    return city\n")
    load_tools(_tools_file(tmp_path, {"python": "loud.py:wait_for"}))
    assert "tools module" not in capfd.readouterr().out
    # never imported here (by its file: other modules' names may contain "loud", cloudpickle)
    assert not any(str(getattr(m, "__file__", None) or "").endswith("loud.py")
                   for m in list(sys.modules.values()))


def test_a_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    import shutil

    shutil.copy(EXAMPLES / "tools.py", tmp_path / "tools.py")
    shutil.copy(EXAMPLES / "tools.json", tmp_path / "tools.json")
    real = Path.write_text

    def full(self, *args, **kwargs):
        if self.name == "result.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    code = main(_optimize(tmp_path / "tools.json", tmp_path / "runs", "--tools", "add_days",
                          "--no-docs"))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "No space left on device" in err and "free some space" in err


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _start_hanging_run(tmp_path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    (tmp_path / "hangs.py").write_text(HANGS)
    mark = tmp_path / "mark.txt"
    tools = _tools_file(tmp_path, {"python": {"function": "hangs.py:wait_for",
                                              "env": {"MARK": str(mark)}}, "timeout": 120})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", P2P, *_optimize(tools, tmp_path / "runs")]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_default)  # even where a shell ignores it
    deadline = time.monotonic() + 60
    while not (mark.exists() and mark.read_text().strip()):
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail(f"the tool never ran: {proc.communicate()[1]}")
        time.sleep(0.1)
    time.sleep(0.2)
    return proc, [int(p) for p in mark.read_text().split()]


def _gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_stops_in_seconds_with_130_and_leaves_a_resumable_run(tmp_path):
    proc, pids = _start_hanging_run(tmp_path)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - start < 5, err
    assert err.strip().splitlines()[-1].startswith("interrupted:") and "--resume" in err
    assert _gone_within(pids, 3), "a tool process outlived the run"
    (db,) = (tmp_path / "runs").glob("*/run.db")
    with sqlite3.connect(db) as conn:
        status = conn.execute("SELECT value FROM meta WHERE key = 'status'").fetchone()[0]
    assert json.loads(status) == "failed"  # resumable


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_no_tool_process_survives_a_kill_9_of_the_run(tmp_path):
    proc, pids = _start_hanging_run(tmp_path)
    proc.kill()
    proc.communicate(timeout=30)
    assert _gone_within(pids, 3), "a tool process outlived the run"
