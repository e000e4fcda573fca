"""The vLLM offline backend's batching, with a fake ``vllm`` module (no GPU here): pending
requests of a search step go to the engine as one ``LLM.chat`` call, each with its own
SamplingParams (seed, n, guided JSON decoding), and batching changes no result."""

import asyncio
import sys

import pytest

from play2prompt.config import preset
from play2prompt.errors import LMError, MissingExtraError
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.registry import make_lm
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.optimize import optimize
from tests.conftest import EXAMPLES
from tests.lm.fake_vllm import FakeLLM, StructuredOutputsParams, install_fake_vllm
from tests.scale_support import tools_part


@pytest.fixture
def fake_vllm(monkeypatch):
    return install_fake_vllm(monkeypatch)


SCHEMA = object_schema({"answer": {"type": "string"}, "score": {"type": "integer"}})


def _msg(i):
    return ({"role": "system", "content": "shared instructions"},
            {"role": "user", "content": f"question {i}"})


def test_concurrent_requests_become_one_engine_call(fake_vllm):
    lm = make_lm("vllm:org/model", max_batch=64, batch_window=0.05, gpu_memory_utilization=0.5)

    async def step():
        return await asyncio.gather(*(chat_json(lm, _msg(i), SCHEMA, role="g", seed=i)
                                      for i in range(20)))

    answers = asyncio.run(step())
    engine = FakeLLM.instances[0]
    assert engine.model == "org/model" and engine.options == {"gpu_memory_utilization": 0.5}
    assert engine.batches == [20] and lm.batch_sizes == [20]
    assert all(isinstance(values[0]["score"], int) for values, _ in answers)
    assert lm.stats.calls == 20 and lm.stats.prompt_tokens == 20 * 11


def test_a_full_batch_goes_at_once_and_the_rest_follows(fake_vllm):
    lm = make_lm("vllm:m", max_batch=8, batch_window=0.05)

    async def step():
        return await asyncio.gather(*(lm.chat(ChatRequest(_msg(i), seed=i)) for i in range(20)))

    asyncio.run(step())
    assert FakeLLM.instances[0].batches == [8, 8, 4]


def test_n_samples_seed_and_guided_json_in_sampling_params(fake_vllm, monkeypatch):
    seen = []
    original = FakeLLM.chat

    def spy(self, conversations, sampling_params, use_tqdm=True):
        seen.extend(sampling_params)
        return original(self, conversations, sampling_params, use_tqdm)

    monkeypatch.setattr(FakeLLM, "chat", spy)
    lm = make_lm("vllm:m", batch_window=0.0)
    values, resp = asyncio.run(chat_json(lm, _msg(1), SCHEMA, role="g", n=3, seed=42,
                                         temperature=0.7, max_tokens=99))
    assert len(values) == 3 and all(v is not None for v in values)
    assert len(seen) == 1 and seen[0].n == 3 and seen[0].seed == 42
    assert seen[0].temperature == 0.7 and seen[0].max_tokens == 99
    assert seen[0].structured_outputs.json == SCHEMA


def test_older_vllm_gets_guided_decoding(fake_vllm, monkeypatch):
    class GuidedDecodingParams(StructuredOutputsParams):
        pass

    sampling = sys.modules["vllm.sampling_params"]
    monkeypatch.delattr(sampling, "StructuredOutputsParams")
    sampling.GuidedDecodingParams = GuidedDecodingParams
    lm = make_lm("vllm:m", batch_window=0.0)
    params = lm._sampling_params(ChatRequest(_msg(1), json_schema=SCHEMA))
    assert params.guided_decoding.json == SCHEMA and not hasattr(params, "structured_outputs")


def test_function_calling_is_emulated_with_a_schema(fake_vllm):
    lm = make_lm("vllm:m", batch_window=0.0)
    tool = {"type": "function", "function": {
        "name": "add", "parameters": {"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}
    resp = asyncio.run(lm.chat(ChatRequest(_msg(1), tools=(tool,))))
    (call,) = resp.choices[0].tool_calls
    assert call.name == "add" and set(call.arguments) == {"a", "b"}


def test_a_failing_request_fails_alone(fake_vllm):
    lm = make_lm("vllm:m", batch_window=0.05)
    bad = ({"role": "user", "content": "EXPLODE"},)

    async def step():
        return await asyncio.gather(*(lm.chat(ChatRequest(_msg(i))) for i in range(5)),
                                    lm.chat(ChatRequest(bad)), return_exceptions=True)

    results = asyncio.run(step())
    assert all(not isinstance(r, Exception) for r in results[:5])
    assert isinstance(results[5], LMError) and "grammar backend" in str(results[5])
    assert FakeLLM.instances[0].batches[0] == 6     # tried together first, then one by one


def test_batching_changes_no_result(fake_vllm, tmp_path, example_tools):
    tools = example_tools[:3]
    cfg = preset("quick", seed=2)
    batched = make_lm("vllm:m", max_batch=64, batch_window=0.01)
    single = make_lm("vllm:m", max_batch=1, batch_window=0.0)
    one = optimize(tools, generator=batched, config=cfg, runs_dir=tmp_path, run_id="b",
                   base_dir=EXAMPLES)
    two = optimize(tools, generator=single, config=cfg, runs_dir=tmp_path, run_id="s",
                   base_dir=EXAMPLES)
    assert tools_part(one.run_dir) == tools_part(two.run_dir)
    assert max(batched.batch_sizes) > 3 and set(single.batch_sizes) == {1}
    assert sum(batched.batch_sizes) == sum(single.batch_sizes)
    assert len(batched.batch_sizes) < len(single.batch_sizes) / 2


def test_missing_vllm_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(MissingExtraError, match=r"play2prompt\[vllm\]"):
        make_lm("vllm:m")
