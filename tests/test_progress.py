"""Progress that moves: counts per tool and across tools, phases re-estimating the total, and
the three displays (rich bars, plain lines, JSON lines)."""

from __future__ import annotations

import io
import json

import pytest

from play2prompt.progress import (
    JsonReporter,
    NullReporter,
    PlainReporter,
    RichReporter,
    Tracker,
    clock_text,
    report_phase,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class ThreeMethods:
    """A reporter written before phases existed."""

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def start(self, tool: str, total: int) -> None:
        self.seen.append(("start", tool, total))

    def advance(self, tool: str, steps: int = 1) -> None:
        self.seen.append(("advance", tool, steps))

    def done(self, tool: str, summary: str) -> None:
        self.seen.append(("done", tool, summary))


def test_a_reporter_without_phase_keeps_working():
    old = ThreeMethods()
    report_phase(old, "t", "play", 10)          # not asked, no error
    report_phase(NullReporter(), "t", "play", 10)
    assert old.seen == []


def test_tracker_counts_re_estimates_and_finishes():
    clock = Clock()
    tr = Tracker(clock)
    tr.start("a", 10)
    tr.start("b", 10)
    tr.phase("a", "play", 20)
    clock.now += 10
    for _ in range(5):
        tr.advance("a")
    a = tr.tracks["a"]
    assert (a.phase, a.done, a.total) == ("play", 5, 20)
    assert tr.eta(a, clock.now) == 30.0             # 10 s for 5 of 20 (nothing closed yet)
    tr.phase("a", "docs", 2)                        # the rest re-estimated from here
    assert a.total == 7
    for _ in range(4):
        tr.advance("a")
    assert (a.done, a.total) == (9, 9)              # a count never passes its total
    tr.done("a")
    assert (a.done, a.total, a.finished, a.phase) == (9, 9, True, "done")
    tr.done("b")                                    # nothing counted: its whole total at once
    assert tr.tracks["b"].done == 10
    tr.done("stored")                               # done before it started
    run = tr.overall()
    assert (run.done, run.total, run.tools_done, run.tools, run.eta) == (19, 19, 3, 3, 0.0)
    assert tr.advance("a") is None                  # a done tool no longer moves


def test_the_run_eta_is_the_pace_so_far():
    clock = Clock()
    tr = Tracker(clock)
    tr.start("a", 30)
    tr.start("b", 30)
    clock.now += 20
    for tool in ("a", "b"):
        for _ in range(10):
            tr.advance(tool)
    run = tr.overall()
    assert (run.done, run.total, run.elapsed, run.eta) == (20, 60, 20.0, 40.0)
    assert clock_text(run.eta) == "0:40" and clock_text(3725) == "1:02:05"
    assert clock_text(None) == "?"


def test_the_eta_counts_what_closed_stretches_really_took():
    """Totals are upper bounds: a stretch that took a quarter of what it was expected to makes
    every open stretch expected to take a quarter of its own (the pace applied to that), and a
    phase that closed in one tool sets what it is expected to take in the others."""
    clock = Clock()
    tr = Tracker(clock)
    for tool in ("a", "b"):
        tr.start(tool, 100)
        tr.phase(tool, "play", 100)
    clock.now += 20
    for tool in ("a", "b"):
        for _ in range(10):
            tr.advance(tool)
    assert tr.overall().eta == 20 * 180 / 20        # by the bounds alone: 180 s
    tr.phase("a", "docs", 60)                       # play took 10 of the 40 expected of it
    run = tr.overall()
    assert run.spend == 0.25
    assert run.eta == 30.0                          # b: 25 - 10 left, a: 60 / 4; 1 s a step
    for _ in range(6):
        tr.advance("a")
    tr.done("a")                                    # docs took 6 of the 60 expected
    tr.phase("b", "docs", 60)
    assert tr.spend("docs") == 0.1 and tr.spend("demos") == tr.overall().spend
    assert tr.eta(tr.tracks["b"], clock.now) == pytest.approx(20 / 10 * 6)
    assert tr.overall().eta == pytest.approx(20 / 26 * 6)   # 26 steps in 20 s, 6 left


def test_plain_lines_are_whole():
    out, clock = io.StringIO(), Clock()
    rep = PlainReporter(out, unit="calls", every=30, clock=clock)
    summary = "kept the original: " + "the rewrite lost the unit on held-out examples, " * 5
    rep.start("convert_units", 40)
    rep.phase("convert_units", "play", 40)
    rep.advance("convert_units")                    # no line: the last was just now
    clock.now += 31
    rep.advance("convert_units")                    # the run's count, at most every 30 s
    rep.done("convert_units", summary)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["convert_units: started, about 40 calls",
                         "convert_units: play (0/40 calls)"]
    assert lines[2].startswith("progress: 0/1 done, 2/40 calls, 0:31 elapsed")
    assert lines[3] == f"convert_units: {summary} (2 calls, 0:31)"
    assert lines[4].startswith("progress: 1/1 done, 2/2 calls")
    assert "…" not in out.getvalue()


def test_json_lines_parse():
    out, clock = io.StringIO(), Clock()
    rep = JsonReporter(out, unit="calls", clock=clock)
    rep.start("a", 4)
    rep.phase("a", "play", 4)
    clock.now += 2
    rep.advance("a")
    rep.done("a", "1 valid call")
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["event"] for e in events] == ["start", "phase", "advance", "done"]
    assert events[2] == {"event": "advance", "tool": "a", "phase": "play", "done": 1, "total": 4,
                         "unit": "calls", "elapsed_s": 2.0, "eta_s": 6.0,
                         "run": {"done": 1, "total": 4, "tools_done": 0, "tools": 1,
                                 "elapsed_s": 2.0, "eta_s": 6.0}}
    assert events[3]["summary"] == "1 valid call" and events[3]["run"]["tools_done"] == 1


def test_rich_bars_name_the_phase_the_unit_and_the_whole_summary():
    from rich.console import Console
    from rich.progress import Progress

    from play2prompt.progress import progress_bars

    with progress_bars() as bars:                    # the columns the CLI uses build
        assert isinstance(bars, Progress)
    console = Console(file=io.StringIO(), width=200, force_terminal=False)
    summary = "3 valid calls; doc: kept the original: " + "x" * 150
    with Progress(console=console) as prog:
        rep = RichReporter(prog, unit="calls")
        rep.start("a", 10)
        rep.start("b", 10)
        rep.phase("a", "examples 1/2", 8)
        rep.advance("a", 3)
        tasks = {t.description: t for t in prog.tasks}
        assert tasks["a · examples 1/2"].completed == 3 and tasks["a · examples 1/2"].total == 8
        assert tasks["a · examples 1/2"].fields["unit"] == "calls"
        assert tasks["overall (0/2 done)"].total == 18 and tasks["overall (0/2 done)"].visible
        rep.done("a", summary)
    assert f"a: {summary}" in console.file.getvalue()
