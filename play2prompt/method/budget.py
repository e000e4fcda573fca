"""How many LLM requests one tool's optimization can make at most, from its settings.

An analytic upper bound (every play uses its whole try budget, every query its redraws, every
rewrite its retries, no request is served from the log or shared); a run usually makes far
fewer. ``bench/bench_optimize.py`` prints it next to measured counts for the presets.
:func:`expected_calls` is the typical count per phase, the estimate progress displays start
from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from play2prompt.config import OptimizeConfig
from play2prompt.evidence.names import FACT_TESTS, FACTS_DOC, active
from play2prompt.method.doc_search import REWRITE_TRIES
from play2prompt.method.requests import QUERY_TRIES


@dataclass(frozen=True)
class CallBound:
    candidates: int      # Step-1 candidates the search evaluates at most
    play_calls: int      # m1 (+ m2) over every play, sibling replays included
    refine_calls: int    # N_E rounds of m3 (+ redraws), re-reading, (m5), task model, m6; m4
    doc_candidates: int  # Step-2 docs scored
    doc_calls: int       # m8 + m7 (+ retries) and the task model on the doc batches
    fact_calls: int = 0  # Step 1b: m3-fact and re-reading per draft, the task model per test

    @property
    def step1(self) -> int:
        return self.play_calls + self.refine_calls + self.fact_calls

    @property
    def total(self) -> int:
        return self.step1 + self.doc_calls

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "step1": self.step1, "total": self.total}


def fact_test_count(config: OptimizeConfig) -> int:
    """Step 1b's requests per tool (0 when the ``fact-tests`` evidence component is off)."""
    return config.fact_tests if FACT_TESTS in active(config) else 0


def call_bound(config: OptimizeConfig, llm_grading: bool = False) -> CallBound:
    """The most LLM requests one tool can cost under ``config`` (``llm_grading``: m2 and m5
    are asked of the generator, as when it judged well in the run's calibration; the
    calibration itself is asked once per run, not per tool)."""
    grade = 1 if llm_grading else 0
    ex = config.examples
    candidates = ex.budget()
    plays = 2 * candidates               # a play, plus one replay when a sibling had its call
    play_calls = plays * config.max_tries * (1 + grade)
    task = 1 if config.lam > 0 else 0    # R_e's test; never asked at lambda 0 (P2P-Easy)
    per_round = QUERY_TRIES + 1 + grade + task + 1   # m3 (+ redraws), re-reading, m5, M_T, m6
    refine_calls = candidates * config.n_e * per_round + config.demos_per_tool   # + m4
    fact_calls = fact_test_count(config) * (2 * QUERY_TRIES + task)
    if not config.optimize_docs:
        return CallBound(candidates, play_calls, refine_calls, 0, 0, fact_calls)
    examples = candidates + fact_test_count(config)   # one per candidate, one per fact test
    hold = 0 if examples < 3 else max(1, round(config.holdout * examples))
    batch = min(config.doc_batch, examples - hold)
    docs = config.docs
    if docs.method == "mc":
        rewrites, scored = docs.budget(), docs.budget() + 2      # + D0 and the facts doc
    else:
        rewrites = docs.depth * docs.width * docs.expand
        scored = rewrites + (2 if FACTS_DOC in active(config) else 1)  # + D0 (+ the facts doc)
    demo_counts = 3 if config.choose_demo_count else 0           # 0, 1 and k demos
    doc_calls = (scored * batch + rewrites * (1 + REWRITE_TRIES) + 2 * hold
                 + demo_counts * hold)
    return CallBound(candidates, play_calls, refine_calls, scored, doc_calls, fact_calls)


def expected_calls(config: OptimizeConfig, llm_grading: bool = False) -> dict[str, int]:
    """The LLM requests one tool's phases typically take, for progress (a run re-estimates as
    each phase begins, from what it then knows; :func:`call_bound` is the most they can take):
    ``play`` (the example search's initial population, its plays and their requests),
    ``examples`` (its expansion rounds), ``fact tests``, ``docs`` and ``demos``."""
    grade = 1 if llm_grading else 0
    task = 1 if config.lam > 0 else 0
    tries = (config.max_tries + 1) // 2      # a play often works before its last try
    per_candidate = tries * (1 + grade) + config.n_e * (3 + grade + task)  # m3, re-read, m6
    ex = config.examples
    examples = ex.budget() + fact_test_count(config)
    hold = 0 if examples < 3 else max(1, round(config.holdout * examples))
    return {"play": ex.width * per_candidate,
            "examples": (ex.budget() - ex.width) * per_candidate,
            "fact tests": fact_test_count(config) * (2 + task),
            "docs": doc_calls(config, examples - hold, hold),
            "demos": demo_calls(config, examples - hold, hold)}


def doc_calls(config: OptimizeConfig, train: int, hold: int) -> int:
    """The LLM requests Step 2 typically takes with ``train`` and ``hold`` examples."""
    if not config.optimize_docs or not train or not hold:
        return 0
    docs, batch = config.docs, min(config.doc_batch, train)
    rewrites = docs.budget() if docs.method == "mc" else docs.depth * docs.width * docs.expand
    scored = rewrites + (2 if FACTS_DOC in active(config) else 1)    # + D0 (+ the facts doc)
    return scored * batch + 2 * rewrites + 2 * hold            # m8 + m7 per rewrite


def demo_calls(config: OptimizeConfig, train: int, hold: int) -> int:
    """The LLM requests demo selection typically takes: held-out accuracy with 0, 1 and k
    demos, and m4's answer per demo shipped."""
    counts = 3 if config.choose_demo_count and hold else 0
    return counts * hold + min(config.demos_per_tool, train)
