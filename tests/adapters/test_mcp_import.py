"""Importing an MCP server's tools (``load_mcp_tools``, ``p2p tools from-mcp``) into a tools.json
that runs: the tiny test server, ``p2p mcp`` as a server, and an ``optimize()`` run over them."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from play2prompt.adapters.mcp import drop_generated_titles, load_mcp_tools, local_name
from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.lm.fake import FakeLM
from play2prompt.optimize import optimize
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import dump_tools, load_tools
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import EXAMPLES, ROOT
from tests.extras import need

need("mcp", "mcp")
need("mcp_types", "mcp")

SERVER = ROOT / "tests" / "tools" / "mcp_tiny_server.py"
CLI = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"


def execute(tools, base_dir: Path, name: str, **arguments):
    runtime = ToolRuntime(tools, ExecContext(base_dir=base_dir))
    try:
        return asyncio.run(runtime.run(Invocation(name, arguments)))
    finally:
        runtime.close()


def test_load_writes_a_tools_file_that_runs(tmp_path):
    tools = load_mcp_tools(sys.executable, [str(SERVER)], base_dir=tmp_path)
    by_name = {t.name: t for t in tools}
    assert set(by_name) == {"add", "city_info", "nap", "freeze", "shutdown", "note"}
    add = by_name["add"]
    assert add.description == "Add two integers."
    assert add.parameters == {"type": "object", "required": ["a", "b"],
                              "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    conf = add.executor["mcp"]
    assert conf["command"] == sys.executable and conf["args"] == [str(SERVER)]
    assert (tmp_path / conf["cwd"]).resolve() == Path.cwd().resolve()

    path = tmp_path / "tools.json"
    path.write_text(json.dumps(dump_tools(tools)))
    loaded = load_tools(path, select=["city_info"])
    obs = execute(loaded, tmp_path, "city_info", city="Paris")
    assert obs.ok and obs.output["country"] == "France"


def test_prefix_and_select_keep_the_servers_name(tmp_path):
    (tool,) = load_mcp_tools(sys.executable, [str(SERVER)], base_dir=tmp_path, prefix="tiny.",
                             select=["add"])
    assert tool.name == "tiny_add" and tool.executor["mcp"]["tool"] == "add"
    assert execute([tool], tmp_path, "tiny_add", a=2, b=3).output == 5
    with pytest.raises(UserError, match="has no tool nope .it lists: add, city_info"):
        load_mcp_tools(sys.executable, [str(SERVER)], select=["nope"])


def test_unreachable_server_is_a_one_line_user_error(tmp_path):
    with pytest.raises(UserError) as err:
        load_mcp_tools("no-such-mcp-server", ["--flag"], base_dir=tmp_path)
    assert "no-such-mcp-server --flag" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UserError, match="command .after --. or --url"):
        load_mcp_tools()


def test_cli_from_mcp(tmp_path, capsys):
    out = tmp_path / "project" / "tools.json"
    code = main(["tools", "from-mcp", "-o", str(out), "--cwd", str(SERVER.parent), "--tool",
                 "add", "--tool", "city_info", "--", sys.executable, SERVER.name])
    assert code == 0 and "wrote 2 tools" in capsys.readouterr().err
    tools = load_tools(out)                     # relative server path, resolved via "cwd"
    assert tools[0].executor["mcp"]["args"] == ["mcp_tiny_server.py"]
    assert execute(tools, out.parent, "add", a=20, b=22).output == 42

    code = main(["tools", "from-mcp", "--", "no-such-mcp-server"])
    err = capsys.readouterr().err
    assert code == 2 and "no-such-mcp-server" in err and err.count("\n") == 1
    assert main(["tools", "from-mcp", "--env", "NOEQUALS", "--", "x"]) == 2


def test_generated_titles_are_dropped_others_kept():
    schema = {"title": "addArguments", "type": "object", "properties": {
        "max_results": {"title": "Max Results", "type": "integer"},
        "city": {"title": "Destination", "type": "string"}}}
    cleaned = drop_generated_titles(schema)
    assert "title" not in cleaned and "title" not in cleaned["properties"]["max_results"]
    assert cleaned["properties"]["city"]["title"] == "Destination"
    assert local_name("files/read.all", "fs:") == "fs_files_read_all"


def test_optimize_plays_with_imported_mcp_tools(tmp_path):
    tools = load_mcp_tools(sys.executable, [str(SERVER)], base_dir=tmp_path,
                           select=["add", "city_info"])
    (tmp_path / "tools.json").write_text(json.dumps(dump_tools(tools)))
    tools = load_tools(tmp_path / "tools.json")
    result = optimize(tools, generator=FakeLM(fill_schema=True), config=preset("quick", seed=5),
                      runs_dir=tmp_path / "runs", run_id="mcp", base_dir=tmp_path)

    assert set(result.tools) == {"add", "city_info"}
    with sqlite3.connect(result.run_dir / "run.db") as db:
        rows = db.execute("SELECT tool, arguments, observation FROM executions").fetchall()
    adds = [(json.loads(a), json.loads(o)) for t, a, o in rows if t == "add"]
    ok_adds = [(a, o) for a, o in adds if o["ok"]]
    assert ok_adds and all(o["output"] == a["a"] + a["b"] for a, o in ok_adds)  # really ran
    cities = [json.loads(o) for t, _, o in rows if t == "city_info"]
    assert cities and all(o["ok"] or "unknown city" in o["error"] for o in cities)
    optimized = load_tools(result.run_dir / "tools.optimized.json")
    assert {t.name: t.executor for t in optimized} == {t.name: t.executor for t in tools}


def _example(name):
    spec = importlib.util.spec_from_file_location("p2p_example_tools", EXAMPLES / "tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_p2p_mcp_is_a_server_too(tmp_path):
    """``p2p mcp RUN --tools`` serves a run's tools over stdio; imported back, they run."""
    from tests.emit.stored import copy_tools_file, make_stored_run

    run_dir = make_stored_run(tmp_path / "runs")
    tools_file = copy_tools_file(tmp_path / "project")
    env = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    tools = load_mcp_tools(sys.executable, ["-c", CLI, "mcp", str(run_dir), "--tools",
                                            str(tools_file)], env=env, base_dir=tmp_path,
                           select=["loan_payment", "convert_units"], start_timeout=60)
    loan = next(t for t in tools if t.name == "loan_payment")
    assert loan.description.startswith("Monthly payment of a fixed-rate")  # the run's doc
    obs = execute(tools, tmp_path, "loan_payment", principal=250000, annual_rate=6.5, years=30)
    assert obs.ok and obs.output == _example("loan_payment")(principal=250000, annual_rate=6.5,
                                                             years=30)


def test_from_mcp_writes_which_tools_are_not_read_only(tmp_path, capsys):
    out = tmp_path / "tools.json"
    assert main(["tools", "from-mcp", "-o", str(out), "--tool", "add", "--tool", "note",
                 "--tool", "nap", "--", sys.executable, str(SERVER)]) == 0
    err = capsys.readouterr().err
    assert "not read-only: note (MCP annotations: not read-only)" in err
    assert "not read-only: nap (MCP server gives no annotations" in err
    assert "not read-only: add" not in err and "--allow-side-effects nap,note" in err
    flags = {e["function"]["name"]: e["side_effects"]
             for e in json.loads(out.read_text())["tools"]}
    assert flags == {"add": False, "note": True, "nap": True}
    assert {t.name: t.side_effects for t in load_tools(out)} == flags


def test_optimize_never_calls_an_annotated_write_tool_without_consent(tmp_path):
    notes = tmp_path / "notes.txt"
    tools = load_mcp_tools(sys.executable, [str(SERVER)], base_dir=tmp_path,
                           env={"TINY_NOTES": str(notes)}, select=["add", "note"])
    config = preset("quick", seed=2)
    optimize(tools, generator=FakeLM(fill_schema=True), config=config,
             runs_dir=tmp_path / "runs", run_id="no", base_dir=tmp_path)
    assert not notes.exists()                                # the server logged no write
    with sqlite3.connect(tmp_path / "runs" / "no" / "run.db") as db:
        assert db.execute("SELECT count(*) FROM executions WHERE tool = 'note'").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM executions WHERE tool = 'add'").fetchone()[0]
    allowed = preset("quick", seed=2, allow_side_effects=("note",))
    optimize(tools, generator=FakeLM(fill_schema=True), config=allowed,
             runs_dir=tmp_path / "runs", run_id="yes", base_dir=tmp_path)
    assert notes.read_text().strip()                         # played with


def test_a_bare_command_is_written_as_the_full_path_that_answered(tmp_path, monkeypatch):
    """Issue 29: "python" in the tools file is another interpreter outside the venv; the
    import writes the program that answered it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "p2p-test-python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    tools = load_mcp_tools("p2p-test-python", [str(SERVER)], base_dir=tmp_path,
                           select=["add"])
    assert tools[0].executor["mcp"]["command"] == str(wrapper)
