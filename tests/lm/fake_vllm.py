"""A fake ``vllm`` module (no GPU here): ``LLM.chat`` answers each conversation from its own
seed, schema-valid when guided JSON decoding is asked for, and records the batches."""

from __future__ import annotations

import json
import random
import sys
import types

from play2prompt.lm.fake import sample_from_schema


class SamplingParams:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


class StructuredOutputsParams:
    def __init__(self, json=None):
        self.json = json


class FakeLLM:
    """Records every engine call; answers each conversation from its own seed (so the answer
    does not depend on which batch it came in), schema-valid when a schema is given."""

    instances = []

    def __init__(self, model, **options):
        self.model, self.options = model, options
        self.batches = []
        FakeLLM.instances.append(self)

    def chat(self, conversations, sampling_params, use_tqdm=True):
        assert isinstance(sampling_params, list) and len(sampling_params) == len(conversations)
        self.batches.append(len(conversations))
        outs = []
        for conv, params in zip(conversations, sampling_params):
            if any("EXPLODE" in m["content"] for m in conv):
                raise RuntimeError("the grammar backend rejected a schema")
            spec = getattr(params, "structured_outputs", None)
            samples = []
            for i in range(params.n):
                rng = random.Random(f"{params.seed}-{i}-{conv[-1]['content']}")
                value = sample_from_schema(spec.json, rng) if spec else f"text {rng.random()}"
                text = value if isinstance(value, str) and spec is None else json.dumps(value)
                samples.append(types.SimpleNamespace(text=text, token_ids=[0] * 5,
                                                     finish_reason="stop"))
            outs.append(types.SimpleNamespace(outputs=samples, prompt_token_ids=[0] * 11))
        return outs


def install_fake_vllm(monkeypatch) -> types.ModuleType:
    """Put the fake ``vllm`` (and ``vllm.sampling_params``) in ``sys.modules``."""
    vllm = types.ModuleType("vllm")
    sampling = types.ModuleType("vllm.sampling_params")
    sampling.SamplingParams = SamplingParams
    sampling.StructuredOutputsParams = StructuredOutputsParams
    vllm.LLM, vllm.SamplingParams, vllm.sampling_params = FakeLLM, SamplingParams, sampling
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", sampling)
    FakeLLM.instances = []
    return vllm
