"""``p2p optimize`` and ``p2p eval`` progress where no terminal reads it: whole lines through a
pipe, and ``--json-progress`` lines that parse (issue 31)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from typer.testing import CliRunner

from play2prompt.cli import app
from tests.conftest import EXAMPLES

P2P = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"
TOOLS = "loan_payment,body_mass_index"


def _optimize(runs, *extra: str) -> list[str]:
    return ["optimize", str(EXAMPLES / "tools.json"), "--tools", TOOLS, "--generator", "fake",
            "--preset", "quick", "--runs-dir", str(runs), "--run-id", "r", *extra]


def _result(runs) -> dict:
    return json.loads((runs / "r" / "result.json").read_text())["tools"]


def test_piped_progress_keeps_each_done_summary_whole(tmp_path):
    """``p2p optimize ... 2>&1 | cat`` in a 40-column environment: each tool's summary, its
    doc reason included, on one line and never cut with "…"."""
    env = {**os.environ, "COLUMNS": "40"}
    out = subprocess.run([sys.executable, "-c", P2P, *_optimize(tmp_path)], cwd=tmp_path,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stdout
    assert "…" not in out.stdout
    lines = out.stdout.splitlines()
    for name, tool in _result(tmp_path).items():
        summary = (f"{name}: {tool['stats']['valid_invocations']} valid calls, "
                   f"{tool['stats']['verified_examples']} verified examples, "
                   f"{len(tool['demos'])} demos; doc: {tool['doc_reason']}")
        assert len(summary) > 40
        assert any(line.startswith(summary) for line in lines), (summary, out.stdout)
        assert f"{name}: play (0/" in out.stdout     # the phase, with its count and unit
    assert any(line.startswith("progress: 2/2 done") for line in lines)


def test_json_progress_lines_parse(tmp_path):
    res = CliRunner().invoke(app, _optimize(tmp_path, "--json-progress"))
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.stderr.splitlines()]
    assert {"event", "tool", "phase", "done", "total", "elapsed_s", "eta_s"} <= set(events[0])
    tools = _result(tmp_path)
    for name, tool in tools.items():
        mine = [e for e in events if e["tool"] == name]
        assert mine[0]["event"] == "start" and mine[0]["total"] > 0 and mine[0]["unit"] == "calls"
        assert mine[-1]["event"] == "done" and mine[-1]["summary"].endswith(tool["doc_reason"])
        phases = [e["phase"] for e in mine if e["event"] == "phase"]
        assert phases[0] == "play" and phases[-1] == "demos" and "examples 1/1" in phases
        steps = [e for e in mine if e["event"] == "advance"]
        # one step per LLM call of the tool, counted as it is answered
        assert len(steps) == tool["stats"]["llm_samples"] > 0
        assert [e["done"] for e in steps] == list(range(1, len(steps) + 1))
        assert all(e["done"] <= e["total"] for e in mine)
    last = events[-1]["run"]
    assert (last["tools_done"], last["tools"]) == (2, 2) and last["done"] == last["total"]


def test_eval_json_progress_lines_parse(tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q1", "query": "180 C in Fahrenheit?", "calls": [
        {"name": "convert_units", "arguments": {"value": 180, "from_unit": "c",
                                                "to_unit": "f"}}]}) + "\n")
    res = CliRunner().invoke(app, [
        "eval", str(EXAMPLES / "tools.json"), "--queries", str(queries), "--task-model", "fake",
        "--runs-dir", str(tmp_path / "runs"), "-o", str(tmp_path / "out"), "--json-progress"])
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.stderr.splitlines()]
    assert events and {e["event"] for e in events} <= {"start", "advance", "phase", "done"}
    assert events[-1]["event"] == "done" and events[-1]["unit"] == "queries"
