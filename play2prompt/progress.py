"""Progress reporting: the engine calls a Reporter; the CLI chooses how it is shown.

A reporter hears, per tool: ``start(tool, total)`` (the steps expected: for Play2Prompt its
LLM calls, an estimate), ``advance(tool, steps)``, ``done(tool, summary)`` and, where it has
one, ``phase(tool, name, remaining)``: the tool entered a phase (play, examples, fact tests,
docs, demos) and ``remaining`` steps are now expected for the rest of it. Callers go through
:func:`report_phase`, so a reporter with the three methods only keeps working.

:func:`progress_reporter` picks the display: rich bars on a terminal (one across the tools with
its ETA, one per tool with its phase and its count, units named), plain lines that are never
cut where standard error is a pipe or a file, JSON lines for machines (``--json-progress``,
:class:`JsonReporter`), or nothing. :func:`progress_bars` is the bare rich display that
benchmarks drive themselves.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, Protocol

from play2prompt.progress_tracking import Track, Tracker, clock_text

__all__ = ["JsonReporter", "NullReporter", "PlainReporter", "Reporter", "RichReporter", "Tracker",
           "clock_text", "progress_bars", "progress_reporter", "report_phase"]

WIDE = 100_000   # the width of a display that no terminal reads: nothing is cut with "…"


class Reporter(Protocol):
    def start(self, tool: str, total: int) -> None: ...

    def advance(self, tool: str, steps: int = 1) -> None: ...

    def done(self, tool: str, summary: str) -> None: ...


def report_phase(reporter: Reporter, tool: str, name: str, remaining: int | None = None) -> None:
    """Tell ``reporter`` that ``tool`` entered phase ``name`` (``remaining``: the steps now
    expected for the rest of the tool); a reporter without ``phase`` is not asked."""
    phase = getattr(reporter, "phase", None)
    if callable(phase):
        phase(tool, name, remaining)


class NullReporter:
    def start(self, tool: str, total: int) -> None:
        pass

    def advance(self, tool: str, steps: int = 1) -> None:
        pass

    def phase(self, tool: str, name: str, remaining: int | None = None) -> None:
        pass

    def done(self, tool: str, summary: str) -> None:
        pass


class RichReporter:
    """Rich bars: one across the tools (with its ETA, shown from the second tool on) and one
    per tool, described by the tool's phase; a done tool's summary is printed above the bars
    in full."""

    def __init__(self, progress: Any, unit: str = "steps") -> None:
        self.progress = progress
        self.unit = unit
        self.tracker = Tracker()
        self.tasks: dict[str, Any] = {}
        self.overall_task: Any = None

    def start(self, tool: str, total: int) -> None:
        self._overall_task()
        self.tracker.start(tool, total)
        self.tasks[tool] = self.progress.add_task(tool, total=None, unit=self.unit)
        self._show(tool)

    def advance(self, tool: str, steps: int = 1) -> None:
        if self.tracker.advance(tool, steps) is not None:
            self._show(tool)

    def phase(self, tool: str, name: str, remaining: int | None = None) -> None:
        if self.tracker.phase(tool, name, remaining) is not None:
            self._show(tool)

    def done(self, tool: str, summary: str) -> None:
        self._overall_task()
        self.tracker.done(tool)
        if tool in self.tasks:
            self._show(tool)
        self.progress.console.print(f"{tool}: {summary}", markup=False, highlight=False,
                                    soft_wrap=True)
        self._show_overall()

    def _overall_task(self) -> None:
        if self.overall_task is None:
            self.overall_task = self.progress.add_task("overall", total=None, unit=self.unit,
                                                       visible=False)

    def _show(self, tool: str) -> None:
        track = self.tracker.tracks[tool]
        label = f"{tool} · {track.phase}" if track.phase else tool
        self.progress.update(self.tasks[tool], description=label, total=max(track.total, 1),
                             completed=track.done,
                             deadline=self._deadline(self.tracker.eta(track)))
        self._show_overall()

    def _deadline(self, eta: float | None) -> float | None:
        return None if eta is None else self.tracker.clock() + eta

    def _show_overall(self) -> None:
        run = self.tracker.overall()
        self.progress.update(self.overall_task, total=max(run.total, 1), completed=run.done,
                             description=f"overall ({run.tools_done}/{run.tools} done)",
                             visible=run.tools > 1, deadline=self._deadline(run.eta))


class PlainReporter:
    """Whole lines for a pipe or a file, never cut: each tool's start, phases and summary,
    the run's count and ETA after each tool, and at most every ``every`` seconds between."""

    def __init__(self, stream: IO[str] | None = None, unit: str = "steps",
                 every: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.unit = unit
        self.every = every
        self.tracker = Tracker(clock)
        self.last = clock()

    def start(self, tool: str, total: int) -> None:
        self.tracker.start(tool, total)
        self._line(f"{tool}: started, about {total} {self.unit}")

    def advance(self, tool: str, steps: int = 1) -> None:
        if self.tracker.advance(tool, steps) is not None and \
                self.tracker.clock() - self.last >= self.every:
            self._line(self._run_line())

    def phase(self, tool: str, name: str, remaining: int | None = None) -> None:
        track = self.tracker.phase(tool, name, remaining)
        if track is not None:
            self._line(f"{tool}: {name} ({track.done}/{track.total} {self.unit})")

    def done(self, tool: str, summary: str) -> None:
        track = self.tracker.done(tool)
        took = self.tracker.clock() - track.started
        self._line(f"{tool}: {summary} ({track.done} {self.unit}, {clock_text(took)})")
        self._line(self._run_line())

    def _run_line(self) -> str:
        run = self.tracker.overall()
        return (f"progress: {run.tools_done}/{run.tools} done, {run.done}/{run.total} "
                f"{self.unit}, {clock_text(run.elapsed)} elapsed, about {clock_text(run.eta)} "
                "left")

    def _line(self, text: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(text + "\n")
        stream.flush()
        self.last = self.tracker.clock()


class JsonReporter:
    """One JSON object per line and event: ``{"event": "start|phase|advance|done", "tool",
    "phase", "done", "total", "unit", "elapsed_s", "eta_s", "run": {...}}`` (``summary`` on
    done; ``run``: the count, total, tools done and ETA across the tools)."""

    def __init__(self, stream: IO[str] | None = None, unit: str = "steps",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.unit = unit
        self.tracker = Tracker(clock)
        self.lock = threading.Lock()

    def start(self, tool: str, total: int) -> None:
        self._emit("start", tool, self.tracker.start(tool, total))

    def advance(self, tool: str, steps: int = 1) -> None:
        track = self.tracker.advance(tool, steps)
        if track is not None:
            self._emit("advance", tool, track)

    def phase(self, tool: str, name: str, remaining: int | None = None) -> None:
        track = self.tracker.phase(tool, name, remaining)
        if track is not None:
            self._emit("phase", tool, track)

    def done(self, tool: str, summary: str) -> None:
        self._emit("done", tool, self.tracker.done(tool), summary=summary)

    def _emit(self, event: str, tool: str, track: Track, **extra: Any) -> None:
        now = self.tracker.clock()
        run = self.tracker.overall()
        eta = self.tracker.eta(track, now)
        line = {"event": event, "tool": tool, "phase": track.phase or None, "done": track.done,
                "total": track.total, "unit": self.unit,
                "elapsed_s": round(now - track.started, 3),
                "eta_s": round(eta, 1) if eta is not None else None, **extra,
                "run": {"done": run.done, "total": run.total, "tools_done": run.tools_done,
                        "tools": run.tools, "elapsed_s": round(run.elapsed, 3),
                        "eta_s": round(run.eta, 1) if run.eta is not None else None}}
        with self.lock:
            stream = self.stream or sys.stderr
            stream.write(json.dumps(line, ensure_ascii=False) + "\n")
            stream.flush()


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (or a notebook) as rich sees it."""
    from rich.console import Console

    probe = Console(stderr=True, markup=False, emoji=False)
    return probe.is_terminal or probe.is_jupyter


@contextmanager
def progress_reporter(enabled: bool = True, json_lines: bool = False,
                      unit: str = "steps") -> Iterator[Reporter]:
    """The reporter a command shows its progress with, on standard error: JSON lines when
    ``json_lines`` (whatever ``enabled`` says), else nothing when not ``enabled``, rich bars on
    a terminal, plain whole lines elsewhere."""
    if json_lines:
        yield JsonReporter(unit=unit)
    elif not enabled:
        yield NullReporter()
    elif not stderr_is_terminal():
        yield PlainReporter(unit=unit)
    else:
        with progress_bars() as prog:
            yield RichReporter(prog, unit)


@contextmanager
def progress_bars(enabled: bool = True) -> Iterator[Any]:
    """A rich Progress on standard error (or None when disabled): description, bar, count
    (with the task's ``unit`` field, if any), elapsed time and time left (a task's
    ``deadline`` field, a monotonic time, where it has one). Where standard error
    is no terminal, its one final picture is as wide as its lines (nothing cut)."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class CountColumn(ProgressColumn):
        """``done/total unit``."""

        def render(self, task: Any) -> Text:
            total = "?" if task.total is None else f"{int(task.total)}"
            unit = task.fields.get("unit", "")
            return Text(f"{int(task.completed)}/{total}{' ' + unit if unit else ''}",
                        style="progress.download")

    class LeftColumn(TimeRemainingColumn):
        """The time left: a task's own ``deadline`` (the Tracker's measured ETA, counting
        down between events; ``-:--:--`` while unknown) or rich's estimate for a task without
        one (a benchmark's own bars)."""

        def render(self, task: Any) -> Text:
            if "deadline" not in task.fields:
                return super().render(task)
            deadline = task.fields["deadline"]
            if deadline is None:
                return Text("-:--:--", style="progress.remaining")
            return Text(clock_text(max(0.0, deadline - time.monotonic())),
                        style="progress.remaining")

    plain = {"markup": False, "emoji": False}   # a tool's name is shown as it is
    console = Console(stderr=True, soft_wrap=True, **plain)
    if not (console.is_terminal or console.is_jupyter):
        console = Console(stderr=True, soft_wrap=True, width=WIDE, **plain)
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), CountColumn(),
                  TimeElapsedColumn(), LeftColumn(), console=console,
                  transient=False) as prog:
        yield prog
