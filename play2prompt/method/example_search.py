"""Step 1: beam search over examples E = (query x, tool F, invocation I, answer y).

A candidate is proposed by tool play (a valid, executed invocation), then refined for N_E
rounds: write a request (m3, gated by code and by re-reading, see
:mod:`play2prompt.method.requests`), grade it (R_q: code checks, plus m5 when the generator
graded well in the run's calibration), run the task model on it with D0 and no demos (R_e = 1
when it fails; never asked when lambda is 0) and reflect (m6). The best round is the candidate;
its reward is R = R_q + lambda * R_e, or 0 when the request failed a gate. Children are
conditioned on their parent's example and reflection.

What tool play learns about the tool (its facts, the calls that failed) is shared between
iterations as a snapshot taken when an iteration starts, so the result does not depend on the
order in which concurrent plays finish. After the first iteration, code probes the tool from one
executed call (:func:`play2prompt.evidence.probes.probes`). Answers (m4) are written only for the
examples chosen as demos.

A tool whose errors name parameters its schema lacks is worked on as play knows it
(:func:`play2prompt.method.discovery.discovered_tool` of the facts): a candidate's request is
written and re-read against its play's discovered schema, and the task model's test (R_e),
m5 and m6 see it too; :attr:`ExampleSpace.current` is the tool as of the latest snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from play2prompt.evidence.facts import Fact, FactBook, known_doc
from play2prompt.evidence.gates import reads_like_code
from play2prompt.evidence.probes import Prober
from play2prompt.evidence.registry import evidence_for
from play2prompt.jsonutil import derive_seed, stable_hash
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.accuracy import Request as TaskRequest
from play2prompt.method.accuracy import task_try
from play2prompt.method.discovery import DESCRIBES, described_tool, discovered_tool
from play2prompt.method.example import Example
from play2prompt.method.play import NOT_EXECUTED, Attempt, PlayResult, ToolPlayer
from play2prompt.method.requests import Request, RequestWriter
from play2prompt.method.rewards import check_query, quality_reward, total_reward
from play2prompt.search import Node, SearchResult, beam_search, monte_carlo_search
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

GRADE_SCHEMA = object_schema({"score": {"type": "integer", "enum": [1, 2, 3]},
                              "reason": {"type": "string", "maxLength": 300}})
REFLECT_SCHEMA = object_schema({"reflection": {"type": "string", "maxLength": 400}})

__all__ = ["Example", "ExampleSpace", "reads_like_code", "search_examples"]


class ExampleSpace:
    """The search space of Step 1 for one tool (see the module docstring)."""

    def __init__(self, tool: Tool, engine: Engine, known: FactBook | None = None,
                 siblings: Sequence[Tool] = ()) -> None:
        self.tool = tool
        self.engine = engine
        self.siblings = tuple(siblings)   # shown beside the tool in R_e's test (config.siblings)
        self.player = ToolPlayer(tool, engine)
        # the tool's facts, as of the current iteration (``known``: what play starts from,
        # e.g. the facts of an earlier run still true of the tool)
        self.book = FactBook(tool, known.all_facts() if known is not None else ())
        self.current = discovered_tool(tool, self.book)   # the tool as the snapshot knows it
        self._writers: dict[str, RequestWriter] = {}
        self.failed: dict[str, str] = {}  # calls that failed, same snapshot
        self.explored: set[str] = set()   # invocation keys known at the start of an iteration
        self.failures: list[str] = []     # failed calls and what the tool said, same snapshot
        self._plays: dict[str, tuple[int, PlayResult]] = {}
        self.prober = Prober(self.current, engine, self.book)
        self.sibling_duplicates = 0       # plays redone because a sibling found the same call
        self.described = False            # the describe component is done with this tool
        self.verified = False             # ... and with its check (describe-check)
        self.units = False                # output-units is done with this tool
        self.scaled = False               # dimensions is done with this tool
        self.leveled = False              # levels is done with this tool
        self.conventioned = False         # conventions is done with this tool
        self._describing = asyncio.Lock()  # concurrent proposals describe the tool once

    def writer(self, tool: Tool) -> RequestWriter:
        """The request writer for ``tool`` as a play knows it (one per discovered schema)."""
        key = stable_hash(dict(tool.parameters))
        if key not in self._writers:
            self._writers[key] = RequestWriter(tool, self.engine)
        return self._writers[key]

    @property
    def probed(self) -> list[tuple[str, Invocation, Observation]]:
        return self.prober.probed

    @property
    def plays(self) -> list[PlayResult]:
        """Every play so far, in a fixed order (iteration, then id), whatever order the
        concurrent plays finished in: what is derived from them must not depend on timing."""
        return [p for _, (_, p) in sorted(self._plays.items(), key=lambda kv: (kv[1][0], kv[0]))]

    async def propose(self, parent: Node[Example] | None, count: int, iteration: int,
                      node_ids: Sequence[str]) -> list[Example]:
        explored = frozenset(self.explored)
        known, failed = FactBook(self.tool, self.book.all_facts()), dict(self.failed)
        guidance = self._guidance(parent, tuple(self.failures))
        ids = list(node_ids[:count])
        plays = list(await asyncio.gather(*(self.player.play(nid, guidance, explored, known,
                                                             failed) for nid in ids)))
        plays = await self._vary_siblings(ids, plays, guidance, explored, known, failed)
        plays = await self._with_repaired(plays, explored)
        for nid, play in zip(ids, plays):
            self._plays[nid] = (iteration, play)
            self.engine.trace.candidate(
                "play", self.tool.name, f"play-{self.tool.name}-{nid}",
                iteration=iteration, parent=parent.id if parent else None,
                state="valid" if play.ok else "invalid", reward=None, payload=play.to_dict())
        # before the first requests are written, once a call ran (describe-check: verified
        # once enough ran to check a guess, as after the probes)
        await self._describe()
        found = await asyncio.gather(*(self._refined(play, parent, nid, iteration)
                                       for nid, play in zip(ids, plays) if play.ok))
        return list(found)

    async def _vary_siblings(self, ids: list[str], plays: list[PlayResult], guidance: str,
                             explored: frozenset[str], known: FactBook,
                             failed: dict[str, str]) -> list[PlayResult]:
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
        known_calls = explored | taken
        again = await asyncio.gather(*(self.player.play(f"{ids[j]}:vary", guidance, known_calls,
                                                        known, failed) for j in repeats))
        for j, replay in zip(repeats, again):
            inv = replay.invocation
            fresh = inv is not None and inv.key() not in taken
            if fresh:
                taken.add(inv.key())
            plays[j] = PlayResult(inv if fresh else None, replay.observation if fresh else None,
                                  plays[j].attempts + replay.attempts, ids[j],
                                  plays[j].facts + replay.facts)
        return plays

    async def _with_repaired(self, plays: list[PlayResult],
                             explored: frozenset[str]) -> list[PlayResult]:
        """A play that found no valid call takes the next call the probes repaired (judged
        like play's own calls)."""
        taken = {p.invocation.key() for p in plays if p.invocation is not None}
        out = []
        for play in plays:
            fix = None if play.ok else self.prober.take(explored | taken)
            if fix is None:
                out.append(play)
                continue
            inv, obs = fix.invocation, fix.observation
            verdict, analysis = await self.player.judge(inv, obs, play.seed_key, -1,
                                                        self.current)
            if verdict == 0:
                analysis = fix.note()
            attempt = Attempt(inv, obs, verdict, analysis)
            ok = verdict == 0
            if ok:
                taken.add(inv.key())
            out.append(PlayResult(inv if ok else None, obs if ok else None,
                                  play.attempts + (attempt,), play.seed_key, play.facts))
        return out

    async def end_iteration(self, iteration: int, new: Sequence[Node[Example]]) -> None:
        """The search's iteration ended (its candidates traced): update what the next
        iteration's proposals know (a snapshot, so the outcome does not depend on the order in
        which concurrent candidates finish), probe the tool once, from the first call that
        ran, and tell the trace."""
        self.explored.update(n.item.invocation.key() for n in new)
        lines = dict.fromkeys(self.failures)
        for play in self.plays:
            for fact in play.facts:
                self.book.add(fact)
            self.failed.update(play.failed_calls())
            for att in play.attempts:
                if att.invocation is not None and att.verdict != 0 and \
                        att.observation.error_type not in NOT_EXECUTED:
                    lines[f"{att.invocation.to_python()} -> {att.analysis[:200]}"] = None
        self.failures = list(lines)[-4:]
        self.current = discovered_tool(self.tool, self.book)
        self.prober.tool = self.current       # probes vary the parameters play discovered too
        await evidence_for(self.engine).probes.run(self.prober, self.plays)
        await self._describe()
        self.engine.trace.iteration_ended("example", self.tool.name, iteration)

    async def _describe(self) -> None:
        """An undocumented tool, once: what it does, from the calls play and the probes
        executed (in a fixed order), into the facts (``describes``; D0's blanks in what the
        generator reads, never the task model's D0); then, once, its check (describe-check)."""
        async with self._describing:      # a second proposal waits, then finds it done
            await self._describe_once()

    async def _describe_once(self) -> None:
        if self.described and self.verified and self.units and self.scaled and self.leveled \
                and self.conventioned:
            return
        calls = [(a.invocation, a.observation) for p in self.plays for a in p.attempts
                 if a.invocation is not None and a.observation.error_type not in NOT_EXECUTED]
        calls += [(inv, obs) for _, inv, obs in self.probed]
        describer = evidence_for(self.engine).describe
        tool = discovered_tool(self.tool, self.book)
        if not self.described:
            self.described = await describer.describe(tool, self.engine, calls, self.book)
        if self.described and not self.verified:
            self.verified = await describer.verify(tool, self.engine, calls, self.book)
        evidence = evidence_for(self.engine)
        if not self.scaled:       # code first: a unit it finds needs no formula
            self.scaled = await evidence.dimensions.learn(tool, self.engine, calls, self.book)
        if not self.units:
            self.units = await evidence.units.learn(tool, self.engine, calls, self.book)
        if not self.leveled:
            self.leveled = await evidence.levels.learn(tool, self.engine, calls, self.book)
        if not self.conventioned:
            self.conventioned = await evidence.conventions.learn(tool, self.engine, calls,
                                                                 self.book)

    def _descriptions(self) -> list[Fact]:
        """What :meth:`_describe` said of the tool (a play's facts were copied before it)."""
        return [f for f in self.book.all_facts() if f.kind == DESCRIBES]

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
        """N_E rounds of request / checks / grade / task-model test / reflection; the best."""
        assert play.invocation is not None and play.observation is not None
        book = FactBook(self.tool, [*play.facts, *self._descriptions()])
        last_round = iteration >= self.engine.config.examples.depth
        best: Example | None = None
        previous = parent.item if parent is not None else None
        for r in range(self.engine.config.n_e):
            reflect = not (last_round and r == self.engine.config.n_e - 1)
            ex = await self._refine(play.invocation, play.observation, previous,
                                    f"{node_id}:{r}", r, reflect, book)
            if best is None or ex.reward > best.reward:
                best = ex
            previous = ex
        assert best is not None
        return best

    async def _refine(self, inv: Invocation, obs: Observation, previous: Example | None,
                      seed_key: str, round_: int, reflect: bool, book: FactBook) -> Example:
        eng, cfg = self.engine, self.engine.config
        tool = discovered_tool(self.tool, book)      # as the play's facts know it (R_e's)
        known = described_tool(tool, book)           # with what play saw it do (generator's)
        same_call = previous is not None and previous.invocation.key() == inv.key()
        request = await self.writer(known).write(inv, obs, seed_key, book,
                                          previous.query if same_call else "",
                                          previous.reflection if previous else "")
        if request.call is not None and request.observation is not None:
            inv, obs = request.call, request.observation  # relabelled: the request's own call
        checks = check_query(request.query, inv)
        gated = bool(request.problems)
        grade = None
        if eng.llm_grade and not gated:
            grade = await self._grade(request.query, inv, obs, seed_key, known)
        r_q = quality_reward(checks, grade)
        solved, attempt = False, ""
        if cfg.lam > 0 and not gated:
            solved, attempt = await self.task_solves(request.query, inv, obs, tool)
        r_e = 0.0 if solved or gated or cfg.lam <= 0 else 1.0
        reward = 0.0 if gated else total_reward(r_q, r_e, cfg.lam)
        reflection = ""
        if reflect:
            reflection = await self._reflect(request, inv, checks.describe(), attempt, solved,
                                             reward, seed_key, book, known)
        return Example(self.tool.name, request.query, inv, obs, "", r_q, r_e, reward,
                       checks.to_dict(), grade, solved, attempt, reflection, round_,
                       request.problems, request.rederived)

    async def _grade(self, query: str, inv: Invocation, obs: Observation,
                     seed_key: str, tool: Tool) -> float | None:
        eng = self.engine
        (g,), _ = await chat_json(
            eng.generator, eng.prompts.render("m5", doc=tool.render_doc(), query=query,
                                              call=inv.to_python(), output=obs.render(800)),
            GRADE_SCHEMA, role="generator", seed=derive_seed(seed_key, "m5"), temperature=0.0,
            max_tokens=200)
        return float(g["score"]) if g else None

    async def task_solves(self, query: str, inv: Invocation, obs: Observation,
                          tool: Tool | None = None) -> tuple[bool, str]:
        """R_e's test: does the task model, with D0 and no demos, make the right call?
        ``tool``: D0 with the parameters play discovered (default: as of the snapshot)."""
        tried = await task_try(self.engine, tool or self.current,
                               TaskRequest(query, inv, obs), siblings=self.siblings)
        return tried.correct, tried.summary()

    async def _reflect(self, request: Request, inv: Invocation, checks: str, attempt: str,
                       solved: bool, reward: float, seed_key: str, book: FactBook,
                       tool: Tool) -> str:
        """m6; P2P-Easy (lambda 0) asks for a natural, complete request, never a harder one."""
        eng = self.engine
        problems = "; ".join(request.problems) or checks
        if eng.config.lam <= 0:
            messages = eng.prompts.render("m6-easy", doc=known_doc(tool, book),
                                          query=request.query, call=inv.to_python(),
                                          checks=problems)
        else:
            verdict = "solved it" if solved else "failed"
            messages = eng.prompts.render("m6", doc=known_doc(tool, book), query=request.query,
                                          call=inv.to_python(), checks=problems,
                                          attempt=f"{attempt} -> {verdict}",
                                          reward=f"{reward:.2f}")
        (r,), _ = await chat_json(eng.generator, messages, REFLECT_SCHEMA, role="generator",
                                  seed=derive_seed(seed_key, "m6"),
                                  temperature=eng.config.temperature, max_tokens=200)
        return str(r["reflection"]).strip() if r else ""


async def search_examples(tool: Tool, engine: Engine, known: FactBook | None = None,
                          siblings: Sequence[Tool] = ()
                          ) -> tuple[SearchResult[Example], ExampleSpace]:
    """Run Step 1 for ``tool``, every candidate told to ``engine.trace`` (the search's
    ``on_iteration``), then the space's :meth:`ExampleSpace.end_iteration` (probes). ``known``:
    facts play starts from (a refreshed run's, re-probed against the tool as it is now).
    ``siblings``: other tools of the run shown beside it in R_e's test (config.siblings)."""
    space = ExampleSpace(tool, engine, known, siblings)
    settings = engine.config.examples

    async def on_iteration(iteration: int, new: list[Node[Example]],
                           kept: list[Node[Example]]) -> None:
        kept_ids = {n.id for n in kept}
        for node in new:
            engine.trace.candidate(
                "example", tool.name, f"ex-{tool.name}-{node.id}", iteration=iteration,
                parent=f"ex-{tool.name}-{node.parent}" if node.parent else None,
                state="kept" if node.id in kept_ids else "dropped", reward=node.reward,
                payload=node.item.to_dict())

    if settings.method == "mc":
        result = await monte_carlo_search(space, width=settings.width, budget=settings.budget(),
                                          on_iteration=on_iteration)
    else:
        result = await beam_search(space, width=settings.width, expand=settings.expand,
                                   depth=settings.depth, patience=engine.config.patience,
                                   on_iteration=on_iteration)
    return result, space


def distinct_examples(history: Sequence[Node[Example]]) -> list[Example]:
    """Every verified example once (by call and by request), best first: Step 2's material."""
    out, calls, queries = [], set(), set()
    for node in sorted(history, key=lambda n: -n.reward):
        ex = node.item
        q, key = ex.query.strip().lower(), ex.invocation.key()
        if ex.verified and q not in queries and key not in calls:
            queries.add(q)
            calls.add(key)
            out.append(ex)
    return out
