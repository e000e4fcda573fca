"""Before a tool's first real use, whether it can start at all: its MCP server's command, its
module, its database (issue 29, item 4); a tool that merely rejects values passes, and nothing
is executed."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from play2prompt.errors import ToolsFileError, UserError
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.health import ToolCannotRun
from play2prompt.tools.model import Tool
from play2prompt.tools.preflight import check_tools_start
from tests.extras import need

HERE = Path(__file__).resolve().parent
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}
PICKY = "def picky(n: int):\n    raise ValueError('n must be below 10')\n"


def _tool(name: str, executor: dict) -> Tool:
    return Tool(name, "", SCHEMA, executor, side_effects=False)


def _check(tools: list[Tool], base_dir: Path) -> None:
    ctx = ExecContext(base_dir=base_dir)
    try:
        check_tools_start(tools, ctx)
    finally:
        ctx.close()


def test_an_mcp_command_that_does_not_exist_is_one_line_naming_tool_cause_and_fix(tmp_path):
    need("mcp", "mcp")
    tool = _tool("wait_for", {"mcp": {"command": "no-such-command-p2p", "args": ["--x"]}})
    with pytest.raises(ToolCannotRun) as caught:
        _check([tool], tmp_path)
    message = str(caught.value)
    assert isinstance(caught.value, UserError) and "\n" not in message
    assert message.startswith("cannot run tool 'wait_for': cannot start MCP server ")
    assert "no-such-command-p2p --x" in message and "command not found" in message
    assert "fix: check the executor's command" in message


def test_an_mcp_server_that_exits_at_once_cannot_start(tmp_path):
    need("mcp", "mcp")
    dies = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"],
            "start_timeout": 20}
    with pytest.raises(ToolCannotRun, match=r"cannot run tool 'gone': .*MCP server"):
        _check([_tool("gone", {"mcp": dies})], tmp_path)


def test_tools_that_start_pass_even_when_they_reject_every_value(tmp_path):
    """Nothing is executed: a Python tool that always raises, and a server's tool that raises
    for an unknown city, both pass (the run's health watch judges real executions)."""
    need("mcp", "mcp")
    (tmp_path / "picky_tools.py").write_text(PICKY)
    server = {"command": sys.executable, "args": [str(HERE / "mcp_tiny_server.py")]}
    tools = [_tool("picky", {"python": "picky_tools.py:picky"}),
             _tool("city_info", {"mcp": server}), _tool("add", {"mcp": server})]
    _check(tools, tmp_path)


def test_a_missing_module_or_database_is_named(tmp_path):
    with pytest.raises(ToolsFileError, match=r"tool 'lost': executor 'python': cannot load"):
        _check([_tool("lost", {"python": "no_such_module_p2p:f"})], tmp_path)
    query = {"sqlite": {"database": "dbs/shop.sqlite", "sql": "SELECT name FROM sqlite_master",
                        "params": {}}}
    with pytest.raises(ToolCannotRun) as caught:
        _check([_tool("shop", query)], tmp_path)
    assert "database not found" in str(caught.value) and "shop.sqlite" in str(caught.value)
    assert "fix: correct the executor's 'database' path" in str(caught.value)
    (tmp_path / "dbs").mkdir()
    sqlite3.connect(tmp_path / "dbs" / "shop.sqlite").close()
    _check([_tool("shop", query)], tmp_path)
