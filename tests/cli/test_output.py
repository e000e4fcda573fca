"""Output that survives a pipe: nothing cut when stdout is no terminal, ``--json`` that
parses."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from play2prompt.cli import app, main
from play2prompt.store.db import DB_NAME, RunStore
from tests.conftest import EXAMPLES
from tests.emit.stored import make_stored_run

REASON = ("kept the original: " + "the rewrite lost the unit of annual_rate on held-out "
          "examples, " * 4)[:200]
LONG_TOOL = "convert_between_units_of_length_mass_volume_and_temperature"


@pytest.fixture
def runs(tmp_path):
    """A runs folder with one run whose tool has a 200-character reason."""
    runs_dir = tmp_path / "runs"
    run_dir = make_stored_run(runs_dir, run_id="run-with-a-rather-long-name-2026-01-01")
    store = RunStore(run_dir / DB_NAME)
    store.put_result(LONG_TOOL, {"doc_changed": False, "doc_reason": REASON, "stats": {
        "valid_invocations": 7, "verified_examples": 5, "demos": 2, "best_reward": 0.75}})
    store.set_meta("created", "2026-01-01T12:34:56")
    store.close()
    assert len(REASON) == 200
    return runs_dir


def _invoke(args: list[str]) -> str:
    """The command's stdout under CliRunner (no terminal), in a 60-column environment."""
    result = CliRunner().invoke(app, args, env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_runs_show_piped_keeps_a_long_reason_whole(runs):
    out = _invoke(["runs", "show", "run-with-a-rather-long-name-2026-01-01",
                   "--runs-dir", str(runs)])
    assert "…" not in out
    row = next(line for line in out.splitlines() if LONG_TOOL in line)
    assert REASON in row                       # on the tool's own line, not folded
    assert "logged LLM samples: 0 (0 failed)" in out and "{" not in out


def test_runs_list_piped_keeps_each_row_on_one_line(runs):
    out = _invoke(["runs", "list", "--runs-dir", str(runs)])
    assert "…" not in out
    row = next(line for line in out.splitlines() if "run-with-a-rather-long-name" in line)
    assert "run-with-a-rather-long-name-2026-01-01" in row and "2026-01-01T12:34:56" in row


def test_runs_json_parses(runs):
    listed = json.loads(_invoke(["runs", "list", "--runs-dir", str(runs), "--json"]))
    assert [r["run_id"] for r in listed["runs"]] == ["run-with-a-rather-long-name-2026-01-01"]
    assert listed["runs"][0]["kind"] == "optimize" and listed["runs"][0]["tools"] == 1
    shown = json.loads(_invoke(["runs", "show", "run-with-a-rather-long-name-2026-01-01",
                                "--runs-dir", str(runs), "--json"]))
    tool = shown["tools"][LONG_TOOL]
    assert tool["doc_reason"] == REASON and tool["verified_examples"] == 5
    assert tool["fact_tests"] is None and shown["llm_calls"]["samples"] == 0
    empty = json.loads(_invoke(["runs", "list", "--runs-dir", str(runs / "none"), "--json"]))
    assert empty["runs"] == []


def test_eval_tools_json_parses(tmp_path, capsys):
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q1", "query": "180 C in Fahrenheit?", "calls": [
        {"name": "convert_units", "arguments": {"value": 180, "from_unit": "c",
                                                "to_unit": "f"}}]}) + "\n")
    code = main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--task-model", "fake", "--runs-dir", str(tmp_path / "runs"),
                 "-o", str(tmp_path / "out"), "-q", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert data["results_dir"] == str(tmp_path / "out") and data["accuracy"]
    assert data == {**json.loads((tmp_path / "out" / "summary.json").read_text()),
                    "results_dir": str(tmp_path / "out")}


def test_sweep_json_parses(tmp_path, capsys):
    from tests.sweep.helpers import write_queries

    code = main(["sweep", str(EXAMPLES / "tools.json"), "--queries",
                 str(write_queries(tmp_path)), "--generator", "fake", "--variants",
                 "baseline", "--name", "js", "--runs-dir", str(tmp_path / "runs"), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert data["name"] == "js" and data["summary"] and data["failed"] == []
    assert data["results_dir"].endswith("js")
