"""A tiny MCP server (official SDK) for the mcp executor and importer tests; stdio, or
streamable HTTP on 127.0.0.1 when given a port.

Tools: ``add`` (integers), ``city_info`` (a dict, raises for an unknown city), ``nap`` (sleeps
in a worker thread: a slow tool on a healthy server) and ``freeze`` (blocks the server's event
loop: a wedged server that no longer answers anything), ``shutdown`` (the process dies),
``note`` (writes: appends a line to the file named by ``TINY_NOTES``; annotated not read-only).
``add`` and ``city_info`` are annotated read-only; the others have no annotations.
"""

import asyncio
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

CITIES = {"paris": {"country": "France", "population": 2102650},
          "lima": {"country": "Peru", "population": 9943800}}

server = MCPServer("tiny")


READ_ONLY = ToolAnnotations(readOnlyHint=True)


@server.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(annotations=READ_ONLY)
def city_info(city: str) -> dict:
    """Facts about a city."""
    key = city.strip().lower()
    if key not in CITIES:
        raise ToolError(f"unknown city: {city}")
    return {"city": key, **CITIES[key]}


@server.tool()
def nap(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "awake"


@server.tool()
async def freeze(seconds: float) -> str:
    """Block the whole server."""
    time.sleep(seconds)
    await asyncio.sleep(0)
    return "thawed"


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
def note(text: str) -> str:
    """Append a line to the notes file."""
    with open(os.environ["TINY_NOTES"], "a", encoding="utf-8") as f:
        f.write(text + "\n")
    return "noted"


@server.tool()
def shutdown(code: int = 1) -> str:
    """End the server process at once."""
    print("shutting down on request", file=sys.stderr, flush=True)
    os._exit(code)


if __name__ == "__main__":
    if len(sys.argv) > 1:  # mcp_tiny_server.py PORT: streamable HTTP on loopback
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
    else:
        server.run()
