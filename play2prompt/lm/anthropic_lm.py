"""Claude through Anthropic's Messages API: ``anthropic:MODEL`` (extra ``anthropic``).

``anthropic:claude-sonnet-4-5`` takes its key from ``ANTHROPIC_API_KEY`` and its endpoint from
``ANTHROPIC_BASE_URL`` (the SDK's default otherwise), or from the spec:
``anthropic:claude-sonnet-4-5?base_url=http://127.0.0.1:8080`` (a proxy, a gateway, a stub).

What the LM interface asks becomes the API's own forms:

- chat messages: system messages become the ``system`` parameter; an assistant's
  ``tool_calls`` become ``tool_use`` blocks and ``tool`` messages ``tool_result`` blocks of the
  next user turn; consecutive turns of one role are merged (the API alternates roles);
- tools: ``{"name", "description", "input_schema"}``, with ``tool_choice`` ``auto`` (the
  model may call or answer) and ``disable_parallel_tool_use`` unless parallel calls are asked;
  ``tool_use`` blocks come back as :class:`~play2prompt.lm._base.ToolCall`;
- a JSON schema (structured output): one tool, ``answer``, whose ``input_schema`` is the
  schema (wrapped in an object when it is not one), forced with ``tool_choice``; its input is
  the answer's text, as JSON;
- token counts from ``usage`` (prompt tokens include those read from or written to the
  prompt cache; the ones read are the cached tokens);
- the temperature goes in the request body (the SDK's ``extra_body``: SDK 1.0 dropped the
  parameter), capped at 1.0, the API's range; a model that refuses one (Anthropic deprecated
  sampling parameters for its newer models) is asked without it from then on; stop sequences
  that are only whitespace are left out (the API refuses them); one sample per request.

Retries live in the LM base (the SDK's own are off): rate limits (429), overload (529) and
server errors are retried with the server's ``Retry-After``; a bad key, an unknown model or a
rejected request is one line (:mod:`play2prompt.lm.api_errors`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.errors import LMError, require
from play2prompt.lm._base import LM, ChatRequest, Choice, Generation, ToolCall, Usage
from play2prompt.lm.api_errors import api_error
from play2prompt.lm.loop_clients import LoopClients

KEY_VAR = "ANTHROPIC_API_KEY"
ANSWER_TOOL = "answer"   # the forced tool that carries a structured answer
_WRAP = "value"          # the property a non-object schema is wrapped in
_FINISH = {"tool_use": "tool_calls", "max_tokens": "length"}


class AnthropicLM(LoopClients, LM):
    supports_n = False
    supports_tools = True

    def __init__(self, model: str, api_key: str, base_url: str | None = None, *,
                 max_concurrency: int = 8, timeout: float = 120.0, max_retries: int = 4,
                 retry_base_delay: float = 0.5) -> None:
        super().__init__()
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.model_id = f"anthropic:{model}"
        self.send_temperature = True   # until the model refuses one
        self._clients: dict[int, Any] = {}

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> AnthropicLM:
        """``anthropic:MODEL`` or ``anthropic:MODEL?base_url=URL``."""
        from play2prompt.lm.registry import spec_options

        model, opts = spec_options("anthropic", rest, ("base_url",))
        require("anthropic", "anthropic", "the anthropic: model backend")
        key = os.environ.get(KEY_VAR)
        if not key:
            raise LMError(f"{KEY_VAR} is not set (needed by the 'anthropic:' backend)")
        base_url = opts.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL") or None
        if base_url and not base_url.startswith(("http://", "https://")):
            raise LMError(f"anthropic:{rest}: the base URL must start with http:// or "
                          f"https://, got {base_url!r}")
        return cls(model, key, base_url, **options)

    def _client(self) -> Any:
        import anthropic

        return self._loop_client(lambda: anthropic.AsyncAnthropic(
            api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0))

    async def _generate(self, request: ChatRequest) -> Generation:
        while True:
            body = request_body(self.model, request)
            if self.send_temperature:    # the SDK (1.0+) has no parameter for it
                body["extra_body"] = {"temperature": min(1.0, max(0.0, request.temperature))}
            try:
                message = await self._client().messages.create(**body)
                break
            except Exception as exc:  # noqa: BLE001 - the SDK's errors, mapped once
                if self.send_temperature and getattr(exc, "status_code", None) == 400 \
                        and "temperature" in str(exc).lower():
                    self.send_temperature = False    # a model that takes none
                    continue
                mapped = api_error(exc, model_id=self.model_id, key_var=KEY_VAR,
                                   where=self.base_url or "api.anthropic.com")
                if mapped is None:
                    raise
                raise mapped from exc
        return Generation((to_choice(message, request),), to_usage(message.usage))


# -- the request -------------------------------------------------------------------------------
def request_body(model: str, request: ChatRequest) -> dict[str, Any]:
    """The Messages API's parameters for ``request``."""
    system, messages = to_messages(request.messages)
    body: dict[str, Any] = {"model": model, "messages": messages,
                            "max_tokens": max(1, request.max_tokens)}
    if system:
        body["system"] = system
    stops = [s for s in request.stop or () if s.strip()]
    if stops:
        body["stop_sequences"] = stops
    if request.json_schema is not None:
        body["tools"] = [{"name": ANSWER_TOOL, "description": "Give the answer.",
                          "input_schema": input_schema(request.json_schema)}]
        body["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
    elif request.tools:
        body["tools"] = [to_tool(t) for t in request.tools]
        body["tool_choice"] = {"type": "auto",
                               "disable_parallel_tool_use": not request.parallel_tool_calls}
    return body


def to_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool as an Anthropic tool definition."""
    fn = tool.get("function", tool)
    out: dict[str, Any] = {"name": fn["name"],
                           "input_schema": dict(fn.get("parameters") or
                                                {"type": "object", "properties": {}})}
    if fn.get("description"):
        out["description"] = fn["description"]
    return out


def input_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as a tool's input schema, which must describe an object."""
    if not _wraps(schema):
        return dict(schema)
    return {"type": "object", "properties": {_WRAP: dict(schema)}, "required": [_WRAP]}


def to_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """OpenAI-style chat messages as (system text, Messages API turns)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "system":
            system.append(_text(m.get("content")))
            continue
        blocks = _blocks(m)
        if not blocks:
            continue
        api_role = "assistant" if role == "assistant" else "user"
        if turns and turns[-1]["role"] == api_role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": api_role, "content": blocks})
    if not turns:   # a prompt given as a system message alone
        return "", [{"role": "user", "content": [_text_block("\n\n".join(system) or "Begin.")]}]
    last = turns[-1]
    if last["role"] == "assistant" and last["content"][-1]["type"] == "text":
        last["content"][-1]["text"] = last["content"][-1]["text"].rstrip()   # a prefill
    return "\n\n".join(s for s in system if s), turns


def _wraps(schema: Mapping[str, Any]) -> bool:
    """Whether the schema is sent wrapped in an object (it describes something else)."""
    return schema.get("type") != "object"


def _blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    role, text = message.get("role"), _text(message.get("content"))
    if role == "tool":
        return [{"type": "tool_result", "tool_use_id": str(message.get("tool_call_id") or "call"),
                 "content": text or "(no output)"}]
    blocks = [_text_block(text)] if text.strip() else []
    if role == "assistant":
        for i, call in enumerate(message.get("tool_calls") or ()):
            fn = call.get("function", call)
            args = fn.get("arguments") or {}
            if isinstance(args, str):
                try:
                    args = json.loads(args or "{}")
                except json.JSONDecodeError:
                    args = {}
            blocks.append({"type": "tool_use", "id": str(call.get("id") or f"call_{i}"),
                           "name": fn["name"], "input": args if isinstance(args, dict) else {}})
    return blocks


def _text(content: Any) -> str:
    """A message's content as text (a string, or OpenAI's list of parts)."""
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# -- the response ------------------------------------------------------------------------------
def to_choice(message: Any, request: ChatRequest) -> Choice:
    """The response's content blocks as a choice: text, tool calls, or the structured answer
    as JSON text."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content or ():
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            calls.append(ToolCall(block.name, dict(block.input or {})))
    finish = _FINISH.get(message.stop_reason or "", "stop")
    if request.json_schema is not None:
        answer = next((c.arguments for c in calls if c.name == ANSWER_TOOL), None)
        if answer is None:
            return Choice("".join(texts), (), finish)
        if _wraps(request.json_schema) and isinstance(answer, Mapping):
            answer = answer.get(_WRAP)
        return Choice(json.dumps(answer, ensure_ascii=False), (), "stop")
    return Choice("".join(texts), tuple(calls), "tool_calls" if calls else finish)


def to_usage(usage: Any) -> Usage:
    read = getattr(usage, "cache_read_input_tokens", 0) or 0
    written = getattr(usage, "cache_creation_input_tokens", 0) or 0
    return Usage((getattr(usage, "input_tokens", 0) or 0) + read + written,
                 getattr(usage, "output_tokens", 0) or 0, read)
