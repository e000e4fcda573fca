"""``p2p serve`` answers over real HTTP on loopback; ``p2p mcp`` / ``p2p serve`` input errors
are one line with exit code 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx

from play2prompt.cli import main
from tests.conftest import ROOT
from tests.emit.stored import make_stored_run
from tests.serve.test_mcp_server import CLI


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_p2p_serve_over_http(tmp_path):
    run_dir = make_stored_run(tmp_path / "runs")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", CLI, "serve", str(run_dir), "--port",
                             str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"{base}/health", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert health.json() == {"status": "ok", "runs": ["golden"]}
        tools = httpx.get(f"{base}/v1/tools", params={"format": "anthropic"}).json()
        assert tools[0]["name"] == "loan_payment" and "input_schema" in tools[0]
        missing = httpx.get(f"{base}/v1/tools/nope")
        assert missing.status_code == 404 and "no tool 'nope'" in missing.json()["error"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


def test_serve_and_mcp_input_errors(tmp_path, capsys):
    run_dir = make_stored_run(tmp_path / "runs")
    assert main(["serve", str(tmp_path / "nope")]) == 2
    assert "no run" in capsys.readouterr().err
    assert main(["serve", str(run_dir), str(run_dir)]) == 2
    assert "mounted twice" in capsys.readouterr().err
    assert main(["mcp", str(run_dir), "--demos", "everywhere"]) == 2
    assert "demo mode must be one of description, resources, none" in capsys.readouterr().err
    assert main(["mcp", str(run_dir), "--tools", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
