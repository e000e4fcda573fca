"""What the tests of the conventions families share: a tool written into ``tools.py``, an
engine over it (fakes as models) and one call of it that ran."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

from play2prompt.tools.model import Invocation, Observation, Tool


def ran_once(engine_over: Any, tmp_path: Path, source: str, tool: Tool,
             args: dict[str, Any]) -> tuple[Any, Invocation, Observation]:
    """(engine, call, observation) of ``tool`` (its code ``source``) run once with ``args``,
    which must work."""
    (tmp_path / "tools.py").write_text(textwrap.dedent(source))
    engine = engine_over([tool], tmp_path)
    inv = Invocation(tool.name, args)
    obs = asyncio.run(engine.runtime.run(inv))
    assert obs.ok, obs.error
    return engine, inv, obs
