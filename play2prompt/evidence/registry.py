"""The evidence components by name, each behind a small interface, and the set a run uses.

A run's components come from its settings (:func:`evidence_for`): each name in
:data:`EVIDENCE` is either the component that does the work or its ``No...`` twin, which does
nothing the paper's method would not (no call, no gate, no fact). Every call of a working
component is counted in the engine's ``uses`` (by name; one count per tool, in the tool's
``stats.evidence_calls``), so a run shows what each component did and a test can pin that a
component a run turned off was never called.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from play2prompt.evidence import components as c
from play2prompt.evidence.names import (
    CLAIM_CHECK,
    CONVENTIONS,
    DESCRIBE,
    DESCRIBE_CHECK,
    DIMENSIONS,
    DOC_COMPLETION,
    EVIDENCE,
    FACT_READER,
    FACT_TESTS,
    FACTS_DOC,
    FORMAT_PROBES,
    KNOWN_OPERATIONS,
    LEVELS,
    OUTPUT_UNITS,
    PROBES,
    RANGE_SEARCH,
    RELABEL,
    REQUEST_GATES,
    REQUEST_PARTS,
    REREAD,
    SCHEMA_FACTS,
    VALUE_PROBES,
    active,
)

if TYPE_CHECKING:
    from play2prompt.evidence.facts import FactBook
    from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc

# The method's own types (a prober, the plays, a request writer, a reading) are ``Any`` here:
# the evidence layer sits below the method and names none of its modules.
__all__ = ["CLAIM_CHECK", "CONVENTIONS", "DESCRIBE", "DESCRIBE_CHECK", "DIMENSIONS",
           "DOC_COMPLETION", "EVIDENCE", "FACTS_DOC", "FACT_READER", "FACT_TESTS",
           "FORMAT_PROBES", "KNOWN_OPERATIONS", "LEVELS", "OUTPUT_UNITS", "PROBES",
           "RANGE_SEARCH", "RELABEL", "REQUEST_GATES", "REQUEST_PARTS", "REREAD", "SCHEMA_FACTS",
           "VALUE_PROBES", "Evidence", "active", "evidence_for"]


class FactReader(Protocol):
    def observe(self, book: FactBook, inv: Invocation, obs: Observation,
                probed: str | None = None) -> None: ...


class Probes(Protocol):
    async def run(self, prober: Any, plays: Any) -> None: ...


class RequestGates(Protocol):
    def problems(self, query: str, tool: Tool, sources: Sequence[str] = (),
                 allowed: str = "", inv: Invocation | None = None,
                 book: FactBook | None = None) -> list[str]: ...

    def rescaled(self, query: str, inv: Invocation, book: FactBook) -> Invocation | None:
        """The call a request asks for where it says a value on the scale the facts give
        ("5 %" is 5 for a tool that takes a percentage); None: as the call has it."""


class RequestParts(Protocol):
    async def compose(self, writer: Any, inv: Invocation, obs: Observation, seed_key: str,
                      book: FactBook) -> str:
        """A request written a value at a time, where no whole draft passed; "": none."""


class Rereading(Protocol):
    async def reread(self, writer: Any, query: str, inv: Invocation,
                     obs: Observation, seed_key: str, book: FactBook) -> Any:
        """The call re-derived from the request alone, executed; None: not re-read."""


class Relabelling(Protocol):
    async def relabel(self, writer: Any, query: str, reading: Any,
                      inv: Invocation, seed_key: str, book: FactBook, sources: Sequence[str],
                      previous: str) -> Any: ...


class DocCompletion(Protocol):
    def complete(self, doc: ToolDoc, d0: ToolDoc, book: FactBook,
                 reference: ToolDoc) -> ToolDoc: ...


class SchemaConstraints(Protocol):
    def constrain(self, doc: ToolDoc, tool: Tool, book: FactBook) -> ToolDoc:
        """``doc`` with the schema keywords ``book``'s facts prove (schema-facts); as given:
        prose only."""


class FactsDoc(Protocol):
    def candidates(self, d0: ToolDoc, reference: ToolDoc) -> list[ToolDoc]: ...


class FactTests(Protocol):
    """Step 1b's fact tests (the working one is :class:`play2prompt.evidence.fact_tests.
    WriteFactTests`, built where the method is run: it writes examples, so it sits above it)."""

    async def write(self, tool: Tool, engine: Any, space: Any,
                    examples: Any) -> Any: ...


class Describer(Protocol):
    async def describe(self, tool: Tool, engine: Any,
                       calls: Sequence[tuple[Invocation, Observation]],
                       book: FactBook) -> bool:
        """Describe ``tool`` (its original doc blank) from ``calls`` into ``book``'s facts;
        False: not yet (no call ran), call again after the next iteration."""

    async def verify(self, tool: Tool, engine: Any,
                     calls: Sequence[tuple[Invocation, Observation]],
                     book: FactBook) -> bool:
        """Check the description by execution (describe-check: the generator's guesses;
        known-operations: a catalogue's, by code), replacing it in ``book`` when a checked
        one holds; False: not yet (too few comparable outputs), call again
        with more calls. True at once when there is nothing to check."""


class ClaimCheck(Protocol):
    async def check(self, doc: ToolDoc, tool: Tool, engine: Any,
                    calls: Sequence[Invocation]) -> ToolDoc:
        """``doc`` less what execution refutes of it (claim-check: stated defaults), run on
        ``calls``; as given: no check."""


class UnitFinder(Protocol):
    async def learn(self, tool: Tool, engine: Any,
                    calls: Sequence[tuple[Invocation, Observation]], book: FactBook) -> bool:
        """The units ``tool``'s outputs on ``calls`` show (output-units, dimensions) into
        ``book``;
        False: not yet (too few number outputs), call again with more calls."""


@dataclass(frozen=True)
class Evidence:
    """One run's evidence components (each working or off)."""

    names: tuple[str, ...]
    fact_reader: FactReader
    probes: Probes
    request_gates: RequestGates
    request_parts: RequestParts
    reread: Rereading
    relabel: Relabelling
    doc_completion: DocCompletion
    claims: ClaimCheck
    facts_doc: FactsDoc
    schema: SchemaConstraints
    describe: Describer
    units: UnitFinder
    dimensions: UnitFinder
    levels: UnitFinder
    conventions: UnitFinder

    def uses(self, name: str) -> bool:
        return name in self.names


def evidence_for(engine: Any) -> Evidence:
    """The evidence components of ``engine``'s run (its settings' names), counting their calls
    in its ``uses``."""
    return _build(active(engine.config), engine.uses)


def _build(names: tuple[str, ...], counts: Counter[str]) -> Evidence:
    def pick(name: str, on: Any, off: Any) -> Any:
        return on(counts) if name in names else off()

    return Evidence(
        names,
        pick(FACT_READER, c.ReadFacts, c.NoFacts),
        c.RunProbes(counts, values=VALUE_PROBES in names, ranges=RANGE_SEARCH in names,
                    formats=FORMAT_PROBES in names)
        if PROBES in names else c.NoProbes(),
        pick(REQUEST_GATES, c.Gates, c.NoGates),
        pick(REQUEST_PARTS, c.ByParts, c.NoParts),
        pick(REREAD, c.Reread, c.NoReread),
        pick(RELABEL, c.Relabel, c.NoRelabel),
        pick(DOC_COMPLETION, c.CompleteDoc, c.RewriteAsIs),
        pick(CLAIM_CHECK, c.CheckClaims, c.TrustClaims),
        pick(FACTS_DOC, c.AddFactsDoc, c.NoFactsDoc),
        pick(SCHEMA_FACTS, c.SchemaFacts, c.ProseOnly),
        c.Describe(counts, check=DESCRIBE_CHECK in names, operations=KNOWN_OPERATIONS in names)
        if DESCRIBE in names else c.NoDescribe(),
        pick(OUTPUT_UNITS, c.OutputUnits, c.NoOutputUnits),
        pick(DIMENSIONS, c.Dimensions, c.NoOutputUnits),
        pick(LEVELS, c.Levels, c.NoOutputUnits),
        pick(CONVENTIONS, c.Conventions, c.NoOutputUnits),
    )
