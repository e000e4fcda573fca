"""Tools served by an MCP server: ``{"mcp": {"command": "python", "args": ["server.py"]}}``.

Spec keys (inside ``"mcp"``): ``command`` + ``args`` (stdio; ``env`` merged over the SDK's safe
default environment, ``$VAR`` references expanded; ``cwd`` relative to the tools file's folder,
which is also the default), or ``url`` (streamable HTTP, e.g. ``http://127.0.0.1:8701/mcp``);
``tool``: the tool's name on the server (default: the tool's own name); ``start_timeout``:
seconds the server gets to start and answer ``initialize`` (default 30).

One client session per server per run, shared by that server's tools and kept in
``ExecContext.resources`` (closed with the context). The session lives in a background thread
with its own event loop, so it outlives the event loops of its callers; callers await its
answers without blocking a thread. A server that cannot start, dies or hangs gives a ``crash`` /
``timeout`` observation naming the server command; a call past its timeout leaves the server
running when it still answers a ping, otherwise the next call starts a fresh one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import ExecContext, Executor, ToolCallError
from play2prompt.tools.executors._mcp_session import PING_TIMEOUT, McpConnection, ServerSpec

__all__ = ["McpConnection", "McpExecutor", "ServerSpec", "connection", "result_output"]


def result_output(result: Any) -> Any:
    """A ``CallToolResult`` as a tool output: structured content when present (unwrapping the
    SDK's ``{"result": value}`` for non-object returns), else the text parsed as JSON when it is
    JSON. ``isError`` raises :class:`ToolCallError` with the server's text."""
    blocks = [_block_value(b) for b in (result.content or [])]
    if result.is_error:
        text = "\n".join(b for b in blocks if isinstance(b, str)).strip()
        raise ToolCallError(text or "the tool reported an error (no message)", "exception")
    plain = blocks[0] if len(blocks) == 1 else (blocks or None)
    structured = result.structured_content
    if structured is not None:
        if isinstance(structured, dict) and set(structured) == {"result"} \
                and structured["result"] == plain:
            return plain
        return structured
    return plain


def _block_value(block: Any) -> Any:
    if getattr(block, "type", None) == "text":
        text = block.text
        try:
            return json.loads(text)
        except (json.JSONDecodeError, TypeError):
            return text
    data = block.model_dump(mode="json", exclude_none=True) if hasattr(block, "model_dump") \
        else {"type": str(getattr(block, "type", "content"))}
    if isinstance(data.get("data"), str):
        data["data"] = f"<{len(data['data'])} base64 characters>"
    return data


def connection(ctx: ExecContext, server: ServerSpec) -> McpConnection:
    """The run's connection to ``server`` (one per server, shared, closed with ``ctx``)."""
    return ctx.resources.setdefault(server.key, McpConnection(server))


class McpExecutor(Executor):
    def __init__(self, tool: Any, spec: Any, ctx: ExecContext) -> None:
        super().__init__(tool, spec, ctx)
        conf = spec.get("mcp")
        self.remote_name = str((conf or {}).get("tool") or tool.name) \
            if isinstance(conf, Mapping) else tool.name
        self.server: ServerSpec | None = None
        self.spec_error = ""
        try:
            self.server = ServerSpec.from_conf(conf, ctx.base_dir, f"tool {tool.name!r}: mcp")
        except ToolsFileError as exc:  # reported by every call, never at construction
            self.spec_error = str(exc)

    def _connection(self) -> McpConnection:
        if self.server is None:
            raise ToolCallError(self.spec_error, "unavailable")
        return connection(self.ctx, self.server)

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        conn = self._connection()
        limit = timeout + conn.server.start_timeout + PING_TIMEOUT + 5
        return result_output(conn.run(conn.call_tool(self.remote_name, arguments, timeout),
                                      limit))

    async def _acall(self, arguments: dict[str, Any], timeout: float) -> Any:
        conn = self._connection()
        return result_output(await conn.arun(conn.call_tool(self.remote_name, arguments,
                                                            timeout)))
