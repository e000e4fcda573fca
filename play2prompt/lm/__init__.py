"""Language models: the interface, and backends by spec string (``embedded``, ``openai:MODEL``,
``openai-compat:URL#MODEL``, ``ollama:MODEL``, ``anthropic:MODEL``, ``litellm:PROVIDER/MODEL``,
``vllm:MODEL``, ``fake``).

Backends are imported only when a spec names them; the fake for tests is
:mod:`play2prompt.lm.fake`.
"""

from play2prompt.lm._base import (
    LM,
    CallLog,
    ChatRequest,
    ChatResponse,
    Choice,
    Generation,
    LMStats,
    TaggedLM,
    ToolCall,
    TransientLMError,
    Usage,
)
from play2prompt.lm.registry import LMPool, available_backends, make_lm, parse_spec

__all__ = ["LM", "CallLog", "ChatRequest", "ChatResponse", "Choice", "Generation", "LMPool",
           "LMStats", "TaggedLM", "ToolCall", "TransientLMError", "Usage", "available_backends",
           "make_lm", "parse_spec"]
