"""Side effects: which tools are read-only (MCP annotations, HTTP method, SQL, the tools file),
and a tool that writes is never executed by play, evaluation or verify without consent."""

from __future__ import annotations

import json

import pytest

from play2prompt.cli import main
from play2prompt.errors import ToolsFileError
from play2prompt.tools.effects import (
    consent_notes,
    http_reason,
    inferred_reason,
    mcp_reason,
    parse_allow,
    sql_reason,
)
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools, parse_tools
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.runtime import ToolRuntime
from tests.tools.effects_project import TOOLS_PY


def fn(name: str, executor: dict, **extra) -> dict:
    params = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return {"type": "function", "function": {"name": name, "description": "A tool.",
                                             "parameters": params},
            "executor": executor, **extra}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    (tmp_path / "notes.txt").write_text("original\n")
    doc = {"tools": [fn("append_note", {"python": "tools.py:append_note"}, side_effects=True),
                     fn("shout", {"python": "tools.py:shout"})]}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("notes, read_only", [
    (None, False),                                        # no annotations: not read-only
    ({}, False),
    ({"readOnlyHint": True}, True),
    ({"readOnlyHint": True, "destructiveHint": True}, True),
    ({"readOnlyHint": False}, False),
    ({"readOnlyHint": False, "destructiveHint": False}, False),
    ({"destructiveHint": False, "idempotentHint": True}, False),
    ({"title": "Git status"}, False),
])
def test_mcp_annotations(notes, read_only):
    assert (mcp_reason(notes) is None) is read_only


def test_mcp_reasons_say_why():
    assert "no annotations" in mcp_reason(None)
    assert "destructive" in mcp_reason({"readOnlyHint": False})
    assert mcp_reason({"readOnlyHint": False, "destructiveHint": False}) == \
        "MCP annotations: not read-only"


@pytest.mark.parametrize("method, read_only", [
    ("GET", True), ("get", True), ("HEAD", True), ("OPTIONS", True),
    ("POST", False), ("PUT", False), ("PATCH", False), ("DELETE", False)])
def test_http_method(method, read_only):
    assert (http_reason({"url": "http://x", "method": method}) is None) is read_only
    assert http_reason("http://x/{id}") is None                  # the short form is a GET


@pytest.mark.parametrize("sql, read_only", [
    ("SELECT name FROM t WHERE c > :c AND NOT id IN (SELECT * FROM scratchpad)", True),
    ("WITH a AS (SELECT 1 AS x) SELECT x FROM a", True),
    ("SELECT 1 UNION SELECT 2;", True),
    ("(SELECT 1)", True),
    ("INSERT INTO t VALUES (:x)", False),
    ("WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", False),
    ("UPDATE t SET a = 1", False),
    ("DELETE FROM t", False),
    ("REPLACE INTO t VALUES (1)", False),
    ("SELECT 1; DELETE FROM t", False),
    ("DROP TABLE t", False),
    ("CREATE TABLE u (a)", False),
    ("PRAGMA journal_mode = WAL", False),
    ("ATTACH DATABASE 'x.db' AS y", False),
    ("SELECT ((", False),
    ("", False),
])
def test_sql_statement(sql, read_only):
    assert (sql_reason(sql) is None) is read_only


def test_tools_file_flag_wins_and_python_defaults_to_read_only():
    post = {"http": {"url": "http://x", "method": "POST"}}
    tools = parse_tools({"tools": [
        fn("plain", {"python": "m:plain"}),
        fn("writer", {"python": "m:writer"}, side_effects=True),
        fn("post", post),
        fn("safe_post", post, side_effects=False),
        fn("delete", {"sqlite": {"database": "d.sqlite", "sql": "DELETE FROM t"}}),
    ]})
    flags = {t.name: t.side_effects for t in tools}
    assert flags == {"plain": False, "writer": True, "post": True, "safe_post": False,
                     "delete": True}
    # the flag survives a round trip, written where the executor alone would say otherwise
    dumped = {t.name: t.to_dict() for t in tools}
    assert "side_effects" not in dumped["plain"] and dumped["safe_post"]["side_effects"] is False
    assert {n: Tool.from_dict(d).side_effects for n, d in dumped.items()} == flags
    with pytest.raises(ToolsFileError, match="'side_effects' must be true or false"):
        parse_tools({"tools": [fn("x", {"python": "m:x"}, side_effects="yes")]})


def test_sandbox_is_checked_at_load(tmp_path):
    def write(executor):
        path = tmp_path / "t.json"
        path.write_text(json.dumps({"tools": [fn("t", executor)]}))
        return path

    with pytest.raises(ToolsFileError, match="sandbox must be one of 'rollback'|'sandbox' must"):
        load_tools(write({"sqlite": {"database": "d", "sql": "DELETE FROM t"}, "sandbox": "x"}))
    with pytest.raises(ToolsFileError, match="works for sqlite executors, not 'http'"):
        load_tools(write({"http": {"url": "http://x", "method": "POST"}, "sandbox": "rollback"}))
    sqlite = {"sqlite": {"database": "d", "sql": "DELETE FROM t"}, "sandbox": "rollback"}
    (tool,) = load_tools(write(sqlite))
    assert tool.side_effects and consent_notes([tool], ()) == []   # sandboxed: safe to play


def test_runtime_refuses_without_consent(project):
    tools = load_tools(project)
    notes = project.parent / "notes.txt"

    def call(allow):
        runtime = ToolRuntime(tools, ExecContext(base_dir=project.parent,
                                                 allow_side_effects=allow))
        try:
            return runtime.run_sync(Invocation("append_note", {"text": "hi"})), runtime
        finally:
            runtime.close()

    obs, runtime = call(())
    assert obs.error_type == "consent" and runtime.refused == {"append_note": 1}
    assert obs.error == ("tool 'append_note' may change things (the tools file says "
                         "\"side_effects\": true); not executed: pass --allow-side-effects "
                         "append_note")
    assert runtime.executions == 0 and notes.read_text() == "original\n"
    assert call(("all",))[0].ok and notes.read_text() == "original\nhi\n"
    assert call(None)[0].ok                          # no gate: the user's own calls (p2p mcp)
    assert parse_allow(["a,b", " c ", "a"]) == ("a", "b", "c")
    assert inferred_reason({"python": "m:f"}) is None


def test_optimize_never_executes_a_writer_without_consent(project, capsys):
    runs = project.parent / "runs"
    notes = project.parent / "notes.txt"
    args = ["--generator", "fake", "--preset", "quick", "--runs-dir", str(runs), "-q"]
    assert main(["optimize", str(project), "--run-id", "no", *args]) == 0
    err = capsys.readouterr().err
    assert notes.read_text() == "original\n"                           # never executed
    assert err.count("may change things") == 1 and "--allow-side-effects append_note" in err
    assert main(["optimize", str(project), "--run-id", "yes", "--allow-side-effects",
                 "append_note", *args]) == 0
    assert "may change things" not in capsys.readouterr().err
    assert notes.read_text().count("\n") > 1                             # played with
    config = json.loads((runs / "yes" / "result.json").read_text())["config"]
    assert config["allow_side_effects"] == ["append_note"]

    played = notes.read_text()
    assert main(["verify", "yes", "--runs-dir", str(runs)]) == 0        # replays none of it
    out = capsys.readouterr().out
    assert notes.read_text() == played and "--allow-side-effects" in out

    assert main(["optimize", str(project), "--allow-side-effects", "nope", *args]) == 2
    assert "names no tool of this run: nope" in capsys.readouterr().err


def test_eval_never_executes_a_writer_without_consent(project, capsys):
    notes = project.parent / "notes.txt"
    queries = project.parent / "queries.jsonl"
    call = {"name": "append_note", "arguments": {"text": "from eval"}}
    queries.write_text(json.dumps({"id": "q1", "query": "Note 'from eval'.", "calls": [call]})
                       + "\n")
    args = ["eval", str(project), "--queries", str(queries), "--task-model", "fake",
            "--runs-dir", str(project.parent / "runs"), "-q"]
    assert main([*args, "-o", str(project.parent / "e1")]) == 2    # its one query skipped
    err = capsys.readouterr().err
    assert "--allow-side-effects append_note" in err
    assert "nothing to evaluate: all 1 item(s) were skipped" in err
    assert notes.read_text() == "original\n"
    assert main([*args, "-o", str(project.parent / "e2"), "--allow-side-effects", "all"]) == 0
    assert "from eval" in notes.read_text()
