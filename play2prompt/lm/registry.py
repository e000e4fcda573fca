"""Language models by spec string: ``kind[:rest]``.

Built in: ``embedded`` (default), ``openai:MODEL``, ``openai-compat:URL#MODEL``,
``ollama:MODEL``, ``vllm:MODEL`` (offline engine, extra ``vllm``) and ``fake`` (tests).
Third-party backends register a factory ``(rest, **options) -> LM`` under the entry-point group
``play2prompt.lm_backends``.

:class:`LMPool` builds each distinct spec once, so a generator and a task model with the same
spec share one loaded model, and attaches the run's call log to every model it hands out.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from play2prompt.errors import LMError
from play2prompt.lm._base import LM, CallLog

ENTRY_POINT_GROUP = "play2prompt.lm_backends"
DEFAULT_SPEC = "embedded"

BUILTIN_BACKENDS: dict[str, str] = {
    "embedded": "play2prompt.lm.embedded:EmbeddedLM.from_spec",
    "openai": "play2prompt.lm.openai_compat:OpenAICompatLM.from_openai_spec",
    "openai-compat": "play2prompt.lm.openai_compat:OpenAICompatLM.from_compat_spec",
    "ollama": "play2prompt.lm.openai_compat:OpenAICompatLM.from_ollama_spec",
    "vllm": "play2prompt.lm.vllm_offline:VLLMOfflineLM.from_spec",
    "fake": "play2prompt.lm.registry:_fake_from_spec",
}


def available_backends() -> dict[str, str]:
    found = dict(BUILTIN_BACKENDS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def parse_spec(spec: str) -> tuple[str, str]:
    spec = (spec or DEFAULT_SPEC).strip()
    kind, _, rest = spec.partition(":")
    return kind.strip(), rest.strip()


def make_lm(spec: str, log: CallLog | None = None, **options: Any) -> LM:
    """Build the LM named by ``spec`` (options go to its factory)."""
    kind, rest = parse_spec(spec)
    registry = available_backends()
    if kind not in registry:
        raise LMError(f"unknown model spec {spec!r} (kinds: {', '.join(sorted(registry))})")
    module_name, _, attr = registry[kind].partition(":")
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    lm = target(rest, **options)
    if not isinstance(lm, LM):
        raise LMError(f"backend {kind!r} did not return an LM")
    return lm.with_log(log)


def _fake_from_spec(rest: str, **options: Any) -> LM:
    """``fake`` or ``fake:LATENCY``: a schema-filling fake (benchmarks, smoke tests)."""
    from play2prompt.testing import FakeLM

    latency = float(rest) if rest else 0.0
    return FakeLM(fill_schema=True, latency=latency, model_id=f"fake:{rest or 0}", **options)


class LMPool:
    """One LM per distinct spec, all logging to ``log``."""

    def __init__(self, log: CallLog | None = None, **options: Any) -> None:
        self.log = log
        self.options = options
        self._lms: dict[str, LM] = {}

    def get(self, spec: str) -> LM:
        key = spec or DEFAULT_SPEC
        if key not in self._lms:
            self._lms[key] = make_lm(key, self.log, **self._options_for(key))
        return self._lms[key]

    def _options_for(self, spec: str) -> dict[str, Any]:
        kind, _ = parse_spec(spec)
        opts = dict(self.options)
        if "max_concurrency" in opts and kind == "embedded":
            opts["parallel"] = opts.pop("max_concurrency")
        return opts

    def add(self, spec: str, lm: LM) -> LM:
        self._lms[spec] = lm.with_log(self.log) if lm.log is None else lm
        return self._lms[spec]

    def all(self) -> list[LM]:
        return list(self._lms.values())

    def close(self) -> None:
        for lm in self._lms.values():
            lm.close()
