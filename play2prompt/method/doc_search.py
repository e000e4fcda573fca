"""Step 2: beam search over the documentation of one tool.

Candidates: D0; the facts doc (D0 with what tool play refuted taken out and what it established
stated, written by code, :func:`play2prompt.evidence.facts.facts_doc`); and rewrites by the doc
generator G_D, which critiques the parent doc from the task model's mistakes on a batch of
Step-1 examples (m8) and rewrites it (m7, a JSON object with a description and one text per
parameter). A rewrite is completed by code before it is scored: a parameter it blanks keeps its
facts-doc text, a fact it leaves out is stated, a D0 statement it drops is kept
(:func:`play2prompt.evidence.completion.complete_doc`). A doc's reward is the task model's
accuracy on the batch with that doc and no demos (the doc linter's score breaks ties).

The examples are split by their calls (a hash, not the search's choices) into a training part,
which builds and scores candidates, and a held-out part, never used to build anything
(:func:`split_examples`). :func:`search_docs` returns every scored candidate, each carrying its
evaluation (:class:`DocCandidate`, scored by :meth:`DocSpace.score`); what ships is chosen by
:mod:`play2prompt.method.doc_choice`. A candidate of the search's last round, whose mistakes
no later round reads, is asked only until it cannot be chosen (:class:`Bar`): more wrong
answers than D0, or as many as the best facts doc.
"""

from __future__ import annotations

import asyncio
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.completion import is_placeholder
from play2prompt.evidence.doc_shape import shape_problems
from play2prompt.evidence.facts import FactBook, facts_doc
from play2prompt.evidence.hygiene import cleaned
from play2prompt.evidence.registry import evidence_for
from play2prompt.jsonutil import derive_seed, stable_hash
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.accuracy import DocEval, task_accuracy, task_accuracy_until
from play2prompt.method.example_search import Example
from play2prompt.method.play import retry_temperature
from play2prompt.method.task_prompt import Demo
from play2prompt.search import Node, Scored, beam_search, monte_carlo_search, scored
from play2prompt.tools.lint import lint_score
from play2prompt.tools.model import Tool, ToolDoc

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.config import OptimizeConfig
    from play2prompt.engine import Engine

CRITIQUE_SCHEMA = object_schema({"critique": {"type": "string", "maxLength": 700}})
LINT_WEIGHT = 0.01  # tie-breaker only: one example always outweighs it
# on equal training accuracy the choice (doc_choice) takes the facts doc before a rewrite: it
# states only what execution established
KIND_RANK = {"facts": 0, "rewrite": 1}
REWRITE_TRIES = 3
_MARKUP = re.compile(r"\{\{|\}\}|\[tool\]|<\w+>|```")


def doc_problems(doc: ToolDoc, tool_name: str) -> list[str]:
    """What makes a rewritten doc unusable, checked by code (a weak generator degenerates;
    its shape: :mod:`~play2prompt.evidence.doc_shape`)."""
    problems = []
    texts = [("description", doc.description)] + [(f"parameter {n}", t)
                                                   for n, t in doc.params.items()]
    for label, text in texts:
        clean = text.strip()
        if is_placeholder(clean):
            problems.append(f"{label}: empty or placeholder text")
        elif _MARKUP.search(clean) or f"{tool_name}(" in clean:
            problems.append(f"{label}: contains code or template markup")
        elif len(clean) > 60 and len(zlib.compress(clean.encode())) / len(clean) < 0.35:
            problems.append(f"{label}: repetitive text")
    problems += [f"{'parameter ' + field if field else 'description'}: {kind} ({text})"
                 for kind, field, text in shape_problems(doc.description, dict(doc.params))]
    return problems


def rewrite_schema(param_names: Sequence[str]) -> dict[str, Any]:
    """m7's answer: length bounds only (regex patterns compile too slowly in llguidance);
    :func:`doc_problems` rejects degenerate text by code."""
    params = {p: {"type": "string", "minLength": 8, "maxLength": 300} for p in param_names}
    return object_schema({
        "description": {"type": "string", "minLength": 20, "maxLength": 600},
        "params": object_schema(params),
    })


@dataclass(frozen=True)
class DocCandidate:
    doc: ToolDoc
    critique: str = ""
    kind: str = "rewrite"            # original | facts | rewrite
    # the task model's accuracy on the training batch, once scored (not part of its identity)
    evaluation: DocEval | None = field(default=None, compare=False)

    @property
    def accuracy(self) -> float:
        return self.evaluation.accuracy if self.evaluation is not None else 0.0

    @property
    def failures(self) -> list[dict[str, Any]]:
        return self.evaluation.failures if self.evaluation is not None else []

    @property
    def unasked(self) -> int:
        """Batch examples left unasked once it could not be chosen (accuracy: at most)."""
        return self.evaluation.unasked if self.evaluation is not None else 0

    @property
    def key(self) -> str:
        return stable_hash(self.doc.to_dict())


@dataclass(frozen=True)
class DocSearch:
    """Step 2's candidates, each scored on the training ``batch`` (D0 among them)."""

    history: tuple[Node[DocCandidate], ...]
    batch: tuple[Example, ...]
    best_per_iteration: tuple[float | None, ...] = ()
    stopped_early: bool = False


@dataclass(frozen=True)
class DocSearchOutcome:
    doc: ToolDoc
    changed: bool
    reason: str
    scores: Mapping[str, float | None]
    history: tuple[Node[DocCandidate], ...] = ()
    best_per_iteration: tuple[float | None, ...] = ()
    stopped_early: bool = False


def split_examples(examples: Sequence[Example], holdout: float, seed: Any
                   ) -> tuple[list[Example], list[Example]]:
    """(train, held-out), by a hash of each example's call: which examples are held out does
    not depend on how the search ranked them, and examples of one call (a fact test and the
    example it was written from) fall on the same side. At least one call is held out when
    there are two; with fewer nothing is (and nothing can replace D0)."""
    items = list(examples)
    calls = list(dict.fromkeys(x.invocation.key() for x in items))
    if len(calls) < 2 or holdout <= 0:
        return items, []
    order = sorted(calls, key=lambda key: stable_hash(seed, key))
    held = set(order[:max(1, round(holdout * len(calls)))])
    return ([x for x in items if x.invocation.key() not in held],
            [x for x in items if x.invocation.key() in held])


@dataclass(frozen=True)
class Bar:
    """What a candidate of the search's last round must do to be chosen (doc_choice): fewer
    wrong answers on the batch than the best facts doc (a tie takes the facts doc) and no more
    than D0 (below D0 the original is kept). ``out``: the wrong answers that put it out;
    ``first``: the requests the bar's doc got wrong, asked first (the likeliest to stay wrong)."""

    out: int
    first: tuple[str, ...]


def bar_of(initial: Sequence[DocCandidate]) -> Bar | None:
    """The :class:`Bar` set by the scored initial candidates (None without D0 among them)."""
    d0 = next((c for c in initial if c.kind == "original"), None)
    if d0 is None or d0.evaluation is None:
        return None
    facts = sorted((c for c in initial if c.kind == "facts" and c.evaluation is not None),
                   key=lambda c: len(c.failures))
    out = len(d0.failures) + 1
    if facts:
        out = min(out, len(facts[0].failures))
    best = facts[0] if facts else d0
    return Bar(out, tuple(f["query"] for f in best.failures)) if out >= 1 else None


class DocSpace:
    def __init__(self, tool: Tool, engine: Engine, batch: Sequence[Example],
                 book: FactBook, siblings: Sequence[Tool] = (),
                 last_round: int | None = None) -> None:
        self.tool = tool
        self.engine = engine
        self.siblings = tuple(siblings)   # shown beside the tool when a doc is scored
        self.batch = list(batch)
        self.book = book
        self.reference = facts_doc(tool, book)
        # the search's last round, whose candidates are asked only until they cannot be
        # chosen (no later round reads their mistakes); None: every candidate asked in full
        self.last_round = last_round
        self._initial: dict[str, DocEval] = {}   # the initial candidates' scores, by doc
        self._bar: Bar | None = None

    async def evaluate(self, doc: ToolDoc, examples: Sequence[Example],
                       demos: Sequence[Demo] = (), fresh: str = "") -> DocEval:
        """The task model's accuracy on ``examples`` with ``doc`` (and ``demos``). ``fresh``
        gives the requests a seed of their own, so they are asked anew, not replayed."""
        eng = self.engine
        seed = derive_seed(eng.config.seed, fresh) if fresh else eng.config.seed
        return await task_accuracy(eng, self.tool.with_doc(doc), examples, demos, seed,
                                   self.siblings)

    async def score(self, items: Sequence[DocCandidate],
                    iteration: int) -> list[Scored[DocCandidate]]:
        """Each candidate with its accuracy on the batch; the doc linter breaks ties. In the
        last round (``last_round``) a candidate is asked until it cannot pass the
        :class:`Bar` the initial candidates set (its accuracy then an upper bound,
        ``DocEval.unasked``); a doc scored among the initial ones is not asked again. Every
        candidate but D0 is scored as :func:`~play2prompt.evidence.hygiene.cleaned` (no
        regex fragment, interpreter message, probe value or repeated sentence): what is
        measured is what can ship."""
        items = [c if c.kind == "original" else
                 replace(c, doc=cleaned(c.doc, self.tool.doc, self.tool)) for c in items]
        bar = self._bar if iteration == self.last_round else None
        evals = await asyncio.gather(*(self._evaluate(c, bar) for c in items))
        out = [Scored(replace(c, evaluation=ev),
                      ev.accuracy + LINT_WEIGHT * lint_score(self.tool.with_doc(c.doc)))
               for c, ev in zip(items, evals)]
        if iteration == 0:
            self._initial = {s.item.key: ev for s, ev in zip(out, evals)}
            self._bar = bar_of([s.item for s in out])
        return out

    async def _evaluate(self, candidate: DocCandidate, bar: Bar | None) -> DocEval:
        if candidate.key in self._initial:
            return self._initial[candidate.key]
        if bar is None:
            return await self.evaluate(candidate.doc, self.batch)
        eng = self.engine
        cases = sorted(self.batch, key=lambda ex: ex.query not in bar.first)
        return await task_accuracy_until(eng, self.tool.with_doc(candidate.doc), cases,
                                         bar.out, eng.config.seed, self.siblings)

    @staticmethod
    def settled(history: Sequence[Node[DocCandidate]]) -> bool:
        """True once a facts doc gets every training example right: a rewrite could at best
        tie it, and the choice takes the facts doc on a tie (:data:`KIND_RANK`), so no further
        rewrite can change what ships."""
        return any(n.item.kind == "facts" and n.item.evaluation is not None
                   and n.item.accuracy >= 1.0 for n in history)

    async def propose(self, parent: Node[DocCandidate] | None, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[DocCandidate]:
        base = parent.item.doc if parent else self.tool.doc
        failures = parent.item.failures if parent else []
        found = await asyncio.gather(*(self._rewrite(base, failures, nid)
                                       for nid in node_ids[:count]))
        return [c for c in found if c is not None]

    def _evidence(self) -> str:
        lines = [f"- \"{ex.query}\" -> {ex.invocation.to_python()}" for ex in self.batch[:5]]
        facts = self.book.render()
        return "\n".join(["What the tool has shown (true, keep it):", facts or "(nothing)",
                          "Requests and the correct calls:", *lines])

    async def _rewrite(self, base: ToolDoc, failures: list[dict[str, Any]],
                       node_id: str) -> DocCandidate | None:
        eng = self.engine
        rendered = base.render(self.tool.name, self.tool.parameters)
        lines = [f"- Request: {f['query']}\n  Expected: {f['expected']}\n  Got: {f['got']} "
                 f"({f['error']})" for f in failures[:6]]
        failure_text = "\n".join(lines) or "(no mistakes on this batch; make the doc clearer)"
        (c,), _ = await chat_json(
            eng.doc_generator, eng.prompts.render("m8", doc=rendered, failures=failure_text),
            CRITIQUE_SCHEMA, role="generator", seed=derive_seed(node_id, "m8"),
            temperature=eng.config.temperature, max_tokens=350)
        critique = str(c["critique"]).strip() if c else ""
        names = list(self.tool.properties)
        for t in range(REWRITE_TRIES):
            (d,), _ = await chat_json(
                eng.doc_generator, eng.prompts.render("m7", doc=rendered,
                                                      evidence=self._evidence(),
                                                      critique=critique or "(none)"),
                rewrite_schema(names), role="generator", seed=derive_seed(node_id, "m7", t),
                temperature=retry_temperature(eng.config.temperature, t), max_tokens=900)
            if not d:
                continue
            raw = ToolDoc(str(d["description"]).strip(),
                          {n: str(d["params"].get(n, "")).strip() for n in names})
            problems = doc_problems(raw, self.tool.name)
            if not problems:
                evidence = evidence_for(eng)
                doc = evidence.doc_completion.complete(raw, self.tool.doc, self.book,
                                                       self.reference)
                doc = await evidence.claims.check(doc, self.tool, eng,
                                                  [ex.invocation for ex in self.batch])
                return DocCandidate(evidence.schema.constrain(doc, self.tool, self.book),
                                    critique)
            eng.trace.candidate(
                "doc", self.tool.name, f"doc-{self.tool.name}-{node_id}-rejected{t}",
                iteration=-1, parent=None, state="invalid", reward=None,
                payload={"doc": raw.to_dict(), "critique": critique, "problems": problems})
        return None


def skip_reason(train: Sequence[Example], hold: Sequence[Example],
                config: OptimizeConfig) -> str | None:
    """Why Step 2 cannot change D0 and is not run (too few examples to hold any out; D0
    already solves them all), or None."""
    found = len(train) + len(hold)
    if found < config.min_examples_for_docs or not hold or not train:
        return f"kept the original: only {found} verified example(s), too few to hold any out"
    if config.lam > 0 and all(ex.solved for ex in [*train, *hold]):
        return f"kept the original: it already solves all {found} verified examples (no doc " \
            f"search)"
    return None


async def search_docs(tool: Tool, engine: Engine, train: Sequence[Example],
                      book: FactBook, siblings: Sequence[Tool] = ()) -> DocSearch:
    """Step 2's search for ``tool``: D0, the facts doc and G_D's rewrites, built and scored on
    ``train`` (with ``book``, the facts of every call but the held-out ones), the task model
    seeing ``siblings`` beside the tool (:mod:`play2prompt.method.siblings`)."""
    cfg = engine.config
    settings = cfg.docs
    last = settings.depth if settings.method != "mc" else None
    space = DocSpace(tool, engine, train[: cfg.doc_batch], book, siblings, last)
    initial = [DocCandidate(tool.doc, kind="original")]
    evidence = evidence_for(engine)
    for doc in evidence.facts_doc.candidates(tool.doc, space.reference):
        doc = evidence.schema.constrain(doc, tool, book)
        if DocCandidate(doc).key != initial[0].key:
            initial.append(DocCandidate(doc, "facts from tool play", "facts"))

    def on_iteration(iteration: int, new: list[Node[DocCandidate]],
                     kept: list[Node[DocCandidate]]) -> None:
        kept_ids = {n.id for n in kept}
        for node in new:
            engine.trace.candidate(
                "doc", tool.name, f"doc-{tool.name}-{node.id}", iteration=iteration,
                parent=f"doc-{tool.name}-{node.parent}" if node.parent else None,
                state="kept" if node.id in kept_ids else "dropped", reward=node.reward,
                payload={"doc": node.item.doc.to_dict(), "critique": node.item.critique,
                         "kind": node.item.kind, "accuracy": node.item.accuracy,
                         "unasked": node.item.unasked, "failures": node.item.failures[:5]})
        engine.trace.iteration_ended("doc", tool.name, iteration)

    if settings.method == "mc":
        roots = [Node(f"root{i}", *scored(c, s), 0)
                 for i, (c, s) in enumerate(zip(initial, await space.score(initial, 0)))]
        mc = await monte_carlo_search(_ChildrenOf(space, roots[0]), width=settings.width,
                                      budget=settings.budget(), on_iteration=on_iteration)
        return DocSearch(tuple(roots + mc.history), tuple(space.batch),
                         (max(r.reward for r in roots), *mc.best_reward_per_iteration()))
    result = await beam_search(space, width=settings.width, expand=settings.expand,
                               depth=settings.depth, initial_items=initial,
                               patience=cfg.patience, on_iteration=on_iteration)
    return DocSearch(tuple(result.history), tuple(space.batch),
                     tuple(result.best_reward_per_iteration()), result.stopped_early)


class _ChildrenOf:
    """Monte Carlo over docs: every sample is an independent rewrite of D0."""

    def __init__(self, space: DocSpace, root: Node[DocCandidate]) -> None:
        self.space, self.root = space, root

    async def propose(self, parent: Any, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[DocCandidate]:
        return await self.space.propose(self.root, count, iteration, node_ids)

    async def score(self, items: Sequence[DocCandidate],
                    iteration: int) -> list[Scored[DocCandidate]]:
        return await self.space.score(items, iteration)
