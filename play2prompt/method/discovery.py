"""The interface a tool's errors showed: which parameters it has, which it requires, what
type each takes and which it does not take, as JSON Schema, from the book's ``param`` facts
(read by :mod:`play2prompt.evidence.error_reading` from errors like "f() missing 1 required
positional argument: 'b'" or pydantic's "b  Field required [type=missing, ...]").

Pure functions of the facts: play calls them to give a tool whose schema lost its parameters
(or never listed some) the ones its errors named. :func:`discovered_tool` is the tool as play
knows it: the schema every later try is decoded against, the doc it reads, what re-reading
and the task model's tests see, and (from Step 1 on) the tool the rest of its optimization
works on and its result keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from play2prompt.tools.model import Tool, ToolDoc

DESCRIBES = "describes"   # the fact kind of what the tool does, said by the generator from
                          # executed calls (:mod:`play2prompt.evidence.describe`)


class Fact(Protocol):
    """What discovery reads of a :class:`~play2prompt.evidence.facts.Fact` (a protocol, so this
    module, which ``facts`` imports, does not import it back)."""

    @property
    def param(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def values(self) -> tuple[str, ...]: ...


class FactBook(Protocol):
    """What discovery reads of a :class:`~play2prompt.evidence.facts.FactBook`."""

    @property
    def facts(self) -> Sequence[Fact]: ...

    def of(self, param: str) -> Sequence[Fact]: ...

    def sentences(self, param: str, examples: bool = True) -> Sequence[str]: ...

    def absent_parameters(self) -> Sequence[str]: ...


def discovered_parameters(facts: Iterable[Fact], parameters: Mapping[str, Any]
                          ) -> dict[str, Any]:
    """The parameters ``facts`` (kind ``param``) show that the schema ``parameters`` lacks:
    ``{"properties": {name: {"type": ...} or {}}, "required": [names]}``. A parameter is in
    ``properties`` when the schema does not have it, or has it without the type the tool
    showed (an integer where the schema says number counts, the reverse does not); in
    ``required`` when the tool said it is required and the schema does not. A parameter the
    tool said it does not take is in neither. A type a call ran with (status ``ran``, from a
    reshaped call: ``(ran, "array", items' type)``) wins over those errors implied. Pure:
    reads nothing else."""
    props = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    said = [f for f in facts if f.kind == "param" and f.values]
    absent = {f.param for f in said if f.values[0] == "absent"}
    ran = {f.param: f.values[1:] for f in sorted(said, key=lambda f: f.values)
           if f.values[0] == "ran" and len(f.values) > 1}
    kinds: dict[str, set[str]] = {}
    needed: list[str] = []
    for fact in sorted(said, key=lambda f: (f.param, f.values)):
        if fact.param in absent:
            continue
        kinds.setdefault(fact.param, set()).update(fact.values[1:2])
        if fact.values[0] == "required" and fact.param not in required:
            needed.append(fact.param)
    out: dict[str, Any] = {}
    for name, seen_kinds in kinds.items():
        kind = ran[name][0] if name in ran else "integer" if seen_kinds == {
            "integer", "number"} else (next(iter(seen_kinds)) if len(seen_kinds) == 1 else "")
        spec: dict[str, Any] = {"type": kind} if kind else {}
        if name in ran and ran[name][1:]:
            spec["items"] = {"type": ran[name][1]}
        have = props.get(name) or {}
        if name not in props or (kind and kind != have.get("type")) or (
                "items" in spec and spec["items"] != have.get("items")):
            out[name] = spec
    return {"properties": out, "required": sorted(set(needed))}


def with_discovered(parameters: Mapping[str, Any], found: Mapping[str, Any],
                    absent: Iterable[str] = ()) -> dict[str, Any]:
    """A schema ``parameters`` extended by :func:`discovered_parameters`' ``found``."""
    out = dict(parameters)
    gone = set(absent)
    props = {k: dict(v) for k, v in (parameters.get("properties") or {}).items()
             if k not in gone}
    for name, spec in (found.get("properties") or {}).items():
        props.setdefault(name, {}).update(spec)
    required = [r for r in [*(parameters.get("required") or []), *found.get("required", [])]
                if r not in gone]
    out.update({"type": "object", "properties": props})
    if required:
        out["required"] = list(dict.fromkeys(required))
    return out


def described(book: FactBook, name: str) -> str:
    """What the facts say of parameter ``name`` beyond that it exists, is required and its
    type (the schema says those): its rules, accepted values, formats."""
    own = {f.text for f in book.of(name) if f.kind == "param"}
    return " ".join(s for s in book.sentences(name, examples=False) if s not in own)


def discovered_tool(tool: Tool, book: FactBook) -> Tool:
    """``tool`` with the interface ``book``'s errors showed: the parameters its schema lacks
    added (typed and required as the tool said; untyped: any JSON value), each described by
    :func:`described` when the facts say more, and the parameters the tool said it does not
    take removed. ``tool`` itself when the facts add nothing; pure and idempotent."""
    found = discovered_parameters(book.facts, tool.parameters)
    absent = [n for n in book.absent_parameters() if n in tool.properties]
    if not found["properties"] and not found["required"] and not absent:
        return tool
    parameters = with_discovered(tool.parameters, found, absent)
    for name in found["properties"]:
        text = described(book, name) if name not in tool.properties else ""
        if text:
            parameters["properties"][name]["description"] = text
    return replace(tool, parameters=parameters)


def described_doc(doc: ToolDoc, book: FactBook) -> ToolDoc:
    """``doc`` with what the generator said the tool does and its parameters mean (facts of
    kind :data:`DESCRIBES`) where ``doc`` says nothing: a blank parameter text gets its
    meaning; the description (blank or one word: the component acts on no other) gets the
    description after it. ``doc``
    itself when the book has no such fact; idempotent."""
    said = {}
    for fact in book.facts:
        if fact.kind == DESCRIBES and fact.text:
            said.setdefault(fact.param, fact.text)
    if not said:
        return doc
    text = doc.description.strip()
    tool_said = said.get("", "")
    if tool_said and tool_said not in text:
        text = f"{text.rstrip('.')}. {tool_said}" if text else tool_said
    params = {n: t if t.strip() else said.get(n, t) for n, t in doc.params.items()}
    return replace(doc, description=text, params=params)


def described_tool(tool: Tool, book: FactBook) -> Tool:
    """``tool`` with its doc :func:`described_doc` (the tool as play knows it: what the
    request writer, re-reading, m2, m5 and m6 read; never the task model's D0)."""
    doc = tool.doc
    known = described_doc(doc, book)
    return tool if known == doc else tool.with_doc(known)


def discovery_stats(given: Tool, played: Tool) -> dict[str, Any]:
    """A tool's statistics of discovery: the parameters play added to ``given``'s schema."""
    return {"discovered_parameters": sorted(set(played.properties) - set(given.properties))}
