"""What tool play established about a tool, by code: accepted values, formats, rules in the
tool's own words, rejected values, the parameters its errors showed and the shape of its
output, each with its evidence.

Facts come from executions only (play's calls and the probes below), never from an LLM, so
they can be stated in a doc and given to later tries without being checked again. The one
exception is kind ``describes`` (:mod:`play2prompt.evidence.describe`): for a tool documented
with nothing, what the generator said it does from its executed calls; it only fills D0's
blanks (:func:`~play2prompt.method.discovery.described_doc`), is never stated as a fact
sentence nor re-checked by a refresh, and ships only through a doc that wins honest selection.

An error is read by :func:`play2prompt.evidence.error_reading.read_error`: a clause that names
a parameter is a rule about it ("annual_rate is a percentage between 0 and 100"); a list of
values offered as choices ("units: c, cm, ft", "must be 'asc' or 'desc'") or the one value the
tool calls allowed is the set of accepted values; a value the error echoes as wrong is
rejected; a structured error (pydantic, FastAPI, a JSON body) names its parameter by where it
points; a signature error ("missing 1 required positional argument: 'b'") says which parameters
exist (kind ``param``; :meth:`FactBook.discovered_parameters` gives them as JSON Schema).
Python internals ("invalid literal for int()") say nothing about the tool and are dropped;
transient failures (timeouts, connection errors, 5xx) are never facts. What a tool returns goes
through the run's scrubber (:mod:`play2prompt.scrub`) before it is read: a secret in an error
message never becomes a fact, and so never reaches a doc.

How error text is read is in :mod:`play2prompt.evidence.error_reading` (and the modules it names);
the probes that make a tool say more are in :mod:`play2prompt.evidence.probes`; what the facts
refute in D0 is in :mod:`play2prompt.evidence.refuted`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence.error_reading import ACCEPTS, Reading, read_error
from play2prompt.evidence.hygiene import cleaned
from play2prompt.evidence.named_codes import codes_of, standard_shown
from play2prompt.evidence.refuted import ACTS_ON, strip_refuted
from play2prompt.method.discovery import described_doc, discovered_parameters, with_discovered
from play2prompt.tools.model import Invocation, Observation, Tool, ToolDoc
from play2prompt.tools.observations import is_transient

NOT_THE_TOOL = frozenset({"schema", "unknown_tool", "duplicate", "repeat", "parse", "consent"})

PROBE_WORD = "zzqx"          # a text value no tool accepts as a code, name or format
MAX_TEXT = 160               # characters of one fact sentence


@dataclass(frozen=True)
class Fact:
    """One thing the tool showed: ``kind`` is accepts | rule | rejects | param | example |
    output | describes (the generator's reading of executed calls, see the module). A
    ``param`` fact's values: ``(status,)`` or ``(status, JSON type)``, status one of
    required | exists | absent | ran (a reshaped call ran with that type: ``(ran, "array",
    items' type)`` for a list, :mod:`play2prompt.evidence.reshape`)."""

    param: str                   # "" for the tool as a whole
    kind: str
    text: str                    # one plain sentence, as documentation would say it
    values: tuple[str, ...] = ()
    evidence: str = ""           # the call and what the tool said (bounded)
    call: str = ""               # the key of the call that showed it
    source: str = ""             # error | probe | output (fact_sources.source_of); "" unknown

    def to_dict(self) -> dict[str, Any]:
        out = {"param": self.param, "kind": self.kind, "text": self.text,
               "values": list(self.values), "evidence": self.evidence, "call": self.call}
        return {**out, "source": self.source} if self.source else out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fact:
        return cls(str(data["param"]), str(data["kind"]), str(data["text"]),
                   tuple(str(v) for v in data.get("values") or ()),
                   str(data.get("evidence", "")), str(data.get("call", "")),
                   str(data.get("source", "")))


def _probed_number(fact: Fact) -> bool:
    """A refusal of a number a probe sent (its negative, a power of ten beyond it): it says
    what the tool does not take, never a mistake a request leads to (fresh72's heart-rate doc
    said "'-60' is rejected", "'6000' is rejected" and nowhere what it takes); a range found
    says the accepted form instead (:mod:`play2prompt.evidence.bounds`)."""
    return fact.source == "probe" and bool(fact.values) and all(
        _NUMBER.fullmatch(v.strip()) for v in fact.values)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    if not text:
        return ""
    if "_" not in text.split()[0]:  # an identifier keeps its case
        text = text[0].upper() + text[1:]
    return (text[: MAX_TEXT - 1].rstrip() + "...") if len(text) > MAX_TEXT else text + "."


def evidence_of(inv: Invocation, obs: Observation) -> str:
    """A fact's evidence: the call and what the tool said, each bounded."""
    return f"{inv.to_python()[:200]} -> {obs.render(200)}"


def _made(inv: Invocation, obs: Observation) -> dict[str, str]:
    """The provenance fields of a fact shown by executing ``inv``."""
    return {"evidence": evidence_of(inv, obs), "call": inv.key()}


def describe_output(output: Any) -> str:
    """The shape of a successful output in words ("an object with value, unit")."""
    def keys(d: Mapping[str, Any]) -> str:
        parts = []
        for k, v in list(d.items())[:10]:
            if isinstance(v, list) and v and isinstance(v[0], Mapping):
                parts.append(f"{k} (a list of objects with {', '.join(list(v[0])[:8])})")
            else:
                parts.append(str(k))
        return ", ".join(parts)

    if isinstance(output, Mapping) and output:
        return f"Returns an object with {keys(output)}."
    if isinstance(output, list) and output and isinstance(output[0], Mapping):
        return f"Returns a list of objects with {', '.join(list(output[0])[:8])}."
    return ""


class FactBook:
    """The facts of one tool. Order-independent: facts are keyed and rendered sorted, so what
    is derived from them does not depend on the order in which concurrent plays finished."""

    def __init__(self, tool: Tool, facts: Iterable[Fact] = ()) -> None:
        self.tool = tool
        # (param, kind, text) -> {call key -> the fact as that call showed it}
        self._facts: dict[tuple[str, str, str], dict[str, Fact]] = {}
        for fact in facts:
            self.add(fact)

    # -- recording -------------------------------------------------------------------------
    def add(self, fact: Fact) -> bool:
        """Record ``fact``; False when it was known already (from the same call)."""
        if not fact.text:
            return False
        shown = self._facts.setdefault((fact.param, fact.kind, fact.text.lower()), {})
        if fact.call in shown:
            return False
        shown[fact.call] = fact
        return True

    def forget(self, kind: str) -> int:
        """Drop every fact of ``kind`` (a description that a verified one replaces); how
        many statements were dropped."""
        keys = [key for key in self._facts if key[1] == kind]
        for key in keys:
            del self._facts[key]
        return len(keys)

    def observe(self, inv: Invocation, obs: Observation, probed: str | None = None) -> None:
        """Record what one execution shows. ``probed``: the only argument a probe changed."""
        if obs.ok:
            self._success(inv, obs, probed)
        elif not is_transient(obs) and (obs.error_type or "") not in NOT_THE_TOOL:
            self._failure(inv, obs, probed)

    def _success(self, inv: Invocation, obs: Observation, probed: str | None) -> None:
        if probed is not None:
            return  # a probe that worked shows only that an odd value is accepted
        shape = describe_output(obs.output)
        if shape:
            self.add(Fact("", "output", shape, (), **_made(inv, obs)))
        for name, value in inv.arguments.items():
            if isinstance(value, str) and value.strip() and name in self.tool.properties:
                self.add(Fact(name, "example", value, (value,), **_made(inv, obs)))

    def _failure(self, inv: Invocation, obs: Observation, probed: str | None) -> None:
        made = {**_made(inv, obs), "source": "error" if probed is None else "probe"}
        for said in read_error(self.tool, inv.arguments, obs.error or "", probed):
            if said.kind == "rejects":
                self._rejected(said, made)
            else:
                text = _sentence(said.text) if said.kind == "rule" else said.text
                self.add(Fact(said.param, said.kind, text, said.values, **made))

    def _rejected(self, said: Reading, made: Mapping[str, str]) -> None:
        if said.values[0] == PROBE_WORD or len(
                [f for f in self.of(said.param) if f.kind == "rejects"]) >= 2:
            return  # the probe's own word says nothing a reader needs
        self.add(Fact(said.param, "rejects", _sentence(said.text), said.values, **made))

    # -- reading ---------------------------------------------------------------------------
    @property
    def facts(self) -> list[Fact]:
        """One fact per statement (shown by the smallest call key: order-independent); a
        rejection of a value that a successful call used is refuted by it and left out."""
        first = [shown[min(shown)] for _, shown in sorted(self._facts.items())]
        worked = {(f.param, v) for f in first if f.kind == "example" for v in f.values}
        return [f for f in first if not (f.kind == "rejects" and f.values
                                         and all((f.param, v) in worked for v in f.values))]

    def all_facts(self) -> list[Fact]:
        """Every fact with every call that showed it."""
        return [shown[c] for _, shown in sorted(self._facts.items()) for c in sorted(shown)]

    def of(self, param: str) -> list[Fact]:
        return [f for f in self.facts if f.param == param]

    def accepted(self, param: str) -> tuple[str, ...]:
        """The accepted values of ``param`` the tool listed (the longest list it gave)."""
        lists = [f.values for f in self.of(param) if f.kind == "accepts"]
        return max(lists, key=len) if lists else ()

    def acted_fact(self, param: str) -> Fact | None:
        """The value probe's fact that names the only texts of ``param`` the tool acts on
        (:mod:`play2prompt.evidence.values`); None when none did."""
        return next((f for f in self.of(param)
                     if f.kind == "rule" and f.values[:1] == (ACTS_ON,)), None)

    def acted_on(self, param: str) -> tuple[str, ...]:
        """The only texts of ``param`` the tool acts on (:meth:`acted_fact`'s); () when
        none."""
        fact = self.acted_fact(param)
        return fact.values[1:] if fact is not None else ()

    def rules(self, param: str) -> str:
        """``param``'s rule sentences as one text (what the readers of a unit read)."""
        return " ".join(f.text for f in self.of(param) if f.kind == "rule")

    def rejected(self, param: str) -> set[str]:
        return {v for f in self.of(param) if f.kind == "rejects" for v in f.values}

    def examples(self, param: str, limit: int = 3) -> list[str]:
        return [f.values[0] for f in self.of(param) if f.kind == "example"][:limit]

    def about(self, param: str, description: str = "") -> str:
        """What shows the kind of value ``param`` takes ("destination country"): its name, its
        doc's ``description``, its facts and up to 10 of its values that worked."""
        return self._kind_text(param, description, self.sentences(param))

    def _kind_text(self, param: str, description: str, said: Sequence[str]) -> str:
        """``param``'s name, ``description``, the sentences ``said`` and up to 10 of its
        values that worked, as one text for :mod:`named_codes` to find a kind in."""
        return " ".join([param.replace("_", " "), description, *said,
                         *map(repr, self.examples(param, 10))])

    def sentences(self, param: str, examples: bool = True) -> list[str]:
        """What a doc should say about ``param`` (or the tool, for ""), as sentences;
        ``examples``: with the text values that worked when nothing lists the accepted ones."""
        out = []
        accepted = self.accepted(param)
        if accepted:
            out.append(ACCEPTS + ", ".join(accepted) + ".")
        shapes = [f.text for f in self.of(param) if f.kind == "output"]
        if shapes:
            out.append(max(shapes, key=len))
        out.extend(f.text for f in self.of(param) if f.kind == "param"
                   and f.values[0] != "absent")
        if not param:   # what the tool said it does not take
            out.extend(f.text for f in self.facts if f.kind == "param" and f.values[0] == "absent")
        rules = [f for f in self.of(param) if f.kind == "rule"]   # the rule, then its examples
        out.extend(f.text for f in sorted(rules, key=lambda f: f.values[:1] == ("converts",)))
        if not accepted:
            worked = self.examples(param, 10)
            out.extend(self._standard(param, worked))
            formats = sorted({f for f in (format_of(v) for v in worked) if f})
            if formats:
                out.append("Format: " + " or ".join(formats) + ".")
            # a value probe's rule names the texts acted on: the call's own may be none of them
            shown = [] if self.acted_on(param) or not examples else \
                [v for v in worked if not format_of(v)][:2]
            if shown:
                out.append("For example: " + ", ".join(repr(v) for v in shown) + ".")
        return list(dict.fromkeys(out))

    def _standard(self, param: str, worked: list[str]) -> list[str]:
        """The refusals of ``param``, or the standard they and the values that worked show
        (:func:`named_codes.standard_shown`) in place of the names it refused: a small model
        copies a value a doc quotes, refused or not (fresh17: "'Canada' is rejected", then
        destination='Canada' for "to IE")."""
        refusals = [f for f in self.of(param) if f.kind == "rejects" and not _probed_number(f)]
        about = self._kind_text(param, self.tool.doc.params.get(param, ""),
                                [f.text for f in refusals])
        standard = standard_shown(worked, {v for f in refusals for v in f.values}, about)
        if standard is None:
            return [f.text for f in refusals]
        return [f"{param} takes {standard}.", *(f.text for f in refusals if not all(
            codes_of(v) for v in f.values))]

    def render(self) -> str:
        """The facts for a prompt, one line per parameter (those the errors showed too)."""
        lines = []
        found = self.discovered_parameters()["properties"]
        for param in dict.fromkeys(["", *self.tool.properties, *found]):
            said = self.sentences(param)
            if said:
                lines.append(f"- {param or 'the tool'}: {' '.join(said)}")
        return "\n".join(lines)

    def narrowed_schema(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """``schema`` with the listed accepted values as enums and a text's parts as a
        pattern (a ``rule`` fact valued ``("parts", separator, count)``, from a reshaped call
        that ran: ``^[^:]+:[^:]+$`` for "HH:MM"), for constrained decoding."""
        out = dict(schema)
        props = {k: dict(v) for k, v in (schema.get("properties") or {}).items()}
        for name, spec in props.items():
            accepted = self.accepted(name)
            if accepted and "enum" not in spec and spec.get("type") == "string":
                spec["enum"] = list(accepted)
            parts = [f.values for f in self.of(name) if f.kind == "rule"
                     and f.values[:1] == ("parts",) and len(f.values) == 3]
            if parts and "enum" not in spec and "pattern" not in spec \
                    and spec.get("type") in ("string", None):
                sep, count = parts[-1][1], int(parts[-1][2])
                one = "[^" + re.escape(sep) + r'"\\\n]+'   # no quote: the string ends there
                spec["pattern"] = "^" + re.escape(sep).join([one] * count) + "$"
        out["properties"] = props
        return out

    # -- the interface the errors showed ---------------------------------------------------
    def discovered_parameters(self) -> dict[str, Any]:
        """What the tool's errors showed of its interface that its schema lacks, as a JSON
        Schema fragment ``{"properties": {...}, "required": [...]}`` (see
        :func:`discovered_parameters`)."""
        return discovered_parameters(self.facts, self.tool.parameters)

    def absent_parameters(self) -> list[str]:
        """The parameters the tool said it does not take ("unexpected keyword argument")."""
        return sorted({f.param for f in self.facts if f.kind == "param"
                       and f.values[0] == "absent"})

    def with_discovered(self, parameters: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``parameters`` (default: the tool's) with the discovered parameters added, their
        types and requiredness merged, and the parameters the tool said it lacks taken out."""
        return with_discovered(parameters if parameters is not None else self.tool.parameters,
                               self.discovered_parameters(), self.absent_parameters())

    def without(self, calls: Iterable[str], keep: Iterable[Fact] = ()) -> FactBook:
        """The facts not shown by ``calls`` (invocation keys, e.g. held-out examples), but
        those in ``keep``."""
        drop, kept = set(calls), set(keep)
        return FactBook(self.tool, [f for f in self.all_facts() if f.call not in drop or f in kept])

    def to_list(self) -> list[dict[str, Any]]:
        return [f.to_dict() for f in self.facts]


_FORMATS = (("YYYY-MM-DDTHH:MM", re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")),
            ("YYYY-MM-DD", re.compile(r"^\d{4}-\d{2}-\d{2}$")),
            ("HH:MM", re.compile(r"^([01]?\d|2[0-3]):[0-5]\d$")),
            ("HH:MM:SS", re.compile(r"^\d{1,2}:\d{2}:\d{2}$")))


def format_of(value: str) -> str | None:
    """The name of a well-known format ``value`` is written in (dates, times), if any."""
    return next((name for name, pattern in _FORMATS if pattern.match(value.strip())), None)


def known_doc(tool: Tool, book: FactBook | None) -> str:
    """The tool's doc as tool play knows it so far (D0 corrected by the facts), rendered for a
    meta-prompt: what the generator reads when it plays, writes requests and reflects."""
    doc = facts_doc(tool, book) if book is not None and book.facts else tool.doc
    return doc.render(tool.name, tool.parameters)


def facts_doc(tool: Tool, book: FactBook, examples: bool = True) -> ToolDoc:
    """D0 with what tool play refuted taken out and what it established stated, written by
    code: the doc every LLM rewrite is measured against, and (without ``examples``, values
    a reader could copy instead of reading the request) the reference for re-reading. It is
    :func:`~play2prompt.evidence.hygiene.cleaned`: no regex fragment, interpreter message,
    probe value or repeat of a fact; D0's own sentences stay."""
    def join(text: str, said: Sequence[str]) -> str:
        text = text.strip()
        said = [s for s in said if s not in text]   # a discovered parameter's text is facts
        if text and not text.endswith((".", "!", "?")) and said:
            text += "."
        return " ".join([text, *said]).strip() if said else text

    d0 = described_doc(tool.doc, book)   # D0's blanks filled by what the tool was seen to do
    params = {name: join(strip_refuted(d0.params.get(name, ""), book.of(name)),
                         book.sentences(name, examples)) for name in tool.properties}
    return cleaned(ToolDoc(join(d0.description, book.sentences("")), params), tool.doc, tool)
