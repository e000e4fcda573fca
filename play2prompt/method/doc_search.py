"""Step 2: beam search over the documentation of one tool.

A child doc is proposed by the doc generator G_D: it critiques the parent doc from the task
model's mistakes on a batch of Step-1 examples (m8), then rewrites it (m7, a JSON object with a
description and one text per parameter). A doc's reward is the task model's accuracy on the
batch with that doc and no demos (the doc linter's score breaks ties). Part of the examples is
held out: the winner must not score below D0 on them, otherwise D0 is kept and the reason said.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from play2prompt.engine import Engine
from play2prompt.jsonutil import derive_seed, stable_hash
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.example_search import Example
from play2prompt.method.play import retry_temperature
from play2prompt.scoring.checker import check_calls
from play2prompt.search import Node, beam_search, monte_carlo_search
from play2prompt.tools.lint import lint_score
from play2prompt.tools.model import Tool, ToolDoc

CRITIQUE_SCHEMA = object_schema({"critique": {"type": "string", "maxLength": 700}})
LINT_WEIGHT = 0.01  # tie-breaker only: one example always outweighs it
REWRITE_TRIES = 3
_PLACEHOLDERS = {"", "none", "n/a", "na", "no data", "tbd", "todo", "unknown", "null", "-"}
_MARKUP = re.compile(r"\{\{|\}\}|\[tool\]|<\w+>|```")


def doc_problems(doc: ToolDoc, tool_name: str) -> list[str]:
    """What makes a rewritten doc unusable, checked by code (a weak generator degenerates)."""
    problems = []
    texts = [("description", doc.description)] + [(f"parameter {n}", t)
                                                   for n, t in doc.params.items()]
    for label, text in texts:
        clean = text.strip()
        if clean.lower().strip(".:; ") in _PLACEHOLDERS or len(clean.split()) < 2:
            problems.append(f"{label}: empty or placeholder text")
        elif _MARKUP.search(clean) or f"{tool_name}(" in clean:
            problems.append(f"{label}: contains code or template markup")
        elif len(clean) > 60 and len(zlib.compress(clean.encode())) / len(clean) < 0.35:
            problems.append(f"{label}: repetitive text")
    return problems


def rewrite_schema(param_names: Sequence[str]) -> dict[str, Any]:
    """m7's answer: length bounds only (regex patterns compile too slowly in llguidance);
    :func:`doc_problems` rejects degenerate text by code."""
    params = {p: {"type": "string", "minLength": 8, "maxLength": 250} for p in param_names}
    return object_schema({
        "description": {"type": "string", "minLength": 20, "maxLength": 600},
        "params": object_schema(params),
    })


@dataclass(frozen=True)
class DocCandidate:
    doc: ToolDoc
    critique: str = ""

    @property
    def key(self) -> str:
        return stable_hash(self.doc.to_dict())


@dataclass
class DocEval:
    accuracy: float
    failures: list[dict[str, Any]] = field(default_factory=list)


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
    """(train, held-out). With fewer than 3 examples both are the whole set."""
    items = list(examples)
    if len(items) < 3 or holdout <= 0:
        return items, items
    rng = random.Random(derive_seed(seed))
    order = list(range(len(items)))
    rng.shuffle(order)
    n_hold = max(1, round(holdout * len(items)))
    hold = [items[i] for i in sorted(order[:n_hold])]
    train = [items[i] for i in sorted(order[n_hold:])]
    return train, hold


class DocSpace:
    def __init__(self, tool: Tool, engine: Engine, batch: Sequence[Example],
                 errors: Sequence[str] = ()) -> None:
        self.tool = tool
        self.engine = engine
        self.batch = list(batch)
        self.evals: dict[str, DocEval] = {}
        self.evidence = _evidence(batch, errors)

    async def evaluate(self, doc: ToolDoc, examples: Sequence[Example]) -> DocEval:
        """The task model's accuracy on ``examples`` with ``doc`` and no demos."""
        tool = self.tool.with_doc(doc)
        eng = self.engine

        async def one(ex: Example) -> dict[str, Any] | None:
            attempt = await eng.prompter.attempt(eng.task_model, [tool], ex.query,
                                                 seed=eng.config.seed,
                                                 temperature=eng.config.task_temperature)
            if attempt.error:
                return {"query": ex.query, "expected": ex.invocation.to_python(),
                        "got": attempt.raw[:300], "error": attempt.error}
            outcome = await check_calls(list(attempt.calls), [ex.invocation], eng.runtime,
                                        expected_outputs=[ex.observation.output])
            if outcome.correct:
                return None
            return {"query": ex.query, "expected": ex.invocation.to_python(),
                    "got": ", ".join(c.to_python() for c in attempt.calls),
                    "error": outcome.error}

        results = await asyncio.gather(*(one(ex) for ex in examples))
        failures = [r for r in results if r is not None]
        acc = 1.0 - len(failures) / len(examples) if examples else 0.0
        return DocEval(acc, failures)

    async def score(self, items: Sequence[DocCandidate], iteration: int) -> list[float]:
        out = []
        for cand, ev in zip(items, await asyncio.gather(
                *(self.evaluate(c.doc, self.batch) for c in items))):
            self.evals[cand.key] = ev
            out.append(ev.accuracy + LINT_WEIGHT * lint_score(self.tool.with_doc(cand.doc)))
        return out

    async def propose(self, parent: Node[DocCandidate] | None, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[DocCandidate]:
        base = parent.item.doc if parent else self.tool.doc
        failures = self.evals[parent.item.key].failures if parent else []
        found = await asyncio.gather(*(self._rewrite(base, failures, nid)
                                       for nid in node_ids[:count]))
        return [c for c in found if c is not None]

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
                eng.doc_generator, eng.prompts.render("m7", doc=rendered, evidence=self.evidence,
                                                      critique=critique or "(none)"),
                rewrite_schema(names), role="generator", seed=derive_seed(node_id, "m7", t),
                temperature=retry_temperature(eng.config.temperature, t), max_tokens=700)
            if not d:
                continue
            doc = ToolDoc(str(d["description"]).strip(),
                          {n: str(d["params"].get(n, "")).strip() for n in names})
            problems = doc_problems(doc, self.tool.name)
            if not problems:
                return DocCandidate(doc, critique)
            eng.store.put_candidate(
                f"doc-{self.tool.name}-{node_id}-rejected{t}", tool=self.tool.name, stage="doc",
                iteration=-1, parent=None, state="invalid", reward=None,
                payload={"doc": doc.to_dict(), "critique": critique, "problems": problems})
        return None


def _evidence(examples: Sequence[Example], errors: Sequence[str] = (), limit: int = 5) -> str:
    lines = [f"- {ex.invocation.to_python()} -> {ex.observation.render(200)}"
             for ex in examples[:limit]]
    distinct = list(dict.fromkeys(e[:200] for e in errors if e))[:3]
    if distinct:
        lines.append("Calls that failed said:")
        lines.extend(f"- {e}" for e in distinct)
    return "\n".join(lines) or "(none)"


def evidence_doc(tool: Tool, examples: Sequence[Example], errors: Sequence[str] = ()) -> ToolDoc:
    """D0 plus what tool play established, written by code: text values that executed
    successfully for each parameter, the shape of the output, and what the tool said when a
    call failed."""
    d0 = tool.doc
    params = {}
    for name in tool.properties:
        # text values only: they show accepted formats and codes ("USD", "2024-01-01"); numbers
        # from play are arbitrary, and small task models copy them into unrelated requests
        seen = list(dict.fromkeys(json.dumps(ex.invocation.arguments[name], ensure_ascii=False)
                                  for ex in examples if ex.observation.ok
                                  and isinstance(ex.invocation.arguments.get(name), str)))[:4]
        text = d0.params.get(name, "").strip()
        if seen:
            note = f"Values that worked in tests: {', '.join(seen)}."
            text = f"{text.rstrip('.')}. {note}" if text else note
        params[name] = text
    description = d0.description.strip()
    outputs = [ex.observation.output for ex in examples if ex.observation.ok]
    if outputs and isinstance(outputs[0], dict) and outputs[0]:
        keys = ", ".join(list(outputs[0])[:8])
        description = f"{description.rstrip('.')}. Returns an object with {keys}."
    distinct = list(dict.fromkeys(e.split("\n")[0][:160] for e in errors if e))[:2]
    if distinct:
        description += " Errors seen: " + " / ".join(distinct)
    return ToolDoc(description, params)


async def search_doc(tool: Tool, engine: Engine, examples: Sequence[Example],
                     errors: Sequence[str] = ()) -> DocSearchOutcome:
    """Run Step 2 for ``tool`` on its Step-1 ``examples`` (``errors``: tool play's failures)."""
    cfg = engine.config
    d0 = tool.doc
    if len(examples) < cfg.min_examples_for_docs:
        return _unscored(tool, examples, errors, cfg.evidence_notes)
    train, hold = split_examples(examples, cfg.holdout, (cfg.seed, tool.name, "split"))
    space = DocSpace(tool, engine, train[: cfg.doc_batch], errors)
    initial = [DocCandidate(d0)]
    notes_key: str | None = None
    if cfg.evidence_notes:
        notes = DocCandidate(evidence_doc(tool, examples, errors), "notes from tool play")
        if notes.key != initial[0].key:
            initial.append(notes)
            notes_key = notes.key
    settings = cfg.docs

    def on_iteration(iteration: int, new: list[Node[DocCandidate]],
                     kept: list[Node[DocCandidate]]) -> None:
        kept_ids = {n.id for n in kept}
        for node in new:
            engine.store.put_candidate(
                f"doc-{tool.name}-{node.id}", tool=tool.name, stage="doc", iteration=iteration,
                parent=f"doc-{tool.name}-{node.parent}" if node.parent else None,
                state="kept" if node.id in kept_ids else "dropped", reward=node.reward,
                payload={"doc": node.item.doc.to_dict(), "critique": node.item.critique,
                         "accuracy": space.evals[node.item.key].accuracy,
                         "failures": space.evals[node.item.key].failures[:5]})
        engine.reporter.advance(tool.name, len(new) or 1)

    stopped_early = False
    if settings.method == "mc":
        root = Node("root", DocCandidate(d0), 0.0, 0)
        d0_score = (await space.score([root.item], 0))[0]
        mc = await monte_carlo_search(_ChildrenOf(space, root), width=settings.width,
                                      budget=settings.budget(), on_iteration=on_iteration)
        history = [Node(root.id, root.item, d0_score, 0)] + mc.history
        best_per_iteration: tuple[float | None, ...] = (d0_score,) + tuple(
            mc.best_reward_per_iteration())
    else:
        result = await beam_search(space, width=settings.width, expand=settings.expand,
                                   depth=settings.depth, initial_items=initial,
                                   patience=cfg.patience, on_iteration=on_iteration)
        history = result.history
        best_per_iteration = tuple(result.best_reward_per_iteration())
        stopped_early = result.stopped_early
    outcome = await _choose(space, tool, d0, history, hold, best_per_iteration, notes_key)
    return replace(outcome, stopped_early=stopped_early)


def _unscored(tool: Tool, examples: Sequence[Example], errors: Sequence[str],
              notes: bool) -> DocSearchOutcome:
    """Too few examples to score docs on: D0 plus the code-written notes of what tool play saw
    (the tool's own error messages, values that ran), or D0 when play saw nothing."""
    reason = f"only {len(examples)} usable example(s)"
    doc = evidence_doc(tool, examples, errors) if notes else tool.doc
    if DocCandidate(doc).key == DocCandidate(tool.doc).key:
        return DocSearchOutcome(tool.doc, False, f"kept D0: {reason}", {})
    return DocSearchOutcome(doc, True, f"notes from tool play, not scored: {reason}", {})


class _ChildrenOf:
    """Monte Carlo over docs: every sample is an independent rewrite of D0."""

    def __init__(self, space: DocSpace, root: Node[DocCandidate]) -> None:
        self.space, self.root = space, root

    async def propose(self, parent: Any, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[DocCandidate]:
        return await self.space.propose(self.root, count, iteration, node_ids)

    async def score(self, items: Sequence[DocCandidate], iteration: int) -> list[float]:
        return await self.space.score(items, iteration)


async def _choose(space: DocSpace, tool: Tool, d0: ToolDoc, history: Sequence[Node[DocCandidate]],
                  hold: Sequence[Example], best_per_iteration: tuple[float | None, ...],
                  notes_key: str | None = None) -> DocSearchOutcome:
    """The best doc by batch accuracy, unless it scores below D0 on the held-out examples.

    On a tie the code-written notes doc wins over D0 (it adds only facts that execution
    established), and D0 wins over LLM rewrites (a rewrite must earn its place)."""
    d0_key = DocCandidate(d0).key
    rank = {notes_key: 0, d0_key: 1}
    best = sorted(history, key=lambda n: (-n.reward, rank.get(n.item.key, 2)))[0]
    d0_train = space.evals[d0_key].accuracy
    best_train = space.evals[best.item.key].accuracy
    scores: dict[str, float | None] = {"d0_train": d0_train, "best_train": best_train}
    if best.item.key == d0_key:
        scores.update(d0_holdout=None, best_holdout=None)
        return DocSearchOutcome(d0, False, "kept D0: no rewrite scored higher", scores,
                                tuple(history), best_per_iteration)
    d0_hold, best_hold = await asyncio.gather(space.evaluate(d0, hold),
                                              space.evaluate(best.item.doc, hold))
    scores.update(d0_holdout=d0_hold.accuracy, best_holdout=best_hold.accuracy)
    if best_hold.accuracy < d0_hold.accuracy:
        reason = (f"kept D0: the best rewrite scored {best_hold.accuracy:.2f} on held-out "
                  f"examples, below D0's {d0_hold.accuracy:.2f}")
        return DocSearchOutcome(d0, False, reason, scores, tuple(history), best_per_iteration)
    kind = "notes from tool play" if best.item.key == notes_key else "rewrite"
    reason = (f"{kind}: batch accuracy {d0_train:.2f} -> {best_train:.2f}, held-out "
              f"{d0_hold.accuracy:.2f} -> {best_hold.accuracy:.2f}")
    return DocSearchOutcome(best.item.doc, True, reason, scores, tuple(history),
                            best_per_iteration)
