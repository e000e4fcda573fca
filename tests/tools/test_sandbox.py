"""Folder sandboxes (``"sandbox": {"copy": "repo/"}``): play works on a copy of the folder, the
tool sees the copy's path wherever the original's appears, and the original is never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from play2prompt.cli import main
from play2prompt.errors import ToolsFileError
from play2prompt.tools.effects import consent_notes
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from play2prompt.tools.sandbox import FolderCopy

TOOLS_PY = '''
import os
from pathlib import Path


def write_note(folder: str, text: str) -> str:
    """Append a line to the notes file of a folder."""
    target = Path(folder) / "notes.txt"
    with target.open("a", encoding="utf-8") as f:
        f.write(text + "\\n")
    return f"wrote {target}"


def count_notes() -> int:
    """How many notes the folder named by NOTES_DIR holds."""
    return len((Path(os.environ["NOTES_DIR"]) / "notes.txt").read_text().splitlines())
'''


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "notes.txt").write_text("original\n")
    (repo / "sub" / "data.bin").write_bytes(bytes(range(256)))
    folder = {"type": "string", "enum": [str(repo)], "description": "The folder."}
    write = {"type": "function",
             "function": {"name": "write_note", "description": "Append a note.",
                          "parameters": {"type": "object",
                                         "properties": {"folder": folder,
                                                        "text": {"type": "string"}},
                                         "required": ["folder", "text"]}},
             "executor": {"python": "tools.py:write_note", "sandbox": {"copy": "repo/"}},
             "side_effects": True}
    count = {"type": "function",
             "function": {"name": "count_notes", "description": "Count the notes.",
                          "parameters": {"type": "object", "properties": {}}},
             "executor": {"python": {"function": "tools.py:count_notes",
                                     "env": {"NOTES_DIR": "repo"}},
                          "sandbox": {"copy": "repo"}}}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [write, count]}))
    return path


def test_paths_are_translated_both_ways(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("a")
    copy = FolderCopy("repo/", tmp_path, tmp_path / "home")
    try:
        assert copy.path != repo and (copy.path / "a.txt").read_text() == "a"
        assert copy.to_copy(str(repo)) == str(copy.path)
        assert copy.to_copy(["--repository", f"{repo}/x"]) == ["--repository",
                                                               f"{copy.path}/x"]
        assert copy.to_copy(f"--repository={repo}") == f"--repository={copy.path}"
        assert copy.to_copy(f"{repo}sitory") == f"{repo}sitory"         # another folder
        assert copy.to_copy({"cwd": "repo", "x": "./repo/a.txt", "y": "reporter", "n": 3}) == \
            {"cwd": str(copy.path), "x": f"{copy.path}/a.txt", "y": "reporter", "n": 3}
        assert copy.to_original(f"error in {copy.path}/a.txt.") == f"error in {repo}/a.txt."
        again = FolderCopy("repo", tmp_path, tmp_path / "home")     # a resumed run goes on
        assert again.path == copy.path
    finally:
        copy.close()


def test_a_copy_sandbox_is_checked_at_load(project):
    doc = json.loads(project.read_text())
    doc["tools"][0]["executor"]["sandbox"] = {"copy": "missing/"}
    project.write_text(json.dumps(doc))
    with pytest.raises(ToolsFileError, match="sandbox copy 'missing/': no such folder"):
        load_tools(project)
    doc["tools"][0]["executor"]["sandbox"] = {"copy": "repo", "mode": "x"}
    project.write_text(json.dumps(doc))
    with pytest.raises(ToolsFileError, match="'sandbox' must be"):
        load_tools(project)


def test_runtime_works_on_a_copy(project):
    tools = load_tools(project)
    repo = project.parent / "repo"
    before = snapshot(repo)
    assert consent_notes(tools, ()) == []                       # sandboxed: safe to play
    runtime = ToolRuntime(tools, ExecContext(base_dir=project.parent, allow_side_effects=()))
    try:
        obs = runtime.run_sync(Invocation("write_note", {"folder": str(repo), "text": "hi"}))
        assert obs.ok and obs.output == f"wrote {repo}/notes.txt"      # says the original
        count = runtime.run_sync(Invocation("count_notes", {}))
        assert count.ok and count.output == 2                   # the copy, shared by both
        (copy,) = [r for k, r in runtime.ctx.resources.items() if k.startswith("sandbox")]
        assert (copy.path / "notes.txt").read_text() == "original\nhi\n"
    finally:
        runtime.close()
    assert snapshot(repo) == before and not copy.path.exists()   # temporary copy removed


def test_optimize_plays_on_a_copy(project, capsys):
    repo = project.parent / "repo"
    before = snapshot(repo)
    runs = project.parent / "runs"
    assert main(["optimize", str(project), "--run-id", "sb", "--generator", "fake",
                 "--preset", "quick", "--runs-dir", str(runs), "-q"]) == 0
    assert "may change things" not in capsys.readouterr().err
    assert snapshot(repo) == before                              # byte for byte
    (notes,) = (runs / "sb" / "sandbox").glob("*/repo/notes.txt")
    assert notes.read_text().startswith("original\n") and notes.read_text().count("\n") > 1
    assert (notes.parent / "sub" / "data.bin").read_bytes() == bytes(range(256))
    result = (runs / "sb" / "result.json").read_text()
    assert str(runs / "sb" / "sandbox") not in result            # the copy is never named
