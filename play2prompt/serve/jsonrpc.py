"""Malformed JSON-RPC over ``p2p mcp``'s stdio answered as the JSON-RPC 2.0 spec says.

The MCP SDK's stdio transport hands a line it cannot read to the server as an exception, and
the server drops it: the client waits forever. :class:`CheckedReadStream` sits between the
transport and the server and answers such a line itself: ``-32700`` (parse error, id null) for
text that is not JSON, ``-32600`` (invalid request, the request's id when it has a usable one)
for JSON that is not a JSON-RPC message, ``-32602`` (invalid params, with the request's id) for
a request whose ``params`` is not an object. The SDK reads a request whose ``id`` is unusable
(an object, a list, null) as a notification and ignores it; a notification of a method that is
not one (MCP's notifications are all ``notifications/...``) is answered ``-32600`` with id
null instead. Everything else passes through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
NOT_A_MESSAGE = "Invalid Request: not a JSON-RPC 2.0 message"


def error_for(exc: Exception) -> tuple[int, str, int | str | None]:
    """``(code, message, id)`` of the answer to a line the transport could not read."""
    errors = exc.errors() if hasattr(exc, "errors") and callable(exc.errors) else []
    if not errors or any(e.get("type") == "json_invalid" for e in errors):
        detail = errors[0].get("msg", "") if errors else str(exc)
        return PARSE_ERROR, f"Parse error: {detail}"[:200], None
    request_id, request = None, None
    for err in errors:
        found = err.get("input")
        if isinstance(found, Mapping) and isinstance(found.get("id"), (int, str)) \
                and not isinstance(found.get("id"), bool):
            request_id, request = found["id"], found
            break
    if request is not None and isinstance(request.get("method"), str) and \
            request.get("jsonrpc") == "2.0" and "params" in request and \
            not isinstance(request["params"], Mapping):
        return INVALID_PARAMS, "Invalid params: 'params' must be an object", request_id
    return INVALID_REQUEST, NOT_A_MESSAGE, request_id


def is_request_without_id(message: Any) -> bool:
    """A message the SDK read as a notification although its method is a request's: a
    request whose ``id`` was unusable (an object, a list, null) or missing."""
    import mcp_types as types

    inner = getattr(message, "message", message)
    return isinstance(inner, types.JSONRPCNotification) and \
        not str(inner.method).startswith("notifications/")


class CheckedReadStream:
    """A read stream (the SDK's ``ReadStream`` protocol) that answers unreadable lines on
    ``write`` instead of passing them on."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if isinstance(item, Exception):
                await self._write.send(_answer(*error_for(item)))
            elif is_request_without_id(item):
                await self._write.send(_answer(INVALID_REQUEST, NOT_A_MESSAGE, None))
            else:
                return item

    def __aiter__(self) -> CheckedReadStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> CheckedReadStream:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


def _answer(code: int, message: str, request_id: int | str | None) -> Any:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                             error=types.ErrorData(code=code, message=message)))
