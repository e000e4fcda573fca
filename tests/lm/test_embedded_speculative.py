"""Speculative decoding of the embedded runtime: which settings are accepted, what the runtime
is given for each, and (with the real default model) that drafting leaves the output as it is."""

import asyncio

import pytest

from play2prompt.errors import LMError
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM, check_speculative, runtime_params
from play2prompt.lm.models import BUILTIN_MODELS

xlc = pytest.importorskip("xllamacpp")


@pytest.mark.parametrize(("value", "read"), [
    ("none", "none"), ("", "none"), ("ngram-mod", "ngram-mod"), (" NGRAM-SIMPLE", "ngram-simple"),
    ("draft:qwen2.5-coder-0.5b", "draft:qwen2.5-coder-0.5b"),
    ("Draft: /Models/Small.gguf", "draft:/Models/Small.gguf")])   # a path keeps its case
def test_accepted_settings(value, read):
    assert check_speculative(value) == read


@pytest.mark.parametrize("value", ["draft:", "eagle", "ngram"])
def test_a_wrong_setting_is_one_line_naming_the_forms(value):
    with pytest.raises(LMError, match="none, ngram-simple.*draft:MODEL") as err:
        check_speculative(value)
    assert "\n" not in str(err.value)


def test_the_environment_sets_the_default(monkeypatch):
    monkeypatch.setenv("P2P_EMBEDDED_SPECULATIVE", "draft:qwen2.5-coder-0.5b")
    assert EmbeddedLM("qwen2.5-coder-1.5b").speculative == "draft:qwen2.5-coder-0.5b"
    assert EmbeddedLM("qwen2.5-coder-1.5b", speculative="ngram-mod").speculative == "ngram-mod"
    monkeypatch.setenv("P2P_EMBEDDED_SPECULATIVE", "sometimes")
    with pytest.raises(LMError, match="sometimes"):
        EmbeddedLM("qwen2.5-coder-1.5b")


def test_a_draft_model_is_loaded_beside_the_model_with_the_same_threads(tmp_path):
    small = tmp_path / "small.gguf"
    small.write_bytes(b"GGUF")
    params = runtime_params(xlc, tmp_path / "big.gguf", 1024, 2, 3, 0, f"draft:{small}")
    kind = xlc.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE
    assert list(params.speculative.types) == [kind]
    draft = params.speculative.draft
    assert draft.mparams.path == str(small)
    assert draft.cpuparams.n_threads == draft.cpuparams_batch.n_threads == 3
    assert params.cpuparams.n_threads == 3


def test_ngram_lookup_loads_no_second_model(tmp_path):
    params = runtime_params(xlc, tmp_path / "big.gguf", 1024, 2, 2, 0, "ngram-mod")
    assert list(params.speculative.types) == [
        xlc.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_MOD]
    assert params.speculative.draft.mparams.path == ""


def test_a_missing_draft_file_is_one_line(tmp_path):
    with pytest.raises(LMError, match="draft model file not found"):
        runtime_params(xlc, tmp_path / "big.gguf", 1024, 1, 1, 0,
                       f"draft:{tmp_path / 'absent.gguf'}")


SMOL = BUILTIN_MODELS["smollm2-135m"]


@pytest.mark.embedded
@pytest.mark.parametrize("spec", ["ngram-simple", f"draft:{SMOL.name}"])
def test_drafted_tokens_leave_the_output_as_it_is(spec, smol_file):
    """Draft tokens are kept only where the model would have chosen them: the same request
    (sampled, seeded, schema-constrained) gives the same reply with and without drafting."""
    req = ChatRequest(({"role": "user", "content": "Give a city and its country as JSON: "
                        "the city is Lyon, the country is France."},),
                      temperature=0.8, seed=7, max_tokens=40,
                      json_schema={"type": "object", "properties": {
                          "city": {"type": "string"}, "country": {"type": "string"}},
                          "required": ["city", "country"]})
    replies = []
    for setting in ("none", spec):
        lm = EmbeddedLM(SMOL.name, parallel=1, speculative=setting)
        try:
            replies.append(asyncio.run(lm._generate(req)).choices[0].text)
        finally:
            lm.close()
    assert replies[0] and replies[0] == replies[1]
