"""Language models by spec string: ``kind[:rest]``.

Built in: ``embedded`` (default), ``openai:MODEL``, ``openai-compat:URL#MODEL``,
``ollama:MODEL``, ``anthropic:MODEL`` (extra ``anthropic``), ``litellm:PROVIDER/MODEL`` (extra
``litellm``), ``vllm:MODEL`` (offline engine, extra ``vllm``) and ``fake`` (tests). A spec may
end in options, ``MODEL?name=value&...``, each backend naming the ones it takes.
Third-party backends register a factory ``(rest, **options) -> LM`` under the entry-point group
``play2prompt.lm_backends``.

:class:`LMPool` builds each distinct spec once, so a generator and a task model with the same
spec share one loaded model, and attaches the run's call log to every model it hands out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl

from play2prompt.errors import LMError, UserError
from play2prompt.lm._base import LM, CallLog
from play2prompt.plugins import load_target, registered

ENTRY_POINT_GROUP = "play2prompt.lm_backends"
DEFAULT_SPEC = "embedded"

BUILTIN_BACKENDS: dict[str, str] = {
    "embedded": "play2prompt.lm.embedded:EmbeddedLM.from_spec",
    "openai": "play2prompt.lm.openai_compat:OpenAICompatLM.from_openai_spec",
    "openai-compat": "play2prompt.lm.openai_compat:OpenAICompatLM.from_compat_spec",
    "ollama": "play2prompt.lm.openai_compat:OpenAICompatLM.from_ollama_spec",
    "anthropic": "play2prompt.lm.anthropic_lm:AnthropicLM.from_spec",
    "litellm": "play2prompt.lm.litellm_lm:LiteLLMLM.from_spec",
    "vllm": "play2prompt.lm.vllm_offline:VLLMOfflineLM.from_spec",
    "fake": "play2prompt.lm.fake:from_spec",
}


def available_backends() -> dict[str, str]:
    return registered(BUILTIN_BACKENDS, ENTRY_POINT_GROUP)


def parse_spec(spec: str) -> tuple[str, str]:
    spec = (spec or DEFAULT_SPEC).strip()
    kind, _, rest = spec.partition(":")
    return kind.strip(), rest.strip()


def spec_options(kind: str, rest: str, allowed: Sequence[str]) -> tuple[str, dict[str, str]]:
    """``MODEL?name=value&...`` -> (MODEL, options); an option not in ``allowed``, a repeated
    one or a missing model is refused in one line."""
    model, _, query = rest.partition("?")
    model = model.strip()
    if not model:
        raise LMError(f"spec '{kind}:' needs a model name, e.g. {kind}:MODEL")
    pairs = parse_qsl(query, keep_blank_values=True) if query else []
    options = dict(pairs)
    unknown = sorted(set(options) - set(allowed))
    if unknown or len(options) < len(pairs) or any(not v for v in options.values()):
        takes = ", ".join(f"{name}=..." for name in allowed) or "no options"
        raise LMError(f"spec '{kind}:{rest}': bad options {query!r} (it takes {takes})")
    return model, options


def make_lm(spec: str, log: CallLog | None = None, **options: Any) -> LM:
    """Build the LM named by ``spec`` (options go to its factory)."""
    kind, rest = parse_spec(spec)
    registry = available_backends()
    if kind not in registry:
        raise LMError(f"unknown model spec {spec!r} (kinds: {', '.join(sorted(registry))})")
    lm = load_target(registry[kind])(rest, **options)
    if not isinstance(lm, LM):
        raise LMError(f"backend {kind!r} did not return an LM")
    return lm.with_log(log)


Concurrency = int | Mapping[str, int] | None


def concurrency_for(setting: Concurrency, spec: str) -> int | None:
    """The request bound for the model ``spec`` under ``setting``: one number for every model,
    or a mapping by full spec, by backend kind (``openai``, ``embedded``, ``vllm``, ...) or
    ``*`` (the others)."""
    if setting is None or isinstance(setting, int):
        return setting
    kind, _ = parse_spec(spec)
    for key in (spec, kind, "*"):
        if key in setting:
            return int(setting[key])
    return None


def parse_concurrency(values: Sequence[str] | None) -> Concurrency:
    """``--max-concurrency`` values: ``N`` (every model) and/or ``KIND=N`` / ``SPEC=N``."""
    if not values:
        return None
    out: dict[str, int] = {}
    for raw in values:
        key, sep, num = raw.rpartition("=")
        try:
            limit = int(num)
        except ValueError:
            limit = 0
        if limit < 1 or (sep and not key.strip()):
            raise UserError(f"--max-concurrency takes N or KIND=N with N >= 1, got {raw!r}")
        out[key.strip() if sep else "*"] = limit
    return out["*"] if list(out) == ["*"] else out


class LMPool:
    """One LM per distinct spec, all logging to ``log``.

    ``max_concurrency`` (see :func:`concurrency_for`) bounds each backend's requests in flight:
    for OpenAI-compatible servers the requests sent in parallel (their continuous batching
    does the rest), for the embedded model its parallel slots, for vLLM offline its batch
    size. LM objects added with :meth:`add` keep their own setting."""

    def __init__(self, log: CallLog | None = None, max_concurrency: Concurrency = None,
                 **options: Any) -> None:
        self.log = log
        self.max_concurrency = max_concurrency
        self.options = options
        self._lms: dict[str, LM] = {}

    def get(self, spec: str) -> LM:
        key = spec or DEFAULT_SPEC
        if key not in self._lms:
            kind, _ = parse_spec(key)
            limit = concurrency_for(self.max_concurrency, key)
            opts = dict(self.options)
            if limit and kind == "embedded":
                opts["parallel"] = limit          # llama.cpp slots
            elif limit and kind == "vllm":
                opts["max_batch"] = limit
            lm = make_lm(key, self.log, **opts)
            if limit and kind not in ("embedded", "vllm"):
                lm.max_concurrency = limit
            self._lms[key] = lm
        return self._lms[key]

    def attach(self, log: CallLog) -> None:
        """Log to ``log`` from now on (models built before the run's store existed)."""
        self.log = log
        for lm in self._lms.values():
            if lm.log is None:
                lm.with_log(log)

    def add(self, spec: str, lm: LM) -> LM:
        self._lms[spec] = lm.with_log(self.log) if lm.log is None else lm
        return self._lms[spec]

    def all(self) -> list[LM]:
        return list(self._lms.values())

    def close(self) -> None:
        for lm in self._lms.values():
            lm.close()
