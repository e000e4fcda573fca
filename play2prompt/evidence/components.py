"""The evidence components (:mod:`play2prompt.evidence.registry` names them): each working one
counts its calls in the engine's ``uses`` (by name, handed to it when it is built) and hands
over to the code that does the work; each ``No...`` twin does what the paper's method does in
its place (nothing).
The method's own types (a prober, a request writer, a reading) are ``Any`` here: this layer
names none of the method's modules."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from play2prompt.evidence import names as r
from play2prompt.evidence.claims import check_claims
from play2prompt.evidence.completion import complete_doc
from play2prompt.evidence.conventions import conventions
from play2prompt.evidence.describe import (
    TRIES,
    can_check,
    describe_tool,
    needs_description,
    verified_description,
)
from play2prompt.evidence.dimensions import dimensions
from play2prompt.evidence.gates import request_problems, rescaled
from play2prompt.evidence.levels import levels
from play2prompt.evidence.operations import known_description
from play2prompt.evidence.output_units import output_units
from play2prompt.evidence.schema_facts import constrained
from play2prompt.method.discovery import DESCRIBES

if TYPE_CHECKING:
    from play2prompt.evidence.facts import FactBook
    from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc


class Counted:
    """A working component: its calls go to ``counts`` (the engine's ``uses``)."""

    def __init__(self, counts: Counter[str]) -> None:
        self.counts = counts


class ReadFacts(Counted):
    """The fact reader: what an execution shows (its error read, its output's shape)."""

    def observe(self, book: FactBook, inv: Invocation, obs: Observation,
                probed: str | None = None) -> None:
        self.counts[r.FACT_READER] += 1
        book.observe(inv, obs, probed)


class NoFacts:
    def observe(self, book: FactBook, inv: Invocation, obs: Observation,
                probed: str | None = None) -> None:
        return None


class RunProbes(Counted):
    """The probes; with ``values`` (the ``value-probes`` component) also the texts a tool acts
    on where it ignored a call's (:mod:`play2prompt.evidence.values`), with ``ranges``
    (``range-search``) the ends of a refused number's range (:mod:`.bounds`), with
    ``formats`` (``format-probes``) a failing call's refused texts in the standard formats
    (:mod:`.formats`)."""

    def __init__(self, counts: Counter[str], values: bool = False,
                 ranges: bool = False, formats: bool = False) -> None:
        super().__init__(counts)
        self.values, self.ranges, self.formats = values, ranges, formats

    async def run(self, prober: Any, plays: Any) -> None:
        self.counts[r.PROBES] += 1
        before = prober.formatted
        await prober.run(plays, formats=self.formats)
        if prober.formatted > before:
            self.counts[r.FORMAT_PROBES] += 1
        if self.values and await prober.run_values():
            self.counts[r.VALUE_PROBES] += 1
        if self.ranges and await prober.run_ranges():
            self.counts[r.RANGE_SEARCH] += 1


class NoProbes:
    async def run(self, prober: Any, plays: Any) -> None:
        return None


class Gates(Counted):
    def problems(self, query: str, tool: Tool, sources: Sequence[str] = (),
                 allowed: str = "", inv: Invocation | None = None,
                 book: FactBook | None = None) -> list[str]:
        self.counts[r.REQUEST_GATES] += 1
        return request_problems(query, tool, sources, allowed, inv, book)

    def rescaled(self, query: str, inv: Invocation, book: FactBook) -> Invocation | None:
        self.counts[r.REQUEST_GATES] += 1
        return rescaled(query, inv, book)


class NoGates:
    def problems(self, query: str, tool: Tool, sources: Sequence[str] = (),
                 allowed: str = "", inv: Invocation | None = None,
                 book: FactBook | None = None) -> list[str]:
        return []

    def rescaled(self, query: str, inv: Invocation, book: FactBook) -> Invocation | None:
        return None


class ByParts(Counted):
    async def compose(self, writer: Any, inv: Invocation, obs: Observation, seed_key: str,
                      book: FactBook) -> str:
        self.counts[r.REQUEST_PARTS] += 1
        return await writer.by_parts(inv, obs, seed_key, book)


class NoParts:
    async def compose(self, writer: Any, inv: Invocation, obs: Observation, seed_key: str,
                      book: FactBook) -> str:
        return ""


class Reread(Counted):
    async def reread(self, writer: Any, query: str, inv: Invocation,
                     obs: Observation, seed_key: str, book: FactBook) -> Any:
        self.counts[r.REREAD] += 1
        return await writer.reread(query, inv, obs, seed_key, book)


class NoReread:
    async def reread(self, writer: Any, query: str, inv: Invocation,
                     obs: Observation, seed_key: str, book: FactBook) -> Any:
        return None


class Relabel(Counted):
    async def relabel(self, writer: Any, query: str, reading: Any,
                      inv: Invocation, seed_key: str, book: FactBook, sources: Sequence[str],
                      previous: str) -> Any:
        self.counts[r.RELABEL] += 1
        return await writer.relabel(query, reading, inv, seed_key, book, sources, previous)


class NoRelabel:
    async def relabel(self, writer: Any, query: str, reading: Any,
                      inv: Invocation, seed_key: str, book: FactBook, sources: Sequence[str],
                      previous: str) -> Any:
        return None


class CompleteDoc(Counted):
    def complete(self, doc: ToolDoc, d0: ToolDoc, book: FactBook,
                 reference: ToolDoc) -> ToolDoc:
        self.counts[r.DOC_COMPLETION] += 1
        return complete_doc(doc, d0, book, reference)


class RewriteAsIs:
    def complete(self, doc: ToolDoc, d0: ToolDoc, book: FactBook,
                 reference: ToolDoc) -> ToolDoc:
        return doc


class CheckClaims(Counted):
    async def check(self, doc: ToolDoc, tool: Tool, engine: Any,
                    calls: Sequence[Invocation]) -> ToolDoc:
        self.counts[r.CLAIM_CHECK] += 1
        return await check_claims(doc, tool, engine, calls)


class TrustClaims:
    async def check(self, doc: ToolDoc, tool: Tool, engine: Any,
                    calls: Sequence[Invocation]) -> ToolDoc:
        return doc


class SchemaFacts(Counted):
    """The facts a schema can hold (enum, range, default) in a doc's constraints
    (:mod:`play2prompt.evidence.schema_facts`)."""

    def constrain(self, doc: ToolDoc, tool: Tool, book: FactBook) -> ToolDoc:
        self.counts[r.SCHEMA_FACTS] += 1
        return constrained(doc, tool, book)


class ProseOnly:
    def constrain(self, doc: ToolDoc, tool: Tool, book: FactBook) -> ToolDoc:
        return doc


class AddFactsDoc(Counted):
    def candidates(self, d0: ToolDoc, reference: ToolDoc) -> list[ToolDoc]:
        self.counts[r.FACTS_DOC] += 1
        return [reference]


class NoFactsDoc:
    def candidates(self, d0: ToolDoc, reference: ToolDoc) -> list[ToolDoc]:
        return []


class Describe(Counted):
    """An undocumented tool described once from its executed calls (no call for a tool with
    a real description: counted only when it asks the generator); with ``check`` (the
    ``describe-check`` component) the description is then verified by running guessed
    expressions on those calls, and a guess that holds replaces it; with ``operations``
    (``known-operations``) a catalogue's operations are run on them by code
    (:mod:`play2prompt.evidence.operations`) and one that holds replaces it where no guess
    held. Where one holds, the generator gets one try, not ``TRIES``: its retries could only
    put one expression that holds in place of another (on opaque BFCL, run bfcl-a-acted, no
    retry held where the catalogue did: 6 tools, 24 of 131 samples)."""

    def __init__(self, counts: Counter[str], check: bool = False,
                 operations: bool = False) -> None:
        super().__init__(counts)
        self.check = check
        self.operations = operations      # known-operations: the catalogue where none held

    async def describe(self, tool: Tool, engine: Any,
                       calls: Sequence[tuple[Invocation, Observation]],
                       book: FactBook) -> bool:
        if not needs_description(tool):
            return True
        if not any(obs.ok for _, obs in calls):
            return False
        self.counts[r.DESCRIBE] += 1
        said = await describe_tool(tool, engine, calls)
        for fact in said.facts() if said is not None else ():
            book.add(fact)
        return True

    async def verify(self, tool: Tool, engine: Any,
                     calls: Sequence[tuple[Invocation, Observation]],
                     book: FactBook) -> bool:
        if not (self.check or self.operations) or not needs_description(tool):
            return True
        if not can_check(calls):
            return False
        known = None
        if self.operations:
            self.counts[r.KNOWN_OPERATIONS] += 1
            known = await asyncio.to_thread(known_description, tool, calls)
        held = None
        if self.check:           # one try where a known operation already holds
            self.counts[r.DESCRIBE_CHECK] += 1
            held = await verified_description(tool, engine, calls,
                                              tries=1 if known is not None else TRIES)
        held = held or known
        if held is not None:
            book.forget(DESCRIBES)
            for fact in held.facts():
                book.add(fact)
        return True


class NoDescribe:
    async def describe(self, tool: Tool, engine: Any,
                       calls: Sequence[tuple[Invocation, Observation]],
                       book: FactBook) -> bool:
        return True

    async def verify(self, tool: Tool, engine: Any,
                     calls: Sequence[tuple[Invocation, Observation]],
                     book: FactBook) -> bool:
        return True


class _Units(Counted):
    """A finder of units (``find``: the facts it found, None while it has no chance yet),
    once per tool; its calls counted under ``name``, the units found added as facts."""

    name: ClassVar[str]
    find: ClassVar[Callable[..., Awaitable[list[Any] | None]]]

    async def learn(self, tool: Tool, engine: Any,
                    calls: Sequence[tuple[Invocation, Observation]], book: FactBook) -> bool:
        ruled = {p: " ".join(book.sentences(p, examples=False)) for p in tool.properties}
        found = await self.find(tool, engine, calls, ruled)
        if found is None:
            return False
        self.counts[self.name] += 1
        for fact in found:
            book.add(fact if fact.source else replace(fact, source="output"))
        return True


class OutputUnits(_Units):
    """A number parameter's unit from a formula fit to the tool's outputs
    (:mod:`play2prompt.evidence.output_units`): up to three generator calls where the tool has
    number outputs and a number parameter no fact gives a unit yet."""

    name = r.OUTPUT_UNITS
    find = staticmethod(output_units)


class Dimensions(_Units):
    """A number parameter's unit from how an output that names its unit scales with it
    (:mod:`play2prompt.evidence.dimensions`): executions only, no LLM call."""

    name = r.DIMENSIONS
    find = staticmethod(dimensions)


class Levels(_Units):
    """What each value of a level parameter means, as shares of an output field
    (:mod:`play2prompt.evidence.levels`): executions only, no LLM call."""

    name = r.LEVELS
    find = staticmethod(levels)


class Conventions(_Units):
    """A parameter's silent convention (cents, milliseconds, counting from 0), decided by
    code from outputs of calls that separate the alternatives
    (:mod:`play2prompt.evidence.conventions`): executions only, no LLM call."""

    name = r.CONVENTIONS
    find = staticmethod(conventions)


class NoOutputUnits:
    """The twin of :class:`OutputUnits`, :class:`Dimensions`, :class:`Levels` and
    :class:`Conventions`: nothing learned."""

    async def learn(self, tool: Tool, engine: Any,
                    calls: Sequence[tuple[Invocation, Observation]], book: FactBook) -> bool:
        return True
