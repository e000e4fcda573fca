"""The OpenAI-compatible backend: rate limits, timeouts and 5xx are retried (the server's
Retry-After honoured); other errors surface at once as LMError and are recorded."""

import asyncio
from types import SimpleNamespace

import openai
import openai._exceptions as oe
import pytest

from play2prompt.errors import LMError
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.api_errors import retry_after as _retry_after
from play2prompt.lm.openai_compat import OpenAICompatLM

hx = getattr(oe, "httpx", None) or oe.httpx2  # the HTTP library the SDK uses
URL = "http://127.0.0.1:9/v1/chat/completions"
MSG = ({"role": "user", "content": "hi"},)


def _response(status, headers=None):
    return hx.Response(status, headers=headers or {}, request=hx.Request("POST", URL))


def _ok():
    message = SimpleNamespace(content="fine", tool_calls=None)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")],
                           usage=SimpleNamespace(prompt_tokens=3, completion_tokens=1))


class Script:
    """Stands in for AsyncOpenAI: raises the scripted errors, then answers."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    async def create(self, **body):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return _ok()


def _lm(script, store=None):
    lm = OpenAICompatLM("m", "http://127.0.0.1:9/v1", max_retries=4, retry_base_delay=0.001)
    lm._client = lambda: script
    return lm.with_log(store)


def test_rate_limit_timeout_and_server_errors_are_retried(store):
    script = Script(
        openai.RateLimitError("slow down", response=_response(429, {"retry-after": "0.01"}),
                              body=None),
        openai.APITimeoutError(request=hx.Request("POST", URL)),
        openai.InternalServerError("boom", response=_response(503), body=None),
        openai.APIConnectionError(request=hx.Request("POST", URL)),
    )
    lm = _lm(script, store)
    reply = asyncio.run(lm.chat(ChatRequest(MSG)))
    assert reply.text == "fine" and script.calls == 5
    assert lm.stats.failures == 4 and lm.stats.calls == 1
    total = store.call_stats()["total"]
    assert total["samples"] == 1 and total["failed"] == 0


def test_retries_run_out_into_a_recorded_lm_error(store):
    errors = [openai.RateLimitError("quota", response=_response(429), body=None)] * 9
    lm = _lm(Script(*errors), store)
    with pytest.raises(LMError, match=r"HTTP 429.*after 5 attempts"):
        asyncio.run(lm.chat(ChatRequest(MSG)))
    assert store.call_stats()["total"]["failed"] == 1


@pytest.mark.parametrize("error, words", [
    (openai.AuthenticationError("bad key", response=_response(401), body=None), "authentication"),
    (openai.BadRequestError("nope", response=_response(400), body=None), "rejected"),
    (openai.PermissionDeniedError("no", response=_response(403), body=None), "HTTP 403"),
])
def test_other_errors_are_not_retried(store, error, words):
    script = Script(error)
    lm = _lm(script, store)
    with pytest.raises(LMError, match=words):
        asyncio.run(lm.chat(ChatRequest(MSG)))
    assert script.calls == 1 and store.call_stats()["total"]["failed"] == 1


def test_retry_after_header():
    assert _retry_after(SimpleNamespace(response=_response(429, {"retry-after": "2"}))) == 2.0
    assert _retry_after(SimpleNamespace(response=_response(429, {"retry-after-ms": "250"}))) \
        == 0.25
    assert _retry_after(SimpleNamespace(response=_response(429))) is None
