"""The LM base: the call log is the cache, n, in-flight dedup, retries, accounting."""

import asyncio

import pytest

from play2prompt.errors import LMError
from play2prompt.lm._base import ChatRequest, Generation, TransientLMError
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.lm.structured import chat_json, parse_json_choice

MSG = ({"role": "user", "content": "hello"},)


def test_log_is_the_cache(store):
    lm = FakeLM(default="hi").with_log(store)
    first = asyncio.run(lm.chat(ChatRequest(MSG, role="generator", tag="t1")))
    again = asyncio.run(lm.chat(ChatRequest(MSG, role="generator")))
    assert first.text == again.text == "hi" and first.cached == 0 and again.cached == 1
    assert len(lm.requests) == 1 and lm.stats.cache_hits == 1
    fresh = FakeLM(default="other").with_log(store)          # a later session, same log
    assert asyncio.run(fresh.chat(ChatRequest(MSG))).text == "hi" and fresh.requests == []
    assert store.samples_by_tag()["t1"]["samples"] == 1


@pytest.mark.parametrize("supports_n", [True, False])
def test_n_samples_each_logged(store, supports_n):
    counter = iter(range(100))
    lm = FakeLM(default=lambda r, i: f"s{next(counter)}", supports_n=supports_n).with_log(store)
    resp = asyncio.run(lm.chat(ChatRequest(MSG, temperature=1.0, n=3, seed=5)))
    assert len(resp.choices) == 3 and len({c.text for c in resp.choices}) == 3
    if not supports_n:   # one request per sample, each with its own derived seed
        assert len({r.seed for r in lm.requests}) == 3 and all(r.n == 1 for r in lm.requests)
    more = asyncio.run(lm.chat(ChatRequest(MSG, temperature=1.0, n=4, seed=5)))
    assert [c.text for c in more.choices[:3]] == [c.text for c in resp.choices]
    assert more.cached == 3


def test_identical_inflight_requests_share_one_call():
    lm = FakeLM(default="x", latency=0.05)

    async def both():
        return await asyncio.gather(lm.chat(ChatRequest(MSG)), lm.chat(ChatRequest(MSG)))

    a, b = asyncio.run(both())
    assert a.text == b.text == "x" and len(lm.requests) == 1 and lm.stats.dedup_hits == 1


class Flaky(FakeLM):
    def __init__(self, failures):
        super().__init__(default="ok")
        self.failures = failures
        self.max_retries = 3
        self.retry_base_delay = 0.001

    async def _generate(self, request) -> Generation:
        if self.failures:
            self.failures -= 1
            raise TransientLMError("rate limited")
        return await super()._generate(request)


def test_retries_then_surface_failure(store):
    lm = Flaky(2).with_log(store)
    assert asyncio.run(lm.chat(ChatRequest(MSG))).text == "ok" and lm.stats.failures == 2
    dead = Flaky(10).with_log(store)
    with pytest.raises(LMError, match="rate limited"):
        asyncio.run(dead.chat(ChatRequest(({"role": "user", "content": "other"},))))
    assert store.call_stats()["total"]["failed"] == 1    # recorded, never silently dropped


def test_chat_json_validates_and_drops_undeclared_keys():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
              "additionalProperties": False}
    assert parse_json_choice('{"a": 1, "extra": 2}', schema) == {"a": 1}
    assert parse_json_choice('```json\n{"a": 2}\n```', schema) == {"a": 2}
    assert parse_json_choice('{"a": "x"}', schema) is None
    lm = FakeLM(replies=[{"a": 3}, "not json"])
    out, _ = asyncio.run(chat_json(lm, MSG, schema, role="g", n=2))
    assert out == [{"a": 3}, None]


def test_fake_rules_see_tools_and_honour_n():
    lm = FakeLM(rules={"special_tool": tool_call("special_tool", {"q": 1})})
    req = ChatRequest(MSG, n=2, tools=({"type": "function", "function": {
        "name": "special_tool", "parameters": {}}},))
    resp = asyncio.run(lm.chat(req))
    assert [c.tool_calls[0].name for c in resp.choices] == ["special_tool"] * 2
    with pytest.raises(LMError, match="no scripted reply"):
        asyncio.run(FakeLM().chat(ChatRequest(MSG)))
