"""An evaluation of a run's prompts is recorded in the run and found by its report, wherever
``p2p eval ... -o`` put it (the fake model only)."""

from __future__ import annotations

import json
import shutil

from play2prompt.agent.prompt import Demo
from play2prompt.cli import main
from play2prompt.evaluation.attached import (
    EVALUATIONS_FILE,
    record_evaluation,
    recorded_folders,
)
from play2prompt.report import build_report
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation
from tests.conftest import EXAMPLES
from tests.report.fake_run import HEADLINE, RUN_ID, write_eval, write_run

QUERY = {"id": "q1", "query": "180 C in Fahrenheit?",
         "calls": [{"name": "convert_units",
                    "arguments": {"value": 180, "from_unit": "c", "to_unit": "f"}}]}


def test_recorded_once_read_back_relative_after_a_move(tmp_path):
    run_dir = write_run(tmp_path / "runs")
    ev = write_eval(tmp_path / "runs" / "my-eval")
    record_evaluation(run_dir, ev, "tools")
    record_evaluation(run_dir, ev, "tools")            # a resumed evaluation: still once
    lines = (run_dir / EVALUATIONS_FILE).read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["relative"] == "../my-eval"
    assert recorded_folders(run_dir) == [ev.resolve()]
    # the runs folder moved as a whole: found by the relative path
    moved = tmp_path / "moved"
    shutil.move(str(tmp_path / "runs"), moved)
    assert recorded_folders(moved / RUN_ID) == [(moved / "my-eval").resolve()]


def test_cut_lines_and_deleted_folders_are_skipped(tmp_path):
    run_dir = write_run(tmp_path / "runs")
    kept = write_eval(tmp_path / "a")
    gone = write_eval(tmp_path / "b")
    record_evaluation(run_dir, gone)
    with (run_dir / EVALUATIONS_FILE).open("a") as fh:
        fh.write('{"folder": "/cut sh')                  # a write cut short
    record_evaluation(run_dir, kept)
    shutil.rmtree(gone)
    assert recorded_folders(run_dir) == [kept.resolve()]
    assert len((run_dir / EVALUATIONS_FILE).read_text().splitlines()) == 3
    assert recorded_folders(tmp_path / "nowhere") == []


def test_report_finds_a_recorded_folder_outside_runs(tmp_path):
    run_dir = write_run(tmp_path / "runs")
    files = build_report(RUN_ID, tmp_path / "runs", tmp_path / "out")
    assert files.headline.endswith("not evaluated")
    record_evaluation(run_dir, write_eval(tmp_path / "elsewhere" / "named"))
    record_evaluation(run_dir, write_eval(tmp_path / "other-run", prompts="another"))
    files = build_report(RUN_ID, tmp_path / "runs", tmp_path / "out")
    assert files.headline == HEADLINE                   # one evaluation, not the other run's
    assert files.markdown.read_text().count("## Evaluation ") == 1


def _tiny_run(runs, example_tools) -> None:
    tool = next(t for t in example_tools if t.name == "convert_units")
    demo = Demo("3 miles in km?", (Invocation("convert_units", {"value": 3, "from_unit": "mi",
                                                                "to_unit": "km"}),))
    run = RunResult("opt", runs / "opt",
                    {tool.name: ToolResult(tool.name, tool, tool.doc, (demo,), False)})
    run.write()
    RunStore(run.run_dir / "run.db").close()


def test_cli_eval_with_o_then_report(tmp_path, example_tools, capsys):
    runs = tmp_path / "runs"
    _tiny_run(runs, example_tools)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps(QUERY) + "\n")
    out = tmp_path / "runs" / "my-name"                 # -o runs/NAME: not runs/eval-*
    assert main(["eval", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--prompts", "opt", "--runs-dir", str(runs), "--task-model", "fake",
                 "--demos", "1", "-o", str(out), "-q"]) == 0
    assert recorded_folders(runs / "opt") == [out.resolve()]
    capsys.readouterr()
    assert main(["report", "opt", "--runs-dir", str(runs), "-o", str(tmp_path / "r")]) in (
        0, None)
    said = capsys.readouterr().out.replace("\n", " ")
    assert "not evaluated" not in said and "accuracy 0.0 % -> 0.0 %" in said
    assert str(out.resolve()) in (tmp_path / "r" / "report.md").read_text()
