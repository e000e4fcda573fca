"""Step 1: beam search over examples E = (query x, tool F, invocation I, answer y).

A candidate is proposed by tool play (a valid, executed invocation), then refined for N_E
rounds: write a query (m3), write the answer from the real output (m4), grade it (R_q: code
checks, plus m5 when the generator can grade), run the task model on the query with D0 and no
demos (R_e = 1 when it fails), and reflect (m6). The best round is the candidate; its reward is
R = R_q + lambda * R_e. Children are conditioned on their parent's example and reflection.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from play2prompt.engine import Engine
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.play import PlayResult, ToolPlayer, retry_temperature
from play2prompt.method.rewards import check_query, leaf_values, quality_reward, total_reward
from play2prompt.method.task_prompt import Demo
from play2prompt.scoring.checker import check_calls
from play2prompt.search import Node, SearchResult, beam_search, monte_carlo_search
from play2prompt.tools.model import Invocation, Observation, Tool

# Plain length bounds only: llguidance compiles regex patterns slowly (minutes for patterns with
# counted repetitions), so what a query must satisfy is checked by code (rejection sampling).
QUERY_SCHEMA = object_schema({"query": {"type": "string", "minLength": 8, "maxLength": 300}})
ANSWER_SCHEMA = object_schema({"answer": {"type": "string", "minLength": 1, "maxLength": 500}})
GRADE_SCHEMA = object_schema({"score": {"type": "integer", "enum": [1, 2, 3]},
                              "reason": {"type": "string", "maxLength": 300}})
REFLECT_SCHEMA = object_schema({"reflection": {"type": "string", "maxLength": 400}})
QUERY_TRIES = 3
_CODE = re.compile(r"[A-Za-z_]\w*\s*\([^)]*=|[{}]|\w+_\w+\s*=|\bSELECT\b.+\bFROM\b|`")


def reads_like_code(query: str, tool_name: str) -> bool:
    """A query that is really a function call (or names the tool) is no user request."""
    return bool(_CODE.search(query)) or tool_name.lower() in query.lower()


def describe_values(inv: Invocation, param_docs: Mapping[str, str]) -> str:
    """The call's values labelled by what they mean (the doc's words, not identifiers)."""
    lines = []
    for name, value in inv.arguments.items():
        label = (param_docs.get(name) or "").strip() or name.replace("_", " ")
        shown = ", ".join(str(v) for v in leaf_values(value)) if isinstance(
            value, (list, dict)) else str(value)
        lines.append(f"- {label[:80]}: {shown}")
    return "\n".join(lines) or "(no values)"


@dataclass(frozen=True)
class Example:
    tool: str
    query: str
    invocation: Invocation
    observation: Observation
    answer: str
    r_q: float
    r_e: float
    reward: float
    checks: Mapping[str, Any] = field(default_factory=dict)
    grade: float | None = None
    solved: bool = False              # the task model answered it right with D0
    attempt: str = ""                 # the task model's raw answer
    reflection: str = ""
    refinement_round: int = 0

    @property
    def verified(self) -> bool:
        """Executed successfully and the query states every value the call uses."""
        return (self.observation.ok and float(self.checks.get("values_present", 0)) >= 0.999
                and bool(self.checks.get("answer_ok", False)))

    @property
    def clean(self) -> bool:
        """Reads like a user's request: names no function or parameter and is not code."""
        return bool(self.checks.get("no_names", True)) and not reads_like_code(self.query,
                                                                              self.tool)

    def demo(self) -> Demo:
        return Demo(self.query, (self.invocation,), self.answer)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool, "query": self.query, "invocation": self.invocation.to_dict(),
            "observation": self.observation.to_dict(), "answer": self.answer,
            "r_q": self.r_q, "r_e": self.r_e, "reward": self.reward, "checks": dict(self.checks),
            "grade": self.grade, "solved": self.solved, "attempt": self.attempt,
            "reflection": self.reflection, "refinement_round": self.refinement_round,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Example:
        return cls(d["tool"], d["query"], Invocation.from_dict(d["invocation"]),
                   Observation.from_dict(d["observation"]), d["answer"], float(d["r_q"]),
                   float(d["r_e"]), float(d["reward"]), d.get("checks") or {}, d.get("grade"),
                   bool(d.get("solved")), d.get("attempt", ""), d.get("reflection", ""),
                   int(d.get("refinement_round", 0)))


class ExampleSpace:
    """The search space of Step 1 for one tool (see the module docstring)."""

    def __init__(self, tool: Tool, engine: Engine) -> None:
        self.tool = tool
        self.engine = engine
        self.player = ToolPlayer(tool, engine)
        self.explored: set[str] = set()   # invocation keys known at the start of an iteration
        self.failures: list[str] = []     # failed calls and what the tool said, same snapshot
        self._plays: dict[str, tuple[int, PlayResult]] = {}
        self.sibling_duplicates = 0       # plays redone because a sibling found the same call

    @property
    def plays(self) -> list[PlayResult]:
        """Every play so far, in a fixed order (iteration, then id), whatever order the
        concurrent plays finished in: what is derived from them must not depend on timing."""
        return [p for _, (_, p) in sorted(self._plays.items(), key=lambda kv: (kv[1][0], kv[0]))]

    async def propose(self, parent: Node[Example] | None, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[Example]:
        explored = frozenset(self.explored)
        guidance = self._guidance(parent, tuple(self.failures))
        ids = list(node_ids[:count])
        plays = list(await asyncio.gather(*(self.player.play(nid, guidance, explored)
                                            for nid in ids)))
        plays = await self._vary_siblings(ids, plays, guidance, explored)
        for nid, play in zip(ids, plays):
            self._plays[nid] = (iteration, play)
            self.engine.store.put_candidate(
                f"play-{self.tool.name}-{nid}", tool=self.tool.name, stage="play",
                iteration=iteration, parent=parent.id if parent else None,
                state="valid" if play.ok else "invalid", reward=None, payload=play.to_dict())
        found = await asyncio.gather(*(self._refined(play, parent, nid, iteration)
                                       for nid, play in zip(ids, plays) if play.ok))
        return list(found)

    async def _vary_siblings(self, ids: list[str], plays: list[PlayResult], guidance: str,
                             explored: frozenset[str]) -> list[PlayResult]:
        """Siblings share a prompt, so they can land on the same call: a later sibling (in id
        order) that repeats an earlier one plays again with both calls marked as explored, and
        is dropped if it repeats one again. No call is refined twice in one proposal."""
        taken: set[str] = set()
        repeats = []
        for j, play in enumerate(plays):
            if play.invocation is not None:
                key = play.invocation.key()
                if key in taken:
                    repeats.append(j)
                taken.add(key)
        if not repeats:
            return plays
        self.sibling_duplicates += len(repeats)
        known = explored | taken
        again = await asyncio.gather(*(self.player.play(f"{ids[j]}:vary", guidance, known)
                                       for j in repeats))
        for j, replay in zip(repeats, again):
            inv = replay.invocation
            fresh = inv is not None and inv.key() not in taken
            if fresh:
                taken.add(inv.key())
            plays[j] = PlayResult(inv if fresh else None, replay.observation if fresh else None,
                                  plays[j].attempts + replay.attempts, ids[j])
        return plays

    def end_iteration(self, new: Sequence[Node[Example]]) -> None:
        """Update what the next iteration's proposals know (a snapshot, so the outcome does
        not depend on the order in which concurrent candidates finish)."""
        self.explored.update(n.item.invocation.key() for n in new)
        lines = dict.fromkeys(self.failures)
        for play in self.plays:
            for att in play.attempts:
                if att.invocation is not None and att.verdict != 0 and \
                        att.observation.error_type not in ("duplicate", "parse"):
                    lines[f"{att.invocation.to_python()} -> {att.analysis[:200]}"] = None
        self.failures = list(lines)[-4:]

    async def score(self, items: Sequence[Example], iteration: int) -> list[float]:
        return [ex.reward for ex in items]

    @staticmethod
    def _guidance(parent: Node[Example] | None, failures: tuple[str, ...]) -> str:
        if parent is not None:
            p = parent.item
            return (f"An earlier example called {p.invocation.to_python()} for the request "
                    f"\"{p.query}\" (reward {p.reward:.2f}). Advice: {p.reflection}\n"
                    "Write a different call that exercises the tool in a new way.")
        if failures:
            return "Calls that failed before (learn from what the tool said):\n" + \
                "\n".join(f"- {f}" for f in failures)
        return ""

    async def _refined(self, play: PlayResult, parent: Node[Example] | None, node_id: str,
                       iteration: int) -> Example:
        """N_E rounds of query / answer / grade / task-model test / reflection; the best."""
        assert play.invocation is not None and play.observation is not None
        last_round = iteration >= self.engine.config.examples.depth
        best: Example | None = None
        previous = parent.item if parent is not None else None
        for r in range(self.engine.config.n_e):
            reflect = not (last_round and r == self.engine.config.n_e - 1)
            ex = await self._refine(play.invocation, play.observation, previous,
                                    f"{node_id}:{r}", r, reflect)
            if best is None or ex.reward > best.reward:
                best = ex
            previous = ex
        assert best is not None
        return best

    async def _refine(self, inv: Invocation, obs: Observation, previous: Example | None,
                      seed_key: str, round_: int, reflect: bool) -> Example:
        eng, cfg = self.engine, self.engine.config
        call, output = inv.to_python(), obs.render(800)
        context = ""
        if previous is not None:
            context = (f"A previous request was: \"{previous.query}\"\n"
                       f"Advice for the new one: {previous.reflection}")
        query = await self._write_query(inv, call, output, context, seed_key)
        (a,), _ = await chat_json(
            eng.generator, eng.prompts.render("m4", query=query, call=call, output=output),
            ANSWER_SCHEMA, role="generator", seed=derive_seed(seed_key, "m4"),
            temperature=cfg.temperature, max_tokens=250)
        answer = str(a["answer"]).strip() if a else ""
        checks = check_query(query, inv, list(self.tool.properties), answer)
        grade = await self._grade(query, call, output, answer, seed_key) if eng.llm_grading \
            else None
        r_q = quality_reward(checks, grade)
        solved, attempt = await self._task_solves(query, inv, obs) if query else (False, "")
        r_e = 0.0 if solved else 1.0
        reward = total_reward(r_q, r_e, cfg.lam)
        reflection = ""
        if reflect:
            reflection = await self._reflect(query, call, checks.describe(), attempt, solved,
                                             reward, seed_key)
        return Example(self.tool.name, query, inv, obs, answer, r_q, r_e, reward,
                       checks.to_dict(), grade, solved, attempt, reflection, round_)

    async def _write_query(self, inv: Invocation, call: str, output: str, context: str,
                           seed_key: str) -> str:
        """m3, rejection-sampled by code: a draft that reads like code, names the tool or misses
        a value is redrawn (hotter, told what was wrong) up to ``QUERY_TRIES`` times; the best
        draft by the code checks is kept."""
        eng = self.engine
        values = describe_values(inv, self.tool.doc.params)
        best, best_score, note = "", -1.0, ""
        for t in range(QUERY_TRIES):
            (q,), _ = await chat_json(
                eng.generator, eng.prompts.render("m3", doc=self.tool.render_doc(), call=call,
                                                  output=output, values=values,
                                                  context=context + note),
                QUERY_SCHEMA, role="generator", seed=derive_seed(seed_key, "m3", t),
                temperature=retry_temperature(eng.config.temperature, t), max_tokens=160)
            query = str(q["query"]).strip() if q else ""
            if not query:
                continue
            checks = check_query(query, inv, list(self.tool.properties))
            code_like = reads_like_code(query, self.tool.name)
            score = checks.values_present + (0.0 if code_like else 1.0)
            if score > best_score:
                best, best_score = query, score
            if not code_like and not checks.missing_values:
                break
            problems = ["it read like code or named the tool"] if code_like else []
            if checks.missing_values:
                problems.append("it left out " + ", ".join(checks.missing_values))
            note = f"\nYour last draft was: {query}\nRewrite it: {'; '.join(problems)}."
        return best

    async def _grade(self, query: str, call: str, output: str, answer: str,
                     seed_key: str) -> float | None:
        eng = self.engine
        (g,), _ = await chat_json(
            eng.generator, eng.prompts.render("m5", doc=self.tool.render_doc(), query=query,
                                              call=call, output=output, answer=answer),
            GRADE_SCHEMA, role="generator", seed=derive_seed(seed_key, "m5"), temperature=0.0,
            max_tokens=200)
        return float(g["score"]) if g else None

    async def _task_solves(self, query: str, inv: Invocation,
                           obs: Observation) -> tuple[bool, str]:
        """R_e's test: does the task model, with D0 and no demos, make the right call?"""
        eng = self.engine
        attempt = await eng.prompter.attempt(eng.task_model, [self.tool], query,
                                             seed=eng.config.seed,
                                             temperature=eng.config.task_temperature)
        if attempt.error:
            return False, attempt.error
        outcome = await check_calls(list(attempt.calls), [inv], eng.runtime,
                                    expected_outputs=[obs.output])
        summary = ", ".join(c.to_python() for c in attempt.calls)
        return outcome.correct, summary + ("" if outcome.correct else f" ({outcome.error})")

    async def _reflect(self, query: str, call: str, checks: str, attempt: str, solved: bool,
                       reward: float, seed_key: str) -> str:
        eng = self.engine
        verdict = "solved it" if solved else "failed"
        (r,), _ = await chat_json(
            eng.generator, eng.prompts.render("m6", doc=self.tool.render_doc(), query=query,
                                              call=call, checks=checks,
                                              attempt=f"{attempt} -> {verdict}",
                                              reward=f"{reward:.2f}"),
            REFLECT_SCHEMA, role="generator", seed=derive_seed(seed_key, "m6"),
            temperature=eng.config.temperature, max_tokens=200)
        return str(r["reflection"]).strip() if r else ""


async def search_examples(tool: Tool, engine: Engine) -> tuple[SearchResult[Example], ExampleSpace]:
    """Run Step 1 for ``tool`` and log every candidate in the store."""
    space = ExampleSpace(tool, engine)
    settings = engine.config.examples

    def on_iteration(iteration: int, new: list[Node[Example]], kept: list[Node[Example]]) -> None:
        kept_ids = {n.id for n in kept}
        for node in new:
            engine.store.put_candidate(
                f"ex-{tool.name}-{node.id}", tool=tool.name, stage="example", iteration=iteration,
                parent=f"ex-{tool.name}-{node.parent}" if node.parent else None,
                state="kept" if node.id in kept_ids else "dropped", reward=node.reward,
                payload=node.item.to_dict())
        space.end_iteration(new)
        engine.reporter.advance(tool.name, len(new) or 1)

    if settings.method == "mc":
        result = await monte_carlo_search(space, width=settings.width, budget=settings.budget(),
                                          on_iteration=on_iteration)
    else:
        result = await beam_search(space, width=settings.width, expand=settings.expand,
                                   depth=settings.depth, patience=engine.config.patience,
                                   on_iteration=on_iteration)
    return result, space


def select_demos(history: Sequence[Node[Example]], k: int) -> list[Example]:
    """The ``k`` best distinct examples: requests that read like a user's (no identifiers, no
    code) first, verified ones first among those, then by reward."""
    ranked = sorted(history, key=lambda n: (not n.item.clean, not n.item.verified, -n.reward))
    out: list[Example] = []
    seen_calls: set[str] = set()
    seen_queries: set[str] = set()
    for node in ranked:
        ex = node.item
        key, q = ex.invocation.key(), ex.query.strip().lower()
        if not ex.observation.ok or not q or key in seen_calls or q in seen_queries:
            continue
        seen_calls.add(key)
        seen_queries.add(q)
        out.append(ex)
        if len(out) >= k:
            break
    return out


def distinct_examples(history: Sequence[Node[Example]]) -> list[Example]:
    """Every usable example once (by query), best first: the material of Step 2."""
    out, seen = [], set()
    for node in sorted(history, key=lambda n: -n.reward):
        q = node.item.query.strip().lower()
        if q and q not in seen and node.item.observation.ok:
            seen.add(q)
            out.append(node.item)
    return out
