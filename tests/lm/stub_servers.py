"""Stub model servers on loopback: Anthropic's ``/v1/messages`` and OpenAI's
``/v1/chat/completions``, answering the real SDKs (and LiteLLM) with no network and no key.

Each server first plays its scripted replies (an error status, a fixed body), then answers
"reasonably" from the request: a forced or offered tool gets a call whose arguments are made up
from its schema (:func:`play2prompt.lm.fake.sample_from_schema`); after a tool's result the
agent's ``final_answer`` is called; a JSON schema gets a schema-valid value; anything else text.
Every request body is kept in ``requests``. :func:`played_messages` answers as a given
:class:`~play2prompt.lm.fake.FakeLM` would (its play rules: calls that verify, requests that
state their values), so a whole optimization can run against the stub.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema

from play2prompt.jsonutil import extract_json
from play2prompt.lm._base import ChatRequest, Choice
from play2prompt.lm.fake import FakeLM, sample_from_schema

Reply = tuple[int, Mapping[str, str], Any]   # status, headers, JSON body


class StubServer:
    """An HTTP server on 127.0.0.1 in a thread; ``answer(path, body) -> Reply``."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], Reply],
                 script: Iterable[Reply] = ()) -> None:
        self.answer = answer
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _reply(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)
            self.headers.append(headers)
            if self.script:
                return self.script.pop(0)
        return self.answer(path, body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, extra, payload = stub._reply(self.path, headers, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def _rng(body: Mapping[str, Any]) -> random.Random:
    return random.Random(json.dumps(body.get("messages"), sort_keys=True, default=str))


def _words(body: Mapping[str, Any]) -> int:
    return len(json.dumps(body.get("messages"), default=str).split())


# -- Anthropic's Messages API -------------------------------------------------------------------
def anthropic_message(content: list[dict[str, Any]], stop_reason: str = "end_turn",
                      usage: Mapping[str, int] | None = None) -> dict[str, Any]:
    return {"id": "msg_stub", "type": "message", "role": "assistant", "model": "stub-model",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": dict(usage or {"input_tokens": 10, "output_tokens": 5})}


def anthropic_error(status: int, kind: str, headers: Mapping[str, str] | None = None) -> Reply:
    return status, dict(headers or {}), {"type": "error",
                                         "error": {"type": kind, "message": f"stub {kind}"}}


def answer_messages(path: str, body: dict[str, Any]) -> Reply:
    """A plausible Messages API answer to ``body``."""
    if not path.endswith("/v1/messages"):
        return anthropic_error(404, "not_found_error")
    rng, usage = _rng(body), {"input_tokens": _words(body), "output_tokens": 7}
    tools = {t["name"]: t for t in body.get("tools") or ()}
    choice = body.get("tool_choice") or {}
    name = choice.get("name") if choice.get("type") == "tool" else None
    if name is None and tools:
        last = body["messages"][-1]["content"]
        answered = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last)
        name = "final_answer" if answered and "final_answer" in tools else next(iter(tools))
    if name is None:
        return 200, {}, anthropic_message([{"type": "text", "text": "A stub answer."}],
                                          usage=usage)
    args = sample_from_schema(tools[name]["input_schema"], rng)
    block = {"type": "tool_use", "id": f"toolu_{rng.randint(0, 10**6)}", "name": name,
             "input": args}
    return 200, {}, anthropic_message([block], "tool_use", usage)


def played_messages(lm: FakeLM) -> Callable[[str, dict[str, Any]], Reply]:
    """A Messages API answerer that replies as ``lm`` does to the same request."""

    def answer(path: str, body: dict[str, Any]) -> Reply:
        request = as_chat_request(body)
        choice = asyncio.run(lm._generate(request)).choices[0]
        usage = {"input_tokens": _words(body), "output_tokens": 7}
        forced = (body.get("tool_choice") or {}).get("type") == "tool"
        if forced:
            schema = body["tools"][0]["input_schema"]
            value = extract_json(choice.text)
            if not jsonschema.Draft202012Validator(schema).is_valid(value):
                value = {"value": value}        # a schema the backend wrapped in an object
            block = {"type": "tool_use", "id": "toolu_answer", "name": "answer", "input": value}
            return 200, {}, anthropic_message([block], "tool_use", usage)
        return 200, {}, anthropic_message(_content(choice), "tool_use" if choice.tool_calls
                                          else "end_turn", usage)

    return answer


def as_chat_request(body: Mapping[str, Any]) -> ChatRequest:
    """A Messages API request as the chat request it was made from (messages, tools or
    schema, sampling settings; a seed drawn from the messages)."""
    messages: list[dict[str, Any]] = []
    if body.get("system"):
        messages.append({"role": "system", "content": body["system"]})
    for turn in body["messages"]:
        blocks = turn["content"]
        if isinstance(blocks, str):               # the API's short form of one text block
            blocks = [{"type": "text", "text": blocks}]
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        calls = [{"id": b["id"], "type": "function", "function": {
            "name": b["name"], "arguments": json.dumps(b["input"])}}
            for b in blocks if b["type"] == "tool_use"]
        messages += [{"role": "tool", "tool_call_id": b["tool_use_id"], "content": b["content"]}
                     for b in blocks if b["type"] == "tool_result"]
        if text or calls:
            messages.append({"role": turn["role"], "content": text,
                             **({"tool_calls": calls} if calls else {})})
    tools = [{"type": "function", "function": {
        "name": t["name"], "description": t.get("description", ""),
        "parameters": t["input_schema"]}} for t in body.get("tools") or ()]
    forced = (body.get("tool_choice") or {}).get("type") == "tool"
    schema = tools[0]["function"]["parameters"] if forced else None
    return ChatRequest(tuple(messages), float(body.get("temperature", 1.0)),
                       int(body["max_tokens"]), json_schema=schema,
                       tools=None if forced or not tools else tuple(tools),
                       seed=_rng(body).randint(0, 2**31))     # the API has none: one a prompt


def _content(choice: Choice) -> list[dict[str, Any]]:
    blocks = [{"type": "text", "text": choice.text}] if choice.text else []
    return blocks + [{"type": "tool_use", "id": f"toolu_{i}", "name": c.name,
                      "input": dict(c.arguments) if isinstance(c.arguments, Mapping) else {}}
                     for i, c in enumerate(choice.tool_calls)]


# -- OpenAI's chat completions ------------------------------------------------------------------
def completion(message: dict[str, Any], finish: str = "stop", prompt_tokens: int = 10,
               completion_tokens: int = 5) -> dict[str, Any]:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
            "model": "stub-model",
            "choices": [{"index": 0, "message": {"role": "assistant", **message},
                         "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def openai_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
    return status, dict(headers or {}), {"error": {"message": message, "type": "stub",
                                                   "code": None}}


def answer_completions(path: str, body: dict[str, Any]) -> Reply:
    """A plausible chat-completions answer to ``body``."""
    if not path.endswith("/chat/completions"):
        return openai_error(404, "no such route")
    rng, words = _rng(body), _words(body)
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        value = sample_from_schema(fmt["json_schema"]["schema"], rng)
        return 200, {}, completion({"content": json.dumps(value)}, prompt_tokens=words)
    tools = {t["function"]["name"]: t["function"] for t in body.get("tools") or ()}
    if not tools:
        return 200, {}, completion({"content": "A stub answer."}, prompt_tokens=words)
    answered = body["messages"][-1].get("role") == "tool"
    name = "final_answer" if answered and "final_answer" in tools else next(iter(tools))
    args = sample_from_schema(tools[name].get("parameters") or {}, rng)
    call = {"id": f"call_{rng.randint(0, 10**6)}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}
    return 200, {}, completion({"content": None, "tool_calls": [call]}, "tool_calls", words)
