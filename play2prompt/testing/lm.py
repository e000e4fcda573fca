"""The contract every LM backend keeps, as a reusable test suite.

Subclass :class:`LMContract` in a test module and give it a fixture ``lm`` (a fresh LM of the
backend, no log attached); every ``test_*`` method then runs against it::

    class TestMyBackend(LMContract):
        @pytest.fixture
        def lm(self):
            lm = make_lm("mybackend:model")
            yield lm
            lm.close()

Needs pytest (the ``dev`` extra). The calls are small (a few dozen tokens), so a real local
model passes it in seconds.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema

from play2prompt.lm._base import LM, ChatRequest, ChatResponse
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.scoring.parse import ParseError, parse_calls
from play2prompt.store.db import RunStore

SCHEMA = object_schema({"city": {"type": "string", "maxLength": 40},
                        "days": {"type": "integer", "minimum": 1, "maximum": 30}})
TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name", "maxLength": 40}},
        "required": ["city"]}}}
HELLO = ({"role": "user", "content": "Say hello in one word."},)
TRIP = ({"role": "user", "content": "I spend 3 days in Paris. Answer in JSON."},)
WEATHER = ({"role": "user", "content": "What is the weather in Oslo?"},)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class LMContract:
    """What every :class:`~play2prompt.lm._base.LM` backend guarantees."""

    max_tokens = 40

    def test_identity_and_capabilities(self, lm: LM) -> None:
        assert isinstance(lm, LM) and isinstance(lm.model_id, str) and lm.model_id
        for flag in ("supports_n", "supports_tools", "can_judge", "constrained_steps"):
            assert isinstance(getattr(lm, flag), bool), flag
        assert int(lm.max_concurrency) >= 1

    def test_chat_answers_with_text_and_usage(self, lm: LM) -> None:
        response = run(lm.chat(ChatRequest(HELLO, max_tokens=self.max_tokens, seed=1)))
        assert isinstance(response, ChatResponse) and len(response.choices) == 1
        assert isinstance(response.text, str)
        assert response.usage.prompt_tokens >= 0 and response.usage.completion_tokens >= 0
        assert lm.stats.calls >= 1 and lm.stats.samples == 1 and lm.stats.failures == 0

    def test_n_samples_come_back(self, lm: LM) -> None:
        response = run(lm.chat(ChatRequest(HELLO, max_tokens=self.max_tokens, n=2, seed=2,
                                           temperature=0.7)))
        assert len(response.choices) == 2

    def test_json_schema_output_is_valid(self, lm: LM) -> None:
        (value,), _ = run(chat_json(lm, TRIP, SCHEMA, role="generator", seed=3,
                                    max_tokens=self.max_tokens * 2))
        assert value is not None
        jsonschema.validate(value, SCHEMA)

    def test_a_tools_request_comes_back_as_a_call(self, lm: LM) -> None:
        request = ChatRequest(WEATHER, max_tokens=self.max_tokens * 2, seed=4, tools=(TOOL,))
        choice = run(lm.chat(request)).choices[0]
        try:
            calls = parse_calls(choice)
        except ParseError as exc:  # pragma: no cover - the message says what came back
            raise AssertionError(f"no readable call in {choice!r}") from exc
        assert [c.name for c in calls] == ["get_weather"]
        assert isinstance(calls[0].arguments, dict)

    def test_the_log_serves_a_repeated_call(self, lm: LM, tmp_path: Path) -> None:
        store = RunStore(tmp_path / "log" / "run.db")
        try:
            lm.with_log(store)
            request = ChatRequest(HELLO, max_tokens=self.max_tokens, seed=5, role="generator")
            first = run(lm.chat(request))
            calls = lm.stats.calls
            again = run(lm.chat(request))
            assert again.cached == 1 and lm.stats.calls == calls
            assert again.choices == first.choices
            assert store.call_stats()["total"]["samples"] == 1
        finally:
            lm.with_log(None)
            store.close()

    def test_a_copy_for_another_process_carries_no_state(self, lm: LM) -> None:
        state = lm.__getstate__()
        assert state["log"] is None and state["_inflight"] == {}
        json.dumps(state["stats"].by_role)  # fresh statistics
