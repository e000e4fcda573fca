"""The embedded model as StableToolBench's simulator and as a schema-constrained ReAct agent."""

import asyncio

import pytest

from play2prompt.adapters.stabletoolbench.data import query_tools
from play2prompt.agent.react import FINISH, ReactAgent
from play2prompt.lm.registry import make_lm
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime

from .stb_fixtures import slice_queries, slice_source

pytestmark = pytest.mark.embedded


def test_embedded_simulates_an_api_and_takes_a_valid_react_step(tmp_path):
    source = slice_source()
    query = slice_queries()[0]
    tools = query_tools(query, source)
    lm = make_lm("embedded")
    store = RunStore(tmp_path / "run.db")
    runtime = ToolRuntime(tools, ExecContext(lm=lm, store=store), store)
    try:
        # 'Songkick festivals' answers {"message": "str"}: the simulator must give that shape.
        obs = asyncio.run(runtime.run(Invocation("songkick_festivals_for_theclique",
                                                 {"id_fest": "dreamstate-socal-2022"})))
        assert obs.ok, obs.error
        assert isinstance(obs.output, dict) and isinstance(obs.output.get("message"), str)
        agent = ReactAgent(lm, runtime, fmt="json", max_steps=1)
        traj = asyncio.run(agent.run(query.query_id, query.query, tools))
        step = traj.steps[0]
        assert step.error is None  # the grammar only allows a listed function or Finish
        assert step.action in {t.name for t in tools} | {FINISH}
    finally:
        runtime.close()
        store.close()
        lm.close()
