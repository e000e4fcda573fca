"""``p2p mcp RUN --tools FILE`` started over stdio by the MCP SDK's client, as an agent starts
it: this checkout's play2prompt on the path, in a folder of the test's."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

CLI = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"


def p2p_mcp_params(run_dir: Path, tools_file: Path, cwd: Path) -> Any:
    """The ``mcp.StdioServerParameters`` of ``p2p mcp run_dir --tools tools_file``."""
    import mcp

    return mcp.StdioServerParameters(
        command=sys.executable, args=["-c", CLI, "mcp", str(run_dir), "--tools", str(tools_file)],
        env={"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")},
        cwd=str(cwd))
