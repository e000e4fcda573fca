"""Step 1b: difficult examples that test what tool play learned.

Step 1 writes requests that state every value as the call has it ("I weigh 120 kg and am 175
cm tall"), so the original doc solves them and no fact play established (units, accepted
values, ranges, formats) can be shown to matter. Here, for each parameter with a fact, the
generator rewrites a verified example so that that one value is said the way people say it
where that differs from what the tool takes ("1.80 m" where it takes centimetres, "Fahrenheit"
where it takes "F", "4 %" where it takes a fraction; a share's tests say it as "86 %" and
"43 out of 50" in turn), every other value as written (m3-fact). The request passes
the same code gates as any other (no code, no identifiers, no copied instructions, the other
numbers as the call has them, no switch contradicted) and one of its own: it must not write
the tested value as the call has it (in a 1.5B run without this gate, most tests restated the
value, e.g. "200 USD to CAD", and the original doc failed 1 of 9). It is verified by re-
reading: the generator re-derives the call from the request alone with the facts doc, and the
re-derived call must give the example's output when executed. The task model then tries it
with D0 and no demos (R_e = 1 when it fails, as the paper's Step 1 intends); the verified
tests join the examples Step 2 is decided on, so a fact's worth is measured by the examples
that test it.

Calls play never made (:mod:`~play2prompt.evidence.variants`, up to ``MAX_VARIANTS`` a tool,
within the same budget): a verified call without an optional yes/no argument that gives the
same output (and another with the flag flipped) gets a request that says nothing of the
option (re-read, it must give that output once the option is dropped; a draft that names the
option is refused); a value probe's call with the one text the tool acts on ("lose", where
every verified call set a goal it ignores) is said as people say it ("lose weight": the word
inside the phrase is no fault here); a probe of the other sign
that ran is said by its size and a word of the other way (a form code made: "7 days
before"), like any fact test. What they show (a default, a sign
that works) joins the facts. So does each conversion code made and a verified test said
("For example, 1.75 metres is 175."): a worked example the task model can copy, where a unit
named alone leaves a 1.5B writing 1.8 for "1.8 m".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.everyday import Form, sign_form, typical_value
from play2prompt.evidence.fact_targets import (
    FactTarget,
    alike_forms,
    everyday_phrase,
    form_problems,
    harder_forms,
    plan_targets,
    separates,
    split_waves,
    with_played,
)
from play2prompt.evidence.facts import Fact, FactBook, known_doc
from play2prompt.evidence.names import FACT_TESTS, OPTION_EFFECTS, UNASKED_TESTS, active
from play2prompt.evidence.option_words import other_operation
from play2prompt.evidence.refuted import strip_refuted
from play2prompt.evidence.registry import FactTests, evidence_for
from play2prompt.evidence.variants import ACTED, LEFT_OUT, UNASKED, Variant, find_variants, without
from play2prompt.method.discovery import described_doc
from play2prompt.method.example_search import Example, ExampleSpace
from play2prompt.method.requests import (
    QUERY_TRIES,
    RequestWriter,
    describe_values,
    draft_request,
    first_clause,
    says_as_given,
    working,
)
from play2prompt.method.rewards import check_query, quality_reward, total_reward
from play2prompt.scoring.checker import check_calls
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

MAX_VARIANTS = 2    # tests of calls play never made (:mod:`~play2prompt.evidence.variants`)


class FactTestWriter:
    """m3-fact with the request gates and the re-reading check, for one tool."""

    def __init__(self, tool: Tool, engine: Engine, space: ExampleSpace) -> None:
        self.tool = tool
        self.engine = engine
        self.space = space                     # R_e's test (the task model with D0)
        self.reader = RequestWriter(tool, engine)
        system, _ = engine.prompts.template("m3-fact")
        self.sources = [*self.reader.sources, system]

    def _labels(self, book: FactBook) -> dict[str, str]:
        """What each value means, for the writer: D0's words, its blanks described by play."""
        return {n: first_clause(strip_refuted(t, book.of(n)))
                for n, t in described_doc(self.tool.doc, book).params.items()}

    async def typical(self, target: FactTarget) -> FactTarget:
        """``target`` with its call's tested value made typical where the fact shows it is not
        (:func:`~play2prompt.evidence.everyday.typical_value`: 0.05 -> 5 where the tool takes a
        percentage), or set to the option's other value where its default is said by what it
        computes (:func:`~play2prompt.evidence.option_words.other_operation`), when that call
        works; else ``target`` as it is."""
        given = target.example.invocation.arguments[target.param]
        value = typical_value(given, target.rule)
        if value is None:       # an option's default said by its operation: say the other
            value = other_operation(given, target.rule, target.param)
        return target if value is None else (await self.retarget(target, value) or target)

    async def retarget(self, target: FactTarget, value: Any) -> FactTarget | None:
        """``target`` with its call's tested value set to ``value`` (a typical value, or the
        round share a ratio says), when that call works (executed); None when it fails."""
        ex = target.example
        call = ex.invocation.with_args({target.param: value})
        obs = await working(self.engine, call)
        if obs is None:
            return None
        return replace(target, example=replace(ex, invocation=call, observation=obs))

    async def write(self, target: FactTarget, book: FactBook, seed_key: str,
                    spare: bool = True) -> Example | None:
        """A verified fact-testing example for ``target``, or None when no draft passed. Where
        code makes the value's form and no draft says it, the next spare is tried once
        (``spare``)."""
        target = await self.typical(target)
        form = target.code_form(target.example.invocation.arguments[target.param])  # by code
        if form is not None and form.value is not None:    # a ratio says a round share
            if (found := await self.retarget(target, form.value)) is None:
                return None
            target = found
        alike = alike_forms(target, form, book) if form is not None else {}
        if form is not None and not await separates(self.engine.runtime, target, form, alike):
            if not target.spares:
                return None
            nxt = replace(target, example=target.spares[0], spares=target.spares[1:])
            return await self.write(nxt, book, seed_key, spare)
        found = await self.draft(target, form, alike, book, seed_key)
        if found is None and form is not None and spare and target.spares:
            nxt = replace(target, example=target.spares[0], spares=())
            return await self.write(nxt, book, f"{seed_key}:spare", spare=False)
        return found

    async def draft(self, target: FactTarget, form: Form | None, alike: dict[str, Form],
                    book: FactBook, seed_key: str) -> Example | None:
        """m3 (a code-made ``form``, and the call's ``alike`` values in theirs, said as plain
        values) or m3-fact (the value said another way, re-read with the facts), gated."""
        eng, ex, param = self.engine, target.example, target.param
        inv, obs = ex.invocation, ex.observation
        others = without(inv, param)
        for p in alike:
            others = without(others, p)
        labels = self._labels(book)
        label = labels.get(param) or param.replace("_", " ")
        value = inv.arguments[param]
        texts = " | ".join([form.text, *(f.text for f in alike.values())]) if form else ""
        note = ""
        for t in range(QUERY_TRIES):
            if form is not None:   # the form is one more value to say plainly: m3's own task
                said = inv.with_args({param: form.text, **{p: f.text for p, f in alike.items()}})
                messages = eng.prompts.render(
                    "m3", doc=known_doc(self.tool, book), output=obs.render(800),
                    values=describe_values(said, labels), context=note.strip())
            else:
                messages = eng.prompts.render(
                    "m3-fact", doc=known_doc(self.tool, book), output=obs.render(800),
                    target=f"{label}: {value}", rule=target.rule,
                    values=describe_values(others, labels) + note)
            query = await draft_request(eng, messages, seed_key, "m3-fact", t)
            if not query:
                continue
            problems = evidence_for(eng).request_gates.problems(   # the form's words are
                query, self.tool, [*self.sources, target.rule, note],  # what it must say
                allowed=texts, inv=others, book=book)
            problems += form_problems(form, value, query, label, others, target.plain)
            problems += [f"it does not say {labels.get(p) or p} as {f.text}"
                         for p, f in alike.items() if not f.said_in(query)]
            if problems:
                note = f"\nA draft was rejected because {'; '.join(problems)}. Write another."
                continue
            if form is not None:   # the conversion is code's: checked, no re-reading
                return await self._tested(target, query, f"{inv.to_python()[:300]} ({label} "
                                          f"said as {form.text}, converted by code)", others)
            reading = await self.reader.reread(query, inv, obs, f"{seed_key}:fact:{t}", book)
            if reading.consistent:
                return await self._tested(target, query, reading.shown, others)
            note = (f"\nA draft was: {query}\nRead with the rule, it asks for {reading.shown}, "
                    f"not for the call. Keep the value exactly the same, only say it "
                    f"another way.")
        return await self.by_parts(target, book, seed_key) if target.plain else None

    async def by_parts(self, target: FactTarget, book: FactBook,
                       seed_key: str) -> Example | None:
        """A plain target (the text the tool acts on, said inside a phrase) no draft got right,
        written a value at a time (request-parts, :meth:`RequestWriter.by_parts`), gated for
        the other values and re-read with the facts like a draft."""
        eng, ex = self.engine, target.example
        inv, obs = ex.invocation, ex.observation
        ev = evidence_for(eng)
        said = inv.with_args({target.param: target.phrase}) \
            if target.phrase else inv
        query = await ev.request_parts.compose(self.reader, said, obs, f"{seed_key}:fact", book)
        parts_system, _ = eng.prompts.template("m3-parts")
        if not query or ev.request_gates.problems(
                query, self.tool, [*self.sources, parts_system, target.rule],
                inv=without(inv, target.param), book=book):
            return None
        reading = await self.reader.reread(query, inv, obs, f"{seed_key}:fact:parts", book)
        if not reading.consistent:
            return None
        return await self._tested(target, query, reading.shown, without(inv, target.param))

    async def write_variant(self, variant: Variant, book: FactBook,
                            seed_key: str) -> Example | None:
        """A verified test of a call play never made: an argument of the other sign is said
        the way people say it (:meth:`write`, the variant's fact as the rule); a call without
        an optional argument, by :meth:`write_left_out`."""
        ex = Example(self.tool.name, "", variant.invocation, variant.observation, "",
                     0.0, 0.0, 0.0)
        if variant.kind in (LEFT_OUT, UNASKED):
            return await self.write_left_out(variant, ex, book, seed_key)
        rule = " ".join(book.sentences(variant.param, examples=False)) or variant.fact.text
        if variant.kind == ACTED:
            texts = [*book.examples(variant.param, limit=10),
                     *(str(i.arguments[variant.param]) for _, i, _ in self.space.probed
                       if isinstance(i.arguments.get(variant.param), str))]
            phrase = everyday_phrase(str(variant.invocation.arguments[variant.param]), texts)
            return await self.write(FactTarget(ex, variant.param, rule, plain=True,
                                               phrase=phrase), book, seed_key)
        form = sign_form(variant.invocation.arguments.get(variant.param))
        return await self.write(FactTarget(ex, variant.param, rule, form), book, seed_key)

    async def write_left_out(self, variant: Variant, ex: Example, book: FactBook,
                             seed_key: str) -> Example | None:
        """m3 for the call without the optional argument: written from its other values, so
        it says nothing of the option (a draft that names it is refused); re-read with the
        facts, the call must give the output once that argument is dropped (code's check:
        whether the reader sets the option is what R_e then tests)."""
        eng, inv, obs, param = self.engine, variant.invocation, variant.observation, variant.param
        labels = self._labels(book)
        note = ""
        for t in range(QUERY_TRIES):
            messages = eng.prompts.render("m3", doc=known_doc(self.tool, book),
                                          output=obs.render(800),
                                          values=describe_values(inv, labels),
                                          context=note.strip())
            query = await draft_request(eng, messages, seed_key, "m3-left-out", t)
            if not query:
                continue
            problems = evidence_for(eng).request_gates.problems(
                query, self.tool, [*self.reader.sources, note], inv=inv, book=book)
            if says_as_given(param, query):
                problems.append(f"it speaks of {param.replace('_', ' ')}; leave that out")
            if problems:
                note = f"\nA draft was rejected because {'; '.join(problems)}. Write another."
                continue
            reading = await self.reader.reread(query, inv, obs, f"{seed_key}:left:{t}", book)
            if reading.consistent or await self._same_without(reading.call, param, inv, obs):
                return await self._tested(FactTarget(ex, param, variant.fact.text), query,
                                          f"{reading.shown} (checked without {param})", inv)
            note = (f"\nA draft was: {query}\nRead alone, it asks for {reading.shown}, not "
                    f"for the call. Say every value of the call plainly.")
        return None

    async def _same_without(self, call: Invocation | None, param: str, inv: Invocation,
                            obs: Observation) -> bool:
        """``call`` without ``param`` gives ``obs``'s output when executed."""
        if call is None:
            return False
        outcome = await check_calls([without(call, param)], [inv], self.engine.runtime,
                                    expected_outputs=[obs.output])
        return outcome.correct

    async def _tested(self, target: FactTarget, query: str, rederived: str,
                      others: Invocation) -> Example:
        """The example, with R_q (other values as written) and R_e (D0 fails it)."""
        cfg, ex = self.engine.config, target.example
        checks = check_query(query, others)
        r_q = quality_reward(checks, None)
        solved, attempt = False, ""
        if cfg.lam > 0:
            solved, attempt = await self.space.task_solves(query, ex.invocation,
                                                           ex.observation)
        r_e = 0.0 if solved or cfg.lam <= 0 else 1.0
        return replace(ex, query=query, answer="", r_q=r_q, r_e=r_e,
                       reward=total_reward(r_q, r_e, cfg.lam), checks=checks.to_dict(),
                       grade=None, solved=solved, attempt=attempt, reflection="",
                       problems=(), rederived=rederived,
                       fact=f"{target.param}: {target.rule}"[:300])


async def write_fact_tests(tool: Tool, engine: Engine, space: ExampleSpace,
                           examples: Sequence[Example]) -> list[Example]:
    """Step 1b for ``tool``: up to ``config.fact_tests`` verified fact-testing examples,
    written from ``examples`` with the facts play established (``space.book``); a tested value
    the facts show to be atypical is made typical first (:meth:`FactTestWriter.typical`)."""
    budget = engine.config.fact_tests
    book = space.book
    targets = plan_targets(tool, examples, book, budget)
    variants = await find_variants(tool, engine, examples, space.probed,
                                   min(budget, MAX_VARIANTS), book,
                                   unasked=UNASKED_TESTS in active(engine.config),
                                   effects=OPTION_EFFECTS in active(engine.config))
    for variant in variants:      # what they show joins the facts the docs are written from
        book.add(variant.fact)
    if any("(left out) gives" in v.fact.text for v in variants):   # said by its operation
        targets = plan_targets(tool, examples, book, budget)
    if not targets and not variants:
        return []
    targets = [with_played(t, space.plays) for t in targets]
    writer = FactTestWriter(tool, engine, space)
    first, later = split_waves(targets)
    found = list(await asyncio.gather(
        *(writer.write(t, book, f"{tool.name}:fact:{i}") for i, t in first),
        *(writer.write_variant(v, book, f"{tool.name}:variant:{i}")
          for i, v in enumerate(variants))))
    tested = list(zip((t for _, t in first), found))
    if later:     # a share's later tests say the forms D0 failed (difficult examples)
        moved = harder_forms([t for _, t in later], tested)
        more = await asyncio.gather(*(writer.write(t, book, f"{tool.name}:fact:{i}")
                                      for (i, _), t in zip(later, moved)))
        tested += list(zip(moved, more))
        found += more
    for target, ex in tested:   # a conversion code checked, as a worked example
        for fact in conversion_facts(ex, target) if ex is not None else []:
            book.add(fact)
    seen: set[str] = {ex.query.strip().lower() for ex in examples}
    out = []
    for ex in found:
        if ex is not None and ex.query.strip().lower() not in seen:
            seen.add(ex.query.strip().lower())
            out.append(ex)
    return out


def conversion_facts(test: Example, target: FactTarget) -> list[Fact]:
    """What a fact test whose form code made shows, for the docs: the standard its value
    follows, where it is a standard's code ("destination takes a two-letter country code (ISO
    3166-1), not the country's name."), and a worked example: "For example, 1.75 metres is
    175." (the test's call; held out with it). Nothing when the value had no code-made form (a
    re-reading verified it)."""
    value = test.invocation.arguments.get(target.param)
    form = None if target.form else target.code_form(value)   # a variant's form converts none
    if form is None or isinstance(value, bool):
        return []
    shown = json.dumps(value, ensure_ascii=False)
    made = (f"{test.invocation.to_python()[:200]}", test.invocation.key())
    out = [Fact(target.param, "rule", f"{target.param} takes {form.standard}.",
                ("standard", form.standard), *made)] if form.standard else []
    return [*out, Fact(target.param, "rule", f"For example, {form.text} is {shown}.",
                       ("converts", form.text, shown), *made)]


def fact_test_stats(tests: Sequence[Example]) -> dict[str, int]:
    """How many verified examples test a fact, and how many of those D0 fails."""
    return {"fact_tests": len(tests),
            "fact_tests_failed_by_original": sum(1 for ex in tests if ex.r_e > 0)}


class WriteFactTests:
    """The ``fact-tests`` evidence component (:class:`play2prompt.evidence.registry.FactTests`)."""

    async def write(self, tool: Tool, engine: Engine, space: ExampleSpace,
                    examples: list[Example]) -> list[Example]:
        engine.uses[FACT_TESTS] += 1
        return await write_fact_tests(tool, engine, space, examples)


class NoFactTests:
    async def write(self, tool: Tool, engine: Engine, space: ExampleSpace,
                    examples: list[Example]) -> list[Example]:
        return []


def fact_tests_for(config: Any) -> FactTests:
    """Step 1b as a run's settings have it: written, or off."""
    return WriteFactTests() if FACT_TESTS in active(config) else NoFactTests()


__all__ = ["FactTestWriter", "NoFactTests", "WriteFactTests", "conversion_facts",
           "fact_test_stats", "fact_tests_for", "write_fact_tests"]
