"""StableToolBench names, the cache key, and the executor's fallback order."""

import asyncio
import json
from dataclasses import replace

import pytest

from play2prompt.adapters.stabletoolbench.data import api_tool
from play2prompt.adapters.stabletoolbench.executor import ResponseCache, virtual_payload
from play2prompt.adapters.stabletoolbench.names import (
    cache_file,
    cache_key,
    function_name,
    standardize,
    standardize_category,
)
from play2prompt.errors import ToolsFileError
from play2prompt.lm.fake import FakeLM
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext, make_executor
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime

from .stb_fixtures import CACHE_ENTRIES, VirtualServer, slice_queries, write_cache


def test_names_follow_stabletoolbench():
    assert standardize("Kick.com API | Kick API") == "kick_com_api_kick_api"
    assert standardize("Morpheus Predictions ") == "morpheus_predictions"
    assert standardize("/api/Tracking/") == "api_tracking"
    assert standardize("10 interesting quotes") == "get_10_interesting_quotes"
    assert standardize("Driver's quotes by ID") == "driver_s_quotes_by_id"
    assert function_name("Get Channel Clips", "kick_com_api_kick_api") == (
        "get_channel_clips_for_kick_com_api_kick_api")
    assert function_name("id", "x") == "is_id_for_x"
    long = function_name("Driver's quotes with pagination of 10 quotes each page",
                         "f1_drivers_quotes")
    assert len(long) == 64 and long.endswith("_for_f1_drivers_quotes")
    assert long == ("driver_s_quotes_with_pagination_of_10_quotes_each_page"
                    "_for_f1_drivers_quotes")[-64:]
    assert standardize_category("News, Media") == "News_Media"
    assert standardize_category("Video, Images") == "Video_Images"


def test_cache_key_reproduces_str_of_the_argument_dict(tmp_path):
    assert cache_key({"name": "messi"}) == "{'name': 'messi'}"
    args = {"name": "O'Neil", "page": 2, "exact": True, "score": 2.5, "club": None}
    assert cache_key(args) in CACHE_ENTRIES
    path = write_cache(tmp_path)
    assert cache_file(tmp_path, "Data", "theclique", "Transfermarkt search") == path
    cache = ResponseCache(path)
    assert cache.lookup(args)["response"] == "one player"
    reordered = dict(reversed(list(args.items())))
    assert cache_key(reordered) not in CACHE_ENTRIES
    assert cache.lookup(reordered)["response"] == "one player"  # same call, other order
    assert cache.lookup({"name": "ronaldo"}) is None


def _search_tool(tmp_path, server=None):
    query = next(q for q in slice_queries() if q.query_id == "588")
    api = next(a for a in query.apis if a["api_name"] == "Transfermarkt search")
    write_cache(tmp_path / "cache")
    from play2prompt.adapters.stabletoolbench.data import Source

    source = Source(tmp_path, None, tmp_path / "cache")
    return api_tool(api, source, None, server)


def test_tool_is_named_and_typed_as_stabletoolbench(tmp_path):
    tool = _search_tool(tmp_path)
    assert tool.name == "transfermarkt_search_for_theclique"
    assert tool.required == ["name"]
    assert tool.properties["name"]["examples"] == ["messi"]
    spec = tool.executor["stabletoolbench"]
    assert spec["standard_tool"] == "theclique" and spec["category"] == "Data"
    payload = virtual_payload(spec, {"name": "x"}, "truncate", "k")
    assert payload == {"category": "Data", "tool_name": "theclique",
                       "api_name": "transfermarkt_search", "tool_input": '{"name": "x"}',
                       "strip": "truncate", "toolbench_key": "k"}


def test_fallback_order_cache_then_server_then_simulator(tmp_path):
    server = VirtualServer()
    store = RunStore(tmp_path / "run" / "run.db")
    lm = FakeLM(default={"response": {"simulated": True}})
    ctx = ExecContext(lm=lm, store=store)
    try:
        ex = make_executor(_search_tool(tmp_path, server.url), ctx)
        hit = asyncio.run(ex.aexecute({"name": "messi"}))
        assert hit.ok and hit.output == {"Players": [{"name": "Lionel Messi"}]}
        assert ex.last_source == "cache" and server.requests == [] and lm.requests == []
        err = asyncio.run(ex.aexecute({"name": "nobody"}))
        assert not err.ok and err.error_type == "api" and "Message error" in err.error

        served = asyncio.run(ex.aexecute({"name": "ronaldo"}))
        assert ex.last_source == "server" and lm.requests == []
        assert served.output == {"from": "server", "input": '{"name": "ronaldo"}'}
        sent = server.requests[0]
        assert sent["path"] == "/virtual" and sent["tool_name"] == "theclique"
        assert sent["api_name"] == "transfermarkt_search" and sent["category"] == "Data"
        assert json.loads(sent["tool_input"]) == {"name": "ronaldo"}

        server.stop()  # the server is gone: the simulator answers
        sim = asyncio.run(ex.aexecute({"name": "zidane"}))
        assert sim.ok and sim.output == {"simulated": True} and ex.last_source == "simulator"
        assert len(lm.requests) == 1 and lm.requests[0].role == "simulator"
        assert ex.server_errors, "the unreachable server is recorded"
        prompt = "\n".join(m["content"] for m in lm.requests[0].messages)
        assert "Transfermarkt search" in prompt and "Lionel Messi" in prompt  # doc, examples
        assert "zidane" in prompt
        schema = lm.requests[0].json_schema
        assert schema["properties"]["response"]["type"] == "object"  # from template_response
    finally:
        server.stop() if server.thread.is_alive() else None
        ctx.close()

    # A rerun on the same store answers identically without calling any model.
    lm2 = FakeLM()  # would raise if asked
    ctx2 = ExecContext(lm=lm2, store=store)
    ex2 = make_executor(_search_tool(tmp_path / "again"), ctx2)
    again = asyncio.run(ex2.aexecute({"name": "zidane"}))
    assert again.ok and again.output == {"simulated": True} and lm2.requests == []
    store.close()


def test_runtime_logs_simulated_calls_and_sync_execute_works(tmp_path):
    store = RunStore(tmp_path / "run" / "run.db")
    lm = FakeLM(default={"response": {"n": 1}})
    tool = replace(_search_tool(tmp_path), name="transfermarkt_search_for_theclique")
    rt = ToolRuntime([tool], ExecContext(lm=lm, store=store), store)
    try:
        obs = asyncio.run(rt.run(Invocation(tool.name, {"name": "kaka"})))
        assert obs.ok and obs.output == {"n": 1}
        assert asyncio.run(rt.run(Invocation(tool.name, {"name": "kaka"}))).output == obs.output
        assert rt.cache_hits == 1 and len(lm.requests) == 1
        stats = store.execution_stats()
        assert stats[f"{tool.name}#simulated"]["total"] == 1  # the explicit record
        sync = rt.executor(tool.name).execute({"name": "pele"})  # no loop in this thread
        assert sync.ok and len(lm.requests) == 2
    finally:
        rt.close()
        store.close()


def test_unreadable_simulation_is_an_error_observation(tmp_path):
    ctx = ExecContext(lm=FakeLM(default="not json at all"), store=None)
    ex = make_executor(_search_tool(tmp_path), ctx)
    obs = asyncio.run(ex.aexecute({"name": "zz"}))
    assert not obs.ok and obs.error_type == "simulation"
    no_lm = make_executor(_search_tool(tmp_path / "b"), ExecContext())
    obs = asyncio.run(no_lm.aexecute({"name": "zz"}))
    assert not obs.ok and obs.error_type == "unavailable"


@pytest.mark.parametrize("bad", [{"stabletoolbench": {"category": "Data"}},
                                 {"stabletoolbench": "theclique"}])
def test_bad_spec_is_a_clear_error(bad, tmp_path):
    tool = replace(_search_tool(tmp_path), executor=bad)
    with pytest.raises(ToolsFileError, match="needs standard_tool"):
        make_executor(tool, ExecContext())
