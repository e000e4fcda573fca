"""The result of a run does not depend on the concurrency level or on the order in which
concurrent work finishes, and no LLM call is lost: a flaky backend either ends up answering
every call or the run fails with a clear LMError recorded in the store."""

import asyncio
import json

import pytest

from play2prompt.config import preset
from play2prompt.errors import LMError
from play2prompt.lm._base import ChatRequest, TransientLMError
from play2prompt.optimize import optimize
from play2prompt.set_check_run import SET_CHECK_TAG
from play2prompt.store.runs import open_run
from tests.conftest import EXAMPLES
from tests.scale_support import JitterLM, tools_part

CONFIG = preset("quick", seed=3, choose_demo_count=False)  # every run ships its k demos


def _run(tools, lm, tmp_path, run_id, **kwargs):
    return optimize(tools, generator=lm, config=CONFIG, runs_dir=tmp_path, run_id=run_id,
                    base_dir=EXAMPLES, **kwargs)


def _logged(run_dir):
    store = open_run(run_dir, read_only=True)
    keys = {r[0]: r[1] for r in store._query(
        "SELECT key, response FROM llm_calls WHERE status = 'ok'")}
    cands = {r[0]: r[1] for r in store._query("SELECT id, reward FROM candidates")}
    execs = {r[0] for r in store._query("SELECT key FROM executions")}
    store.close()
    return keys, cands, execs


def test_result_does_not_depend_on_concurrency(tmp_path, example_tools):
    serial = JitterLM(rng_seed=1, max_concurrency=1)
    wide = JitterLM(rng_seed=2, max_concurrency=8)
    one = _run(example_tools, serial, tmp_path, "c1")
    eight = _run(example_tools, wide, tmp_path, "c8")

    a, b = tools_part(one.run_dir), tools_part(eight.run_dir)
    assert a == b                                   # prompts, demos, scores and stats
    assert any(t["doc_changed"] for t in a.values()) and all(t["demos"] for t in a.values())
    assert _logged(one.run_dir) == _logged(eight.run_dir)   # same calls, candidates, executions
    assert one.stats["tool_executions"] == eight.stats["tool_executions"]
    assert one.stats["session"]["llm_calls"] == eight.stats["session"]["llm_calls"]
    # The concurrency bound held, and the wide run really overlapped its calls.
    assert serial.peak_in_flight == 1 and 1 < wide.peak_in_flight <= 8


class Flaky(JitterLM):
    """Fails the first few attempts of about a third of the calls with a transient error (rate
    limit / timeout). Which calls fail, and how often, depends on the request alone, never on
    the order concurrent calls arrive in, and never reaches the retry limit: the run must end
    exactly as a clean one does."""

    def __init__(self, retries=8, **kwargs):
        super().__init__(**kwargs)
        self.max_retries = retries
        self.retry_base_delay = 0.0005
        self.attempts = 0
        self.seen: dict[str, int] = {}

    async def _generate(self, request):
        self.attempts += 1
        key = request.sample_key(self.model_id, 0)
        times = {0: 1, 1: 2, 2: 3}.get(int(key, 16) % 9, 0)   # 3 in 9 calls fail 1 to 3 times
        tried = self.seen.get(key, 0)
        self.seen[key] = tried + 1
        if tried < times:
            raise TransientLMError("429 rate limited", retry_after=0.0)
        return await super()._generate(request)


def test_flaky_backend_loses_no_call(tmp_path, example_tools):
    tools = example_tools[:3]
    clean = _run(tools, JitterLM(rng_seed=3, max_concurrency=8), tmp_path, "clean")
    flaky_lm = Flaky(rng_seed=4, max_concurrency=8)
    flaky = _run(tools, flaky_lm, tmp_path, "flaky")
    assert tools_part(flaky.run_dir) == tools_part(clean.run_dir)
    assert flaky_lm.stats.failures > 10
    assert flaky_lm.attempts == flaky_lm.stats.calls + flaky_lm.stats.failures
    assert flaky.stats["logged"]["failed"] == 0


class DeadFor(JitterLM):
    """A backend that never answers the calls made for one tool."""

    def __init__(self, tool, **kwargs):
        super().__init__(**kwargs)
        self.tool = tool
        self.max_retries = 2
        self.retry_base_delay = 0.0005

    async def _generate(self, request):
        if request.tag == self.tool:
            raise TransientLMError("timed out")
        return await super()._generate(request)


def test_failing_backend_surfaces_a_clear_error_and_records_it(tmp_path, example_tools):
    tools = example_tools[:3]
    victim = tools[1].name
    with pytest.raises(LMError, match=rf"tool '{victim}'.*timed out.*after 3 attempts.*"
                                      r"--resume broken"):
        _run(tools, DeadFor(victim, rng_seed=5), tmp_path, "broken")
    store = open_run("broken", tmp_path, read_only=True)
    assert store.get_meta("status") == "failed"
    failed = store._query("SELECT tag, error FROM llm_calls WHERE status = 'error'")
    assert failed and all(r[0] == victim and "timed out" in r[1] for r in failed)
    assert set(store.results()) == {t.name for t in tools} - {victim}   # the others are kept
    store.close()

    healthy = JitterLM(rng_seed=6)
    resumed = optimize(generator=healthy, resume="broken", runs_dir=tmp_path)
    assert set(resumed.tools) == {t.name for t in tools}
    # only the failed tool's calls, then the whole set's check (it runs once all are done)
    assert {r.tag for r in healthy.requests} - {SET_CHECK_TAG} == {victim}
    assert resumed.stats["logged"]["failed"] >= 1           # the failure stays on record


def test_concurrency_bound_per_lm_instance():
    lm = JitterLM(max_latency=0.01, rng_seed=7, max_concurrency=3)
    msgs = [({"role": "user", "content": f"q{i}"},) for i in range(20)]

    async def many():
        return await asyncio.gather(*(lm.chat(ChatRequest(m, json_schema={"type": "string"}))
                                      for m in msgs))

    out = asyncio.run(many())
    assert len(out) == 20 and lm.peak_in_flight == 3 and lm.stats.calls == 20


def test_an_lm_pickles_without_its_log_or_state(store):
    import pickle

    lm = JitterLM(rng_seed=8).with_log(store)
    asyncio.run(lm.chat(ChatRequest(({"role": "user", "content": "x"},),
                                    json_schema={"type": "string"})))
    copy = pickle.loads(pickle.dumps(lm))
    assert copy.log is None and copy.stats.calls == 0 and copy.rules and copy._inflight == {}
    reply = asyncio.run(copy.chat(ChatRequest(({"role": "user", "content": "x"},),
                                              json_schema={"type": "string"})))
    assert json.loads(reply.text)
