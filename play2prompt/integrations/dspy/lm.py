"""A DSPy LM as a play2prompt model: ``dspy:<model>`` or a ``dspy.LM`` object.

DSPy users keep their provider settings (keys, ``api_base``, retries, caching, a custom engine):
every request goes through the DSPy LM's own call path as a canonical ``dspy.lm15.Request`` and
comes back as a ``dspy.lm15.Response``. What the LM supports decides how play2prompt asks:

- function calling: native tools when ``lm.supports_function_calling``, else the calls are
  asked for as JSON-schema-constrained output (:mod:`play2prompt.lm.toolcalls`);
- JSON schemas: sent as ``response_format``; when the LM refuses that (an unsupported-feature
  or invalid-request error naming it), the schema goes into a system message from then on
  (the answer is parsed leniently, as for any backend).

Over :func:`~play2prompt.integrations.dspy.dspy_lm` (a play2prompt model served to DSPy) the
capability flags of the model underneath carry over (``can_judge``, ``constrained_steps``), so
the embedded model gets the code checks meant for it whichever way it is passed in.

DSPy's LM owns retries (``num_retries``); its rate-limit, timeout, server and transport errors
become :class:`~play2prompt.lm._base.TransientLMError`, any other failure an
:class:`~play2prompt.errors.LMError` naming the model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.errors import LMError, require
from play2prompt.lm._base import (
    LM,
    ChatRequest,
    Choice,
    Generation,
    ToolCall,
    TransientLMError,
    Usage,
)
from play2prompt.lm.toolcalls import emulate, parse_emulated

REFUSED = ("LMUnsupportedFeatureError", "LMInvalidRequestError", "UnsupportedFeatureError")
TRANSIENT = ("LMRateLimitError", "LMTimeoutError", "LMServerError", "LMTransportError",
             "LMLockTimeoutError")


class DspyLM(LM):
    """Wrap a ``dspy.BaseLM`` (``dspy.LM``, ``dspy.utils.DummyLM``, a custom LM)."""

    supports_n = False

    def __init__(self, lm: Any, *, can_judge: bool | None = None,
                 max_concurrency: int = 4) -> None:
        super().__init__()
        self.lm = lm
        self.model_id = f"dspy:{getattr(lm, 'model', type(lm).__name__)}"
        self.supports_tools = _capability(lm, "supports_function_calling")
        self.schema_mode = "response_format"   # -> "prompt" when the LM refuses it
        inner = getattr(getattr(lm, "engine", None), "lm", None)   # a dspy_lm() engine
        if isinstance(inner, LM):
            self.constrained_steps = inner.constrained_steps
        self.can_judge = can_judge if can_judge is not None else (
            inner.can_judge if isinstance(inner, LM) else True)
        self.max_concurrency = max_concurrency
        self.max_retries = 0  # the DSPy LM retries (num_retries)

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> DspyLM:
        """``dspy:openai/gpt-4o-mini``: ``dspy.LM(rest)`` with DSPy's provider settings."""
        dspy = require("dspy", "dspy", "the dspy: model backend")
        if not rest:
            raise LMError("spec 'dspy:' needs a DSPy model name, e.g. dspy:openai/gpt-4o-mini")
        return cls(dspy.LM(rest), **options)

    async def _generate(self, request: ChatRequest) -> Generation:
        emulated = request.tools is not None and not self.supports_tools
        req = emulate(request) if emulated else request
        while True:
            mode = self.schema_mode
            try:
                response = await self.lm.acall(self._lm15_request(req, mode))
                return _generation(response, emulated)
            except Exception as exc:  # noqa: BLE001 - every DSPy failure becomes ours
                name, text = type(exc).__name__, _short(exc)
                if mode == "response_format" and req.json_schema is not None and \
                        name in REFUSED and ("response_format" in text or "schema" in text):
                    self.schema_mode = "prompt"
                    continue
                if name in TRANSIENT:
                    raise TransientLMError(f"{name}: {text}") from exc
                raise LMError(f"{self.model_id}: {name}: {text}") from exc

    def _lm15_request(self, request: ChatRequest, schema_mode: str) -> Any:
        from dspy import lm15

        system, messages = to_lm15_messages(request.messages)
        fmt = None
        if request.json_schema is not None:
            if schema_mode == "response_format":
                fmt = {"type": "json_schema", "name": "answer",
                       "schema": dict(request.json_schema)}
            else:
                hint = ("Answer with JSON only, matching this JSON schema:\n"
                        + json.dumps(request.json_schema))
                system = f"{system}\n\n{hint}" if system else hint
        tools = tuple(lm15.FunctionTool(name=t["function"]["name"],
                                        description=t["function"].get("description") or None,
                                        parameters=dict(t["function"].get("parameters") or
                                                        {"type": "object", "properties": {}}))
                      for t in (request.tools or ()))
        choice = (lm15.ToolChoice(parallel=request.parallel_tool_calls) if tools else None)
        config = lm15.Config(max_tokens=request.max_tokens, temperature=request.temperature,
                             seed=request.seed, stop=tuple(request.stop or ()),
                             response_format=fmt, tool_choice=choice)
        return lm15.Request(model=str(getattr(self.lm, "model", "") or "dspy"),
                            messages=messages, system=system or None, tools=tools,
                            config=config)


def _capability(lm: Any, name: str) -> bool:
    try:
        return bool(getattr(lm, name, False))
    except Exception:  # noqa: BLE001 - an unknown model's capabilities are False
        return False


def to_lm15_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[str, tuple[Any, ...]]:
    """OpenAI-style chat messages as (system text, lm15 messages)."""
    from dspy import lm15

    system: list[str] = []
    out: list[Any] = []
    for m in messages:
        role, content = m.get("role"), str(m.get("content") or "")
        if role == "system":
            system.append(content)
        elif role == "assistant" and m.get("tool_calls"):
            parts: list[Any] = [lm15.TextPart(content)] if content else []
            for call in m["tool_calls"]:
                fn = call.get("function", call)
                args = fn.get("arguments") or {}
                parts.append(lm15.ToolCallPart(
                    id=str(call.get("id") or fn["name"]), name=fn["name"],
                    input=json.loads(args) if isinstance(args, str) else dict(args)))
            out.append(lm15.Message.assistant(parts))
        elif role == "assistant":
            out.append(lm15.Message.assistant(content))
        elif role == "tool":
            out.append(lm15.Message.tool(str(m.get("tool_call_id") or "call"), content))
        else:
            out.append(lm15.Message.user(content))
    return "\n\n".join(system), tuple(out)


def _generation(response: Any, emulated: bool) -> Generation:
    from dspy import lm15

    message = response.message
    text = "".join(p.text for p in message.parts_of(lm15.TextPart))
    if emulated:
        choice = parse_emulated(text)
    else:
        calls = tuple(ToolCall(p.name, dict(p.input)) for p in message.parts_of(
            lm15.ToolCallPart))
        choice = Choice(text, calls, "tool_calls" if calls else response.finish_reason)
    use = response.usage
    return Generation((choice,), Usage(use.input_tokens or 0, use.output_tokens or 0,
                                       use.cache_read_tokens or 0))


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]
