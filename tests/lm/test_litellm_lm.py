"""``litellm:PROVIDER/MODEL`` through the real ``litellm`` package, pointed at a stub
OpenAI-compatible server on loopback (``litellm:openai/MODEL?api_base=...``): tool calls,
structured output, usage, retries, one-line errors, and no network call at import."""

import asyncio
import json
import os
import subprocess
import sys

import jsonschema
import pytest

from play2prompt.errors import LMError
from play2prompt.lm import ChatRequest, make_lm
from play2prompt.lm.litellm_lm import LiteLLMLM
from tests.extras import need
from tests.lm.stub_servers import StubServer, answer_completions, openai_error

need("litellm", "litellm")

TOOL = {"type": "function", "function": {
    "name": "convert_units", "description": "Convert a value between units.",
    "parameters": {"type": "object", "properties": {
        "value": {"type": "number"}, "unit": {"type": "string", "enum": ["km", "mi"]}},
        "required": ["value", "unit"]}}}
SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 1,
                                                     "maximum": 5}},
          "required": ["score"], "additionalProperties": False}


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _lm(server, store=None, **options):
    options.setdefault("retry_base_delay", 0.001)
    return make_lm(f"litellm:openai/stub-model?api_base={server.url}/v1", store, **options)


def _chat(lm, **fields):
    fields.setdefault("messages", ({"role": "user", "content": "hi"},))
    return asyncio.run(lm.chat(ChatRequest(**fields)))


def test_tool_calls_and_usage_through_litellm(key):
    with StubServer(answer_completions) as server:
        lm = _lm(server)
        reply = _chat(lm, tools=(TOOL,), seed=4)
    sent = server.requests[0]
    assert server.paths == ["/v1/chat/completions"] and sent["model"] == "stub-model"
    assert sent["tools"] == [TOOL] and sent["seed"] == 4 and sent["parallel_tool_calls"] is False
    assert server.headers[0]["authorization"] == "Bearer sk-stub"
    (call,) = reply.choices[0].tool_calls
    assert call.name == "convert_units" and call.arguments["unit"] in ("km", "mi")
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens == 5
    assert isinstance(lm, LiteLLMLM) and lm.model_id == "litellm:openai/stub-model"
    assert lm.supports_tools and not lm.supports_n and lm.stats.calls == 1


def test_structured_output_as_response_format(key):
    with StubServer(answer_completions) as server:
        reply = _chat(_lm(server), json_schema=SCHEMA)
    fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == SCHEMA
    jsonschema.validate(json.loads(reply.text), SCHEMA)


def test_emulated_tools_are_asked_as_json(key):
    with StubServer(answer_completions) as server:
        lm = make_lm(f"litellm:openai/stub-model?api_base={server.url}/v1&tools=emulate")
        reply = _chat(lm, tools=(TOOL,))
    sent = server.requests[0]
    assert "tools" not in sent and sent["response_format"]["type"] == "json_schema"
    assert reply.choices[0].tool_calls[0].name == "convert_units"
    assert lm.model_id.endswith("?tools=emulate") and not lm.supports_tools


def test_rate_limits_and_server_errors_are_retried_by_the_lm_not_litellm(key, store):
    script = [openai_error(429, "slow down", {"retry-after": "0"}), openai_error(503, "busy")]
    with StubServer(answer_completions, script) as server:
        lm = _lm(server, store, max_retries=2)
        assert _chat(lm).text == "A stub answer."
    assert len(server.requests) == 3 and lm.stats.failures == 2
    assert store.call_stats()["total"]["failed"] == 0


@pytest.mark.parametrize("status, words", [
    (401, r"litellm:openai/stub-model: authentication failed \(check the API key in "
          r"OPENAI_API_KEY\)"),
    (404, r"not found \(model name or URL\)"),
    (400, r"request rejected"),
])
def test_errors_are_one_line_at_once(key, status, words):
    with StubServer(answer_completions, [openai_error(status, "stub says no")]) as server, \
            pytest.raises(LMError, match=words) as err:
        _chat(_lm(server))
    assert len(server.requests) == 1 and "\n" not in str(err.value)


def test_retries_run_out_into_one_line(key):
    with StubServer(answer_completions, [openai_error(500, "down")] * 2) as server, \
            pytest.raises(LMError, match=r"HTTP 500.*after 2 attempts") as err:
        _chat(_lm(server, max_retries=1))
    assert "\n" not in str(err.value) and len(server.requests) == 2


@pytest.mark.parametrize("spec, words", [
    ("litellm:", "needs a model name"),
    ("litellm:nonsense-model", r"LiteLLM knows no provider for it"),
    ("litellm:openai/m?tools=maybe", "tools= must be native or emulate"),
    ("litellm:openai/m?api_bse=http://x", "bad options"),
])
def test_bad_specs_are_one_line(key, spec, words):
    with pytest.raises(LMError, match=words) as err:
        make_lm(spec)
    assert "\n" not in str(err.value)


def test_a_missing_key_is_named(monkeypatch, capsys):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(LMError, match=r"^GOOGLE_API_KEY or GEMINI_API_KEY is not set \(needed "
                                      r"by 'litellm:gemini/gemini-2.5-flash'\)$"):
        make_lm("litellm:gemini/gemini-2.5-flash")
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    lm = make_lm("litellm:gemini/gemini-2.5-flash")
    assert lm.supports_tools and lm.schema_mode == "json_schema"
    assert capsys.readouterr().out == ""      # LiteLLM's debug prints are off


def test_importing_the_backend_makes_no_network_call():
    """LiteLLM fetches its model-cost map at import unless told not to: the backend tells it."""
    code = (
        "import socket\n"
        "attempts = []\n"
        "def refuse(*args, **kwargs):\n"
        "    attempts.append(args)\n"
        "    raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from play2prompt.lm.litellm_lm import load_litellm\n"
        "litellm = load_litellm()\n"
        "assert litellm.model_cost, 'no local cost map'\n"
        "assert not attempts, attempts\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=300)
