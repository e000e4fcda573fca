"""Probes: calls that vary one argument of a call that ran, so the tool states what it accepts.

A text argument gets an unknown word and the examples the doc itself gives (a date-time also
its date alone and its time alone); a number gets its negative, a hundred times it and a
hundredth of it. A search that found nothing is also run without each optional argument, with
only its required ones, and with each optional one alone; then each of those that found
results is run with the text that found nothing replaced by a word of what it found
(:func:`with_output_words`: "knife" where "mobile" found nothing). What a probe shows is read by
:class:`FactBook` like any other execution; a probe that finds results where its call found
nothing is a fact of its own.

A call can be wrong in two arguments (a time "4:12 PM" where the tool takes "16:12", a city
"Tokyo" where it takes "Asia/Tokyo"): no probe of one argument works, but one changes the
error (the time is accepted; now the zone is refused). While no call has worked, each probe
that changed the error is also tried together with the probes of the other arguments
(:func:`combined`), the ones the new error points at first.

A probe that works where the call it varies failed (or found nothing) is a *repaired call*: a
valid call found by code. :class:`Prober` keeps them for the plays that found no valid call, so
a generator too small to act on the tool's error ("height 1.75 looks like metres") still gets
examples to write requests for. A call that failed with a type error about a value's shape is
first reshaped (:mod:`play2prompt.evidence.reshape`: a list for a scalar, ...); a reshaped call
that runs is a repaired call too.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.bounds import search_ranges
from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import PROBE_WORD, Fact, FactBook, evidence_of
from play2prompt.evidence.formats import probe_formats
from play2prompt.evidence.observed import seen
from play2prompt.evidence.registry import evidence_for
from play2prompt.evidence.reshape import Reshaped, reshape
from play2prompt.evidence.values import probe_values, unacted
from play2prompt.evidence.variants import unasked_fact
from play2prompt.method.play import PlayResult, code_verdict, found_nothing
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

_ABSENT = object()

_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{1,2}:\d{2})(?::\d{2}(?:\.\d+)?)?"
                       r"(?:Z|[+-]\d{2}:?\d{2})?")


def probes(tool: Tool, inv: Invocation) -> list[tuple[str, Invocation]]:
    """Calls that vary one argument of the valid call ``inv`` to make the tool state its
    accepted values, units and ranges: (the parameter varied, the call)."""
    out: list[tuple[str, Invocation]] = []
    absent = {n: PROBE_WORD for n, s in tool.properties.items()
              if n not in inv.arguments and (s or {}).get("type") == "string"}
    for name, value in {**inv.arguments, **absent}.items():
        spec = tool.properties.get(name) or {}
        if "enum" in spec:
            continue
        kind = spec.get("type")
        variants: list[Any] = []
        if kind == "string" and isinstance(value, str):
            # an unknown word, and the examples the doc itself gives ("e.g. miles"): a doc's
            # example the tool rejects is a statement play refutes
            variants = [PROBE_WORD, *doc_examples(str(spec.get("description") or "")),
                        *datetime_parts(value)]
        elif kind in ("number", "integer") and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            base = value if value else 1
            variants = [-abs(base), base * 100]
            if kind == "number":
                variants.append(round(base / 100, 6))
            if kind == "integer":
                variants = [int(v) for v in variants]
        for v in dict.fromkeys(variants):
            if v != inv.arguments.get(name):
                out.append((name, inv.with_args({name: v})))
    return out


@cache
def _doc_example() -> re.Pattern[str]:
    intro = "|".join(words()["example_intro"])
    return re.compile(rf"\b(?:{intro})\s*[:,]?\s*['\"]?([A-Za-z0-9][\w/+.:-]{{0,30}})", re.I)


def doc_examples(text: str) -> list[str]:
    """The example values a doc text gives ("unit name, e.g. miles" gives "miles")."""
    return list(dict.fromkeys(m.group(1).rstrip(".,;:") for m in _doc_example().finditer(text)))


def datetime_parts(value: str) -> list[str]:
    """A date-time's date alone and its time alone ('2023-04-01T12:00:00Z' gives '2023-04-01'
    and '12:00'): the shapes a tool that rejects the whole may take."""
    m = _DATETIME.fullmatch(value.strip())
    return [m.group(1), m.group(2).zfill(5)] if m else []


def without_optional(tool: Tool, inv: Invocation) -> list[tuple[str, Invocation]]:
    """For a search that found nothing: the call without each of its optional arguments in
    turn, with only its required ones, and with each optional one alone (which argument
    narrowed it to nothing; which alone still finds something)."""
    required = set(tool.required)
    base = {k: v for k, v in inv.arguments.items() if k in required}
    optional = [name for name in inv.arguments if name not in required]
    out = [(name, Invocation(inv.name, {k: v for k, v in inv.arguments.items() if k != name}))
           for name in optional]
    if len(optional) > 1:
        out.append(("", Invocation(inv.name, base)))
        if len(optional) > 2:
            out.extend((name, Invocation(inv.name, {**base, name: inv.arguments[name]}))
                       for name in optional)
    return out


MAX_OUTPUT_WORDS = 3   # calls given a word of a probe's results, per probing
_WORD = re.compile(r"[^\W\d_]{4,}")


def output_words(output: Any, limit: int = 2) -> list[str]:
    """Words (4 letters or more) of the first items a tool found, one per item, in order:
    "charger" from ``{"products": [{"name": "USB-C charger 65W"}, ...]}``."""
    items = next((v for v in (output.values() if isinstance(output, dict) else [output])
                  if isinstance(v, list) and v), [])
    out: list[str] = []
    for item in items:
        texts = [v for v in (item.values() if isinstance(item, dict) else [item])
                 if isinstance(v, str)]
        found = [w.lower() for t in sorted(texts, key=len, reverse=True) for w in _WORD.findall(t)]
        word = next((w for w in found if w not in out and w != PROBE_WORD), None)
        if word:
            out.append(word)
        if len(out) >= limit:
            break
    return out


def with_output_words(start: Invocation, probed: Sequence[tuple[str, Invocation, Observation]]
                      ) -> list[tuple[str, Invocation]]:
    """For a search ``start`` that found nothing: each probe that found results without one
    of its texts, given that text back as a word of what the probe found ("knife" where
    "mobile" found nothing), the probes with the most arguments first; a call that works is
    a search that finds something (a repaired call)."""
    texts = [n for n, v in start.arguments.items() if isinstance(v, str) and v.strip()]
    ran = [(inv, obs) for _, inv, obs in probed
           if obs.ok and code_verdict(obs)[0] == 0 and PROBE_WORD not in inv.arguments.values()]
    out: list[tuple[str, Invocation]] = []
    for inv, obs in sorted(ran, key=lambda r: -len(r[0].arguments)):
        for name in (n for n in texts if n not in inv.arguments):
            out += [(name, inv.with_args({name: w}))
                    for w in output_words(obs.output, 1)]
    return list({inv.key(): (n, inv) for n, inv in out}.values())[:MAX_OUTPUT_WORDS]


MAX_COMBINED = 16   # calls that join two probes' changes, per probing


def combined(start: Invocation, start_obs: Observation,
             probed: Sequence[tuple[str, Invocation, Observation]]
             ) -> list[tuple[str, Invocation]]:
    """Calls that join two probes' changes of different arguments, for a call that failed:
    each probe whose error differs from the start's (it removed that error) with each probe
    of another argument, those whose argument or value the new error names first; never the
    probe's unknown word. ``(the second probe's argument, the call)``."""
    def changed(obs: Observation) -> bool:
        return not obs.ok and obs.error != start_obs.error

    fixes = [(p, inv, obs) for p, inv, obs in probed
             if p and changed(obs) and PROBE_WORD not in inv.arguments.values()]
    out: dict[str, tuple[int, str, Invocation]] = {}
    for p1, inv1, obs1 in fixes:
        said = (obs1.error or "").lower()
        for p2, inv2, _ in probed:
            if not p2 or p2 == p1 or PROBE_WORD in inv2.arguments.values() \
                    or p2 not in inv2.arguments:
                continue
            call = Invocation(start.name, {**inv1.arguments, p2: inv2.arguments[p2]})
            named = p2.lower() in said or str(start.arguments.get(p2, "\0")).lower() in said
            out.setdefault(call.key(), (0 if named else 1, p2, call))
    ranked = sorted(out.values(), key=lambda item: item[0])
    return [(p, call) for _, p, call in ranked[:MAX_COMBINED]]


def found_with(param: str, start: Invocation, probe: Invocation, obs: Observation) -> Fact:
    """What a probe shows when the call it varies found nothing and the probe found results
    (a price in cents searched with dollars finds nothing; a hundred times it finds some)."""
    before = start.arguments.get(param)
    after = (f"with {param}={probe.arguments[param]!r}" if param in probe.arguments
             else f"without {param}")
    text = f"With {param}={before!r} the tool found nothing; {after} it found results."
    return Fact(param, "rule", text, (), evidence_of(probe, obs),
                probe.key())



@dataclass(frozen=True)
class Repaired:
    """A probe that worked where the call it varied failed or found nothing."""
    invocation: Invocation
    observation: Observation
    param: str            # the argument the probe changed ("" for the required-only call)
    how: str = "changing"  # or "reshaping" (a list for a scalar: :mod:`.reshape`), or
    #                        "formatting" (a text in a standard format: :mod:`.formats`)

    def note(self) -> str:
        what = f"{self.how} {self.param}" if self.param else "keeping only required arguments"
        return f"found by probing ({what}) a call that did not work"


class Prober:
    """Probes one tool from an executed call: once from the first call that ran while none
    has worked, then once more from the first that works. Keeps the repaired calls."""

    def __init__(self, tool: Tool, engine: Engine, book: FactBook) -> None:
        self.tool = tool
        self.engine = engine
        self.book = book                  # the tool's facts: probes add to it
        self.probed: list[tuple[str, Invocation, Observation]] = []
        self.from_valid = False           # the probes started from a call that worked
        self.repaired: list[Repaired] = []
        self._used: set[str] = set()
        self.started = False              # the probes of one argument ran
        self._reshaped: set[str] = set()  # failing calls reshaped (keys)
        self.worked: tuple[Invocation, Observation] | None = None   # the valid call probed
        self.valued = False               # its value probes ran (:mod:`.values`)
        self.ranged = False               # its range search ran (:mod:`.bounds`)
        self.valid: list[Invocation] = []  # play's calls that worked, in order
        self.texts: dict[str, list[str]] = {}   # the texts play's calls gave each parameter
        self.formatted = 0                # calls the format probes made (:mod:`.formats`)

    async def run(self, plays: Sequence[PlayResult], formats: bool = False) -> None:
        """Probe from play's calls; ``formats`` (the ``format-probes`` component): a failing
        start's refused texts tried in the standard formats too (:mod:`.formats`)."""
        reshaped = await self._reshape(plays)
        executed = [a for p in plays for a in p.attempts
                    if a.invocation is not None and a.observation.error_type in (None, "exception")]
        valid = [a for a in executed if a.verdict == 0]
        known = {inv.key() for inv in self.valid}
        self.valid += [a.invocation for a in valid if a.invocation is not None
                       and a.invocation.key() not in known]
        for a in executed:       # the texts play gave each parameter (value probes try them)
            assert a.invocation is not None
            for name, value in a.invocation.arguments.items():
                if isinstance(value, str) and value not in self.texts.setdefault(name, []):
                    self.texts[name].append(value)
        if not executed or (self.started and (self.from_valid or not valid)):
            if reshaped:
                self._record(reshaped[0].start, bool(valid))
            return
        self.started = True
        worked = [a for a in executed if a.observation.ok]   # ran, maybe finding nothing
        first = (valid or worked or executed)[0]
        start = first.invocation
        assert start is not None
        self.from_valid = bool(valid)
        empty = first.observation.ok and found_nothing(first.observation.output)
        calls = probes(self.tool, start) + (without_optional(self.tool, start) if empty else [])
        calls = list({inv.key(): (p, inv) for p, inv in calls if inv.key() != start.key()}
                     .values())
        done = len(self.probed)
        await self._try(calls, start, bool(valid), empty)
        if valid:
            self.worked = (start, seen(first.observation, self.engine.scrubber))
        if empty:     # a word of what the tool found, for the text that found nothing
            tried = {inv.key() for _, inv, _ in self.probed} | {start.key()}
            await self._try([(p, inv) for p, inv in with_output_words(start, self.probed[done:])
                             if inv.key() not in tried], start, bool(valid), False)
        if formats and not valid and not first.observation.ok and not self.repaired:
            await self._formats(start, seen(first.observation, self.engine.scrubber))
        if not valid and not first.observation.ok and not self.repaired:
            tried = {inv.key() for _, inv, _ in self.probed} | {start.key()}
            start_obs = seen(first.observation, self.engine.scrubber)
            pairs = [(p, inv) for p, inv in combined(start, start_obs, self.probed[done:])
                     if inv.key() not in tried]
            await self._try(pairs, start, False, False)
        await self._reshape(plays)   # what the probes showed (a text the tool evaluates)
        self._record(start, bool(valid))

    async def _formats(self, start: Invocation, start_obs: Observation) -> None:
        """The format probes of a failing start (:mod:`.formats`): each call that ran is a
        repaired call, read as a valid call; failed tries are code's guesses, not read. A
        call that ran with an optional text left out says so as a fact ("Optional; leave it
        out ...")."""
        tried = await probe_formats(self.tool, self.engine, start, start_obs, self.book)
        self.formatted += len(tried)
        for f in tried:
            if f.works:
                evidence_for(self.engine).fact_reader.observe(self.book, f.invocation,
                                                              f.observation, None)
                self.repaired.append(Repaired(f.invocation, f.observation, f.param,
                                              "formatting"))
                if f.param not in f.invocation.arguments:    # it ran with the text left out
                    self.book.add(unasked_fact(f.param, f.invocation, f.observation))
                self.probed.append((f.param, f.invocation, f.observation))

    async def _reshape(self, plays: Sequence[PlayResult]) -> list[Reshaped]:
        """Reshape the calls (play's, then the probes') that failed with a type-shape error or
        on a text the tool evaluates as code (:mod:`.reshape`): the reshaped calls run, those
        that ran kept as repaired calls."""
        tried = {a.invocation.key() for p in plays for a in p.attempts
                 if a.invocation is not None} | {inv.key() for _, inv, _ in self.probed}
        done = await reshape(self.tool, self.engine, self.book, plays, tried, self._reshaped,
                             [(inv, obs) for _, inv, obs in self.probed])
        for r in done:
            self.probed.append((r.param, r.invocation, r.observation))
            if r.works:
                self.repaired.append(Repaired(r.invocation, r.observation, r.param,
                                              "reshaping"))
        return done

    async def _try(self, calls: Sequence[tuple[str, Invocation]], start: Invocation,
                   valid: bool, empty: bool) -> None:
        """Execute probes and read what they show."""
        observations = await asyncio.gather(*(self.engine.runtime.run(inv) for _, inv in calls))
        for (param, inv), raw in zip(calls, observations):
            obs = seen(raw, self.engine.scrubber)
            works = code_verdict(obs)[0] == 0
            repaired = works and not valid and PROBE_WORD not in inv.arguments.values()
            # a repaired call is a valid call like play's; other probes show only what they vary
            evidence_for(self.engine).fact_reader.observe(
                self.book, inv, obs, None if repaired else (param or None))
            if empty and works and param and \
                    inv.arguments.get(param, _ABSENT) != start.arguments.get(param):
                self.book.add(found_with(param, start, inv, obs))
            if repaired:
                self.repaired.append(Repaired(inv, obs, param))
            self.probed.append((param, inv, obs))

    async def run_values(self) -> bool:
        """Once the probes ran from a call that worked: the value probes of each text
        parameter whose unknown word gave that call's output (:mod:`.values`). False when
        there was nothing to ask."""
        if self.worked is None or self.valued:
            return False
        self.valued = True
        start, start_obs = self.worked
        params = unacted(start, start_obs, self.probed)
        for param in params:
            probe = await probe_values(self.tool, self.engine, self.book, start, start_obs,
                                       param, self.texts.get(param, ()))
            self.probed.extend((param, inv, obs) for inv, obs in probe.tried)
        if params:
            self._record(start, True)
        return bool(params)

    async def run_ranges(self) -> bool:
        """Once the probes ran from a call that worked: the range search of each number
        parameter a probe of it was refused (:mod:`.bounds`). False when there was none."""
        if self.worked is None or self.ranged:
            return False
        self.ranged = True
        start = self.worked[0]
        searched = await search_ranges(self.tool, self.engine, self.book, start, self.probed,
                                       self.valid)
        for s in searched:
            self.probed.extend((s.param, inv, obs) for inv, obs in s.tried)
        if searched:
            self._record(start, True)
        return bool(searched)

    def take(self, exclude: Collection[str]) -> Repaired | None:
        """The next repaired call not in ``exclude`` (call keys) and not taken before, the
        one with the most arguments first (it asks for more than ``{}``, which lists all)."""
        for r in sorted(self.repaired, key=lambda r: -len(r.invocation.arguments)):
            key = r.invocation.key()
            if key not in self._used and key not in exclude:
                self._used.add(key)
                return r
        return None

    def _record(self, start: Invocation, valid: bool) -> None:
        self.engine.trace.candidate(
            "probe", self.tool.name, f"probe-{self.tool.name}-{len(self.probed)}",
            iteration=0, parent=None, state="valid" if valid else "invalid", reward=None,
            payload={"from": start.to_dict(), "probes": [
                {"param": p, "invocation": i.to_dict(), "observation": o.to_dict()}
                for p, i, o in self.probed], "facts": self.book.to_list(),
                "repaired": [r.invocation.to_dict() for r in self.repaired]})


__all__ = ["Prober", "Repaired", "combined", "datetime_parts", "doc_examples",
           "found_with", "output_words", "probes", "with_output_words", "without_optional"]
