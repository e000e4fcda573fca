"""Format probes (component ``format-probes``): a text the tool refuses, tried in the standard
formats, so that a tool no call of play's got to run runs.

Where the doc says nothing of a text's format (an opaque tool; "finish time", "destination"),
a small generator writes what people say ("2 hours", "New York") and the tool answers "bad
time '2 hours'" or "no rates for destination 'New York'": the value is wrong, and the error
does not say what would be right. Code then tries, in place of the text the error quotes, a
value of each standard format in turn (``data/text_formats.json``: ISO 8601 dates, times and
durations, ISO country and currency codes, IANA zones, language tags, hex colours), after the
text's own code where it names one ("Canada" as "CA", "Euro" as "EUR", "Tokyo" as
"Asia/Tokyo": the call keeps its meaning); where the tool listed the values it takes, those
instead. An optional text is first tried left out: play's generator set ``weekmask`` of a
business-day counter in all of its 30 calls, each refused ("Invalid business day weekmask
string"), where a call without it runs. A call whose error moves on to another text
("no rates for destination" once the service is one the tool lists) is the next start, a few
steps at most. A value that runs makes a repaired call, a valid call found by code
(:class:`~play2prompt.evidence.probes.Prober` keeps it); two more values of its format are
run beside it, and those that run join the valid calls too, so the facts show the format by
three examples ("For example: 'US', 'GB'"), not by one guess. Failed tries are not read into
facts: they are code's guesses, not statements about the tool.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.named_codes import codes_of
from play2prompt.evidence.observed import run_seen, seen
from play2prompt.method.play import code_verdict
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

DATA = "text_formats.json"
MAX_STEPS = 3       # texts fixed one after another in one call
MAX_LISTED = 3      # listed values tried for a text the tool lists
CONFIRMED = 3       # values of a format that ran, the winner's included
LEFT_OUT = "left out"


@dataclass(frozen=True)
class Formatted:
    """A call a format probe made: the text it changed, and whether it ran."""
    param: str
    invocation: Invocation
    observation: Observation
    works: bool


def blamed(tool: Tool, inv: Invocation, error: str) -> str | None:
    """The text argument an error is about: the one whose value it quotes first (two
    characters or more), else the one it names; None when it speaks of no text."""
    low = error.lower()
    texts = {n: v for n, v in inv.arguments.items()
             if isinstance(v, str) and (tool.properties.get(n) or {}).get("type", "string")
             == "string"}
    quoted = [(low.find(v.strip().lower()), n) for n, v in texts.items()
              if len(v.strip()) > 1 and v.strip().lower() in low]
    if quoted:
        return min(quoted)[1]
    named = [(low.find(n.lower()), n) for n in texts if n.lower() in low]
    return min(named)[1] if named else None


def candidates(book: FactBook, param: str, value: Any) -> list[tuple[str, str]]:
    """(format, value) pairs to try for ``param``: the values the tool listed, else the
    refused text's own standard codes where it names one ("Canada" as "CA": the same meaning,
    :func:`~play2prompt.evidence.named_codes.codes_of`), then the first value of each standard
    format."""
    listed = book.accepted(param)
    if listed:
        return [("listed", v) for v in listed[:MAX_LISTED] if v != value]
    own = codes_of(value) if isinstance(value, str) else []
    return [*own, *((name, values[0]) for name, values in words(DATA)["formats"].items()
                    if values[0] != value and (name, values[0]) not in own)]


def _runs(obs: Observation) -> bool:
    return code_verdict(obs)[0] == 0


async def probe_formats(tool: Tool, engine: Engine, start: Invocation, start_obs: Observation,
                        book: FactBook) -> list[Formatted]:
    """Format probes from the failing call ``start``: every call tried, in order; those that
    ran first in their step (``works``), and the values that confirm their format."""
    tried: list[Formatted] = []
    visited: set[str] = set()
    call, obs = start, start_obs
    for _ in range(MAX_STEPS):
        param = blamed(tool, call, obs.error or "")
        if param is None or param in visited:
            break
        visited.add(param)
        pairs: list[tuple[str, Any]] = candidates(book, param, call.arguments.get(param))
        calls = [call.with_args({param: v}) for _, v in pairs]
        if param not in set(tool.required):     # an optional text is first tried left out
            pairs, calls = [(LEFT_OUT, None), *pairs], [call.without(param), *calls]
        seen_obs = await run_seen(engine, calls)
        step = [Formatted(param, c, o, _runs(o)) for c, o in zip(calls, seen_obs)]
        tried += step
        won = next(((fmt, f) for (fmt, _), f in zip(pairs, step) if f.works), None)
        if won is not None:
            tried += await _confirm(engine, won[1], won[0], step)
            break
        moved = next((f for f in step if blamed(tool, f.invocation, f.observation.error or "")
                      not in (param, None)), None)
        if moved is None:
            break
        call, obs = moved.invocation, moved.observation
    return tried


async def _confirm(engine: Engine, won: Formatted, fmt: str,
                   step: list[Formatted]) -> list[Formatted]:
    """More values of the format that ran, each in the call that ran, until
    :data:`CONFIRMED` of them ran; one its step ran already counts (no call made twice)."""
    same = words(DATA)["formats"].get(fmt, [])
    ran = {won.invocation.arguments.get(won.param)} | {
        v for f in step if f.works and (v := f.invocation.arguments.get(won.param)) in same}
    values = [v for v in same if v not in ran][:max(0, CONFIRMED - len(ran))]
    calls = [won.invocation.with_args({won.param: v})
             for v in values]
    raw = await asyncio.gather(*(engine.runtime.run(c) for c in calls))
    return [Formatted(won.param, c, seen(o, engine.scrubber), _runs(o))
            for c, o in zip(calls, raw)]


__all__ = ["LEFT_OUT", "Formatted", "blamed", "candidates", "probe_formats"]
