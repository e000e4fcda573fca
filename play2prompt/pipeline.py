"""The Play2Prompt method (``config.method = "play2prompt"``): one tool through Step 1 and
Step 2.

:func:`optimize_tool` is the whole method for one tool, the paper's steps in order (tool play
and example search, fact tests, split, doc search and the honest choice of a doc, the choice of
demos), each a function of typed values that neither stores nor reports; then the tool's
statistics and its result stored in the run store (a tool whose result is stored is not
redone). :func:`tool_budget` is its progress total; :func:`finish_run`, the tool-set check
once every tool is done, lives in :mod:`play2prompt.set_check_run`. A runner
(:mod:`play2prompt.runners`) finds this module through the method registry
(:mod:`play2prompt.optimizers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.engine import Engine
from play2prompt.evidence.fact_sources import fact_sources
from play2prompt.evidence.fact_tests import fact_test_stats, fact_tests_for
from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.registry import FACT_READER, evidence_for
from play2prompt.method.budget import demo_calls, doc_calls, expected_calls, fact_test_count
from play2prompt.method.demos import select_demos, write_answers
from play2prompt.method.discovery import discovered_tool, discovery_stats
from play2prompt.method.doc_choice import choose_demo_count, choose_doc
from play2prompt.method.doc_search import (
    DocSearchOutcome,
    search_docs,
    skip_reason,
    split_examples,
)
from play2prompt.method.example import Example
from play2prompt.method.example_search import ExampleSpace, distinct_examples, search_examples
from play2prompt.method.requests import working
from play2prompt.method.siblings import siblings_of
from play2prompt.method.trace import Trace
from play2prompt.progress import report_phase
from play2prompt.results import ToolResult
from play2prompt.search import SearchResult
from play2prompt.set_check_run import SET_CHECK_TAG, finish_run
from play2prompt.store.meta import Meta
from play2prompt.tools.model import Tool, ToolDoc


def tool_budget(config: OptimizeConfig) -> int:
    """The LLM calls one tool typically takes (its progress total, an estimate)."""
    return sum(expected_calls(config).values())


class Phases:
    """One tool's progress phases (play, examples i/T, fact tests, docs, demos), each told to
    the reporter with the calls then expected for the rest of the tool: the run's settings'
    typical counts, re-estimated from the examples found once they are known."""

    def __init__(self, engine: Engine, tool: str) -> None:
        self.engine, self.tool = engine, tool
        self.plan = expected_calls(engine.config, engine.llm_grade)
        self.total = sum(self.plan.values())

    def enter(self, name: str, remaining: int) -> None:
        report_phase(self.engine.reporter, self.tool, name, remaining)

    def play(self) -> None:
        self.enter("play", self.total)

    def after_iteration(self, iteration: int) -> None:
        """The example search's round ``iteration`` ended: the next begins (if any)."""
        depth = self.engine.config.examples.depth
        if iteration < depth:
            left = self.plan["examples"] * (depth - iteration) // depth
            rest = self.plan["fact tests"] + self.plan["docs"] + self.plan["demos"]
            self.enter(f"examples {iteration + 1}/{depth}", left + rest)

    def fact_tests(self, examples: int) -> None:
        cfg = self.engine.config
        if fact_test_count(cfg) > 0:
            found = examples + fact_test_count(cfg)
            hold = 0 if found < 3 else max(1, round(cfg.holdout * found))
            self.enter("fact tests", self.plan["fact tests"] + doc_calls(cfg, found - hold, hold)
                       + demo_calls(cfg, found - hold, hold))

    def docs(self, train: int, hold: int) -> None:
        cfg = self.engine.config
        self.enter("docs", doc_calls(cfg, train, hold) + demo_calls(cfg, train, hold))

    def demos(self, train: int, hold: int) -> None:
        self.enter("demos", demo_calls(self.engine.config, train, hold))


class ProgressTrace:
    """The run's trace, with the end of each example-search iteration told to the tool's
    progress (:class:`Phases`)."""

    def __init__(self, inner: Trace, phases: Phases) -> None:
        self.inner, self.phases = inner, phases

    def candidate(self, kind: str, tool: str, id: str, *, iteration: int,
                  parent: str | None, state: str, reward: float | None,
                  payload: Mapping[str, Any]) -> None:
        self.inner.candidate(kind, tool, id, iteration=iteration, parent=parent, state=state,
                             reward=reward, payload=payload)

    def iteration_ended(self, kind: str, tool: str, iteration: int) -> None:
        self.inner.iteration_ended(kind, tool, iteration)
        if kind == "example":
            self.phases.after_iteration(iteration)


@dataclass(frozen=True)
class Verified:
    """Step 1's outcome, split: the verified examples (distinct calls, best first, the fact
    tests among them), the part that builds and scores candidates, the held-out part that
    builds nothing, and the facts of every call but the held-out ones."""

    examples: tuple[Example, ...]
    train: tuple[Example, ...]
    hold: tuple[Example, ...]
    book: FactBook


@dataclass(frozen=True)
class Demos:
    """The demo candidates, those shipped (with their answers) and the held-out accuracy by
    demo count."""

    pool: tuple[Example, ...]
    shipped: tuple[Example, ...]
    scores: Mapping[str, float]


async def optimize_tool(tool: Tool, engine: Engine) -> ToolResult:
    """Play2Prompt for one tool: tool play and example search (Step 1), fact tests (1b),
    split, doc search and the honest choice of a doc (Step 2), the choice of demos."""
    done = _done_already(tool, engine)
    if done is not None:
        return done
    eng = engine.for_tool(tool.name, count_calls=True)   # each LLM call moves its progress
    phases = Phases(eng, tool.name)
    eng = replace(eng, trace=ProgressTrace(eng.trace, phases))
    eng.reporter.start(tool.name, phases.total)
    # the tool-set context: the run's other tools (as loaded) the task model sees beside it
    siblings = siblings_of(tool, eng.runtime.tools.values(), eng.config.siblings,
                           eng.config.seed, eng.config.sibling_pick)
    phases.play()
    search, space = await search_examples(tool, eng, seed_facts(eng, tool), siblings)
    given, tool = tool, discovered_tool(tool, space.book)   # with the parameters play found
    examples = await rescale_examples(eng, distinct_examples(search.history), space.book)
    phases.fact_tests(len(examples))
    tests = await fact_tests(tool, eng, space, examples)
    verified = split(tool, eng.config, space.book, [*examples, *tests])
    log_split(eng, tool, verified)
    if eng.config.optimize_docs:
        phases.docs(len(verified.train), len(verified.hold))
    outcome = kept_without_search(tool, eng.config, verified)   # off, too few, all solved
    if outcome is None:
        docs = await search_docs(tool, eng, list(verified.train), verified.book,   # Step 2
                                 siblings)
        outcome = await choose_doc(tool, eng, docs, list(verified.hold), siblings)
    phases.demos(len(verified.train), len(verified.hold))
    demos = await choose_demos(tool, eng, outcome.doc, verified, siblings)
    stats = {**_tool_stats(eng, tool, search, space, outcome, verified, demos),
             **fact_test_stats(tests), **discovery_stats(given, tool)}
    result = ToolResult(tool.name, tool, outcome.doc, tuple(d.demo() for d in demos.shipped),
                        outcome.changed, outcome.reason, dict(outcome.scores), stats)
    eng.store.put_result(tool.name, result.to_dict())
    eng.reporter.done(tool.name, f"{stats['valid_invocations']} valid calls, "
                      f"{len(verified.examples)} verified examples, {len(demos.shipped)} "
                      f"demos; doc: {result.doc_reason}")
    return result


async def rescale_examples(engine: Engine, examples: Sequence[Example], book: FactBook
                           ) -> list[Example]:
    """The verified examples once the search is done and the facts are complete: one that
    says a value on the scale the facts give ("5 %" where the tool takes a percentage, and
    the call has 0.05) becomes an example of the rescaled call when it works, else is dropped
    (a ``rescaled`` candidate, kept or dropped, no longer marked solved); calls stay
    distinct."""
    gates = evidence_for(engine).request_gates
    out: list[Example] = []
    for i, ex in enumerate(examples):
        fixed: Example | None = ex
        call = gates.rescaled(ex.query, ex.invocation, book)
        if call is not None:
            obs = await working(engine, call)
            # whether D0 solves the new call is not known (``solved`` was the old call's):
            # the doc search scores it, rather than skipping as "already solves all"
            fixed = None if obs is None else replace(ex, invocation=call, observation=obs,
                                                     solved=False)
            engine.trace.candidate("rescaled", ex.tool, f"rescaled-{ex.tool}-{i}", iteration=0,
                                   parent=None, state="dropped" if fixed is None else "kept",
                                   reward=ex.reward, payload={**(fixed or ex).to_dict(),
                                                              "was": ex.invocation.to_python()})
        if fixed is not None and all(o.invocation.key() != fixed.invocation.key() for o in out):
            out.append(fixed)
    return out


def _done_already(tool: Tool, engine: Engine) -> ToolResult | None:
    """The tool's stored result, or the original kept without play when the tool may not be
    executed (no LLM call spent on it either); None when the tool is to be optimized."""
    stored = engine.store.get_result(tool.name)
    if stored is not None:
        engine.reporter.done(tool.name, "done (from store)")
        return ToolResult.from_dict(stored)
    refused = engine.runtime.needs_consent(tool.name)
    if refused is None:
        return None
    result = ToolResult(tool.name, tool, tool.doc, (), False,
                        f"kept the original: not played ({refused})", {},
                        {"not_executed": refused})
    engine.store.put_result(tool.name, result.to_dict())
    engine.reporter.done(tool.name, f"kept the original: not played ({refused})")
    return result


def split(tool: Tool, config: OptimizeConfig, book: FactBook,
          examples: Sequence[Example]) -> Verified:
    """The verified examples best first (a stable sort: ties keep their order), split by a
    hash of their calls; the facts without those of the held-out calls, but those a training
    fact test checks. A fact's call can be a held-out one without the fact coming from it
    (run s72i: percentile's default, "linear", shown by a verified call run without
    ``method``, whose call three held-out examples shared): its training test then checked a
    fact no candidate doc could hold."""
    ranked = sorted(examples, key=lambda ex: -ex.reward)
    train, hold = split_examples(ranked, config.holdout, (config.seed, tool.name, "split"))
    tests = [ex for ex in train if ex.fact]
    tested = [f for f in book.all_facts() if any(t.tests_fact(f.param, f.text) for t in tests)]
    return Verified(tuple(ranked), tuple(train), tuple(hold),
                    book.without((ex.invocation.key() for ex in hold), keep=tested))


def log_split(engine: Engine, tool: Tool, verified: Verified) -> None:
    """Each verified example as a ``split`` candidate (state ``train`` or ``held-out``, best
    first): what the tool-set check asks once every tool is done (:func:`finish_run`)."""
    hold = {ex.invocation.key() for ex in verified.hold}
    for i, ex in enumerate(verified.examples):
        state = "held-out" if ex.invocation.key() in hold else "train"
        engine.trace.candidate("split", tool.name, f"split-{tool.name}-{i}", iteration=0,
                               parent=None, state=state,
                               reward=ex.reward, payload=ex.to_dict())


def kept_without_search(tool: Tool, config: OptimizeConfig,
                        verified: Verified) -> DocSearchOutcome | None:
    """D0, kept without a doc search, when Step 2 is off or could not change it (too few
    examples to hold any out, or D0 already solves them all); None when it is to run."""
    if not config.optimize_docs:
        return DocSearchOutcome(tool.doc, False, "doc search off", {})
    reason = skip_reason(verified.train, verified.hold, config)
    return None if reason is None else DocSearchOutcome(tool.doc, False, reason, {})


async def choose_demos(tool: Tool, eng: Engine, doc: ToolDoc, verified: Verified,
                       siblings: Sequence[Tool] = ()) -> Demos:
    """The demos shipped with ``doc``: the best training examples that differ, as many (0, 1
    or k) as held-out accuracy says (the task model seeing ``siblings`` beside the tool), with
    their answers (m4)."""
    cfg = eng.config
    pool = select_demos(list(verified.train), cfg.demos_per_tool)
    k, scores = len(pool), {}
    if cfg.choose_demo_count:
        k, scores = await choose_demo_count(tool, eng, doc, pool, list(verified.hold),
                                            cfg.demos_per_tool, siblings)
    return Demos(tuple(pool), tuple(await write_answers(pool[:k], tool, eng)), scores)


async def fact_tests(tool: Tool, engine: Engine, space: ExampleSpace,
                     examples: list[Example]) -> list[Example]:
    """Step 1b (``config.fact_tests`` per tool; 0: off), each test logged as a candidate."""
    tests = await fact_tests_for(engine.config).write(tool, engine, space, examples)
    for i, ex in enumerate(tests):
        engine.trace.candidate(
            "fact-test", tool.name, f"fact-{tool.name}-{i}", iteration=0,
            parent=None, state="verified", reward=ex.reward, payload=ex.to_dict())
    return tests


def seed_facts(engine: Engine, tool: Tool) -> FactBook | None:
    """The facts the run's play starts from for ``tool`` (a refreshed run records them: the
    earlier run's facts still true of the tool), or None."""
    seeds = engine.store.get_meta(Meta.SEED_FACTS) or {}
    if tool.name not in seeds or not evidence_for(engine).uses(FACT_READER):
        return None
    return FactBook(tool, [Fact.from_dict(f) for f in seeds[tool.name]])


def _tool_stats(eng: Engine, tool: Tool, search: SearchResult[Example], space: ExampleSpace,
                outcome: DocSearchOutcome, verified: Verified,
                demos: Demos) -> dict[str, Any]:
    history = search.history
    attempts = [a for p in space.plays for a in p.attempts]
    tag_stats = eng.store.samples_by_tag().get(tool.name, {})
    return {
        "play_attempts": len(attempts),
        "valid_invocations": sum(1 for p in space.plays if p.ok),
        "invocation_success_rate": (sum(1 for a in attempts if a.verdict == 0) / len(attempts)
                                    if attempts else 0.0),
        "probes": len(space.probed),
        "repaired_calls": len(space.prober.repaired),
        "facts": space.book.to_list(),
        "facts_by_source": fact_sources(space.book),
        "schema_constraints": {p: sorted(c) for p, c in outcome.doc.constraints.items()},
        "evidence_calls": dict(sorted(eng.uses.items())),   # each component's calls, by name
        "examples": len(history),
        "verified_examples": len(verified.examples),
        "held_out_examples": len(verified.hold),
        "gated_examples": sum(1 for n in history if n.item.problems),
        "demos": len(demos.shipped),
        "demo_candidates": len(demos.pool),
        "demo_count_scores": demos.scores,
        "best_reward": search.best.reward if search.best else None,
        "best_reward_per_iteration": search.best_reward_per_iteration(),
        "doc_score_per_iteration": list(outcome.best_per_iteration),
        "stopped_early": {"examples": search.stopped_early, "docs": outcome.stopped_early},
        "repeated_calls_avoided": {
            "explored": sum(1 for a in attempts if a.observation.error_type == "duplicate"),
            "failed": sum(1 for a in attempts if a.observation.error_type == "repeat"),
            "siblings": space.sibling_duplicates},
        "llm_samples": tag_stats.get("samples", 0),
        "prompt_tokens": tag_stats.get("prompt_tokens", 0),
        "completion_tokens": tag_stats.get("completion_tokens", 0),
    }


__all__ = ["SET_CHECK_TAG", "finish_run", "optimize_tool", "tool_budget"]
