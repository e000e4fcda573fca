"""A tiny MCP server (official SDK, stdio) pinned to one folder by ``--repository PATH``, as
``mcp-server-git`` is: ``add_note`` (``readOnlyHint: false``) appends to ``PATH/notes.txt``,
``count_notes`` (read-only) counts its lines; a path argument outside the folder is refused
with the folder's name, as the git server does."""

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

REPO = Path(sys.argv[sys.argv.index("--repository") + 1])
server = MCPServer("repo")


@server.tool(annotations=ToolAnnotations(readOnlyHint=False))
def add_note(repo_path: str, text: str) -> str:
    """Append a note to the repository's notes file."""
    if Path(repo_path).resolve() != REPO.resolve():
        raise ValueError(f"{repo_path} is outside the allowed repository '{REPO}'")
    with (REPO / "notes.txt").open("a", encoding="utf-8") as f:
        f.write(text + "\n")
    return f"added a note to {REPO}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def count_notes() -> int:
    """How many notes the repository holds."""
    return len((REPO / "notes.txt").read_text(encoding="utf-8").splitlines())


if __name__ == "__main__":
    server.run()
