"""An MCP tool's annotations as its server gives them now, against those the tools file recorded.

A tools file made by ``p2p tools from-mcp`` records each tool's annotations (``readOnlyHint``,
``destructiveHint``, ...) in ``meta["mcp"]["annotations"]`` and writes ``"side_effects"`` from
them. A server may change its mind afterwards: a tool recorded read-only may be destructive now.
So before a tool of an MCP server is first executed (or refused) in an execution context, its
server is asked for its tools (``tools/list``, once per server and context) and, per tool:

- the annotations are merged the strict way (:func:`stricter`): read-only only when both say
  so, destructive or open-world when either does;
- when the live annotations differ from the recorded ones, the tool's consent is decided on the
  merged annotations: a tool the server now marks as writing needs ``--allow-side-effects``
  whatever the file recorded or declared, and one warning line names the tool (once per
  context, :data:`logger`);
- a tool whose file recorded no annotations keeps what the file says, unless the server now
  marks it as writing while the file says read-only: then it needs consent too (and the line).

A server that cannot start or list its tools leaves the recorded annotations in force (its
calls fail anyway). :class:`~play2prompt.tools.runtime.ToolRuntime` calls :func:`checked_tools`
(its ``preflight``) before its first execution or consent decision.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from play2prompt.errors import ToolsFileError
from play2prompt.tools.effects import mcp_reason
from play2prompt.tools.executors._base import ExecContext, ToolCallError
from play2prompt.tools.model import Tool

logger = logging.getLogger("play2prompt.annotations")
RESOURCE = "mcp-live-annotations"     # the key of the context's cache in ExecContext.resources
# hint -> (its value when absent, as the MCP specification reads it; True: "either" wins)
HINTS = {"readOnlyHint": (False, False), "destructiveHint": (True, True),
         "idempotentHint": (False, False), "openWorldHint": (True, True)}


@dataclass(frozen=True)
class AnnotationChange:
    """One MCP tool whose server annotates it otherwise than its tools file recorded."""

    tool: str
    recorded: Mapping[str, Any] | None
    live: Mapping[str, Any]
    side_effects: bool             # what the stricter annotations decide

    def line(self) -> str:
        """The one warning line."""
        then = _describe(self.recorded) if self.recorded is not None else "none recorded"
        decided = ("needs --allow-side-effects" if self.side_effects else "read-only")
        return (f"warning: MCP tool {self.tool!r}: the server now annotates it "
                f"{_describe(self.live)} (tools file: {then}); the stricter is used: "
                f"{decided}")


def _describe(notes: Mapping[str, Any] | None) -> str:
    why = mcp_reason(notes)
    return "read-only" if why is None else why.removeprefix("MCP annotations: ")


def hints(notes: Mapping[str, Any] | None) -> dict[str, Any]:
    """The safety hints of ``notes`` (titles and other keys left out)."""
    return {k: v for k, v in (notes or {}).items() if k in HINTS}


def stricter(recorded: Mapping[str, Any] | None, live: Mapping[str, Any]) -> dict[str, Any]:
    """``live`` merged with ``recorded`` the strict way (see the module docstring); keys other
    than the hints come from ``live``."""
    out = {**dict(recorded or {}), **dict(live)}
    for key, (absent, either) in HINTS.items():
        if key not in (recorded or {}) and key not in live:
            continue
        a, b = (recorded or {}).get(key, absent), live.get(key, absent)
        out[key] = bool(a or b) if either else bool(a and b)
    return out


def recorded_annotations(tool: Tool) -> Mapping[str, Any] | None:
    """The annotations the tools file recorded (``meta.mcp.annotations``), or None."""
    mcp = tool.meta.get("mcp") if isinstance(tool.meta, Mapping) else None
    notes = mcp.get("annotations") if isinstance(mcp, Mapping) else None
    return notes if isinstance(notes, Mapping) else None


def with_live(tool: Tool, live: Mapping[str, Any]) -> tuple[Tool, AnnotationChange | None]:
    """``tool`` as the stricter of its recorded and its live annotations make it, and the
    change to warn of (None: nothing changed that matters)."""
    recorded = recorded_annotations(tool)
    now_writes = mcp_reason(live) is not None
    if recorded is None:
        if not now_writes or tool.side_effects:
            return tool, None
        merged: dict[str, Any] = dict(live)
    elif hints(recorded) == hints(live):
        return tool, None
    else:
        merged = stricter(recorded, live)
    side_effects = bool(tool.side_effects) or mcp_reason(merged) is not None
    mcp = dict(tool.meta.get("mcp") or {})
    mcp["annotations"] = merged
    changed = replace(tool, meta={**dict(tool.meta), "mcp": mcp}, side_effects=side_effects)
    return changed, AnnotationChange(tool.name, recorded, dict(live), side_effects)


class LiveAnnotations:
    """The live annotations of one execution context's MCP servers (read once per server)
    and the tools already warned of: kept in ``ExecContext.resources``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_server: dict[str, dict[str, Mapping[str, Any]]] = {}
        self.warned: set[str] = set()

    def close(self) -> None:
        self.by_server.clear()

    @classmethod
    def of(cls, ctx: ExecContext) -> LiveAnnotations:
        found = ctx.resources.get(RESOURCE)
        if not isinstance(found, cls):
            found = ctx.resources[RESOURCE] = cls()
        return found

    def server_tools(self, ctx: ExecContext, server: Any) -> dict[str, Mapping[str, Any]]:
        """Remote tool name -> its annotations now (``{}`` when the server gives none); an
        empty mapping when the server cannot list its tools."""
        if server.key not in self.by_server:
            self.by_server[server.key] = _list_annotations(ctx, server)
        return self.by_server[server.key]


def _list_annotations(ctx: ExecContext, server: Any) -> dict[str, Mapping[str, Any]]:
    from play2prompt.tools.executors.mcp import connection

    conn = connection(ctx, server)
    try:
        listed = conn.run(conn.list_tools(), server.start_timeout + 5)
    except ToolCallError:
        return {}
    out: dict[str, Mapping[str, Any]] = {}
    for item in listed:
        notes = getattr(item, "annotations", None)
        out[str(item.name)] = (notes.model_dump(mode="json", by_alias=True, exclude_none=True)
                               if notes is not None else {})
    return out


def _server_of(tool: Tool, ctx: ExecContext) -> tuple[Any, str] | None:
    from play2prompt.tools.executors.mcp import ServerSpec

    conf = (tool.executor or {}).get("mcp")
    try:
        server = ServerSpec.from_conf(conf, ctx.base_dir)
    except ToolsFileError:
        return None          # every call of it says why
    remote = conf.get("tool") if isinstance(conf, Mapping) else None
    return server, str(remote or tool.name)


def checked_tools(tools: Sequence[Tool], ctx: ExecContext) -> list[Tool]:
    """``tools`` with every MCP tool's annotations checked against its server now (see the
    module docstring); each change is one warning line, once per tool and context."""
    cache = LiveAnnotations.of(ctx)
    out = []
    with cache.lock:
        for tool in tools:
            where = _server_of(tool, ctx) if "mcp" in (tool.executor or {}) else None
            if where is None:
                out.append(tool)
                continue
            live = cache.server_tools(ctx, where[0]).get(where[1])
            changed, change = with_live(tool, live) if live is not None else (tool, None)
            if change is not None and tool.name not in cache.warned:
                cache.warned.add(tool.name)
                logger.warning(change.line())
            out.append(changed)
    return out
