"""vLLM's offline engine (``vllm.LLM``) in-process, with batching: spec ``vllm:MODEL``.

Optional extra ``vllm`` (a GPU machine), imported only when this backend is chosen.

A search step issues many requests at once (every beam candidate's next prompt). Requests that
arrive within ``batch_window`` seconds of each other, up to ``max_batch`` of them, go to the
engine as **one** ``LLM.chat`` call (a list of conversations with one ``SamplingParams`` each)
in a worker thread; while that batch runs, the next one collects. ``n`` samples of a request
are one ``SamplingParams(n=...)``; JSON schemas use vLLM's guided (structured-output)
decoding; function calling is emulated with JSON-schema decoding as for the embedded model.
Batching changes no result: every request keeps its own seed.

If a whole batch fails, its requests are retried one by one, so one bad request (a schema the
grammar backend rejects, say) fails alone.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.errors import LMError, require
from play2prompt.lm._base import LM, ChatRequest, Choice, Generation, Usage
from play2prompt.lm.toolcalls import emulate, parse_emulated


@dataclass
class _Pending:
    request: ChatRequest          # after tool emulation
    emulated: bool
    future: asyncio.Future


class VLLMOfflineLM(LM):
    supports_n = True
    supports_tools = False
    max_retries = 0

    def __init__(self, model: str, *, max_batch: int = 64, batch_window: float = 0.02,
                 max_concurrency: int | None = None, **engine_options: Any) -> None:
        super().__init__()
        if not model:
            raise LMError("spec 'vllm:' needs a model, e.g. vllm:meta-llama/Llama-3.1-8B-Instruct")
        self.model = model
        self.max_batch = max(1, int(max_batch))
        self.batch_window = max(0.0, float(batch_window))
        # Enough requests in flight to fill the running batch and the one collecting.
        self.max_concurrency = int(max_concurrency or 2 * self.max_batch)
        self.engine_options = dict(engine_options)
        self.model_id = f"vllm:{model}"
        self.batch_sizes: list[int] = []   # requests per engine call (for benchmarks, tests)
        self._llm: Any = None
        self._lock = threading.Lock()
        self._queues: dict[int, tuple[asyncio.Queue, asyncio.Task]] = {}

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> VLLMOfflineLM:
        require("vllm", "vllm", "the vllm: backend")
        if "max_concurrency" in options:  # --max-concurrency sets the batch size here
            limit = options.pop("max_concurrency")
            options.setdefault("max_batch", limit)
        return cls(rest, **options)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.update(_llm=None, _lock=None, _queues={}, batch_sizes=[])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- the engine --------------------------------------------------------------------------
    def _engine(self) -> Any:
        with self._lock:
            if self._llm is None:
                vllm = require("vllm", "vllm", "the vllm: backend")
                self._llm = vllm.LLM(model=self.model, **self.engine_options)
            return self._llm

    def close(self) -> None:
        with self._lock:
            self._llm = None

    # -- requests ----------------------------------------------------------------------------
    async def _generate(self, request: ChatRequest) -> Generation:
        emulated = request.tools is not None
        req = emulate(request) if emulated else request
        loop = asyncio.get_running_loop()
        pending = _Pending(req, emulated, loop.create_future())
        self._queue(loop).put_nowait(pending)
        return await pending.future

    def _queue(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue:
        entry = self._queues.get(id(loop))
        if entry is None or entry[1].done():
            queue: asyncio.Queue = asyncio.Queue()
            entry = (queue, loop.create_task(self._batch_loop(queue)))
            self._queues[id(loop)] = entry
        return entry[0]

    async def _batch_loop(self, queue: asyncio.Queue) -> None:
        """Collect a batch (a window after its first request, or until full), run it, repeat."""
        loop = asyncio.get_running_loop()
        while True:
            batch = [await queue.get()]
            deadline = loop.time() + self.batch_window
            while len(batch) < self.max_batch:
                if not queue.empty():
                    batch.append(queue.get_nowait())
                    continue
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                try:
                    batch.append(await asyncio.wait_for(queue.get(), remaining))
                except asyncio.TimeoutError:
                    break
            await self._dispatch(batch)

    async def _dispatch(self, batch: list[_Pending]) -> None:
        try:
            results = await asyncio.to_thread(self._run_batch, batch)
        except Exception as exc:  # noqa: BLE001 - retried one by one below
            if len(batch) == 1:
                _settle(batch[0], LMError(f"{self.model_id}: {type(exc).__name__}: {exc}"))
                return
            for item in batch:
                await self._dispatch([item])
            return
        for item, result in zip(batch, results):
            _settle(item, result)

    def _run_batch(self, batch: Sequence[_Pending]) -> list[Generation]:
        """One engine call for the whole batch (runs in a worker thread)."""
        llm = self._engine()
        conversations = [[dict(m) for m in p.request.messages] for p in batch]
        params = [self._sampling_params(p.request) for p in batch]
        self.batch_sizes.append(len(batch))
        outputs = llm.chat(conversations, sampling_params=params, use_tqdm=False)
        if len(outputs) != len(batch):
            raise LMError(f"{self.model_id}: {len(outputs)} outputs for {len(batch)} requests")
        return [_generation(out, p.emulated) for out, p in zip(outputs, batch)]

    def _sampling_params(self, request: ChatRequest) -> Any:
        sampling = require("vllm.sampling_params", "vllm", "the vllm: backend")
        kwargs: dict[str, Any] = {
            "n": max(1, request.n), "temperature": request.temperature,
            "max_tokens": request.max_tokens, "seed": request.seed,
        }
        if request.stop:
            kwargs["stop"] = list(request.stop)
        if request.json_schema is not None:
            schema = dict(request.json_schema)
            if hasattr(sampling, "StructuredOutputsParams"):      # vLLM >= 0.10.2
                kwargs["structured_outputs"] = sampling.StructuredOutputsParams(json=schema)
            else:
                kwargs["guided_decoding"] = sampling.GuidedDecodingParams(json=schema)
        return sampling.SamplingParams(**kwargs)


def _generation(output: Any, emulated: bool) -> Generation:
    choices = []
    completion = 0
    for out in output.outputs:
        text = out.text or ""
        completion += len(getattr(out, "token_ids", None) or ())
        choices.append(parse_emulated(text) if emulated
                       else Choice(text, (), getattr(out, "finish_reason", None)))
    prompt = len(getattr(output, "prompt_token_ids", None) or ())
    cached = getattr(output, "num_cached_tokens", None) or 0   # automatic prefix caching
    return Generation(tuple(choices), Usage(prompt, completion, int(cached)))


def _settle(item: _Pending, result: Generation | BaseException) -> None:
    if item.future.done():  # the caller went away (cancelled)
        return
    if isinstance(result, BaseException):
        item.future.set_exception(result)
    else:
        item.future.set_result(result)
