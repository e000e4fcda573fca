import json
import re

import pytest

from play2prompt.adapters.spider.build import build_spider
from play2prompt.adapters.spider.problems import read_problems
from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.lm.fake import FakeLM
from play2prompt.optimize import optimize
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from tests.adapters.spider_fixture import build_tiny_spider


@pytest.fixture(scope="module")
def spider_dir(tmp_path_factory):
    return build_tiny_spider(tmp_path_factory.mktemp("spider"))


def test_build_writes_tools_and_verified_problems(spider_dir, tmp_path):
    res = build_spider(spider_dir, tmp_path / "out", generator=None)
    assert res.stats["questions"] == 7 and res.stats["dropped: empty gold"] == 1
    problems = read_problems(tmp_path / "out" / "problems.jsonl")
    assert len(problems) == 6 == res.stats["problems"]
    backed = [p for p in problems if p.has_backup]
    assert len(backed) == 2 and all(len(p.solutions) == 2 for p in backed)
    tools = load_tools(tmp_path / "out" / "tools.json")
    assert {t.executor["sqlite"]["database"] for t in tools} == {"databases/concerts.sqlite"}
    assert (tmp_path / "out" / "databases" / "concerts.sqlite").is_file()
    # every solution set, executed from tools.json as written, gives the gold rows
    rt = ToolRuntime(tools, ExecContext(base_dir=tmp_path / "out"))
    try:
        for problem in problems:
            for sol in problem.solutions:
                outputs = []
                for call in sol:
                    args = dict(call.arguments)
                    args.update({k: outputs[i] for k, i in call.inputs.items()})
                    obs = rt.run_sync(Invocation(call.name, args))
                    assert obs.ok, obs.error
                    outputs.append(obs.output)
                values = sorted(json.dumps(list(r.values())) for r in outputs[-1])
                assert values == sorted(json.dumps(list(r.values())) for r in problem.gold)
    finally:
        rt.close()


def test_obfuscated_names_hide_the_function(spider_dir, tmp_path):
    res = build_spider(spider_dir, tmp_path / "obf", generator=None, obfuscate=True, seed=3)
    names = [t.name for t in res.tools]
    assert all(re.fullmatch(r"function_\d+", n) for n in names)
    readable = {"country", "age", "year", "name", "excluded_stadium_id_values"}
    params = {p for t in res.tools for p in t.properties}
    assert params and not params & readable
    problems = read_problems(tmp_path / "obf" / "problems.jsonl")
    by_name = {t.name: t for t in res.tools}
    for p in problems:
        for sol in p.solutions:
            for call in sol:
                assert set(call.arguments) == set(by_name[call.name].properties)


def test_seed_docs_from_the_llm_are_checked_then_fall_back(spider_dir, tmp_path):
    def doc_reply(request, index):
        schema = request.json_schema["properties"]["params"]["properties"]
        return {"description": "Returns the singer names of the singer table for a country.",
                "params": {name: "The value to compare with." for name in schema}}

    # only the function filtering singers by country gets a usable LLM doc;
    # the others get an ungrounded description and fall back after 3 tries
    lm = FakeLM(rules={"COUNT(*) FROM singer WHERE country": doc_reply},
                default={"description": "Something entirely unrelated here.", "params": {}})
    res = build_spider(spider_dir, tmp_path / "docs", generator=lm)
    sources = {t.name: t.meta["spider"]["doc_source"] for t in res.tools}
    assert sources.pop("get_count_of_singer_by_country") == "llm"
    assert set(sources.values()) == {"mechanical"}
    assert res.stats["docs by the LLM"] == 1
    assert res.stats["rejected doc tries"] == 3 * (len(res.tools) - 1)
    mech = next(t for t in res.tools
                if t.name == "get_name_of_stadium_by_excluded_stadium_id_values")
    assert "stadium" in mech.description
    assert mech.properties["excluded_stadium_id_values"]["description"]
    for tool in res.tools:
        assert all(s.get("description") for s in tool.properties.values())


def test_optimize_accepts_the_generated_tools(spider_dir, tmp_path):
    build_spider(spider_dir, tmp_path / "opt", generator=None)
    tools = load_tools(tmp_path / "opt" / "tools.json",
                       select=["get_count_of_singer_by_country"])
    cfg = preset("quick", width=1, expand=1, depth=0, n_e=1, max_tries=2, optimize_docs=False)
    result = optimize(tools, generator=FakeLM(fill_schema=True), config=cfg,
                      runs_dir=tmp_path / "runs", base_dir=tmp_path / "opt")
    stats = result.tools["get_count_of_singer_by_country"].stats
    # the generated calls were executed by the sqlite tool and some returned rows
    assert stats["play_attempts"] >= 1 and stats["valid_invocations"] >= 1
    assert result.stats["tool_executions"] >= 1


def test_bad_spider_folder_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no dev.json"):
        build_spider(tmp_path, tmp_path / "o", generator=None)
    with pytest.raises(UserError, match="not found"):
        build_spider(tmp_path / "missing", tmp_path / "o", generator=None)
