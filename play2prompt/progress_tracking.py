"""The bookkeeping every progress display shares: each tool's count, total and phase, the run's,
and the time left from the measured rate (:class:`Tracker`). :mod:`play2prompt.progress` shows it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Overall", "Track", "Tracker", "clock_text"]


@dataclass
class Track:
    """One tool's progress: steps done of ``total`` (re-estimated as phases begin).

    A *stretch* runs from the tool's start or a re-estimate to the next re-estimate or its
    end: ``seg_phase`` is the phase it began in, ``seg_done`` the count then and ``seg_left``
    the steps expected then for the rest of the tool."""

    total: int
    started: float
    done: int = 0
    phase: str = ""
    finished: bool = False
    seg_phase: str = ""
    seg_done: int = 0
    seg_left: int = 0

    def left(self, spend: float) -> float:
        """Steps still expected when the stretch takes ``spend`` of what it was expected to;
        one at least while its bound is not reached."""
        if self.finished:
            return 0.0
        spent = self.done - self.seg_done
        return max(0.0, spend * self.seg_left - spent, min(1.0, self.total - self.done))


@dataclass(frozen=True)
class Overall:
    """The run's progress across its tools (``spend``: the share of what they were expected
    to take the closed stretches took, 1.0 before any closed)."""

    done: int
    total: int
    tools_done: int
    tools: int
    elapsed: float
    eta: float | None
    spend: float = 1.0


def _eta(elapsed: float, done: int | float, left: float) -> float | None:
    """Seconds for ``left`` more steps at the pace so far (``done`` in ``elapsed``)."""
    return elapsed * max(0.0, left) / done if done > 0 else None


@dataclass
class _Spend:
    """Steps closed stretches took, and what they were expected to take."""

    spent: int = 0
    expected: int = 0

    def add(self, spent: int, expected: int) -> None:
        self.spent += spent
        self.expected += max(expected, spent)

    def share(self) -> float | None:
        return self.spent / self.expected if self.expected > 0 else None


class Tracker:
    """The bookkeeping every display shares: each tool's count, total, phase, and the run's.

    A count never passes its total (the total grows instead); a tool done without a counted
    step counts its whole total at once; a done tool's total is what it took.

    The time left is the measured rate applied to the steps still expected, and those are
    measured too: a tool's total is an upper bound (every play uses its whole try budget), so
    each closed stretch tells what share of what it was expected to take it took, and an open
    stretch is expected to take the share its phase took in the tools that closed it (the
    tools run side by side, phase after phase), else the share of every closed stretch. By the
    bounds alone ``p2p optimize`` said "4:35 left" at 28 s of a 94 s run."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.tracks: dict[str, Track] = {}
        self.began: float | None = None
        self.closed = _Spend()
        self.by_phase: dict[str, _Spend] = {}

    def start(self, tool: str, total: int) -> Track:
        now = self.clock()
        self.began = now if self.began is None else self.began
        total = max(0, int(total))
        track = self.tracks[tool] = Track(total, now, seg_left=total)
        return track

    def advance(self, tool: str, steps: int = 1) -> Track | None:
        track = self.tracks.get(tool)
        if track is None or track.finished:
            return None
        track.done += steps
        track.total = max(track.total, track.done)
        return track

    def phase(self, tool: str, name: str, remaining: int | None = None) -> Track | None:
        track = self.tracks.get(tool)
        if track is None or track.finished:
            return None
        track.phase = name
        if remaining is not None:
            remaining = max(0, int(remaining))
            # the stretch was expected to take what it expected, less what is still expected
            # after it (the rest of the tool)
            self._close(track, track.seg_left - remaining)
            track.total = track.done + remaining
            track.seg_phase, track.seg_done, track.seg_left = name, track.done, remaining
        return track

    def done(self, tool: str) -> Track:
        track = self.tracks.get(tool)
        if track is None or track.finished:   # done before it started (e.g. from the store)
            track = self.start(tool, 0)
        if track.done == 0:
            track.done = track.total          # nothing counted: nothing learnt of the pace
        else:
            self._close(track, track.seg_left)
        track.total, track.finished, track.phase = track.done, True, "done"
        return track

    def _close(self, track: Track, expected: int) -> None:
        spent = track.done - track.seg_done
        if spent > 0 or expected > 0:
            self.closed.add(spent, expected)
            self.by_phase.setdefault(track.seg_phase, _Spend()).add(spent, expected)

    def spend(self, phase: str | None = None) -> float:
        """The share of what they were expected to take the closed stretches that began in
        ``phase`` took (every closed stretch's where none did; 1.0 before any closed)."""
        known = self.by_phase.get(phase or "", _Spend()).share() if phase is not None else None
        every = self.closed.share()
        return known if known is not None else every if every is not None else 1.0

    def eta(self, track: Track, now: float | None = None) -> float | None:
        """Seconds ``track`` has left at its pace so far (None before its first step)."""
        if track.finished:
            return 0.0
        now = self.clock() if now is None else now
        return _eta(now - track.started, track.done, track.left(self.spend(track.seg_phase)))

    def overall(self) -> Overall:
        now = self.clock()
        tracks = self.tracks.values()
        done, total = sum(t.done for t in tracks), sum(t.total for t in tracks)
        elapsed = now - self.began if self.began is not None else 0.0
        finished = sum(1 for t in tracks if t.finished)
        left = sum(t.left(self.spend(t.seg_phase)) for t in tracks)
        eta = 0.0 if finished == len(self.tracks) else _eta(elapsed, done, left)
        return Overall(done, total, finished, len(self.tracks), elapsed, eta, self.spend())


def clock_text(seconds: float | None) -> str:
    """``1:02:03`` / ``2:03`` (``?`` when unknown)."""
    if seconds is None:
        return "?"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
