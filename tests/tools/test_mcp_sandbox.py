"""Issue 29: an MCP server pinned to a folder by ``--repository`` (as ``mcp-server-git``) plays
on a copy of it with ``"sandbox": {"copy": ...}``: its write tool is called without
``--allow-side-effects``, the original folder is unchanged byte for byte, the copy holds what
play wrote, and nothing published names the copy."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from play2prompt.cli import main
from tests.extras import need

need("mcp", "mcp")
need("mcp_types", "mcp")

REPO_SERVER = Path(__file__).parent / "mcp_repo_server.py"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_mcp_server_plays_on_a_copy_of_its_repository(tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "notes.txt").write_text("original\n")
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    tools = tmp_path / "tools.json"
    assert main(["tools", "from-mcp", "-o", str(tools), "--", sys.executable,
                 str(REPO_SERVER), "--repository", str(repo)]) == 0
    doc = json.loads(tools.read_text())
    path = {"type": "string", "enum": [str(repo)], "description": "The repository."}
    for entry in doc["tools"]:
        entry["executor"]["sandbox"] = {"copy": "repo"}
        if entry["function"]["name"] == "add_note":
            entry["function"]["parameters"]["properties"]["repo_path"] = path
    tools.write_text(json.dumps(doc))
    before = snapshot(repo)
    runs = tmp_path / "runs"
    assert main(["optimize", str(tools), "--run-id", "sb", "--generator", "fake",
                 "--preset", "quick", "--runs-dir", str(runs), "-q"]) == 0
    assert "may change things" not in capsys.readouterr().err      # sandboxed: safe to play
    assert snapshot(repo) == before                                  # byte for byte
    (notes,) = (runs / "sb" / "sandbox").glob("*/repo/notes.txt")
    assert notes.read_text().startswith("original\n") and notes.read_text().count("\n") > 1
    published = (runs / "sb" / "result.json").read_text() + (
        runs / "sb" / "tools.optimized.json").read_text()
    assert str(runs / "sb" / "sandbox") not in published            # the copy is never named
