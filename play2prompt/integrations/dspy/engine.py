"""A play2prompt model as a DSPy engine: DSPy programs on the embedded model, no server.

:func:`dspy_lm` returns a real ``dspy.LM`` whose engine is a play2prompt LM (any spec:
``embedded`` by default, ``openai-compat:...``, ``vllm:...``), so a DSPy program, ``dspy.Evaluate``
and :func:`~play2prompt.integrations.dspy.optimize_program` all run on it. A request's JSON
schema (``response_format``) reaches the play2prompt model, which decodes against it (the
embedded model does): :func:`~play2prompt.integrations.dspy.steps.constrain_outputs` sets one
per predictor. The engine does not list ``response_format`` among its parameters, so DSPy's
JSON adapter keeps a predictor's own schema instead of replacing it with "any JSON object".
Function calling is declared supported (native or emulated by the play2prompt backend).
"""

from __future__ import annotations

import json
from typing import Any

from play2prompt.aio import run_sync
from play2prompt.errors import require
from play2prompt.lm._base import LM, ChatRequest, ChatResponse
from play2prompt.lm.registry import make_lm


class Play2PromptEngine:
    """``complete(Request) -> Response`` over a play2prompt LM (sync: DSPy's threads)."""

    supports_function_calling = True
    supports_reasoning = False

    supports_response_schema = False   # see the module docstring

    def __init__(self, lm: LM | str = "embedded", *, seed: int = 0) -> None:
        self.lm = make_lm(lm) if isinstance(lm, str) else lm
        self.seed = seed

    def complete(self, request: Any) -> Any:
        chat = to_chat_request(request, self.seed)
        return to_lm15_response(run_sync(self.lm.chat(chat)), self.lm.model_id)

    def stream(self, request: Any) -> Any:
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        self.lm.close()


class AsyncPlay2PromptEngine:
    """The async counterpart DSPy awaits (``acall``, ``aforward``)."""

    def __init__(self, sync: Play2PromptEngine) -> None:
        self.sync = sync

    async def complete(self, request: Any) -> Any:
        chat = to_chat_request(request, self.sync.seed)
        reply = await self.sync.lm.chat(chat)
        return to_lm15_response(reply, self.sync.lm.model_id)

    async def stream(self, request: Any) -> Any:
        yield await self.complete(request)

    async def aclose(self) -> None:
        self.sync.close()


def dspy_lm(model: LM | str = "embedded", *, name: str | None = None, seed: int = 0,
            **lm_options: Any) -> Any:
    """A ``dspy.LM`` served by the play2prompt model ``model`` (a spec or an LM object);
    ``lm_options`` go to ``dspy.LM`` (``max_tokens``, ``temperature``, ``cache``...)."""
    dspy = require("dspy", "dspy", "play2prompt.integrations.dspy")
    engine = Play2PromptEngine(model, seed=seed)
    label = name or engine.lm.model_id.replace(":", "-").replace("/", "-")
    lm_options.setdefault("cache", False)   # the play2prompt run log is the cache
    return dspy.LM(f"play2prompt/{label}", engine=engine,
                   async_engine=AsyncPlay2PromptEngine(engine), **lm_options)


def to_chat_request(request: Any, seed: int = 0) -> ChatRequest:
    """A ``dspy.lm15.Request`` as a play2prompt :class:`ChatRequest`."""
    from dspy import lm15

    messages: list[dict[str, Any]] = []
    system = request.system
    if system:
        text = system if isinstance(system, str) else "".join(
            getattr(p, "text", "") or "" for p in system)
        messages.append({"role": "system", "content": text})
    for m in request.messages:
        text = "".join(p.text for p in m.parts_of(lm15.TextPart))
        if m.role == "tool":
            for part in m.parts_of(lm15.ToolResultPart):
                out = "".join(getattr(c, "text", "") or "" for c in part.content)
                messages.append({"role": "tool", "tool_call_id": part.id, "content": out})
            continue
        calls = m.parts_of(lm15.ToolCallPart)
        entry: dict[str, Any] = {"role": "system" if m.role == "developer" else m.role,
                                 "content": text}
        if calls:
            entry["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": json.dumps(c.input)}} for c in calls]
        messages.append(entry)
    cfg = request.config
    fmt = cfg.response_format or {}
    schema = fmt.get("schema") if fmt.get("type") == "json_schema" else (
        {"type": "object"} if fmt.get("type") == "json_object" else None)
    tools = tuple({"type": "function", "function": {
        "name": t.name, "description": t.description or "", "parameters": dict(t.parameters)}}
        for t in request.tools if getattr(t, "type", "") == "function") or None
    return ChatRequest(tuple(messages),
                       temperature=cfg.temperature if cfg.temperature is not None else 0.0,
                       max_tokens=cfg.max_tokens or 512, json_schema=schema, tools=tools,
                       parallel_tool_calls=bool(cfg.tool_choice and cfg.tool_choice.parallel),
                       stop=tuple(cfg.stop) or None,
                       seed=cfg.seed if cfg.seed is not None else seed, role="dspy")


def to_lm15_response(reply: ChatResponse, model_id: str) -> Any:
    """A play2prompt :class:`ChatResponse` as a ``dspy.lm15.Response``."""
    from dspy import lm15

    choice = reply.choices[0] if reply.choices else None
    parts: list[Any] = []
    if choice is not None and choice.text and not choice.tool_calls:
        parts.append(lm15.TextPart(choice.text))
    for i, call in enumerate(choice.tool_calls if choice else ()):
        args = call.arguments if isinstance(call.arguments, dict) else {"_raw": call.arguments}
        parts.append(lm15.ToolCallPart(id=f"call_{i}", name=call.name, input=dict(args)))
    if not parts:
        parts.append(lm15.TextPart(""))
    finish = "tool_call" if choice is not None and choice.tool_calls else "stop"
    use = reply.usage
    return lm15.Response(id=None, model=model_id, message=lm15.Message.assistant(parts),
                         finish_reason=finish,
                         usage=lm15.Usage(input_tokens=use.prompt_tokens,
                                          output_tokens=use.completion_tokens))
