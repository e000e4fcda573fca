"""Any provider LiteLLM routes to: ``litellm:PROVIDER/MODEL`` (extra ``litellm``).

``litellm:gemini/gemini-2.5-flash``, ``litellm:bedrock/...``, ``litellm:mistral/...``: the
request goes out through ``litellm.acompletion`` in OpenAI's form (messages, ``tools``,
``response_format``) and LiteLLM translates it for the provider; the response comes back in
OpenAI's form too, so it is read as :class:`~play2prompt.lm.openai_compat.OpenAICompatLM` reads
one (tool calls, usage, the JSON-schema fallbacks). Keys come from the provider's usual
environment variables (``GEMINI_API_KEY``, ...); a missing one is named when the spec is built.
``?api_base=URL`` points LiteLLM at another endpoint (``litellm:openai/MODEL?api_base=http://
127.0.0.1:8000/v1`` for any OpenAI-compatible server); ``?tools=emulate`` asks for calls as
JSON output instead of ``tools=``.

What the provider takes decides what is sent (LiteLLM's ``get_supported_openai_params``): no
``tools`` -> calls emulated as JSON-schema output; no ``response_format`` -> the schema in the
prompt; no ``seed`` or ``parallel_tool_calls`` -> left out. Retries live in the LM base
(LiteLLM's own are off); its exceptions subclass OpenAI's and map the same way
(:mod:`play2prompt.lm.api_errors`).

LiteLLM fetches its model-cost map from the network when imported unless
``LITELLM_LOCAL_MODEL_COST_MAP`` is set: :func:`load_litellm` sets it (where unset) first, so
nothing leaves the machine but the model's own requests.
"""

from __future__ import annotations

import os
from typing import Any

from play2prompt.errors import LMError, require
from play2prompt.lm.openai_compat import OpenAICompatLM

_ALWAYS_SENT = ("model", "messages")


def load_litellm() -> Any:
    """The ``litellm`` module, imported without a network call and without its debug prints."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm = require("litellm", "litellm", "the litellm: model backend")
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMLM(OpenAICompatLM):
    def __init__(self, model: str, api_base: str | None = None, *,
                 supported: frozenset[str] = frozenset({"tools", "response_format"}),
                 key_var: str = "the provider's key variable", emulate_tools: bool = False,
                 **options: Any) -> None:
        options.setdefault("max_concurrency", 8)
        super().__init__(model, api_base, None, supports_n=False,
                         supports_tools="tools" in supported and not emulate_tools,
                         native_parallel_flag="parallel_tool_calls" in supported, **options)
        self.supported = supported
        self.key_var = key_var
        if "response_format" not in supported:
            self.schema_mode = "prompt"
        self.model_id = f"litellm:{model}" + ("?tools=emulate" if emulate_tools else "")

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> LiteLLMLM:
        """``litellm:PROVIDER/MODEL[?api_base=URL&tools=emulate]``."""
        from play2prompt.lm.registry import spec_options

        model, opts = spec_options("litellm", rest, ("api_base", "tools"))
        if opts.get("tools", "native") not in ("native", "emulate"):
            raise LMError(f"litellm:{rest}: tools= must be native or emulate")
        api_base = opts.get("api_base")
        if api_base and not api_base.startswith(("http://", "https://")):
            raise LMError(f"litellm:{rest}: api_base must start with http:// or https://")
        litellm = load_litellm()
        try:
            name, provider, _, _ = litellm.get_llm_provider(model, api_base=api_base)
        except Exception as exc:  # noqa: BLE001 - LiteLLM's refusal, reworded
            raise LMError(f"litellm:{model}: LiteLLM knows no provider for it (name it "
                          f"PROVIDER/MODEL, e.g. litellm:gemini/gemini-2.5-flash)") from exc
        missing = [k for k in litellm.validate_environment(model, api_base=api_base)
                   .get("missing_keys") or () if k.endswith("API_KEY")]
        if missing:
            raise LMError(f"{' or '.join(missing)} is not set (needed by 'litellm:{model}')")
        supported = frozenset(litellm.get_supported_openai_params(
            model=name, custom_llm_provider=provider) or ())
        return cls(model, api_base, supported=supported, key_var=f"{provider.upper()}_API_KEY",
                   emulate_tools=opts.get("tools") == "emulate", **options)

    async def _create(self, body: dict[str, Any]) -> Any:
        litellm = load_litellm()
        sent = {k: v for k, v in body.items() if k in _ALWAYS_SENT or k in self.supported}
        return await litellm.acompletion(**sent, api_base=self.base_url, timeout=self.timeout,
                                         num_retries=0, max_retries=0, drop_params=True)

