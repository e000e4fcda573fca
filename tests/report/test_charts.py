"""The report's charts: what a run has is drawn, on fixed axes; what is not says why."""

from __future__ import annotations

import pytest

from play2prompt.cli import main
from play2prompt.report import build_report
from play2prompt.report.data import RunReport, ToolView
from play2prompt.report.plots import (
    Charts,
    example_counts,
    no_chart_lines,
    play_counts,
    write_charts,
    y_limits,
)
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from tests.report.fake_run import _result, _tool

PLAYED = {"attempts": 10, "valid_invocations": 6, "success_rate": 0.6}


def view(rewards, scores, play=None, name="add_days"):  # noqa: ANN001, ANN201
    return ToolView(_result(name, False, 0), (), rewards, scores, play or {})


def test_from_two_points_a_curve_else_a_line_why(tmp_path):
    report = RunReport("r", tmp_path, {}, [view((1.0, None, 2.0, 3.0), (None, 0.6))], {})
    charts = write_charts(report, tmp_path / "plots")
    assert charts.run == {}                          # nothing played: no run chart
    assert {t: list(c) for t, c in charts.tools.items()} == {"add_days": ["rewards"]}
    assert charts.of("add_days")["rewards"].read_bytes().startswith(b"\x89PNG")
    assert no_chart_lines(report.tools[0], charts.of("add_days")) == [
        "doc score: 0.60, one iteration scored: no curve"]
    assert no_chart_lines(view((), ()), {}) == [
        "best example reward: no chart, no example was scored",
        "doc score: no chart, no candidate doc was scored"]


def test_the_run_chart_counts_play_and_examples(tmp_path):
    played = view((0.0,), (), PLAYED)
    assert play_counts(played) == (6, 4)
    result = _result("add_days", False, 0)
    stats = {"examples": 9, "verified_examples": 4, "gated_examples": 3}
    assert example_counts(ToolView(ToolResult(
        result.name, result.original, result.doc, (), False, "", stats=stats),
        (), (), (), {})) == (4, 3, 2)
    charts = write_charts(RunReport("r", tmp_path, {}, [played], {}), tmp_path / "plots")
    assert list(charts.run) == ["play-and-examples"] and charts.tools == {}
    assert charts.count == 1 and charts.why_none == ""


def test_axes_are_fixed_and_shared_by_the_tools(tmp_path):
    low = RunReport("r", tmp_path, {}, [view((0.0, 0.0), ())], {})
    assert y_limits(low) == {"rewards": pytest.approx((-0.15, 3.15)),
                             "doc_scores": (-0.05, 1.05)}
    high = RunReport("r", tmp_path, {}, [view((0.0, 0.5), ()),
                                         view((1.0, 3.6), (), name="convert_units")], {})
    assert y_limits(high)["rewards"] == pytest.approx((-0.18, 3.78))


def test_no_chart_at_all_says_why(tmp_path, capsys):
    runs = tmp_path / "runs"
    tool = _tool("add_days")
    RunResult("bare", runs / "bare", {"add_days": ToolResult(
        "add_days", tool, tool.doc, (), False, "kept the original: no verified example",
        stats={"play_attempts": 0})}).write()
    RunStore(runs / "bare" / "run.db").close()
    files = build_report("bare", runs)
    assert files.charts == Charts(why_none="no chart: no tool was played (the method "
                                           "optimizes without play)")
    assert files.charts.why_none in files.markdown.read_text()
    assert files.charts.why_none in files.html.read_text()
    assert main(["report", "bare", "--runs-dir", str(runs)]) in (0, None)
    assert files.charts.why_none in capsys.readouterr().out.replace("\n", " ")
