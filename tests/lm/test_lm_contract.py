"""Every registered LM backend keeps the LM contract (play2prompt.testing.lm), offline: the
fake; DSPy's DummyLM behind the dspy backend (an entry point); the embedded model;
openai-compat, openai and ollama against the embedded runtime's llama.cpp server on
loopback; vllm with a fake ``vllm`` module; anthropic and litellm (the real SDKs) against stub
servers on loopback (tests/lm/stub_servers.py). A backend without a supplier here fails
``test_every_registered_backend_has_a_supplier``."""

from __future__ import annotations

import pytest

from play2prompt.lm._base import LM, LMStats
from play2prompt.lm.fake import FakeLM
from play2prompt.lm.registry import BUILTIN_BACKENDS, available_backends, make_lm
from play2prompt.testing.lm import LMContract
from tests.lm.fake_vllm import install_fake_vllm


def _fake(request):
    return FakeLM(fill_schema=True)


def _embedded(request):
    return make_lm("embedded")


def _compat(request):
    return make_lm(f"openai-compat:{request.getfixturevalue('llama_server')}/v1"
                   "#smollm2?tools=emulate")


def _openai(request):
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{request.getfixturevalue('llama_server')}/v1")
    return make_lm("openai:smollm2", supports_n=False, supports_tools=False)


def _ollama(request):
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("OLLAMA_HOST", request.getfixturevalue("llama_server"))
    return make_lm("ollama:smollm2", supports_tools=False)


def _vllm(request):
    install_fake_vllm(request.getfixturevalue("monkeypatch"))
    return make_lm("vllm:org/model", batch_window=0.0)


def _stub(request, answer):
    from tests.lm.stub_servers import StubServer

    server = StubServer(answer).__enter__()
    request.addfinalizer(lambda: server.__exit__(None, None, None))
    return server


def _anthropic(request):
    from tests.extras import need
    from tests.lm.stub_servers import answer_messages

    need("anthropic", "anthropic")
    request.getfixturevalue("monkeypatch").setenv("ANTHROPIC_API_KEY", "sk-ant-loopback")
    return make_lm(f"anthropic:stub-model?base_url={_stub(request, answer_messages).url}")


def _litellm(request):
    from tests.extras import need
    from tests.lm.stub_servers import answer_completions

    need("litellm", "litellm")
    request.getfixturevalue("monkeypatch").setenv("OPENAI_API_KEY", "sk-loopback")
    url = _stub(request, answer_completions).url
    return make_lm(f"litellm:openai/stub-model?api_base={url}/v1")


def _dspy(request):
    """DSPy's own DummyLM behind the dspy: backend, answering by what the last message asks."""
    from tests.extras import need

    dspy = need("dspy", "dspy")
    from play2prompt.integrations.dspy import DspyLM

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    return DspyLM(dspy.utils.DummyLM({
        "Paris": {"city": "Paris", "days": 3},
        "Oslo": {"name": "get_weather", "arguments": {"city": "Oslo"}},
        "hello": {"answer": "Hello"}}, adapter=dspy.JSONAdapter()))


SUPPLIERS = {"fake": _fake, "dspy": _dspy, "embedded": _embedded, "openai-compat": _compat,
             "openai": _openai, "ollama": _ollama, "vllm": _vllm, "anthropic": _anthropic,
             "litellm": _litellm}
LOCAL_MODEL = {"embedded", "openai-compat", "openai", "ollama"}   # run the embedded model


@pytest.fixture(scope="module")
def built():
    """One LM per backend for the module (a model loads once), closed at its end."""
    cache: dict[str, LM] = {}
    yield cache
    for made in cache.values():
        made.close()


@pytest.fixture(params=[pytest.param(k, marks=pytest.mark.embedded) if k in LOCAL_MODEL else k
                        for k in sorted(set(BUILTIN_BACKENDS) | set(available_backends()))])
def lm(request, built):
    """The backend's LM, as if new: no log, fresh statistics, nothing in flight (the local
    model's backends are built once per module; the others for each test)."""
    if request.param not in LOCAL_MODEL:
        made = SUPPLIERS[request.param](request)
        yield made
        made.close()
        return
    if request.param not in built:
        built[request.param] = SUPPLIERS[request.param](request)
    made = built[request.param]
    made.log, made.stats, made._inflight = None, LMStats(), {}
    yield made


class TestEveryBackend(LMContract):
    pass


def test_every_registered_backend_has_a_supplier():
    assert set(available_backends()) <= set(SUPPLIERS)
