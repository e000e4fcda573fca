"""Any OpenAI-compatible chat endpoint through the ``openai`` SDK.

Specs:

- ``openai:gpt-4o-mini``: OpenAI (``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` honoured);
- ``openai-compat:http://127.0.0.1:8000/v1#meta-llama/Llama-3.1-8B-Instruct``: a vLLM,
  llama.cpp or other compatible server (key from ``OPENAI_API_KEY`` if set, else ``EMPTY``);
  add ``?tools=emulate`` to the model (``...#my-model?tools=emulate``) for a server that
  ignores ``tools=`` (llama.cpp's server without ``--jinja``): calls are then asked for as
  JSON-schema-constrained output, as with the embedded model;
- ``ollama:llama3.1``: a local Ollama (``OLLAMA_HOST``, default ``http://localhost:11434``).

Requests run concurrently (up to ``max_concurrency``) so a server's continuous batching does the
work. JSON schemas go out as ``response_format``; a server that rejects that gets
``json_object`` instead, then plain text with the schema in the prompt.
"""

from __future__ import annotations

import json
import os
from typing import Any

from play2prompt.errors import LMError
from play2prompt.lm._base import (
    LM,
    ChatRequest,
    Choice,
    Generation,
    ToolCall,
    Usage,
)
from play2prompt.lm.api_errors import api_error
from play2prompt.lm.loop_clients import LoopClients
from play2prompt.lm.toolcalls import emulate, parse_emulated


class OpenAICompatLM(LoopClients, LM):
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 *, supports_n: bool = True, supports_tools: bool = True,
                 native_parallel_flag: bool = False, max_concurrency: int = 8,
                 timeout: float = 120.0, max_retries: int = 4,
                 retry_base_delay: float = 0.5) -> None:
        super().__init__()
        self.model = model
        self.base_url = base_url
        self.api_key = api_key or "EMPTY"
        self.supports_n = supports_n
        self.supports_tools = supports_tools
        self.native_parallel_flag = native_parallel_flag
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.schema_mode = "json_schema"  # -> json_object -> prompt
        self.key_var = "OPENAI_API_KEY"   # named when the key is refused
        where = base_url or "api.openai.com"
        self.model_id = f"openai-compat:{where}#{model}"
        self._clients: dict[int, Any] = {}

    @classmethod
    def from_openai_spec(cls, rest: str, **options: Any) -> OpenAICompatLM:
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise LMError("OPENAI_API_KEY is not set (needed by the 'openai:' backend)")
        if not rest:
            raise LMError("spec 'openai:' needs a model name, e.g. openai:gpt-4o-mini")
        lm = cls(rest, os.environ.get("OPENAI_BASE_URL"), key, native_parallel_flag=True,
                 **options)
        lm.model_id = f"openai:{rest}"
        return lm

    @classmethod
    def from_compat_spec(cls, rest: str, **options: Any) -> OpenAICompatLM:
        base_url, sep, model = rest.partition("#")
        if not base_url.startswith(("http://", "https://")) or not sep or not model:
            raise LMError(f"spec must look like openai-compat:http://host:port/v1#model, "
                          f"got 'openai-compat:{rest}'")
        model, tools = _tools_option(model)
        options.setdefault("supports_n", False)
        if tools == "emulate":
            options["supports_tools"] = False
        lm = cls(model, base_url, os.environ.get("OPENAI_API_KEY"), **options)
        if tools == "emulate":
            lm.model_id += "?tools=emulate"
        return lm

    @classmethod
    def from_ollama_spec(cls, rest: str, **options: Any) -> OpenAICompatLM:
        host = os.environ.get("OLLAMA_HOST", "http://localhost:11434").rstrip("/")
        if not host.startswith("http"):
            host = f"http://{host}"
        options.setdefault("supports_n", False)
        lm = cls(rest, f"{host}/v1", "ollama", **options)
        lm.model_id = f"ollama:{rest}"
        return lm

    def _client(self) -> Any:
        import openai

        return self._loop_client(lambda: openai.AsyncOpenAI(
            api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0))

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed,
        }
        if self.supports_n and request.n > 1:
            body["n"] = request.n
        if request.stop:
            body["stop"] = list(request.stop)
        if request.tools:
            body["tools"] = [dict(t) for t in request.tools]
            if self.native_parallel_flag:
                body["parallel_tool_calls"] = request.parallel_tool_calls
        if request.json_schema is not None:
            if self.schema_mode == "json_schema":
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": "answer", "schema": dict(request.json_schema), "strict": False}}
            elif self.schema_mode == "json_object":
                body["response_format"] = {"type": "json_object"}
            if self.schema_mode != "json_schema":
                hint = ("Answer with JSON only, matching this JSON schema:\n"
                        + json.dumps(request.json_schema))
                body["messages"] = body["messages"] + [{"role": "system", "content": hint}]
        return body

    async def _create(self, body: dict[str, Any]) -> Any:
        """One chat-completions request (a subclass may send it another way)."""
        return await self._client().chat.completions.create(**body)

    def _schema_refused(self, request: ChatRequest, exc: Exception) -> bool:
        """Whether the server refused the JSON schema's form (then the next form is tried)."""
        if request.json_schema is None or self.schema_mode == "prompt" \
                or getattr(exc, "status_code", None) != 400:
            return False
        text = str(exc).lower()
        if "response_format" in text or "json_schema" in text or "schema" in text:
            self.schema_mode = "json_object" if self.schema_mode == "json_schema" else "prompt"
            return True
        return False

    async def _generate(self, request: ChatRequest) -> Generation:
        emulated = request.tools is not None and not self.supports_tools
        req = emulate(request) if emulated else request
        while True:
            try:
                resp = await self._create(self._body(req))
                break
            except Exception as exc:  # noqa: BLE001 - the SDK's errors, mapped once
                if self._schema_refused(req, exc):
                    continue
                mapped = api_error(exc, model_id=self.model_id, key_var=self.key_var,
                                   where=self.base_url or "api.openai.com")
                if mapped is None:
                    raise
                raise mapped from exc
        choices = []
        for ch in resp.choices:
            text = ch.message.content or ""
            if emulated:
                choices.append(parse_emulated(text))
                continue
            calls = tuple(_tool_call(tc) for tc in (ch.message.tool_calls or []))
            choices.append(Choice(text, calls, ch.finish_reason))
        usage = resp.usage
        details = getattr(usage, "prompt_tokens_details", None)
        return Generation(tuple(choices), Usage(getattr(usage, "prompt_tokens", 0) or 0,
                                                getattr(usage, "completion_tokens", 0) or 0,
                                                getattr(details, "cached_tokens", 0) or 0))


def _tool_call(tc: Any) -> ToolCall:
    raw = tc.function.arguments or "{}"
    try:
        args: Any = json.loads(raw)
    except json.JSONDecodeError:
        args = raw
    return ToolCall(tc.function.name, args)


def _tools_option(model: str) -> tuple[str, str]:
    """``name?tools=native|emulate`` -> (name, mode)."""
    name, sep, query = model.partition("?tools=")
    if not sep:
        return model, "native"
    if query not in ("native", "emulate"):
        raise LMError(f"tools= must be native or emulate, got {query!r} in {model!r}")
    return name, query
