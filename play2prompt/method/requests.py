"""The user request of an example: written by the generator (m3), checked by code and by
re-reading.

A request must read like a person's message and determine its call. Code gates what code can
check: no code, URL, query string or dump of values; no tool or parameter identifier; no text
copied from a meta-prompt or from the feedback the generator was given. Whether the request
states every value of the call (negations included) is checked by re-deriving the call from
the request alone: the generator reads the request with the best doc known so far (D0 plus the
facts tool play established) and writes the call, decoded against the schema narrowed to the
accepted values; the re-derived call is executed and must give the example's output. A request
that fails a gate is never a demo and never scores a doc.

A request whose re-reading made no working call (the generator could not write "Asia/Tokyo"
for "Tokyo") is kept when code finds every value of the call said in it
(:func:`states_every_value`): the request is natural and complete; the reader was not able.

Hindsight relabelling: a natural request that re-reads as *another* call which works (small
generators often swap a direction or a unit) is kept as the example of that call, when a second
reading with a different doc agrees and the request passes the gates for that call's values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import FactBook, facts_doc, known_doc
from play2prompt.evidence.named_codes import said_by_name
from play2prompt.evidence.observed import seen
from play2prompt.evidence.refuted import strip_refuted
from play2prompt.evidence.registry import evidence_for
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.play import arguments_schema, code_verdict, retry_temperature
from play2prompt.method.rewards import leaf_values, value_in_text, whole_word
from play2prompt.scoring.checker import check_calls
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

# Length bounds and one character class: llguidance compiles regex patterns with counted
# repetitions slowly (minutes), so what a request must satisfy is checked by code (rejection
# sampling), but for the characters of code, which no request a person types needs: `=`, `_`,
# brackets and braces. In run q58 the 1.5B wrote 41 of its 105 first drafts as calls
# (`convert_units(value=5.5, from_unit='ft', ...)`), each rejected and asked again; asked again
# with these characters excluded, 7 of 12 such prompts gave a request.
NOT_CODE = r"^[^=_(){}\[\]<>]*$"
QUERY_SCHEMA = object_schema({"query": {"type": "string", "minLength": 8, "maxLength": 300,
                                        "pattern": NOT_CODE}})
QUERY_TRIES = 3
REREAD_PROBLEM = "re-reading it gave a different call"



def shown(value: Any) -> str:
    """A value as a request says it: a list or an object by its leaf values, a switch as
    "yes" or "no" (told "business days: False", a 1.5B wrote "skipping weekends", and code's
    "False" is what the gates refuse)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, dict)):
        return ", ".join(str(v) for v in leaf_values(value))
    return str(value)


def describe_values(inv: Invocation, param_docs: Mapping[str, str]) -> str:
    """The call's values labelled by what they mean (the doc's words, not identifiers)."""
    lines = []
    for name, value in inv.arguments.items():
        label = (param_docs.get(name) or "").strip() or name.replace("_", " ")
        lines.append(f"- {label[:80]}: {shown(value)}")
    return "\n".join(lines) or "(no values)"


@dataclass(frozen=True)
class Request:
    """A written request and what its checks found."""

    query: str
    problems: tuple[str, ...]       # code gates that failed (empty: passed)
    consistent: bool = False        # re-reading it gave the same call (by output)
    rederived: str = ""             # the call re-read from it
    call: Invocation | None = None  # relabelled: the request's own call, read twice alike
    observation: Observation | None = None  # what that call gave


@dataclass(frozen=True)
class Reading:
    """One re-derivation of a call from a request alone, executed."""

    call: Invocation | None
    observation: Observation | None
    consistent: bool                # same output as the example's call

    @property
    def shown(self) -> str:
        return self.call.to_python()[:300] if self.call is not None else "(no call)"

    @property
    def works(self) -> bool:
        """The re-derived call ran and gave a result (another output or the same)."""
        return self.observation is not None and code_verdict(self.observation)[0] == 0


def says_as_given(value: Any, query: str) -> bool:
    """Whether ``query`` writes ``value`` exactly as the call has it (a fact test that does
    tests nothing: the original doc reads it like any other request). Numbers by value; text
    as a whole word, in any case, "_" read as a space; other values are not checked."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return False
    if not isinstance(value, str):
        return value_in_text(value, query)
    forms = {value.strip(), value.strip().replace("_", " ")} - {""}
    return any(whole_word(f).search(query) for f in forms)


def said(value: Any, query: str) -> bool:
    """Whether ``query`` states ``value`` as a whole: a number by value, a text of two
    characters or more as written (:func:`says_as_given`) or, for a path-like text, its last
    part ("Tokyo" for "Asia/Tokyo"). Flags and structures are not checkable by code: False."""
    if not isinstance(value, str):
        return says_as_given(value, query)
    text = value.strip()
    last = text.strip("/").rsplit("/", 1)[1] if "/" in text.strip("/") else ""
    return any(len(t) > 1 and t == t.strip() and says_as_given(t, query) for t in (text, last))


def states_every_value(query: str, inv: Invocation, read: Invocation | None = None,
                       about: Mapping[str, str] | None = None) -> bool:
    """Every argument of ``inv`` is said in ``query``: as the call has it (:func:`said`), by
    the name people use for its code where ``about[param]`` shows the kind ("Canada" for "CA"
    of a destination country), or read alike by ``read`` (the re-reading's call, which sets no
    other parameter: "standard" read as "STD" among the accepted values). A request whose
    re-reading made no working call (the generator could not write "Asia/Tokyo" for "Tokyo",
    nor "CA" for "Canada") is kept on this: code found the call's every value in it."""
    about = about or {}
    alike = dict(read.arguments) if read is not None and set(read.arguments) <= set(
        inv.arguments) else {}

    def stated(p: str, v: Any) -> bool:
        return (said(v, query) or said_by_name(v, about.get(p, ""), query)
                or p in alike and alike[p] == v)
    return bool(inv.arguments) and all(stated(p, v) for p, v in inv.arguments.items())


async def working(engine: Engine, call: Invocation) -> Observation | None:
    """``call`` executed, as the method may read it (:func:`seen`), when it works (code's
    verdict 0); None when it fails."""
    obs = seen(await engine.runtime.run(call), engine.scrubber)
    return obs if code_verdict(obs)[0] == 0 else None


async def draft_request(engine: Engine, messages: Any, seed_key: str, tag: str,
                        attempt: int) -> str:
    """One draft of a request from ``messages`` (m3 or one of its variants), the ``attempt``-th
    of ``QUERY_TRIES``, each redraw hotter: the text, or "" when the generator wrote none."""
    (q,), _ = await chat_json(engine.generator, messages, QUERY_SCHEMA, role="generator",
                              seed=derive_seed(seed_key, tag, attempt),
                              temperature=retry_temperature(engine.config.temperature, attempt),
                              max_tokens=160)
    return str(q["query"]).strip() if q else ""


class RequestWriter:
    """m3 with code gates (rejection sampling) and the re-reading check, for one tool."""

    def __init__(self, tool: Tool, engine: Engine) -> None:
        self.tool = tool
        self.engine = engine
        self.schema = arguments_schema(tool.parameters)
        system, _ = engine.prompts.template("m3")
        self.sources = [system]      # a worked example in m3 must never reach a request
        self.evidence = evidence_for(engine)

    def about(self, book: FactBook) -> dict[str, str]:
        """What shows the kind of value each parameter takes (:meth:`FactBook.about`)."""
        return {p: book.about(p, self.tool.doc.params.get(p, "")) for p in self.tool.properties}

    async def write(self, inv: Invocation, obs: Observation, seed_key: str, book: FactBook,
                    previous: str = "", advice: str = "") -> Request:
        """Up to ``QUERY_TRIES`` drafts, each redraw hotter and told what was wrong, until one
        passes the code gates and re-reads to the same call. ``previous`` and ``advice``: an
        earlier request for the same call and the reflection on it (m6); ``advice`` alone when
        the earlier example had another call (its request would only be copied)."""
        eng = self.engine
        context = f"Advice for the request: {advice}" if advice else ""
        if previous:
            context = f"A previous request was: \"{previous}\"\n{context}"
        output = obs.render(800)
        labels = {n: first_clause(strip_refuted(t, book.of(n)))
                  for n, t in self.tool.doc.params.items()}
        values = describe_values(inv, labels)
        best = Request("", ("the generator wrote no request",))
        note = ""
        for t in range(QUERY_TRIES):
            query = await draft_request(
                eng, eng.prompts.render("m3", doc=known_doc(self.tool, book), output=output,
                                        values=values, context=context + note),
                seed_key, "m3", t)
            if not query:
                continue
            done, tried, note = await self.judge(query, inv, obs, f"{seed_key}:{t}", book,
                                                 [*self.sources, advice, note], previous)
            if done is not None:
                return done
            # a draft re-read as another call is the best so far; else the fewest problems
            if tried.rederived or not best.query or len(tried.problems) < len(best.problems):
                best = tried
        if best.problems:     # no draft passed: the values said one at a time
            query = await self.evidence.request_parts.compose(self, inv, obs, seed_key, book)
            if query:
                parts_system, _ = self.engine.prompts.template("m3-parts")
                done, _, _ = await self.judge(query, inv, obs, f"{seed_key}:parts", book,
                                              [*self.sources, parts_system, advice], previous)
                if done is not None:
                    return done
        return best

    async def judge(self, query: str, inv: Invocation, obs: Observation, key: str,
                    book: FactBook, sources: Sequence[str], previous: str
                    ) -> tuple[Request | None, Request, str]:
        """One draft through the code gates and the re-reading: the accepted request (None:
        refused), the draft with what was wrong, and the note the next draft is told."""
        ev = self.evidence
        problems = ev.request_gates.problems(query, self.tool, sources, allowed=previous,
                                             inv=inv, book=book)
        if problems:
            fixed = await self.rescale(query, inv, book, sources, previous)
            return (fixed, Request(query, tuple(problems)),
                    f"\nA draft was rejected because {'; '.join(problems)}. Write another.")
        reading = await ev.reread.reread(self, query, inv, obs, key, book)
        if reading is None:      # not re-read: the paper's m3
            return Request(query, ()), Request(query, ()), ""
        rederived = reading.shown
        if reading.consistent:
            return Request(query, (), True, rederived), Request(query, ()), ""
        relabelled = await ev.relabel.relabel(self, query, reading, inv, key, book, sources,
                                              previous)
        if relabelled is not None:
            return relabelled, relabelled, ""
        if not reading.works and states_every_value(query, inv, reading.call,
                                                    self.about(book)):
            return Request(query, (), True, f"{rederived} (did not run; every value of the "
                           "call is in the request, checked by code)"), Request(query, ()), ""
        note = (f"\nA draft was: {query}\nRead alone, it asks for {rederived}, not for the "
                "call above. Say every value of the call plainly.")
        return None, Request(query, (f"{REREAD_PROBLEM}: {rederived}",), False, rederived), note

    async def by_parts(self, inv: Invocation, obs: Observation, seed_key: str,
                       book: FactBook) -> str:
        """The request written in parts (request-parts): what the person wants, then one
        short sentence per value of the call, each asked for in its own field of the answer
        (a 1.5B given every value in one prompt often writes a request with none); joined by
        code. Each value is named by its parameter's words ("the activity level is 5"): given
        the doc's labels ("An integer representing the activity level: 5") a 1.5B copies
        them. "" when the generator wrote no part."""
        eng = self.engine
        names = list(inv.arguments)
        if not names:
            return ""
        schema = object_schema({"want": {"type": "string", "minLength": 8, "maxLength": 160},
                                **{f"value_{i + 1}": {"type": "string", "minLength": 2,
                                                      "maxLength": 120}
                                   for i in range(len(names))}})
        numbered = "\n".join(
            f"value_{i + 1}: the {n.replace('_', ' ')} is {shown(inv.arguments[n])}"
            for i, n in enumerate(names))
        (a,), _ = await chat_json(
            eng.generator, eng.prompts.render("m3-parts", doc=known_doc(self.tool, book),
                                              output=obs.render(800), values=numbered),
            schema, role="generator", seed=derive_seed(seed_key, "m3-parts"),
            temperature=0.0, max_tokens=400)
        if not isinstance(a, Mapping):
            return ""
        parts = [str(a.get(k) or "").strip() for k in ("want", *(f"value_{i + 1}"
                                                                  for i in range(len(names))))]
        return " ".join(p if p[-1:] in ".!?" else p + "." for p in parts if p)

    async def rescale(self, query: str, inv: Invocation, book: FactBook,
                      sources: Sequence[str], previous: str) -> Request | None:
        """A request that says a value on the scale the facts give ("5 %" where the tool
        takes a percentage and the call has 0.05) is an example of the rescaled call (5), when
        that call works and the request passes every other gate for the call as drafted (its
        numbers written as that call has them: "page 1" for page=1 is page=0 where the tool
        counts from 0, and 0 is nowhere in the request): code's conversion, no re-reading."""
        gates = self.evidence.request_gates
        call = gates.rescaled(query, inv, book)
        if call is None or gates.problems(query, self.tool, sources, allowed=previous, inv=inv):
            return None
        obs = await working(self.engine, call)
        if obs is None:
            return None
        return Request(query, (), True, f"{call.to_python()} (said on the scale the facts "
                       "give, converted by code)", call, obs)

    async def reread(self, query: str, inv: Invocation, obs: Observation, seed_key: str,
                     book: FactBook, doc: str = "") -> Reading:
        """Does the request alone determine the call? The generator re-derives it with the
        facts doc (or ``doc``); the re-derived call must give the same output."""
        eng = self.engine
        doc = doc or facts_doc(self.tool, book, examples=False).render(self.tool.name,
                                                                      self.tool.parameters)
        (args,), _ = await chat_json(
            eng.generator, eng.prompts.render("reread", doc=doc, query=query),
            book.narrowed_schema(self.schema), role="generator",
            seed=derive_seed(seed_key, "reread"), temperature=0.0, max_tokens=300)
        if not isinstance(args, Mapping):
            return Reading(None, None, False)
        again = Invocation(self.tool.name, dict(args))
        outcome = await check_calls([again], [inv], eng.runtime, expected_outputs=[obs.output])
        seen = outcome.observations[0] if outcome.observations else None
        return Reading(again, seen, outcome.correct)

    async def relabel(self, query: str, reading: Reading, inv: Invocation, seed_key: str,
                      book: FactBook, sources: Sequence[str], previous: str) -> Request | None:
        """Hindsight: a natural request that reads as another working call is an example of
        that call, when a second reading (with the doc m3 saw, not the facts doc) gives the
        same output and the request passes every code gate for it (its numbers as written, its
        switches as said). Small generators often write a good request for the wrong call."""
        call, seen = reading.call, reading.observation
        if call is None or seen is None or call.key() == inv.key() or code_verdict(seen)[0] < 0:
            return None
        if self.evidence.request_gates.problems(query, self.tool, sources, allowed=previous,
                                                inv=call, book=book):
            return None
        second = await self.reread(query, call, seen, f"{seed_key}:relabel", book,
                                   doc=known_doc(self.tool, book))
        if not second.consistent:
            return None
        return Request(query, (), True, reading.shown, call, seen)




@cache
def _clause_end() -> re.Pattern[str]:
    """A full stop that ends a sentence (not one of an abbreviation such as "e.g.")."""
    skip = "".join(rf"(?<!\b{re.escape(a)})"
                   for a in words("request_words.json")["abbreviations"])
    return re.compile(skip + r"(?<=[a-z0-9)])\.\s")


def first_clause(text: str) -> str:
    """What a parameter means, in a few words: its doc text up to the first full stop."""
    first = _clause_end().split(text.strip(), maxsplit=1)[0]
    return first.rstrip(".")[:80]
