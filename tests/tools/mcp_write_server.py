"""A tiny MCP server (official SDK, stdio) with a read-only tool and an annotated write tool,
for the consent and proxy tests.

``recent_notes`` (read-only, titled, integer ``max_count``: the SDK coerces ``"2"``) lists
notes; ``erase_note`` (``readOnlyHint: false``, ``destructiveHint: true``) appends every call
it gets to the file named by ``WRITE_LOG``: a test reads that file to know whether it was
called.
"""

import json
import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

NOTES = ["buy milk", "call Ada", "fix the roof", "water the plants"]

server = MCPServer("writes")


@server.tool(title="Recent notes", annotations=ToolAnnotations(readOnlyHint=True))
def recent_notes(max_count: int = 2) -> list[str]:
    """The latest notes, newest first."""
    return NOTES[:max_count]


@server.tool(title="Erase a note",
             annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def erase_note(index: int) -> str:
    """Erase the note at a position."""
    with open(os.environ["WRITE_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"index": index}) + "\n")
    return f"erased note {index}"


if __name__ == "__main__":
    server.run()
