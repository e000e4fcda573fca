"""Issue 71: consent belongs to the command that executes. Tools that really change things (a
file appended to, an HTTP POST to a stub server, an MCP tool annotated destructive) are executed
by no command without that command's ``--allow-side-effects``: not by ``optimize``, ``optimize
--resume``, ``eval``, ``verify`` or ``refresh`` of a run made with ``--allow-side-effects all``
(its consent is only named as a hint). With the flag, they are. An MCP tool recorded read-only
that its server now marks destructive needs consent too, and one warning line names it."""

from __future__ import annotations

import json
import logging

import pytest

from play2prompt.cli import main
from tests.extras import need
from tests.tools.effects_project import effects_project

need("mcp", "mcp")

FAKE = ["--generator", "fake", "--preset", "quick"]


@pytest.fixture
def project(tmp_path):
    with effects_project(tmp_path) as p:
        yield p


def _run(project, *args) -> tuple[int, int]:
    """The exit status of ``p2p ARGS`` and the side effects it caused."""
    before = project.side_effects()
    code = main([str(a) for a in args])
    return code, project.side_effects() - before


def _queries(project):
    path = project.root / "queries.jsonl"
    lines = [{"id": "w1", "query": "Note 'from eval'.",
              "calls": [{"name": "append_note", "arguments": {"text": "from eval"}}]},
             {"id": "w2", "query": "Post the note 'x'.",
              "calls": [{"name": "post_note", "arguments": {"text": "x"}}]},
             {"id": "w3", "query": "Erase note 1.",
              "calls": [{"name": "erase_note", "arguments": {"index": 1}}]},
             {"id": "r1", "query": "Shout 'hi'.",
              "calls": [{"name": "shout", "arguments": {"text": "hi"}}]}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_no_command_executes_a_writer_without_its_own_consent(project, capsys):
    tools = project.write()
    runs = project.root / "runs"
    common = ["--runs-dir", runs, "-q"]

    # a run made with consent: its tools were played
    code, done = _run(project, "optimize", tools, "--run-id", "all", "--allow-side-effects",
                      "all", *FAKE, *common)
    assert code == 0 and done > 0
    capsys.readouterr()

    seen = {}
    seen["optimize"] = _run(project, "optimize", tools, "--run-id", "no", *FAKE, *common)
    seen["optimize --resume"] = _run(project, "optimize", "--resume", "all", "--recompute",
                                     *common)
    seen["verify"] = _run(project, "verify", "all", "--runs-dir", runs)
    err = capsys.readouterr()
    assert "run all was made with --allow-side-effects all; a stored run's consent is not " \
           "reused" in err.out + err.err
    seen["eval tools"] = _run(project, "eval", tools, "--queries", _queries(project),
                              "--task-model", "fake", "-o", project.root / "e1", *common)
    drifted = project.write("drifted.json", description="Now tagged.")
    seen["refresh"] = _run(project, "refresh", "all", drifted, "--generator", "fake",
                           "--run-id", "refreshed", *common)
    out = capsys.readouterr()
    assert "--allow-side-effects erase_note" in out.err and \
           "a stored run's consent is not reused" in out.err
    assert {cmd: done for cmd, (_, done) in seen.items()} == dict.fromkeys(seen, 0)
    assert all(code in (0, 1) for code, _ in seen.values()), seen     # verify: 1 = drift

    # with the command's own consent, the same commands execute them
    allowed = ["--allow-side-effects", "all"]
    assert _run(project, "verify", "all", "--runs-dir", runs, *allowed)[1] > 0
    code, done = _run(project, "eval", tools, "--queries", _queries(project), "--task-model",
                      "fake", "-o", project.root / "e2", *allowed, *common)
    assert code == 0 and done >= 3             # the three ground truths (and model calls)
    code, done = _run(project, "refresh", "all", drifted, "--generator", "fake", "--run-id",
                      "refreshed2", *allowed, *common)
    assert code == 0 and done > 0


def test_a_tool_the_server_now_marks_destructive_needs_consent(project, capsys, caplog):
    stale = project.write(erase_annotations={"readOnlyHint": True})    # recorded read-only
    runs = project.root / "runs"
    caplog.set_level(logging.WARNING, "play2prompt.annotations")
    code, done = _run(project, "optimize", stale, "--run-id", "stale", "--allow-side-effects",
                      "append_note,post_note", *FAKE, "--runs-dir", runs, "-q")
    assert code == 0 and project.mcp_log.exists() is False     # erase_note never called
    lines = [r.getMessage() for r in caplog.records if "erase_note" in r.getMessage()]
    assert lines == ["warning: MCP tool 'erase_note': the server now annotates it not "
                     "read-only, destructive (tools file: read-only); the stricter is used: "
                     "needs --allow-side-effects"]
    result = json.loads((runs / "stale" / "result.json").read_text())
    assert "not played" in json.dumps(result["tools"]["erase_note"])
    caplog.clear()
    code, done = _run(project, "eval", stale, "--queries", _queries(project), "--task-model",
                      "fake", "-o", project.root / "e", "--allow-side-effects",
                      "append_note,post_note", "--runs-dir", runs, "-q")
    assert code == 0 and not project.mcp_log.exists()
    assert sum("erase_note" in r.getMessage() for r in caplog.records) == 1
    code, _ = _run(project, "eval", stale, "--queries", _queries(project), "--task-model",
                   "fake", "-o", project.root / "e3", "--allow-side-effects", "erase_note",
                   "--runs-dir", runs, "-q")
    assert code == 0 and len(project.mcp_log.read_text().splitlines()) == 1


def test_stricter_annotations():
    from play2prompt.tools.live_annotations import stricter, with_live
    from play2prompt.tools.model import Tool

    assert stricter({"readOnlyHint": True}, {"readOnlyHint": False}) == {"readOnlyHint": False}
    assert stricter({"readOnlyHint": False, "destructiveHint": False},
                    {"destructiveHint": True, "title": "t"}) == {
        "readOnlyHint": False, "destructiveHint": True, "title": "t"}
    assert stricter({"readOnlyHint": True}, {}) == {"readOnlyHint": False}
    mcp = {"mcp": {"command": "x"}}
    read_only = Tool("t", "", {}, mcp, {"mcp": {"annotations": {"readOnlyHint": True}}})
    assert read_only.side_effects is False
    same, change = with_live(read_only, {"readOnlyHint": True})
    assert same is read_only and change is None
    now, change = with_live(read_only, {"readOnlyHint": False, "destructiveHint": True})
    assert now.side_effects is True and change is not None and change.side_effects
    # a server that now says read-only does not lift a recorded writer's need for consent
    writer = Tool("w", "", {}, mcp, {"mcp": {"annotations": {"readOnlyHint": False}}})
    kept, change = with_live(writer, {"readOnlyHint": True})
    assert kept.side_effects is True and change is not None and not change.line().endswith(
        "read-only")
    # a tool without recorded annotations declared read-only, now destructive: consent
    declared = Tool("d", "", {}, mcp, {}, side_effects=False)
    now, change = with_live(declared, {"destructiveHint": True})
    assert now.side_effects is True and change is not None
