"""An HTTP API's failure as one line: retried, or raised to the user.

The ``openai`` and ``anthropic`` SDKs raise the same family of exceptions (``APIStatusError``
with a ``status_code``, ``APIConnectionError`` and its ``APITimeoutError``), and LiteLLM's
subclass OpenAI's, so one mapping serves every remote backend: a rate limit, an overloaded or
failing server (408, 409, 425, 429, 5xx, Anthropic's 529), a timeout or a refused connection
becomes a :class:`~play2prompt.lm._base.TransientLMError` (the LM base retries it, honouring
the server's ``Retry-After``); a bad key, an unknown model or a rejected request an
:class:`~play2prompt.errors.LMError` naming the model and what to check.
"""

from __future__ import annotations

from typing import Any

from play2prompt.errors import LMError
from play2prompt.lm._base import TransientLMError


def api_error(exc: BaseException, *, model_id: str, where: str,
              key_var: str) -> Exception | None:
    """The error to raise for ``exc`` (None when it is no API error of an SDK).

    ``where``: the endpoint, for a connection that fails; ``key_var``: the environment
    variable the key comes from, for a key that is refused."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"APIConnectionError", "APITimeoutError"}:
        kind = "timed out" if "APITimeoutError" in names else "cannot reach"
        return TransientLMError(f"{kind} {where}: {short(exc)}")
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        return None
    if retryable_status(status):
        return TransientLMError(f"HTTP {status}: {short(exc)}", retry_after(exc))
    if status == 401:
        return LMError(f"{model_id}: authentication failed (check the API key in {key_var}): "
                       f"{short(exc)}")
    if status == 404:
        return LMError(f"{model_id}: not found (model name or URL): {short(exc)}")
    if status in (400, 422):
        return LMError(f"{model_id}: request rejected: {short(exc)}")
    return LMError(f"{model_id}: HTTP {status}: {short(exc)}")


def retryable_status(status: int) -> bool:
    return status in (408, 409, 425, 429) or status >= 500


def retry_after(exc: Any) -> float | None:
    """The server's Retry-After (seconds), if it sent one."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / (1000.0 if name.endswith("-ms") else 1.0)
        except ValueError:
            continue
        return seconds if 0 <= seconds <= 600 else None
    return None


def short(exc: BaseException) -> str:
    """The exception's message on one line, at most 300 characters."""
    return " ".join(str(exc).split())[:300]
